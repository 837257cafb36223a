"""Identities: dates, years, fiscal periods, quarters, centuries, seasons, ordinals and codes.

A year is a name for a period, not a quantity: "2012" is not 0.25 % away from "2007", it is another
year. Identities are compared as equal, contained or different, never within a tolerance. A gold
answer made only of identities ("2007", "fiscal 2022", "November 8, 1968", "season two", "the 5th")
is graded here (:func:`grade`); :mod:`.periods` reads them, and the free-text judge uses it to spot
a contradicting period in longer answers.

A coarser answer that contains the gold's period ("1968" for "November 8, 1968") is a decision, not
a side effect: ``coarser="pass" | "review" | "fail"`` (``eval_criteria.identity.coarser``, default
``review``: the gate does not count it as a pass until a person or the judge says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult
from pytest_llmeval.metrics.freetext.periods import Identity, identities, identity_only, relation

__all__ = [
    "Identity",
    "IdentityMatch",
    "finer_alias_conflict",
    "grade",
    "identities",
    "identity_match",
    "identity_only",
]

if TYPE_CHECKING:
    from pytest_llmeval.registry import GradeContext

COARSER_POLICIES = ("pass", "review", "fail")
DEFAULT_COARSER = "review"


@dataclass(kw_only=True)
class IdentityMatch(MetricResult):
    """Verdict of :func:`identity_match`; ``needs_review`` for a coarser answer under the review policy."""

    needs_review: bool = False


def identity_match(
    response: str, expected: str, *, coarser: str = DEFAULT_COARSER
) -> IdentityMatch:
    """Does ``response`` name the gold's identities (dates, years, periods, seasons, ordinals)?

    Each gold identity must be named by the answer: the same one, or a finer one inside it (a day
    of the gold's month). A different identity of the same kind, or none at all, fails. A coarser
    one that contains the gold's period follows ``coarser``.
    """
    if coarser not in COARSER_POLICIES:
        raise ValueError(f"coarser must be one of {', '.join(COARSER_POLICIES)}; got {coarser!r}")
    golds, _ = identities(expected)
    said, _ = identities(response or "")
    missing: list[str] = []
    conflicts: list[str] = []
    coarse: list[str] = []
    for gold in golds:
        relations = [(relation(gold, s), s) for s in said]
        if any(rel in ("same", "finer") for rel, _ in relations):
            continue
        coarser_ones = [s for rel, s in relations if rel == "coarser"]
        other = [s for rel, s in relations if rel == "different"]
        if coarser_ones:
            coarse.append(f"{coarser_ones[0].raw!r} only contains {gold.raw!r}")
        elif other:
            conflicts.append(f"{other[0].raw!r} instead of {gold.raw!r}")
        else:
            missing.append(gold.describe())
    needs_review = False
    if conflicts:
        passed, why = False, "names a different " + "; ".join(conflicts)
    elif missing:
        passed, why = False, "states no " + ", ".join(missing)
    elif coarse:
        passed = coarser == "pass"
        needs_review = coarser == "review"
        why = "a coarser period: " + "; ".join(coarse) + f" (coarser answers: {coarser})"
    else:
        passed, why = True, "names the expected " + ", ".join(g.describe() for g in golds)
    return IdentityMatch(
        metric="identity",
        passed=passed and not needs_review,
        score=1.0 if passed and not needs_review else 0.0,
        needs_review=needs_review,
        explanation=f"identity (compared as equal or contained, never within a tolerance): {why}",
        details={
            "needs_review": needs_review,
            "coarser": coarser,
            **({"review_between": "identity grader (coarser period)"} if needs_review else {}),
        },
    )


def finer_alias_conflict(response: str, golds: list[str]) -> str:
    """Why an answer contradicts a finer acceptable answer inside another one's period, or "".

    Aliases "January 2017" and "January 12, 2017" say the month and, finer, the day: "January 16,
    2017" names a date inside the first and a different one from the second, so it is not the answer.
    Aliases that are alternatives ("1900", "1902") are not inside each other and veto nothing.
    """
    said, _ = identities(response or "")
    periods = [(gold, identities(gold)[0]) for gold in golds if identity_only(gold)]
    for coarse, outer in periods:
        for fine, inner in periods:
            # the finer alias's identity lies inside the coarser one's
            inside = [(o, i) for o in outer for i in inner if relation(o, i) == "finer"]
            for period, identity in inside:
                different = [
                    s
                    for s in said
                    if relation(identity, s) == "different"
                    and relation(period, s) in ("same", "finer")
                ]
                named = any(relation(identity, s) in ("same", "finer") for s in said)
                if different and not named:
                    return (
                        f"{different[0].raw!r} lies inside {coarse!r} but is not the finer acceptable answer "
                        f"{fine!r}: a different date"
                    )
    return ""


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``identity``; ``eval_criteria.identity.coarser`` sets the coarser-answer policy."""
    settings = ctx.criteria.get("identity") or {}
    if not isinstance(settings, dict) or set(settings) - {"coarser"}:
        raise GraderError(
            f"eval_criteria.identity must be an object with 'coarser'; got {settings!r}"
        )
    configured = getattr(getattr(ctx, "settings", None), "coarser_dates", None)  # llm_coarser_dates
    default = str(getattr(configured, "value", configured) or DEFAULT_COARSER)
    try:
        result = identity_match(
            ctx.response, ctx.expected, coarser=settings.get("coarser", default)
        )
    except ValueError as exc:
        raise GraderError(f"eval_criteria.identity: {exc}") from exc
    if result.needs_review and ctx.judge is not None:
        return _escalate(ctx, result)
    return result


def _escalate(ctx: GradeContext, result: IdentityMatch) -> MetricResult:
    """A coarser period with ``--llm-judge`` set: the judge decides instead of a person; both are shown."""
    from pytest_llmeval.metrics.freetext.correctness import answer_correctness

    judged = answer_correctness(ctx.response, ctx.expected, question=ctx.question, judge=ctx.judge)
    return IdentityMatch(
        metric="identity",
        passed=judged.passed,
        score=1.0 if judged.passed else 0.0,
        needs_review=False,
        explanation=f"{result.explanation}; escalated to the judge: {judged.explanation}",
        details={
            "coarser": result.details["coarser"],
            "escalated": True,
            "judge": judged.details.get("judge"),
        },
    )
