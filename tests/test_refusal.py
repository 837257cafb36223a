"""Refusal detection on realistic answers: declines vs answers that merely mention a gap."""

from __future__ import annotations

import pytest

from pytest_llmeval.errors import LLMEvalAssertionError
from pytest_llmeval.metrics.refusal import (
    RefusalResult,
    assert_not_refusal,
    is_refusal,
    refusal_check,
)

REFUSALS = [
    "I cannot determine this from the provided information.",
    "The document does not include the FY2018 capital expenditure for 3M.",
    "I'm sorry, but the information provided does not include the total assets for FY2021 and FY2022, "
    "which are needed to calculate the return on assets (ROA).",
    "As an AI, I don't have real-time access to financial data or databases. Please refer to the latest "
    "financial reports of PepsiCo for the most accurate information.",
    "The text doesn't provide the necessary information to answer this question.",
    "Unfortunately, I don't have enough information to answer your question. The graph presents daily VaR "
    "but not the values for the second quarter.",
    "To calculate the inventory turnover ratio for Nike we would need COGS and average inventory.\n\n"
    "The formula is COGS / average inventory.\n\nHowever, as an AI developed by OpenAI, I don't have access "
    "to Nike's financial statements, so I cannot provide the ratio.",
    "I could not find the FY2019 revenue in the provided documents.",
    "There isn't enough information in the filing to determine the payout ratio.",
    "Sorry, I can't help with that.",
    "N/A",
    "",
]

ANSWERS = [
    "The FY2018 capital expenditure for 3M was $1,577 million.",
    "Yes, CVS Health paid a $0.55 dividend per share in Q2 of FY2022.",
    "Ulta Beauty does not have any debt securities registered on a national securities exchange; only its "
    "common stock trades on NASDAQ.",
    "Net cash provided by operating activities was $3.6 billion in 2022, more than investing activities. "
    "The document does not provide the financing figure, but operations clearly brought in the most cash.",
    "The FY2018 capital expenditure is not explicitly stated in the cash flow statement. However, we can "
    "calculate it from purchases of PP&E: capital expenditure was $1,577 million.",
    "Microsoft decreased its debt: long-term debt fell from $47.0 billion to $41.99 billion. Note that the "
    "current portion is not broken out in this excerpt, so the total is approximate.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_detected(text: str) -> None:
    result = refusal_check(text)
    assert result.refusal
    assert is_refusal(text)
    assert not result.passed
    assert result.score == 0.0
    assert result.explanation.startswith("refusal: ")


@pytest.mark.parametrize("text", ANSWERS)
def test_answers_are_not_refusals(text: str) -> None:
    result = refusal_check(text)
    assert not result.refusal, result.explanation
    assert result.passed
    assert result.score == 1.0


def test_cues_are_reported_with_their_position() -> None:
    result = refusal_check(
        "I'm sorry, but the provided context does not contain the 2022 dividend."
    )
    assert result.position == 0
    assert any("sorry" in cue.lower() for cue in result.cues)
    assert result.details["refusal"] is True


def test_curly_apostrophes_are_normalised() -> None:
    assert is_refusal(
        "I don\u2019t have the information required to answer the question about PepsiCo."
    )


def test_assert_not_refusal() -> None:
    assert isinstance(assert_not_refusal("Revenue grew 4% to $81.3 billion."), RefusalResult)
    with pytest.raises(
        LLMEvalAssertionError, match=r"refusal failed .*opens with|refusal failed .*says"
    ):
        assert_not_refusal(
            "The text does not provide specific information on Boeing's effective tax rate."
        )
