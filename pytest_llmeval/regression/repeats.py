"""``--llm-repeat=N``: one item per sample, answered and graded N times.

The item's tier comes from the mean overall score over its repeats (so one lucky or unlucky answer
does not decide it); each repeat's own tier and score are kept, and give the sample's stability.

A repeat whose answer or grading fails is an error on its own (its index and reason kept); the
others are still graded and kept. With ``-o llm_errors=fail`` an errored repeat counts as not
passed, with ``exclude`` it is left out, in the pass count and the run's figures alike, as the
pass rate counts error items. Only when every repeat fails is the item an error.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_llmeval.regression import significance

if TYPE_CHECKING:
    from pytest_llmeval.rubric import GradeResult

STABLE_PASS, FLAKY, STABLE_FAIL = "stable_pass", "flaky", "stable_fail"


def combine(grades: list[GradeResult]) -> GradeResult:
    """One grade for the item: the repeat nearest the mean overall (its components and response shown),
    with the mean overall and the tier that mean falls in."""
    from pytest_llmeval.rubric import tier_for

    mean = statistics.fmean(g.overall for g in grades)
    shown = min(grades, key=lambda g: abs(g.overall - mean))
    return dataclasses.replace(shown, overall=mean, tier=tier_for(mean, shown.cutoffs))


# A repeat's outcome: (1-based index, its grade, or None and the error that replaced it)
Outcome = tuple[int, "GradeResult | None", str | None]


def grade_repeats(
    count: int, grade_one: Callable[[int], GradeResult], errors_mode: str = "fail"
) -> tuple[GradeResult | None, dict[str, Any], Exception | None]:
    """Grade each repeat on its own: (the item's grade, its repeat fields, None), or, when every
    repeat failed, (None, the fields, the first repeat's error). A fatal error still stops at once."""
    from pytest_llmeval.errors import FatalModelError, LLMEvalError

    outcomes: list[Outcome] = []
    first: Exception | None = None
    for repeat in range(1, count + 1):
        try:
            outcomes.append((repeat, grade_one(repeat), None))
        except FatalModelError:
            raise
        except LLMEvalError as exc:
            first = first or exc
            outcomes.append((repeat, None, f"{type(exc).__name__}: {exc}"))
    graded = [g for _, g, _ in outcomes if g is not None]
    fields = repeat_fields(outcomes, errors_mode)
    if not graded and first is not None and count > 1:
        first.args = (
            f"all {count} repeats failed; repeat 1: {first}",
        )  # same type, indexed message
    return (combine(graded) if graded else None), fields, (None if graded else first)


def repeat_fields(outcomes: list[Outcome], errors_mode: str = "fail") -> dict[str, Any]:
    """Per-sample fields of the record and the JSON report (every repeat, errors included)."""
    repeats: list[dict[str, Any]] = []
    for index, grade, error in outcomes:
        if grade is None:
            repeats.append({"repeat": index, "status": "error", "score": None, "reason": error})
        else:
            repeats.append({"status": grade.tier, "score": round(grade.overall, 4)})
    errors = sum(1 for r in repeats if r["status"] == "error")
    counted = len(repeats) - (errors if errors_mode == "exclude" else 0)
    pass_count = sum(1 for r in repeats if r["status"] == "pass")
    stability = (
        STABLE_PASS
        if counted and pass_count == counted
        else STABLE_FAIL
        if pass_count == 0
        else FLAKY
    )
    return {
        "repeats": repeats,
        "pass_count": pass_count,
        "counted_repeats": counted,  # the pass count's denominator (errors left out under exclude)
        "repeat_errors": errors,
        "stability": stability,
        "pass_at_k": pass_count > 0,
        "pass_all_k": bool(counted) and pass_count == counted,
    }


def failure_note(fields: dict[str, Any]) -> str:
    scores = ", ".join(
        f"{r['status']} {r['score']:.2f}"
        if r["score"] is not None
        else f"error (repeat {r.get('repeat')}: {r.get('reason')})"
        for r in fields["repeats"]
    )
    return f"  repeats: {fields['pass_count']} of {_counted(fields)} passed ({fields['stability']}): {scores}"


def _counted(record: Mapping[str, Any]) -> int:
    """The pass count's denominator (older records: every repeat)."""
    counted = record.get("counted_repeats")
    return int(counted) if isinstance(counted, int) else len(record["repeats"])


def aggregate(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Run-level repeat figures, or None when no sample was repeated."""
    # node id order: the seeded bootstrap sees the same sequence with and without xdist
    # a sample all of whose repeats were left out (errors under exclude) is out, as in the pass rate
    repeated = sorted(
        (r for r in records if r.get("repeats") and _counted(r)), key=lambda r: r["nodeid"]
    )
    if not repeated:
        return None
    fractions = [r["pass_count"] / _counted(r) for r in repeated]
    low, high = significance.bootstrap_mean_ci(fractions)
    return {
        "samples": len(repeated),
        "flaky": sum(1 for r in repeated if r["stability"] == FLAKY),
        "stable_pass": sum(1 for r in repeated if r["stability"] == STABLE_PASS),
        "stable_fail": sum(1 for r in repeated if r["stability"] == STABLE_FAIL),
        "mean_pass_rate": round(statistics.fmean(fractions), 6),
        "mean_pass_rate_ci95": [round(low, 6), round(high, 6)],
        "pass_at_k_rate": round(sum(1 for r in repeated if r["pass_at_k"]) / len(repeated), 6),
        "pass_all_k_rate": round(sum(1 for r in repeated if r["pass_all_k"]) / len(repeated), 6),
        "flaky_samples": [r["sample_id"] for r in repeated if r["stability"] == FLAKY],
        "repeat_errors": sum(int(r.get("repeat_errors") or 0) for r in records if r.get("repeats")),
    }
