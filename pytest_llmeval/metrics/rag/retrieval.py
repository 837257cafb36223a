"""Retrieval ranking metrics: the team's modified precision and harmonic nDCG, plus the standard IR measures.

Conventions (see the README section "Retrieval metrics"):

* ``retrieved`` is the ranked list the system returned, best first. Ids are compared as strings
  (``1`` and ``"1"`` are the same document). A repeated id counts once: later repeats are dropped
  and the list closes up, so ``[a, a, b]`` is ranked as ``[a, b]``.
* ``relevant`` is a collection of ids (binary relevance) or a mapping id -> graded relevance.
  A grade <= 0 means judged non-relevant (trec_eval's convention). An empty relevant set is an error.
* IDCG counts every known relevant document, retrieved or not (trec_eval convention).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce

_ID_KEYS = ("id", "doc_id", "document_id", "source_id")


@dataclass(kw_only=True)
class RetrievalResult(MetricResult):
    """All retrieval measures for one ranked list; ``score`` is ``ndcg_harmonic``."""

    modified_precision: float
    ndcg_harmonic: float
    precision_at_k: float
    recall_at_k: float
    hit_rate: float
    mrr: float
    average_precision: float
    ndcg_at_k: float
    k: int | None


def _doc_id(item: Any) -> str:
    # Providers sometimes return {"id": ..., "score": ...} records instead of bare ids.
    if isinstance(item, Mapping):
        for key in _ID_KEYS:
            if key in item:
                return str(item[key])
        raise ValueError(f"retrieved item {item!r} has none of the id keys {', '.join(_ID_KEYS)}")
    return str(item)


def _normalise_retrieved(retrieved: Iterable[Any]) -> tuple[list[str], list[str]]:
    """Return (ranking without repeats, the repeated ids that were dropped)."""
    if isinstance(retrieved, (str, bytes)):
        raise TypeError("retrieved must be a list of document ids, not a single string")
    seen: set[str] = set()
    ranking: list[str] = []
    dropped: list[str] = []
    for item in retrieved:
        doc = _doc_id(item)
        if doc in seen:
            dropped.append(doc)
            continue
        seen.add(doc)
        ranking.append(doc)
    return ranking, dropped


def _normalise_relevant(relevant: Any) -> dict[str, float]:
    """Map id -> positive grade; ids graded <= 0 are judged non-relevant and left out."""
    if isinstance(relevant, (str, bytes)):
        raise TypeError("relevant must be a list of ids or a dict id -> grade, not a single string")
    grades: dict[str, float] = {}
    if isinstance(relevant, Mapping):
        for key, value in relevant.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
                raise ValueError(f"relevance grade for {key!r} must be a number, got {value!r}")
            if value > 0:
                grades[str(key)] = float(value)
    elif relevant is not None:
        for key in relevant:
            grades[str(key)] = 1.0
    if not grades:
        raise ValueError(
            "relevant set is empty (no id with a grade > 0): retrieval metrics divide by the number "
            "of relevant documents, so at least one relevant id is needed"
        )
    return grades


def _dcg_log2(gains: Sequence[float]) -> float:
    # Rank r (1-based) is discounted by log2(r + 1): trec_eval's ndcg, linear gains.
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def _measures_at_k(
    ranking: list[str], hits: list[bool], grades: dict[str, float], k: int | None
) -> dict[str, float]:
    """Standard measures at cutoff k (k=None: the whole list; precision then divides by n)."""
    m = len(grades)
    top = ranking if k is None else ranking[:k]
    top_hits = hits[: len(top)]
    denom_p = len(ranking) if k is None else k
    n_hits = sum(top_hits)
    first = next((i for i, hit in enumerate(top_hits) if hit), None)
    running = 0
    ap_sum = 0.0
    for i, hit in enumerate(top_hits):
        if hit:
            running += 1
            ap_sum += running / (i + 1)
    ideal = sorted(grades.values(), reverse=True)
    if k is not None:
        ideal = ideal[:k]
    return {
        "precision": n_hits / denom_p if denom_p else 0.0,
        "recall": n_hits / m,
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
        "hit_rate": 0.0 if first is None else 1.0,
        "ap": ap_sum / m,
        "ndcg": _dcg_log2([grades.get(doc, 0.0) for doc in top]) / _dcg_log2(ideal),
    }


def retrieval_metrics(
    retrieved: Sequence[Any], relevant: Any, *, k: int | None = None
) -> RetrievalResult:
    """Score a ranked list of document ids against the relevant ids (or id -> grade).

    ``k`` cuts the standard measures (precision/recall/hit rate/MRR/AP/nDCG@k); ``None`` means the
    whole returned list. ``modified_precision`` and ``ndcg_harmonic`` always use the whole list.
    """
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    ranking, dropped = _normalise_retrieved(retrieved)
    grades = _normalise_relevant(relevant)
    m = len(grades)
    n = len(ranking)

    hits = [doc in grades for doc in ranking]

    # Team measures over the whole returned list, binary relevance.
    modified_precision = sum(hits) / m
    dcg_h = sum(1.0 / (i + 1) for i, hit in enumerate(hits) if hit)
    idcg_h = sum(1.0 / (i + 1) for i in range(m))
    ndcg_harmonic = dcg_h / idcg_h

    at_k = _measures_at_k(ranking, hits, grades, k)
    precision_at_k, recall_at_k, hit_rate, mrr, average_precision, ndcg_at_k = (
        at_k["precision"],
        at_k["recall"],
        at_k["hit_rate"],
        at_k["mrr"],
        at_k["ap"],
        at_k["ndcg"],
    )

    returned = set(ranking)
    missed = [doc for doc in grades if doc not in returned]
    details: dict[str, Any] = {
        "retrieved": ranking,
        "relevant": dict(grades),
        "relevant_retrieved": [doc for doc, hit in zip(ranking, hits, strict=True) if hit],
        "relevant_missed": missed,
        "duplicates_dropped": dropped,
        "n_retrieved": n,
        "n_relevant": m,
        "dcg_harmonic": dcg_h,
        "idcg_harmonic": idcg_h,
    }
    cut = "whole list" if k is None else f"k={k}"
    explanation = (
        f"{sum(hits)} of {m} relevant documents in the {n} returned"
        + (f" ({len(dropped)} repeated id(s) counted once)" if dropped else "")
        + f"; nDCG harmonic {ndcg_harmonic:.3f} (DCG {dcg_h:.3f} / IDCG {idcg_h:.3f}), "
        f"modified precision {modified_precision:.3f}; at {cut}: P {precision_at_k:.3f}, "
        f"R {recall_at_k:.3f}, hit {hit_rate:.0f}, MRR {mrr:.3f}, AP {average_precision:.3f}, "
        f"nDCG(log2) {ndcg_at_k:.3f}" + (f"; missed: {', '.join(missed)}" if missed else "") + "."
    )
    return RetrievalResult(
        metric="retrieval",
        passed=True,
        score=ndcg_harmonic,
        explanation=explanation,
        details=details,
        modified_precision=modified_precision,
        ndcg_harmonic=ndcg_harmonic,
        precision_at_k=precision_at_k,
        recall_at_k=recall_at_k,
        hit_rate=hit_rate,
        mrr=mrr,
        average_precision=average_precision,
        ndcg_at_k=ndcg_at_k,
        k=k,
    )


# threshold keyword -> (result field, label used in the explanation)
_THRESHOLDS = {
    "min_ndcg": ("ndcg_harmonic", "nDCG (harmonic discount, whole list)"),
    "min_precision": ("modified_precision", "modified precision (relevant returned / |R|)"),
    "min_recall": ("recall_at_k", "recall@k"),
    "min_mrr": ("mrr", "MRR"),
    "min_hit_rate": ("hit_rate", "hit rate"),
}


def _apply_thresholds(
    result: RetrievalResult, thresholds: dict[str, float | None]
) -> RetrievalResult:
    checks = []
    failed = []
    for key, minimum in thresholds.items():
        if minimum is None:
            continue
        attr, label = _THRESHOLDS[key]
        value = getattr(result, attr)
        ok = value >= minimum - 1e-12
        checks.append(f"{label} {value:.3f} {'>=' if ok else '<'} {minimum:g} ({key})")
        if not ok:
            failed.append(key)
    result.passed = not failed
    result.details["thresholds"] = {k: v for k, v in thresholds.items() if v is not None}
    result.details["failed_thresholds"] = failed
    verdict = "FAILED: " if failed else "passed: "
    result.explanation = verdict + "; ".join(checks) + ". " + result.explanation
    return result


def assert_retrieval(
    retrieved: Sequence[Any],
    relevant: Any,
    *,
    k: int | None = None,
    min_ndcg: float | None = None,
    min_precision: float | None = None,
    min_recall: float | None = None,
    min_mrr: float | None = None,
    min_hit_rate: float | None = None,
) -> RetrievalResult:
    """Fail the test unless every given threshold holds.

    ``min_ndcg`` checks ``ndcg_harmonic``, ``min_precision`` checks ``modified_precision`` (both
    over the whole list); ``min_recall``, ``min_mrr`` and ``min_hit_rate`` use the cutoff ``k``.
    """
    __tracebackhide__ = True
    thresholds = {
        "min_ndcg": min_ndcg,
        "min_precision": min_precision,
        "min_recall": min_recall,
        "min_mrr": min_mrr,
        "min_hit_rate": min_hit_rate,
    }
    if all(v is None for v in thresholds.values()):
        raise ValueError(
            "assert_retrieval needs at least one threshold: min_ndcg, min_precision, min_recall, "
            "min_mrr or min_hit_rate (use retrieval_metrics() to just compute the measures)"
        )
    result = _apply_thresholds(retrieval_metrics(retrieved, relevant, k=k), thresholds)
    enforce(result)
    return result


def retrieval_component(
    retrieved: Sequence[Any] | None, relevant: Any, k: int | None = None
) -> RetrievalResult | None:
    """The rubric's retrieval component: ``None`` (N/A) when ``retrieved`` or ``relevant`` is missing.

    ``relevant`` comes from the gold file's ``relevant_ids`` (or ``metadata.source_ids``). A relevant
    set that is present but has no positive grade raises :class:`GraderError` (an error, not a fail).
    """
    if retrieved is None or relevant is None:
        return None
    if isinstance(relevant, (Mapping, list, tuple, set, frozenset)) and len(relevant) == 0:
        return None
    try:
        return retrieval_metrics(retrieved, relevant, k=k)
    except (ValueError, TypeError) as exc:
        raise GraderError(f"retrieval component: {exc}") from exc
