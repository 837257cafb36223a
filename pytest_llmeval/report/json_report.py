"""``--llm-report=PATH``: the run as JSON, written atomically (also after Ctrl-C, marked incomplete)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.records.sample_record import REPEAT_FIELDS
from pytest_llmeval.report.people import json_fields

if TYPE_CHECKING:
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.report.tally import Tally

REPORT_VERSION = 1
# What a run without --llm-model records as its model (run_identity): answers of no named source.
UNNAMED_SOURCE = "pre-recorded responses / pytest_llmeval_generate"


def _group(tally: Tally) -> dict[str, Any]:
    return {
        "total": len(tally.records),
        "pass": tally.tiers["pass"],
        "acceptable": tally.tiers["acceptable"],
        "fail": tally.tiers["fail"],
        "error": tally.errors,
        "pass_rate": tally.pass_rate,
        "overall_score": tally.mean("overall"),
        "accuracy": tally.mean("accuracy"),
    }


def _aggregate(run: RunRecord, tally: Tally) -> dict[str, Any]:
    """The run's figures: component means, tier counts, pass rate and its gate."""
    settings = run.settings
    return {
        "overall_score": tally.mean("overall"),
        "accuracy": tally.mean("accuracy"),
        "citation_coverage": tally.mean("citation"),
        "length": tally.mean("length"),
        "keywords": tally.mean("keywords"),
        "retrieval": tally.mean("retrieval"),
        # Every registered component (built-in or from pytest_llmeval_components): mean score.
        "components": {
            name: tally.mean(name) for name in run.components if tally.mean(name) is not None
        },
        "avg_length_tokens": tally.mean_length(),
        "pass_rate": tally.pass_rate,
        "pass": tally.tiers["pass"],
        "acceptable": tally.tiers["acceptable"],
        "fail": tally.tiers["fail"],
        "errors": tally.errors,
        "skipped": tally.tiers["skipped"],
        "refusals": tally.count("refusal"),
        "needs_review": tally.count("needs_review"),
        "reverified": tally.count("reverified"),
        "reference_metrics": tally.reference_means(),
        "errors_mode": settings.errors.value,
        "min_pass_rate": settings.min_pass_rate,
        "gate_passed": _pass_rate_gate_passed(run),
        # people's labels: null without labels that can correct; per model under by_model
        **json_fields(run.corrections.get(None), run.label_match),
    }


def _helper_sections(run: RunRecord) -> dict[str, Any]:
    """assert_* helpers in hand-written tests: passed/failed on their own thresholds, no tier,
    so they stay out of sample_results, the aggregates and the gate."""
    helpers = run.helper_records()
    keys = (
        "sample_id",
        "nodeid",
        "kind",
        "file",
        "status",
        "metrics",
        "reason",
        "earlier_attempts",
    )
    return {
        "helper_results": [{key: r.get(key) for key in keys} for r in helpers],
        "helpers": {
            "total": len(helpers),
            "passed": sum(1 for r in helpers if r.status == "passed"),
            "failed": sum(1 for r in helpers if r.status == "failed"),
        },
    }


