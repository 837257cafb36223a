"""Exact and rapidfuzz graders, and the fuzzy key-fact inclusion check."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.freetext.fuzzy import (
    content_words,
    fact_inclusion,
    grade_exact,
    grade_fuzzy,
    normalise_text,
)
from pytest_llmeval.registry import GradeContext, GraderRegistry


def ctx(response: str, expected: str, **criteria: object) -> GradeContext:
    return GradeContext(
        response=response, expected=expected, question=None, criteria=dict(criteria)
    )


def test_exact_ignores_case_whitespace_and_surrounding_punctuation() -> None:
    assert grade_exact(ctx("  Customer deposits. ", "customer   deposits")).passed
    result = grade_exact(ctx("Customer deposits and long-term debt", "Customer deposits"))
    assert not result.passed
    assert result.score == 0.0
    assert "!=" in result.explanation
    assert result.details == {"refusal": False, "needs_review": False}


def test_fuzzy_uses_token_set_ratio_against_min_ratio() -> None:
    near = grade_fuzzy(
        ctx("United States, EMEA, APAC and LACC", "United States, EMEA, APAC, and LACC")
    )
    assert near.passed
    assert near.score > 0.95
    far = grade_fuzzy(ctx("Customer deposits", "Long-term debt", min_ratio=0.5))
    assert not far.passed
    assert "min_ratio 0.50" in far.explanation


@pytest.mark.parametrize("bad", ["high", 1.5, -0.1])
def test_fuzzy_bad_threshold_is_a_grader_error(bad: object) -> None:
    with pytest.raises(GraderError, match="min_ratio"):
        grade_fuzzy(ctx("a", "a", min_ratio=bad))


def test_failed_match_that_is_a_refusal_is_reported_as_one() -> None:
    refused = grade_exact(
        ctx("I'm sorry, but the document does not include this information.", "Customer deposits")
    )
    assert refused.details["refusal"] is True
    assert grade_fuzzy(
        ctx("The text does not provide the largest liability.", "Customer deposits")
    ).details["refusal"]
    assert grade_exact(ctx("N/A", "n/a")).details["refusal"] is False  # matched: not a refusal


def test_registry_resolves_both_graders() -> None:
    registry = GraderRegistry()
    assert registry.get("exact") is grade_exact
    assert registry.get("fuzzy") is grade_fuzzy


def test_fact_inclusion_matches_word_forms_and_ignores_question_words() -> None:
    question = "Which business segment of JnJ will be treated as a discontinued operation from August 30, 2023 onward?"
    gold = "The Consumer Health business segment will be treated as a discontinued operation from August 30, 2023 onward."
    hit = fact_inclusion(
        "JnJ's consumer-health business is reported as discontinued operations.",
        gold,
        question=question,
    )
    assert hit.passed
    assert hit.score == 1.0
    assert hit.found == ["consumer", "health"]
    miss = fact_inclusion("The MedTech segment is discontinued.", gold, question=question)
    assert not miss.passed
    assert miss.missing == ["consumer", "health"]
    assert "0/2 key words" in miss.explanation


def test_fact_inclusion_without_question_uses_all_content_words() -> None:
    result = fact_inclusion(
        "Las Vegas Strip resorts had the highest EBITDAR.",
        "Las Vegas resorts contributed most EBITDAR",
    )
    assert result.found == ["las", "vegas", "resorts", "ebitdar"]
    assert result.missing == ["contributed"]
    assert result.score == pytest.approx(0.8)


def test_content_words_drop_stopwords_and_keep_order() -> None:
    assert content_words("The consumer segment shrunk by 0.9% organically.") == [
        "consumer",
        "segment",
        "shrunk",
        "0.9",
        "organically",
    ]


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=60))
def test_normalise_is_idempotent_and_exact_is_reflexive(text: str) -> None:
    assert normalise_text(normalise_text(text)) == normalise_text(text)
    assert grade_exact(ctx(text, text)).passed
