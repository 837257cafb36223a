"""The end of a run (controller): its records frozen into one :class:`~pytest_llmeval.records.run.RunRecord`.

People's labels are matched to the answers, the pass rates corrected, the run compared with its baseline
and its models with each other, and the gates decided, in that order; everything after (exit status,
JUnit properties, reports, history, summary) reads the frozen record.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.records.run import CollectedGold, RunRecord, model_tallies

if TYPE_CHECKING:
    import pytest

    from pytest_llmeval.options import Settings
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.regression.gates import FailureLedger


@dataclass(frozen=True)
class RunState:
    """What the session hands over when the run ends (all of it plain data)."""

    settings: Settings
    records: tuple[SampleRecord, ...]
    components: tuple[str, ...]
    invocation_dir: Path
    rootpath: Path
    ledger: FailureLedger
    testsfailed: int = 0
    warnings: tuple[str, ...] = ()
    baseline: BaselineRun | None = None
    incomplete_reason: str | None = None
    model_stats: dict[str, Any] | None = None
    started_at: dt.datetime | None = None
    collected: int | None = None
    collected_gold: tuple[CollectedGold, ...] = ()
    budget_note: dict[str, Any] | None = None
    collect_only: bool = False
    shard: Any = None  # the --llm-shard plugin


def freeze(state: RunState) -> RunRecord:
    """Labels, corrections, comparisons and gates applied to the run's records, frozen."""
    from pytest_llmeval.labels import LabelMatch, apply_labels
    from pytest_llmeval.regression.gates import gate_only_line, pass_rate_gates
    from pytest_llmeval.report.outputs import human_agreement_of

    settings = state.settings
    review = None
    if settings.review_import:  # read once: its random rows are labels, all of them agreement
        from pytest_llmeval.report.review import read_verdicts

        review = read_verdicts(_path(state, settings.review_import))
    records, warnings = state.records, list(state.warnings)
    match: LabelMatch | None = None
    labels: tuple[Any, ...] = ()
    if not state.collect_only:
        applied = apply_labels(
            records,
            _path(state, settings.labels) if settings.labels else None,
            settings.labels,
            review[0] if review is not None else None,
            state.baseline.answers() if state.baseline is not None else frozenset(),
        )
        records, match, labels = applied.records, applied.match, applied.labels
        warnings.extend(applied.warnings)
    corrections = (
        _corrections(records, settings, match)
        if match is not None and (labels or settings.labels)
        else {}
    )
    model_comparisons = _compare(records, settings, state.baseline, labels)
    partial = RunRecord(settings, records, state.components, state.invocation_dir, state.rootpath)
    regression = (
        state.baseline.gates() if state.baseline is not None and settings.fail_on_regression else []
    )
    gates = [
        *pass_rate_gates(
            partial.tally(),
            partial.model_tallies(),
            settings,
            corrections,
            incomplete=state.incomplete_reason is not None,
            collect_only=state.collect_only,
        ),
        *regression,
    ]
    human_agreement, agreement_warnings = human_agreement_of(records, settings, match, review)
    warnings.extend(agreement_warnings)
    return RunRecord(
        settings,
        records,
        state.components,
        state.invocation_dir,
        state.rootpath,
        warnings=tuple(warnings),
        gates=tuple(gates),
        gate_only_message=gate_only_line(state.ledger, state.testsfailed)
        if settings.gate_only
        else None,
        baseline=state.baseline,
        model_comparisons=model_comparisons,
        label_match=match,
        corrections=corrections,
        human_agreement=human_agreement,
        model_stats=state.model_stats,
        incomplete_reason=state.incomplete_reason,
        started_at=state.started_at,
        collected=state.collected,
        collected_gold=state.collected_gold,
        budget_note=state.budget_note,
        other_failures=tuple(state.ledger.other_failures),
        collect_only=state.collect_only,
        shard=state.shard,
    )


