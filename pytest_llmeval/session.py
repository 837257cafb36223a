"""Per-run state: the grading pipeline it holds, the per-sample records, and the run's end.

One ``LLMEvalSession`` lives in ``config.stash[SESSION_KEY]``. Each test's record travels on its
report as builtins, so the controller collects the same records with or without pytest-xdist;
when the run ends they are frozen into one run record (see :mod:`pytest_llmeval.run_end`) that
the gates and every output read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.grading.pipeline import GradingPipeline
from pytest_llmeval.options import Settings
from pytest_llmeval.records.collect import RecordBook, forget_quiet_phase
from pytest_llmeval.regression.gates import FailureLedger
from pytest_llmeval.run_state import SESSION_KEY

if TYPE_CHECKING:
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.report.outputs import OutputLog


class LLMEvalSession:
    """State of one pytest run for pytest-llmeval (controller, worker or plain run)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.book = RecordBook()
        self.worker_stats: list[dict[str, Any]] = []
        self.worker_run_ids: set[str] = (
            set()
        )  # xdist run ids (their --llm-record=off scratch caches)
        self.warnings: list[str] = []
        self.ledger = FailureLedger()
        self.baseline: BaselineRun | None = None
        self.run: RunRecord | None = None  # the run frozen at its end (controller)
        self.outputs: OutputLog | None = None  # what writing the end-of-run files said
        self.stopped_reason: str | None = None
        # Why the run did not reach every sample (Ctrl-C, a fatal model error); the
        # terminal summary and the JSON report both say so.
        self.incomplete_reason: str | None = None
        self.seen_dirs: set[str] = set()  # real paths of the directories collected (each once)
        self.crashed: list[str] = []  # node ids of samples whose xdist worker died running them
        self.grading = GradingPipeline(config, settings, on_stop=self.stop)
        self.pytest_session: pytest.Session | None = None
        self.started_at: Any = None
        self.budget_note: dict[str, Any] | None = (
            None  # why --llm-budget-* stopped requests (history)
        )

    # -- grading (the pipeline's; the run hears back through stop and the budget note) --
    def stop(self, reason: str) -> None:
        """A fatal model error: no further item runs, and the reports say why."""
        self.stopped_reason = reason
        if self.pytest_session is not None:
            self.pytest_session.shouldstop = reason

    @property
    def components(self) -> ComponentRegistry:
        """The rubric components whose scores every record lists."""
        return self.grading.components

    def _services(self) -> list[Any]:
        return self.grading.answers.services()

    def _note_budget(self) -> None:
        """Controller at the end: what the budget spent; refused requests make the run incomplete."""
        self.budget_note = self.grading.budget.finish()
        if (
            self.budget_note is not None
            and self.budget_note["spent"]["refused"]
            and self.incomplete_reason is None
        ):
            self.incomplete_reason = self.budget_note["reached"]

    # -- records (see records/) --------------------------------------------------
    @property
    def records(self) -> list[SampleRecord]:
        return self.book.records

    @pytest.hookimpl(trylast=True)  # after the terminal reporter has filed the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ledger.add(report)
        forget_quiet_phase(self.config, report)
        self.book.add_report(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.ledger.add(report)

    def record_for(
        self, item: pytest.Item, report: pytest.TestReport, helper_results: list[Any] | None
    ) -> dict[str, Any] | None:
        """The builtins record to attach to ``report`` (None when this phase adds nothing)."""
        from pytest_llmeval.records.build import graded_hook_record, record_for

        record = record_for(item, report, helper_results, self.settings, self.components.names())
        if record is None:
            return None
        data = graded_hook_record(item, report, record)
        if data is not None:
            return data  # the book reads the hook's additions back from the report
        data = record.to_json()
        self.book.expect(data, record)
        return data

    def crash_record(self, nodeid: str, message: str) -> dict[str, Any] | None:
        """The error record of a gold sample whose xdist worker died (None for other tests)."""
        from pytest_llmeval.records.build import crash_record

        record = crash_record(
            nodeid, message, self.settings.models, self.settings.model, self.components.names()
        )
        if record is None:
            return None
        self.crashed.append(nodeid)
        return record.to_json()

    # -- the run's start and end (called from plugin.py) ---------------------------
    def load_baseline(self) -> None:
        """Controller only, at configure time: a bad ``--llm-baseline`` is a usage error before anything runs."""
        # the comparison modules load only for a run that uses them
        settings = self.settings
        if not self.is_worker and (settings.baseline or settings.fail_on_regression):
            from pytest_llmeval.regression.baseline import load_baseline

            self.baseline = load_baseline(self.settings, Path(self.config.invocation_params.dir))

    def check_paths(self) -> None:
        """Controller only, at configure time: output folders writable, inputs regular files."""
        if not self.is_worker:
            from pytest_llmeval.report.outputs import check_output_paths

            check_output_paths(self.settings, Path(self.config.invocation_params.dir))

    def adopt_shards(self, inputs: Any) -> None:
        """``python -m pytest_llmeval merge``: the shards' settings, stop reasons, warnings and stats."""
        self.settings = inputs.settings
        self.stopped_reason = inputs.stopped_reason or self.stopped_reason
        self.warnings.extend(w for w in inputs.warnings if w not in self.warnings)
        if inputs.stats:
            self.worker_stats.append(inputs.stats)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        import datetime as dt

        self.pytest_session = session
        self.started_at = dt.datetime.now(dt.timezone.utc)  # for --llm-history

    def end_run(self, session: pytest.Session, exitstatus: int) -> None:
        """First thing at session finish: a worker hands its statistics over; the controller
        freezes the run (before the JUnit XML is written: its corrected pass rates are properties)."""
        services = self._services()
        for service in services:
            service.close()
        if self.is_worker:
            if services:
                from pytest_llmeval.models import merge_stats

                stats = {"stats": merge_stats([s.stats() for s in services])}
                self.config.workeroutput["llmeval"] = stats  # type: ignore[attr-defined]
            return
        from pytest_llmeval import run_end

        self.remove_worker_scratch()
        # a reason found at the end comes first; one from before (an expired batch) still counts
        ended = run_end.incomplete_reason(
            session, exitstatus, stopped=self.stopped_reason, crashed=self.crashed
        )
        self.incomplete_reason = ended or self.incomplete_reason
        self._note_budget()
        self.run = run_end.freeze(
            run_end.RunState(
                self.settings,
                tuple(self.records),
                tuple(self.components.names()),
                Path(self.config.invocation_params.dir),
                self.config.rootpath,
                self.ledger,
                testsfailed=session.testsfailed,
                warnings=tuple(self.warnings),
                baseline=self.baseline,
                incomplete_reason=self.incomplete_reason,
                model_stats=self.model_stats(),
                started_at=self.started_at,
                collected=session.testscollected,
                collected_gold=run_end.collected_gold(session.items)
                if self.settings.history
                else (),
                budget_note=self.budget_note,
                collect_only=bool(self.config.option.collectonly),
                shard=self.config.pluginmanager.get_plugin("llmeval-shard"),
            )
        )
        run_end.add_junit_properties(self.config, self.run)

    def finish(self, session: pytest.Session) -> None:
        """Last thing at session finish (controller): the gates' exit status, then the outputs."""
        if self.run is None:
            return
        from pytest_llmeval.regression.gates import decide_exit
        from pytest_llmeval.report.outputs import write_outputs

        session.exitstatus = decide_exit(
            session.exitstatus,
            list(self.run.gates),
            self.ledger,
            gate_only=bool(self.settings.gate_only),
            testsfailed=session.testsfailed,
        )
        self.outputs = write_outputs(self.run, exitstatus=int(session.exitstatus))
        if self.outputs.errors and session.exitstatus in (
            pytest.ExitCode.OK,
            pytest.ExitCode.TESTS_FAILED,
            pytest.ExitCode.NO_TESTS_COLLECTED,
        ):
            # Not "tests failed": CI must not read a run whose report is missing as a verdict.
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def print_summary(self, terminalreporter: Any) -> None:
        if self.run is None or self.outputs is None:
            return
        if (
            self.run.records or self.run.gates
        ):  # a gate over zero graded samples still says why it failed
            from pytest_llmeval.display import safe_line
            from pytest_llmeval.report.terminal import summary_lines

            terminalreporter.write_sep("=", "llmeval summary", bold=True)
            for line, markup in summary_lines(self.run, self.outputs, worst=self.settings.worst):
                terminalreporter.write_line(
                    safe_line(line), **markup
                )  # ids and answers are untrusted
        for line in self.outputs.errors:
            terminalreporter.write_line(line, red=True, bold=True)

    def model_stats(self) -> dict[str, Any] | None:
        stats = list(self.worker_stats)
        stats.extend(service.stats() for service in self._services())
        if not stats:
            return None
        from pytest_llmeval.models import merge_stats

        merged: dict[str, Any] = merge_stats(stats)
        if len(self.worker_stats) > 1:
            merged["per_worker_calls"] = [int(s.get("calls", 0)) for s in self.worker_stats]
        return merged

    def remove_worker_scratch(self) -> None:
        """``-n N --llm-record=off``: workers shared a scratch cache of this run's prompts and
        answers in the temp directory; nothing of it may outlive the run."""
        if not self.worker_run_ids:
            return
        import shutil
        import tempfile

        from pytest_llmeval.models.cache import slug

        for run_id in self.worker_run_ids:
            shutil.rmtree(
                Path(tempfile.gettempdir()) / f"pytest-llmeval-{slug(run_id)}", ignore_errors=True
            )

    def merge_worker_output(self, workeroutput: dict[str, Any]) -> None:
        # A missing key means the plugin made no model calls on that worker.
        data = workeroutput.get("llmeval")
        if data and data.get("stats"):
            self.worker_stats.append(data["stats"])


def get_session(config: pytest.Config) -> LLMEvalSession:
    """The run's one :class:`LLMEvalSession` (``config.stash[SESSION_KEY]``)."""
    llm_session = config.stash[SESSION_KEY]
    assert isinstance(llm_session, LLMEvalSession)
    return llm_session
