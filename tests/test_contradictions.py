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
