"""Where every :class:`~pytest_llmeval.records.sample_record.SampleRecord` is made: from a test item, its grade
(when it was graded) and the status its report gives, or from the node id of a crashed xdist worker's sample.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.collector import BadLineItem, GoldItem
from pytest_llmeval.labels import answer_hash
from pytest_llmeval.records.sample_record import FIELDS, GOLD, HELPER, SampleRecord
from pytest_llmeval.run_state import GRADE_KEY, REPEATS_KEY

if TYPE_CHECKING:
    from pytest_llmeval.options import Settings
    from pytest_llmeval.rubric import GradeResult


def empty_scores(components: Sequence[str]) -> dict[str, Any]:
    """Every registered component's score, none given yet."""
    return {"overall": None, **dict.fromkeys(components)}


def record_for(
    item: pytest.Item,
    report: pytest.TestReport,
    helper_results: list[Any] | None,
    settings: Settings,
    components: Sequence[str],
) -> SampleRecord | None:
    """The record of this phase of ``item`` (None when the phase adds nothing)."""
    if report.when == "teardown":  # no kind of item records its teardown
        return None
    if isinstance(item, BadLineItem):
        return bad_line_record(item, components) if report.when == "setup" else None
    if isinstance(item, GoldItem):
        if report.when == "setup" and report.failed:
            return gold_record(
                item, "error", settings, components, error=one_line(report.longreprtext)
            )
        if report.when == "setup" and report.skipped:
            return gold_record(item, "skipped", settings, components, error=skip_reason(report))
        if report.when == "call":
            return gold_record(item, "graded", settings, components)
        return None
    if report.when == "call" and helper_results:
        return helper_record(item, helper_results, report.passed, components)
    return None


def graded_hook_record(
    item: pytest.Item, report: pytest.TestReport, record: SampleRecord
) -> dict[str, Any] | None:
    """A graded gold sample's builtins record after ``pytest_llmeval_sample_graded`` added to it;
    None when no plugin implements the hook (the record then travels as built)."""
    if report.when != "call" or not isinstance(item, GoldItem):
        return None
    graded_hook = item.config.hook.pytest_llmeval_sample_graded
    if not graded_hook.get_hookimpls():
        return None  # calling a hook nobody implements still costs
    data = record.to_json()
    graded_hook(item=item, record=data)
    return data


def gold_record(
    item: GoldItem,
    status: str,
    settings: Settings,
    components: Sequence[str],
    *,
    error: str | None = None,
) -> SampleRecord:
    """A gold sample's record: the sample's fields, then its grade (when it ran) and its repeats."""
    sample = item.sample
    human_label = sample.raw.get("human_label")
    group = sample.raw.get("group", sample.criteria.get("group"))
    fields: dict[str, Any] = {
        "kind": GOLD,
        "nodeid": item.nodeid,
        "sample_id": sample.id,
        "file": sample.path,
        "line": sample.line,
        "question": sample.question,
        "expected": list(sample.golds) if sample.alternatives else sample.expected,
        "task": sample.task,
        "domain": sample.domain,
        "status": status,
        "scores": empty_scores(components),
        "reason": error or "",
        "human_label": human_label if human_label in ("pass", "fail") else None,
        "group": None if group is None else str(group),
        "model": item.model or settings.model,
    }
    if settings.history:
        from pytest_llmeval.history.record import gold_hash

        fields["gold_hash"] = gold_hash(sample)
    extra: dict[str, Any] = {}
    grade = item.stash.get(GRADE_KEY, None)
    if grade is not None:
        _grade_fields(grade, fields, extra)
        fields["status"] = status if status == "error" else grade.tier
    if REPEATS_KEY in item.stash:  # an item all of whose repeats failed keeps them too
        repeat_fields: dict[str, Any] = item.stash[REPEATS_KEY]
        fields.update(repeat_fields)
    return SampleRecord(**fields, extra=extra)


def _grade_fields(grade: GradeResult, fields: dict[str, Any], extra: dict[str, Any]) -> None:
    """What grading adds to a record: scores, components, the components' sample-level fields."""
    fields.update(
        overall=grade.overall,
        tier=grade.tier,
        scores=grade.scores(),
        components=grade.components_json(),
    )
    for key, value in grade.record.items():
        (fields if key in FIELDS and key != "extra" else extra)[key] = value
    fields.update(
        reason=grade.worst_reason(),
        predicted=grade.response,
        answer_sha256=answer_hash(grade.response),
    )


def bad_line_record(item: BadLineItem, components: Sequence[str]) -> SampleRecord:
    """A gold line that is no sample (invalid JSON, a missing field): an error of its own."""
    return SampleRecord(
        kind=GOLD,
        nodeid=item.nodeid,
        sample_id=item.name,
        file=item.shown_path,
        line=item.lineno,
        status="error",
        scores=empty_scores(components),
        reason=item.problem,
    )


def helper_record(
    item: pytest.Item, results: list[Any], passed: bool, components: Sequence[str]
) -> SampleRecord:
    """A hand-written test's ``assert_*`` helpers: passed or failed on their own thresholds, no tier."""
    scores = empty_scores(components)
    by_metric = {r.metric or type(r).__name__: r for r in results}
    metrics = {name: round(float(r.score), 4) for name, r in by_metric.items()}
    scores["overall"] = round(statistics.fmean(metrics.values()), 4) if metrics else None
    failing = [r for r in results if not r.passed]
    return SampleRecord(
        kind=HELPER,
        nodeid=item.nodeid,
        sample_id=item.nodeid,
        file=str(item.path),
        task="assertions",
        # A helper checks its own threshold: its test passed or failed. It has no rubric tier, so it
        # is tallied apart from graded samples.
        status="passed" if passed else "failed",
        scores=scores,
        metrics=metrics,
        reason=failing[0].explanation if failing else "",
    )


def crash_record(
    nodeid: str, message: str, models: Sequence[str], model: str | None, components: Sequence[str]
) -> SampleRecord | None:
    """The error record of a gold sample whose xdist worker died (the controller has no item, only
    the node id ``path.jsonl::id`` or ``path.jsonl::id[model]``); None for any other test."""
    path, _, name = nodeid.partition("::")
    if not path.endswith(".jsonl") or not name:
        return None
    for spec in models if len(models) > 1 else ():
        if name.endswith(f"[{spec}]"):
            name, model = name[: -len(spec) - 2], spec
    return SampleRecord(
        kind=GOLD,
        nodeid=nodeid,
        sample_id=name,
        file=path,
        status="error",
        scores=empty_scores(components),
        reason=one_line(message),
        model=model,
    )


def one_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    # The last line of a traceback names the exception; our own errors are one line anyway.
    return lines[-1] if lines else ""


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)
