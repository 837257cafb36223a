"""Claims precision / recall / F1: list the gold answer's claims and the response's claims,
find the ones common to both, counting matches separately on each side.

precision = response claims stated by the gold answer / response claims;
recall = gold claims stated by the response / gold claims; F1 = harmonic mean.
The judge is an LLM (``judge=`` or ``--llm-judge``) or the offline judge (default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.judge import judge_name, resolve_judge
from pytest_llmeval.judge.matching import Matching
from pytest_llmeval.judge.prompts import PROMPT_VERSION
from pytest_llmeval.metrics.base import MetricResult, enforce

if TYPE_CHECKING:
    from pytest_llmeval.models.base import ChatModel
    from pytest_llmeval.registry import GradeContext

__all__ = ["ClaimsResult", "assert_claims_f1", "claims_f1", "grade"]


@dataclass(kw_only=True)
class ClaimsResult(MetricResult):
    """Claims precision, recall and F1, with both claim lists and the matching (with reasons)."""

    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    response_claims: list[str] = field(default_factory=list)
    gold_claims: list[str] = field(default_factory=list)
    matching: Matching = field(default_factory=Matching)


def _check_fraction(name: str, value: float | None) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise GraderError(f"claims_f1: {name} must be in [0, 1], got {value!r}")


def _claims_and_matching(
    model: ChatModel | None,
    response: str,
    expected: str,
    question: str | None,
    gold_claims: Sequence[str] | None,
    details: dict[str, Any],
) -> tuple[list[str], list[str], Any]:
    """Both sides' claims (the gold's given or extracted) and which match, offline or by the judge."""
    if model is None:
        from pytest_llmeval.judge.offline import match_claims_offline, split_claims

        resp_claims = split_claims(response)
        gold = list(gold_claims) if gold_claims is not None else split_claims(expected)
        matching, extra = match_claims_offline(resp_claims, gold, question=question)
        details.update(extra)
        return resp_claims, gold, matching
    from pytest_llmeval.judge.llm import extract_claims, match_claims

    details["prompt_version"] = PROMPT_VERSION
    resp_claims = extract_claims(model, response, question=question)
    gold = (
        list(gold_claims)
        if gold_claims is not None
        else extract_claims(model, expected, question=question)
    )
    return resp_claims, gold, match_claims(model, resp_claims, gold, question=question)


def _precision_recall_f1(n_resp: int, n_gold: int, matching: Any) -> tuple[float, float, float]:
    if n_resp == 0 and n_gold == 0:  # nothing claimed on either side: vacuous agreement
        return 1.0, 1.0, 1.0
    precision = matching.matched_response / n_resp if n_resp else 0.0
    recall = matching.matched_gold / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _explanation_parts(
    model: ChatModel | None,
    resp_claims: list[str],
    gold: list[str],
    matching: Any,
    figures: tuple[float, float, float],
    failures: list[str],
    min_f1: float,
) -> list[str]:
    """The counts, the failed thresholds, then each unmatched claim with the judge's reason."""
    precision, recall, f1 = figures
    parts = [
        f"{judge_name(model)} judge: {matching.matched_gold}/{len(gold)} gold claims stated by the response "
        f"(recall {recall:.2f}), {matching.matched_response}/{len(resp_claims)} response claims stated by the "
        f"gold answer (precision {precision:.2f}), F1 {f1:.2f}",
        "; ".join(failures) if failures else f"F1 >= min_f1 {min_f1:.2f}",
    ]
    missing = [
        f"{gold[link.index]!r} ({link.reason})" for link in matching.gold if link.match is None
    ]
    unsupported = [
        f"{resp_claims[link.index]!r} ({link.reason})"
        for link in matching.response
        if link.match is None
    ]
    for label, items in (("missing", missing), ("unsupported", unsupported)):
        if items:
            parts.append(
                f"{label}: "
                + "; ".join(items[:3])
                + (f"; ... {len(items) - 3} more" if len(items) > 3 else "")
            )
    return parts


