"""All ``assert_*`` helpers and their result-returning twins, in one place.

Each helper is a thin wrapper over a metric (see ``pytest_llmeval.metrics``): it
builds the result object with the twin, records it in the running test's tally,
and raises ``LLMEvalAssertionError`` with a self-explaining message on failure.
Metric modules import their heavy dependencies lazily, so importing this is cheap.
"""

from __future__ import annotations

from pytest_llmeval.metrics.extractive.match import assert_extractive_match, extractive_match
from pytest_llmeval.metrics.freetext.claims import assert_claims_f1, claims_f1
from pytest_llmeval.metrics.freetext.correctness import answer_correctness, assert_answer_correct
from pytest_llmeval.metrics.freetext.coverage import assert_sentence_coverage, sentence_coverage
from pytest_llmeval.metrics.freetext.refusal import assert_not_refusal, is_refusal
from pytest_llmeval.metrics.freetext.semantic import assert_semantic_similarity, semantic_similarity
from pytest_llmeval.metrics.keywords import assert_must_include, must_include
from pytest_llmeval.metrics.length import assert_length, length_score
from pytest_llmeval.metrics.numeric.match import assert_numeric_match, numeric_match
from pytest_llmeval.metrics.rag.citation import assert_citation, citation_check
from pytest_llmeval.metrics.rag.retrieval import assert_retrieval, retrieval_metrics
from pytest_llmeval.metrics.structured import assert_structured_match, structured_match

__all__ = [
    "answer_correctness",
    "assert_answer_correct",
    "assert_citation",
    "assert_claims_f1",
    "assert_extractive_match",
    "assert_length",
    "assert_must_include",
    "assert_not_refusal",
    "assert_numeric_match",
    "assert_retrieval",
    "assert_semantic_similarity",
    "assert_sentence_coverage",
    "assert_structured_match",
    "citation_check",
    "claims_f1",
    "extractive_match",
    "is_refusal",
    "length_score",
    "must_include",
    "numeric_match",
    "retrieval_metrics",
    "semantic_similarity",
    "sentence_coverage",
    "structured_match",
]
