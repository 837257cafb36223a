"""Sentence coverage: every reference sentence must be represented in the answer."""

from __future__ import annotations

import pytest

from pytest_llmeval.errors import GraderError, LLMEvalAssertionError
from pytest_llmeval.metrics.freetext.coverage import (
    assert_sentence_coverage,
    grade,
    sentence_coverage,
)
from pytest_llmeval.registry import GradeContext
from tests.extras import needs

pytestmark = needs("semantic")

REFERENCE = (
    "Apple reported revenue of $394.3 billion in fiscal 2022. Gross margin was 43.3%. "
    "The company returned over $110 billion to shareholders."
)
FULL = (
    "In fiscal 2022 Apple reported revenue of $394.3 billion. Its gross margin was 43.3%. "
    "Apple returned more than $110 billion to shareholders."
)
PARTIAL = "In fiscal 2022 Apple reported revenue of $394.3 billion. Its gross margin was 43.3%."


def test_full_answer_covers_every_reference_sentence() -> None:
    result = sentence_coverage(FULL, REFERENCE, threshold=0.7)
    assert result.passed
    assert len(result.matrix) == 3
    assert len(result.matrix[0]) == 3
    assert result.best_generated == [0, 1, 2]
    assert all(v > 0.75 for v in result.per_reference)


def test_missing_sentence_is_named_as_the_worst_covered() -> None:
    result = sentence_coverage(PARTIAL, REFERENCE, threshold=0.7)
    assert not result.passed
    assert result.worst_sentence == "The company returned over $110 billion to shareholders."
    assert result.score == pytest.approx(min(result.per_reference))
    assert result.score < 0.5 < min(result.per_reference[:2])
    assert "worst covered: 'The company returned" in result.explanation


def test_idf_weighting_changes_weights_not_the_verdict() -> None:
    plain = sentence_coverage(PARTIAL, REFERENCE, threshold=0.7)
    weighted = sentence_coverage(PARTIAL, REFERENCE, threshold=0.7, idf=True)
    assert weighted.details["idf"] is True
    assert plain.details["idf"] is False
    assert weighted.per_reference != plain.per_reference
    assert weighted.worst_index == plain.worst_index == 2
    custom = sentence_coverage(
        PARTIAL, REFERENCE, threshold=0.7, idf={"shareholders": 5.0, "returned": 5.0}
    )
    assert custom.per_reference[2] < 0.5


def test_assert_sentence_coverage_and_bad_inputs() -> None:
    with pytest.raises(LLMEvalAssertionError, match="2/3 reference sentences covered"):
        assert_sentence_coverage(PARTIAL, REFERENCE, threshold=0.7)
    with pytest.raises(GraderError, match="no sentences"):
        sentence_coverage("Anything.", "   ")
    with pytest.raises(GraderError, match="threshold"):
        sentence_coverage(FULL, REFERENCE, threshold=85)
    empty = sentence_coverage("", REFERENCE)
    assert empty.score == 0.0
    assert "the answer has no sentences" in empty.explanation


def test_rubric_grader() -> None:
    ctx = GradeContext(
        response=FULL, expected=REFERENCE, question=None, criteria={"min_coverage": 0.7}
    )
    assert grade(ctx).passed