def claims_f1(
    response: str,
    expected: str,
    *,
    question: str | None = None,
    judge: ChatModel | str | None = None,
    gold_claims: Sequence[str] | None = None,
    min_f1: float = 0.8,
    min_precision: float | None = None,
    min_recall: float | None = None,
) -> ClaimsResult:
    """Claims F1 of ``response`` against ``expected``; ``gold_claims`` skips extracting the gold's.

    >>> r = claims_f1("Revenue rose 5% to $10 billion.", "Revenue grew 5%.", judge="offline")
    >>> (r.recall, r.precision)
    (1.0, 1.0)
    """
    for name, value in (
        ("min_f1", min_f1),
        ("min_precision", min_precision),
        ("min_recall", min_recall),
    ):
        _check_fraction(name, value)
    model = resolve_judge(judge)
    details: dict[str, Any] = {"judge": judge_name(model)}
    resp_claims, gold, matching = _claims_and_matching(
        model, response, expected, question, gold_claims, details
    )
    details["gold_claims_source"] = "given" if gold_claims is not None else "extracted"
    precision, recall, f1 = _precision_recall_f1(len(resp_claims), len(gold), matching)
    failures = []
    if f1 < min_f1:
        failures.append(f"F1 {f1:.2f} < min_f1 {min_f1:.2f}")
    if min_precision is not None and precision < min_precision:
        failures.append(f"precision {precision:.2f} < min_precision {min_precision:.2f}")
    if min_recall is not None and recall < min_recall:
        failures.append(f"recall {recall:.2f} < min_recall {min_recall:.2f}")
    passed = not failures
    parts = _explanation_parts(
        model, resp_claims, gold, matching, (precision, recall, f1), failures, min_f1
    )
    if "fallback" in details:
        parts.append(f"fallback: {details['fallback']}")
    details.update(
        precision=precision,
        recall=recall,
        f1=f1,
        min_f1=min_f1,
        min_precision=min_precision,
        min_recall=min_recall,
        response_claims=resp_claims,
        gold_claims=gold,
        matching=matching.to_dict(),
    )
    return ClaimsResult(
        metric="claims_f1",
        passed=passed,
        score=f1,
        explanation=". ".join(parts),
        details=details,
        precision=precision,
        recall=recall,
        f1=f1,
        response_claims=resp_claims,
        gold_claims=gold,
        matching=matching,
    )


def assert_claims_f1(
    response: str,
    expected: str,
    *,
    question: str | None = None,
    min_f1: float = 0.8,
    min_precision: float | None = None,
    min_recall: float | None = None,
    judge: ChatModel | str | None = None,
    gold_claims: Sequence[str] | None = None,
) -> ClaimsResult:
    """Fail the test unless claims F1 (and precision/recall, when given) reach the thresholds."""
    __tracebackhide__ = True
    result = claims_f1(
        response,
        expected,
        question=question,
        judge=judge,
        gold_claims=gold_claims,
        min_f1=min_f1,
        min_precision=min_precision,
        min_recall=min_recall,
    )
    enforce(result)
    return result


def _optional_fraction(ctx: GradeContext, key: str) -> float | None:
    value = ctx.criteria.get(key, ctx.options.get(key))
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise GraderError(f"claims_f1: {key} must be a number in [0, 1], got {value!r}") from exc


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``claims_f1`` (criteria ``min_f1`` default 0.8, ``min_precision``, ``min_recall``).

    Uses ``ctx.judge`` (None = offline) and the sample's precomputed ``gold_claims`` if any.
    """
    gold = ctx.sample.gold_claims if ctx.sample is not None else None
    min_f1 = _optional_fraction(ctx, "min_f1")
    return claims_f1(
        ctx.response,
        ctx.expected,
        question=ctx.question,
        judge=ctx.judge if ctx.judge is not None else "offline",
        gold_claims=gold,
        min_f1=0.8 if min_f1 is None else min_f1,
        min_precision=_optional_fraction(ctx, "min_precision"),
        min_recall=_optional_fraction(ctx, "min_recall"),
    )