def _path(state: RunState, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else state.invocation_dir / path


def _corrections(
    records: tuple[SampleRecord, ...], settings: Settings, match: Any
) -> dict[str | None, dict[str, Any]]:
    """Per model (None: the whole run) what people's labels did to the pass rate."""
    from pytest_llmeval.labels import correction
    from pytest_llmeval.report.tally import Tally

    tally = Tally(
        [r for r in records if r.kind != "helper"], settings.errors, settings.review_passes
    )
    corrections: dict[str | None, dict[str, Any]] = {
        None: correction(tally, match, alpha=settings.alpha)
    }
    for model, model_tally in model_tallies(records, settings).items():
        corrections[model] = correction(model_tally, match, alpha=settings.alpha)
    return corrections


def _compare(
    records: tuple[SampleRecord, ...],
    settings: Settings,
    baseline: BaselineRun | None,
    labels: tuple[Any, ...],
) -> dict[str, dict[str, Any] | None]:
    """The run against its baseline (kept in ``baseline``), and each further model against the first."""
    if baseline is None and len(settings.models) < 2:
        return {}
    from pytest_llmeval.regression.baseline import comparison_options
    from pytest_llmeval.report.json_report import run_identity, sample_result

    results = [sample_result(r) for r in records]
    options = comparison_options(settings)
    if baseline is not None:
        baseline.compare(
            results,
            run_identity(settings),
            run_models=tuple(settings.models),
            labels=list(labels),
            **options,
        )
    if len(settings.models) < 2:
        return {}
    from pytest_llmeval.regression.multimodel import compare_models

    return compare_models(results, settings.models, **options)


def add_junit_properties(config: pytest.Config, run: RunRecord) -> None:
    """The corrected pass rates as properties of the JUnit XML's test suite (before the XML is
    written; ``record_testsuite_property`` would run on xdist workers)."""
    xml = next(
        (
            p
            for p in config.pluginmanager.get_plugins()
            if callable(getattr(p, "add_global_property", None))
        ),
        None,
    )
    if xml is None:
        return
    from pytest_llmeval.report.people import junit_properties

    for name, value in junit_properties(run.corrections):
        xml.add_global_property(name, value)


def incomplete_reason(
    session: pytest.Session, exitstatus: int, *, stopped: str | None, crashed: list[str]
) -> str | None:
    """Why the run did not reach every sample (None: it did).

    Only a run that went through to the end is complete: Ctrl-C or SIGTERM, an INTERNALERROR, a usage
    error, -x/--maxfail or a fatal model error leave samples unrun. A stop request (ours, -x, --maxfail)
    also ends with INTERRUPTED: its own reason comes first.
    """
    import pytest

    if stopped is not None:
        return stopped
    if session.shouldstop or session.shouldfail:
        return str(session.shouldstop or session.shouldfail)
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return "interrupted (Ctrl-C or SIGTERM)"
    if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
        return "INTERNALERROR"
    if exitstatus == pytest.ExitCode.USAGE_ERROR:
        return "usage error"
    if exitstatus not in (
        pytest.ExitCode.OK,
        pytest.ExitCode.TESTS_FAILED,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    ):
        return f"exit status {int(exitstatus)}"
    if crashed:
        shown = ", ".join(crashed[:5]) + (
            f" and {len(crashed) - 5} more" if len(crashed) > 5 else ""
        )
        return f"an xdist worker crashed running {len(crashed)} sample(s): {shown}"
    return None


def collected_gold(items: list[pytest.Item]) -> tuple[CollectedGold, ...]:
    """The gold samples collected (a run without xdist knows them): the history shows those never run."""
    from pytest_llmeval.history.record import gold_hash

    out = []
    for item in items:
        sample = getattr(item, "sample", None)
        if sample is not None and hasattr(sample, "raw"):
            out.append(
                CollectedGold(str(sample.path), str(sample.id), sample.line, gold_hash(sample))
            )
    return tuple(out)
