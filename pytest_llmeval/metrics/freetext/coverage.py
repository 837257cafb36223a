"""Sentence coverage: is every reference sentence represented in the answer?

M[i][j] is a BERTScore-style F1 between generated sentence i and reference sentence j:
greedy matching of contextual token embeddings from the embedding model (cosine, optional
idf weights). The score is min over reference sentences of the max over generated ones,
so it is as low as the worst-covered reference sentence, which the result names.
Absolute values depend on the embedding model (token vectors of all-MiniLM-L6-v2 are
not those BERTScore was calibrated on), so tune ``threshold`` for the model you use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce

if TYPE_CHECKING:
    import numpy as np

    from pytest_llmeval.registry import GradeContext

__all__ = ["CoverageResult", "assert_sentence_coverage", "grade", "pair_f1", "sentence_coverage"]


@dataclass(kw_only=True)
class CoverageResult(MetricResult):
    """Coverage of each reference sentence by its best generated sentence."""

    threshold: float = 0.85
    response_sentences: list[str] = field(default_factory=list)
    reference_sentences: list[str] = field(default_factory=list)
    matrix: list[list[float]] = field(default_factory=list)  # [generated i][reference j]
    per_reference: list[float] = field(default_factory=list)
    best_generated: list[int | None] = field(default_factory=list)
    worst_index: int | None = None
    worst_sentence: str | None = None
    model: str = ""


def _weights(tokens: list[str], idf: Mapping[str, float] | None) -> Any:
    import numpy as np

    if idf is None:
        return np.ones(len(tokens), dtype=np.float32)
    return np.array([idf.get(t, max(idf.values(), default=1.0)) for t in tokens], dtype=np.float32)


def pair_f1(
    gen: tuple[list[str], np.ndarray],
    ref: tuple[list[str], np.ndarray],
    idf: Mapping[str, float] | None = None,
) -> float:
    """BERTScore-style F1 of two (tokens, unit token vectors) pairs."""
    (gen_tokens, gen_vecs), (ref_tokens, ref_vecs) = gen, ref
    if len(gen_tokens) == 0 or len(ref_tokens) == 0:
        return 0.0
    sims = gen_vecs @ ref_vecs.T
    w_gen, w_ref = _weights(gen_tokens, idf), _weights(ref_tokens, idf)
    if float(w_gen.sum()) <= 0 or float(w_ref.sum()) <= 0:
        w_gen, w_ref = _weights(gen_tokens, None), _weights(ref_tokens, None)
    precision = float((sims.max(axis=1) * w_gen).sum() / w_gen.sum())
    recall = float((sims.max(axis=0) * w_ref).sum() / w_ref.sum())
    return 0.0 if precision + recall <= 0 else 2 * precision * recall / (precision + recall)


def _reference_idf(ref_tokens: list[list[str]]) -> dict[str, float] | None:
    # BERTScore's idf over the reference sentences: log((M + 1) / (df + 1)).
    # With one sentence every token would weigh 0, so weights stay uniform.
    m = len(ref_tokens)
    if m < 2:
        return None
    df: dict[str, int] = {}
    for tokens in ref_tokens:
        for t in set(tokens):
            df[t] = df.get(t, 0) + 1
    return {t: math.log((m + 1) / (n + 1)) for t, n in df.items()}


def sentence_coverage(
    response: str,
    reference: str,
    *,
    threshold: float = 0.85,
    model: str | None = None,
    idf: bool | Mapping[str, float] = False,
) -> CoverageResult:
    """min over reference sentences of the best token-level F1 with any answer sentence.

    ``idf=True`` weighs tokens by idf over the reference's sentences; a mapping gives
    your own token weights (e.g. idf over a whole suite's references).
    """
    from pytest_llmeval.judge.offline import split_sentences
    from pytest_llmeval.metrics.freetext.semantic import model_key, model_label, token_embeddings

    if not 0.0 <= threshold <= 1.0:
        raise GraderError(f"sentence_coverage: threshold must be in [0, 1], got {threshold!r}")
    gen_sents, ref_sents = split_sentences(response), split_sentences(reference)
    if not ref_sents:
        raise GraderError("sentence_coverage: the reference has no sentences to cover")
    gen_emb = token_embeddings(gen_sents, model=model)
    ref_emb = token_embeddings(ref_sents, model=model)
    weights: Mapping[str, float] | None
    if idf is True:
        weights = _reference_idf([tokens for tokens, _ in ref_emb])
    elif idf is False:
        weights = None
    else:
        weights = idf
    matrix = [[pair_f1(g, r, weights) for r in ref_emb] for g in gen_emb]
    per_ref: list[float] = []
    best: list[int | None] = []
    for j in range(len(ref_sents)):
        column = [matrix[i][j] for i in range(len(gen_sents))]
        if column:
            i_best = max(range(len(column)), key=lambda i: (column[i], -i))
            per_ref.append(column[i_best])
            best.append(i_best)
        else:
            per_ref.append(0.0)
            best.append(None)
    worst = min(range(len(ref_sents)), key=lambda j: (per_ref[j], j))
    score = per_ref[worst]
    passed = score >= threshold
    label = model_label(model_key(model))
    covered = sum(v >= threshold for v in per_ref)
    explanation = (
        f"{covered}/{len(ref_sents)} reference sentences covered (best token-level F1 with an answer "
        f"sentence >= {threshold:.2f}, {label} token embeddings{', idf-weighted' if weights else ''}); "
        f"coverage = worst reference sentence's F1 {score:.3f} {'>=' if passed else '<'} threshold {threshold:.2f}; "
        f"worst covered: {ref_sents[worst]!r}"
    )
    if best[worst] is not None:
        explanation += f" (closest answer sentence: {gen_sents[best[worst]]!r})"  # type: ignore[index]
    else:
        explanation += " (the answer has no sentences)"
    return CoverageResult(
        metric="sentence_coverage",
        passed=passed,
        score=max(0.0, min(1.0, score)),
        explanation=explanation,
        details={
            "threshold": threshold,
            "per_reference": per_ref,
            "worst_sentence": ref_sents[worst],
            "model": label,
            "idf": bool(weights),
        },
        threshold=threshold,
        response_sentences=gen_sents,
        reference_sentences=ref_sents,
        matrix=matrix,
        per_reference=per_ref,
        best_generated=best,
        worst_index=worst,
        worst_sentence=ref_sents[worst],
        model=label,
    )


def assert_sentence_coverage(
    response: str,
    reference: str,
    *,
    threshold: float = 0.85,
    model: str | None = None,
    idf: bool | Mapping[str, float] = False,
) -> CoverageResult:
    """Fail the test unless every reference sentence is represented in the response."""
    __tracebackhide__ = True
    result = sentence_coverage(response, reference, threshold=threshold, model=model, idf=idf)
    enforce(result)
    return result


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``sentence_coverage`` (``criteria['min_coverage']``, default 0.85)."""
    value = ctx.criteria.get("min_coverage", ctx.options.get("min_coverage", 0.85))
    try:
        threshold = float(value)
    except (TypeError, ValueError) as exc:
        raise GraderError(f"min_coverage must be a number in [0, 1], got {value!r}") from exc
    return sentence_coverage(
        ctx.response,
        ctx.expected,
        threshold=threshold,
        model=ctx.options.get("embedding_model"),
        idf=bool(ctx.criteria.get("coverage_idf", False)),
    )
