"""Contradictions veto, never the other way: an answer's own polarity words, an explicitly
different date or figure, figures tied to the words beside them, and one grading path."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.freetext.identity import identity_match

# ---------------------------------------------------------------- dates and fiscal periods


@pytest.mark.parametrize(
    "response",
    [
        "Fiscal 2021 ended on September 24, 2021.",
        "FY2021 closed on 24 September 2021.",
        "The fiscal year 2021 ended 2021-09-24.",
        "Apple's fiscal 2021 came to an end on Sept 24, 2021, a Friday.",
    ],
)
def test_a_different_day_beside_the_fiscal_year_fails(response: str) -> None:
    result = identity_match(response, "September 25, 2021")
    assert not result.passed
    assert not result.needs_review
    assert "names a different" in result.explanation


@pytest.mark.parametrize(
    "response",
    ["Fiscal 2021 ended on September 25, 2021.", "FY2021 closed on 25 September 2021.", "2021-09-25 (fiscal 2021)"],
)
def test_the_same_day_beside_the_fiscal_year_passes(response: str) -> None:
    assert identity_match(response, "September 25, 2021").passed


def test_a_fiscal_year_alone_neither_names_nor_contradicts_a_day() -> None:
    result = identity_match("It was the last day of fiscal 2021.", "September 25, 2021")
    assert not result.passed
    assert "states no date" in result.explanation
    # a bare year and a fiscal year of the same number are one identity
    assert identity_match("It was fiscal 2022.", "2022").passed
    assert not identity_match("It was fiscal 2021.", "2022").passed


# ---------------------------------------------------------------- the difference an explanation gives

from pytest_llmeval.metrics.numeric import numeric_match  # noqa: E402


@pytest.mark.parametrize(
    ("question", "expected", "response", "difference"),
    [
        ("What was revenue in USD millions?", "100", "Revenue was $105 million.", 5.0),
        ("What was revenue in millions?", "100", "Revenue came to 105.", 5.0),
        ("Hva var driftsinntektene i millioner kroner?", "1 000", "Driftsinntektene var 950 millioner kroner.", 5.0),
        ("What was capex in USD billions?", "$8.70", "Capital spending was $9.135 billion.", 5.0),
    ],
)
def test_a_failure_gives_the_difference_of_the_two_values_compared(
    question: str, expected: str, response: str, difference: float
) -> None:
    result = numeric_match(response, expected, question=question)
    assert not result.passed
    assert result.percentage_difference == pytest.approx(difference)
    assert f"difference {difference:.4g}%" in result.explanation


@pytest.mark.parametrize(
    ("question", "expected", "response"),
    [
        ("What was revenue in USD millions?", "100", "Revenue was $100 million."),
        ("What was the net loss?", "A net loss of $3.2 million", "The net result was $3.2 million."),
        ("What share of revenue did operating expenses take?", "14.7%", "Operating expenses averaged (14.7)% of revenue."),
    ],
)
def test_a_pass_gives_the_difference_of_the_two_values_compared(question: str, expected: str, response: str) -> None:
    result = numeric_match(response, expected, question=question)
    assert result.passed, result.explanation
    assert result.percentage_difference == 0.0
    assert "(difference 0%)" in result.explanation