def build_report(
    run: RunRecord, later_warnings: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    """The JSON report of a run; ``later_warnings``: those writing the other outputs gave."""
    from pytest_llmeval import __version__

    tally = run.tally()
    settings = run.settings
    records = tally.records
    aggregate = _aggregate(run, tally)
    from pytest_llmeval.regression.repeats import aggregate as repeat_aggregate

    repeats = repeat_aggregate(records)
    if repeats is not None:
        aggregate.update(
            {
                "repeat": settings.repeat,
                **{k: v for k, v in repeats.items() if k != "flaky_samples"},
            }
        )
    results = [sample_result(r) for r in sorted(records, key=lambda r: r.nodeid)]
    if run.comparison is not None:
        for entry in results:
            status = run.baseline_status(entry)
            if status is not None:
                entry["baseline_status"] = status
    return {
        "version": REPORT_VERSION,
        "metadata": {
            **run_identity(settings),
            "eval_files": sorted({r.file for r in records if r.kind == "gold"}),
            "total_samples": len(records),
            "timestamp": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "plugin_version": __version__,
            "incomplete": run.incomplete_reason is not None,
        },
        "aggregate_metrics": aggregate,
        "by_task": {name: _group(t) for name, t in tally.groups("task").items()},
        "by_domain": {name: _group(t) for name, t in tally.groups("domain").items()},
        "sample_results": results,
        **_helper_sections(run),
        "failed_samples": [s for s in results if s["status"] in ("fail", "error")],
        "needs_review": [s["sample_id"] for s in results if s["needs_review"]],
        "flaky_samples": [] if repeats is None else repeats["flaky_samples"],
        "comparison": run.comparison,
        **({"by_model": _by_model(run)} if len(settings.models) > 1 else {}),
        "model_stats": run.model_stats,
        **({"human_agreement": run.human_agreement} if run.human_agreement else {}),
        "gates": [{"name": g.name, "passed": g.passed, "message": g.message} for g in run.gates],
        "gate_only": bool(settings.gate_only),
        "warnings": run.all_warnings(later_warnings)
        + [g.message for g in run.gates if not g.passed],
        **shard_report_fields(run, [*run.warnings, *later_warnings]),
    }


def shard_report_fields(run: RunRecord, warnings: list[str]) -> dict[str, Any]:
    from pytest_llmeval.shard import report_fields

    return report_fields(run, warnings, sample_result)


def _pass_rate_gate_passed(run: RunRecord) -> bool | None:
    """Whether every ``--llm-min-pass-rate`` gate passed (one per model with several models)."""
    verdicts = [g.passed for g in run.gates if g.name == "min_pass_rate"]
    return all(verdicts) if verdicts else None


def _by_model(run: RunRecord) -> dict[str, Any]:
    """Per model (in --llm-model order): its counts, per task, its pass-rate gate and its comparison
    with the first model."""
    pass_rate_gates = {g.model: g.passed for g in run.gates if g.name == "min_pass_rate"}
    return {
        model: {
            **_group(tally),
            "gate_passed": pass_rate_gates.get(model),
            **json_fields(run.corrections.get(model)),
            "by_task": {name: _group(t) for name, t in tally.groups("task").items()},
            "comparison": run.model_comparisons.get(model),
            "baseline_comparison": _baseline_comparison(run, model),
        }
        for model, tally in run.model_tallies().items()
    }


def _baseline_comparison(run: RunRecord, model: str) -> dict[str, Any] | None:
    """This model's comparison with the baseline, when the baseline ran it too (or it is the first)."""
    baseline = run.baseline
    if baseline is None:
        return None
    if model == baseline.comparison_model:
        return baseline.comparison
    return baseline.by_model.get(model)


def sample_result(r: SampleRecord) -> dict[str, Any]:
    """One ``sample_results[]`` entry from a run's record (also what a baseline comparison pairs)."""
    return {
        "sample_id": r.sample_id,
        "nodeid": r.nodeid,
        "kind": r.kind,
        "file": r.file,
        "line": r.line,
        "model": r.model,
        "question": r.question,
        "expected": r.expected,
        "predicted": r.predicted,
        "task": r.task,
        "domain": r.domain,
        "scores": r.scores,
        "status": r.status,
        "reason": r.reason,
        "accuracy_grader": r.accuracy_grader if r.tier is not None else None,
        "refusal": r.refusal,
        "needs_review": r.needs_review,
        **({"human_label": r.human_label} if r.human_label else {}),
        **({"people_label": r.people_label} if r.people_label else {}),
        **({"review_between": r.review_between} if r.review_between else {}),
        **({"review_reason": r.review_reason} if r.review_reason else {}),
        **({"matched_expected": r.matched_expected} if r.matched_expected is not None else {}),
        **({"earlier_attempts": r.earlier_attempts} if r.earlier_attempts else {}),
        **({"components": r.components} if r.components is not None else {}),
        **({"metrics": r.metrics} if r.metrics is not None else {}),
        **({"retrieval_metrics": r.retrieval_metrics} if r.retrieval_metrics else {}),
        **({"reference_metrics": r.reference_metrics} if r.reference_metrics else {}),
        **({"reverified": True} if r.reverified else {}),
        **({"group": r.group} if r.group is not None else {}),
        **({"answer_sha256": r.answer_sha256} if r.answer_sha256 else {}),
        **{k: getattr(r, k) for k in REPEAT_FIELDS if getattr(r, k) is not None},
        **({"turns": r.turns} if r.turns else {}),
    }


def run_identity(settings: Any) -> dict[str, Any]:
    """What makes two runs comparable: model, judge, judge prompt version, rubric (a baseline warns on a difference)."""

    return {
        "model": settings.model or UNNAMED_SOURCE,
        **({"models": list(settings.models)} if len(settings.models) > 1 else {}),
        "judge": settings.judge,
        "judge_prompt_version": _judge_prompt_version(settings.judge_model),
        "rubric": {
            "weights": dict(settings.weights),
            "tiers": list(settings.tiers),
            "accuracy": settings.accuracy,
            "length_bands": dict(settings.length_bands),
        },
    }


def _judge_prompt_version(judge_model: str | None) -> str | None:
    if judge_model is None:
        return None
    from pytest_llmeval.judge.prompts import PROMPT_VERSION

    return PROMPT_VERSION


def write_report(path: Path, report: dict[str, Any]) -> None:
    """Write via a temp file in the same directory and ``os.replace``: readers never see half a file."""
    from pytest_llmeval.fileio import write_atomic

    # streamed: a report of 100,000 samples never exists as one string (nor as the list of its pieces)
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, default=str, allow_nan=False)
    write_atomic(path, itertools.chain(encoder.iterencode(report), ["\n"]))
