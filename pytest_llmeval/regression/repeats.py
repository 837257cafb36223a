"""``--llm-repeat=N``: one item per sample, answered and graded N times.

The item's tier comes from the mean overall score over its repeats (so one lucky or unlucky answer
does not decide it); each repeat's own tier and score are kept, and give the sample's stability.
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import TYPE_CHECKING, Any

from pytest_llmeval.regression import stats

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


def repeat_fields(grades: list[GradeResult]) -> dict[str, Any]:
    """Per-sample fields of the record and the JSON report."""
    repeats = [{"status": g.tier, "score": round(g.overall, 4)} for g in grades]
    pass_count = sum(1 for g in grades if g.tier == "pass")
    stability = STABLE_PASS if pass_count == len(grades) else STABLE_FAIL if pass_count == 0 else FLAKY
    return {
        "repeats": repeats,
        "pass_count": pass_count,
        "stability": stability,
        "pass_at_k": pass_count > 0,
        "pass_all_k": pass_count == len(grades),
    }


def failure_note(fields: dict[str, Any]) -> str:
    scores = ", ".join(f"{r['status']} {r['score']:.2f}" for r in fields["repeats"])
    return f"  repeats: {fields['pass_count']} of {len(fields['repeats'])} passed ({fields['stability']}): {scores}"


def aggregate(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Run-level repeat figures, or None when no sample was repeated."""
    # node id order: the seeded bootstrap sees the same sequence with and without xdist
    repeated = sorted((r for r in records if r.get("repeats")), key=lambda r: r["nodeid"])
    if not repeated:
        return None
    fractions = [r["pass_count"] / len(r["repeats"]) for r in repeated]
    low, high = stats.bootstrap_mean_ci(fractions)
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
    }
