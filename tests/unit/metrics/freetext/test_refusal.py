"""Refusal detection on realistic answers: declines vs answers that merely mention a gap."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.errors import LLMEvalAssertionError
from pytest_llmeval.metrics.cue_regex import any_of, first_letters
from pytest_llmeval.metrics.freetext.refusal import (
    _CUE_RE,
    _CUES,
    _FOREIGN_CUES,
    _STRONG,
    _STRONG_RE,
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


# Written independently of the FinanceBench dev answers (GPT-4, GPT-4 Turbo, Claude 2 and Llama 2
# styles, plus Nordic/European-language refusals); labels are the writer's, not the detector's.
CASES_PATH = Path(__file__).parents[3] / "data" / "refusal_cases.jsonl"


def _cases() -> list[dict[str, Any]]:
    with CASES_PATH.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_labelled_cases_f1() -> None:
    cases = _cases()
    assert len(cases) >= 120
    tp = fp = fn = 0
    misses: list[str] = []
    for case in cases:
        predicted, wanted = is_refusal(case["response"]), case["refusal"]
        tp += predicted and wanted
        fp += predicted and not wanted
        fn += wanted and not predicted
        if predicted != wanted:
            misses.append(f"{'FP' if predicted else 'FN'} {case['response'][:90]}")
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    assert f1 >= 0.9, f"F1 {f1:.3f} (P {precision:.3f}, R {recall:.3f}); misses:\n" + "\n".join(
        misses
    )


@pytest.mark.parametrize(
    "text",
    [c["response"] for c in _cases() if c["kind"] == "hard_negative"],
)
def test_hard_negatives_are_not_refusals(text: str) -> None:
    # hedges that still give the figure, and "did not pay dividends" / "has no debt" as the answer
    result = refusal_check(text)
    assert not result.refusal, result.explanation


@pytest.mark.parametrize(
    "text",
    [
        "Beklager, jeg kan ikke svare på det ut fra dokumentet.",
        "Dokumentet inneholder ikke informasjon om selskapets utbytte for 2022.",
        "Det er ikke mulig å beregne driftsmarginen ut fra opplysningene som er gitt.",
    ],
)
def test_norwegian_refusals(text: str) -> None:
    assert is_refusal(text)


def test_norwegian_negative_answer_is_not_a_refusal() -> None:
    assert not is_refusal("Selskapet betalte ikke utbytte i 2022.")
    assert not is_refusal("Nei, selskapet har ingen langsiktig gjeld per 31. desember 2022.")


def test_every_cue_opening_with_a_word_boundary_is_tried_only_where_its_word_starts() -> None:
    # A cue whose first letters the regex parser cannot name stays a plain alternative, tried at
    # every character: write it so it opens with literal words ("(cannot|can't) ...", not "\w+ ...").
    at_word = [p for p in (*_CUES, *_FOREIGN_CUES, *_STRONG) if p.startswith(r"\b")]
    assert len(at_word) > 50
    assert [p for p in at_word if first_letters(p[2:], re.IGNORECASE) is None] == []


def test_combined_cues_match_what_a_plain_alternation_matches() -> None:
    texts = [
        *REFUSALS,
        *ANSWERS,
        *(c["response"] for c in _cases()),
        "_sorry, but I can't",
        "x'm sorry",
        "Sorry, but no.",
        "-- sorry",
        "n/a",
        "  N/A.",
        "(unknown)",
        "I'M SORRY, I CANNOT DETERMINE THIS.",
        "Dessverre inneholder ikke rapporten tallet.",
        "As an AI language model I can't browse.",
        "2021_i don't know",
        "Not available in the 10-K",
    ]
    for patterns, combined in ((_CUES + _FOREIGN_CUES, _CUE_RE), (_STRONG, _STRONG_RE)):
        plain = re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
        for text in texts:
            assert [m.span() for m in combined.finditer(text)] == [
                m.span() for m in plain.finditer(text)
            ], text


def test_combined_alternation_keeps_the_first_pattern_that_matches_at_a_place() -> None:
    # "^\W*sorry" sits between word cues: a later cue matching at the same place must not win
    combined = re.compile(
        any_of([r"\bas an ai\b", r"^\W*sorry\b", r"\bsorry, but\b"], re.IGNORECASE), re.IGNORECASE
    )
    assert [m.group(0) for m in combined.finditer("Sorry, but no.")] == ["Sorry"]
    assert [m.group(0) for m in combined.finditer("Well, sorry, but no.")] == ["sorry, but"]
    assert [m.group(0) for m in combined.finditer("As an AI, sorry")] == ["As an AI"]
