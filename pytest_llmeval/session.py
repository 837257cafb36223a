"""Per-run state: the grading pipeline it holds, per-sample records, tallies and the gate decision.

One ``LLMEvalSession`` lives in ``config.stash[SESSION_KEY]``. Records are plain
builtins copied onto test reports, so the controller aggregates the same data with
or without pytest-xdist.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.grading.pipeline import GradingPipeline
from pytest_llmeval.options import ErrorsMode, GateOn, Settings, Source
from pytest_llmeval.regression.gates import FailureLedger

# The stash keys and lookups live in run_state (the collector uses them without importing this
# module); re-exported here, beside the session they reach.
from pytest_llmeval.run_state import GRADE_KEY as GRADE_KEY
from pytest_llmeval.run_state import REPEATS_KEY as REPEATS_KEY
from pytest_llmeval.run_state import SESSION_KEY as SESSION_KEY
from pytest_llmeval.run_state import get_session as get_session
from pytest_llmeval.run_state import sample_of as sample_of

if TYPE_CHECKING:
    from pytest_llmeval.collector import GoldItem
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.labels import Label, LabelMatch
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.regression.gates import GateResult
    from pytest_llmeval.report.tally import Tally





class LLMEvalSession:
    """State of one pytest run for pytest-llmeval (controller, worker or plain run)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.records: list[dict[str, Any]] = []
        self._record_index: dict[str, int] = {}  # nodeid -> position in records
        self._attempts: dict[str, list[str]] = {}  # nodeid -> statuses of attempts a rerun replaced
        self.worker_stats: list[dict[str, Any]] = []
        self.worker_run_ids: set[str] = set()  # xdist run ids (their --llm-record=off scratch caches)
        self.warnings: list[str] = []
        self.gates: list[GateResult] = []
        self.gate_only_message: str | None = None
        self.ledger = FailureLedger()
        self.baseline: BaselineRun | None = None
        self.model_comparisons: dict[str, dict[str, Any] | None] = {}
        self.stopped_reason: str | None = None
        # Why the run did not reach every sample (Ctrl-C, a fatal model error); the
        # terminal summary and the JSON report both say so.
        self.incomplete_reason: str | None = None
        self.seen_dirs: set[str] = set()  # real paths of the directories collected (each once)
        self.crashed: list[str] = []  # node ids of samples whose xdist worker died running them
        self.human_agreement: dict[str, Any] | None = None  # set by report.outputs on the controller
        # People's labels matched to this run's answers, and per model (None: the whole run) what they
        # did to the pass rate (labels.correction); set once on the controller at the end.
        self.label_match: LabelMatch | None = None
        self.people_labels: list[Label] = []  # as read: they may also label the baseline's answers
        self.corrections: dict[str | None, dict[str, Any]] = {}
        self._review_verdicts: tuple[dict[str, Any], list[str]] | None = None
        self.output_notes: list[str] = []  # lines the summary prints about files written
        self.output_errors: list[str] = []  # outputs that could not be written (exit status >= 2)
        self.grading = GradingPipeline(config, settings, on_stop=self.stop)
        self.pytest_session: pytest.Session | None = None
        self.started_at: Any = None
        self.budget_note: dict[str, Any] | None = None  # why --llm-budget-* stopped requests (history)

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

    def empty_scores(self) -> dict[str, Any]:
        return self.grading.empty_scores()

    def _services(self) -> list[Any]:
        return self.grading.answers.services()

    def _note_budget(self) -> None:
        """Controller at the end: what the budget spent; refused requests make the run incomplete."""
        self.budget_note = self.grading.budget.finish()
        if self.budget_note is not None and self.budget_note["spent"]["refused"] and self.incomplete_reason is None:
            self.incomplete_reason = self.budget_note["reached"]

    # -- records ---------------------------------------------------------------
    def gold_record(self, item: GoldItem, status: str, error: str | None = None) -> dict[str, Any]:

        sample = item.sample
        record = _record(
            item, self.empty_scores(), sample_id=sample.id, file=sample.path, line=sample.line, status=status, reason=error or "",
            question=sample.question, expected=list(sample.golds) if sample.alternatives else sample.expected,
            task=sample.task, domain=sample.domain,
        )
        if sample.raw.get("human_label") in ("pass", "fail"):
            record["human_label"] = sample.raw["human_label"]
        group = sample.raw.get("group", sample.criteria.get("group"))
        if group is not None:
            record["group"] = str(group)
        record["model"] = item.model or self.settings.model
        if self.settings.history:
            from pytest_llmeval.history.record import gold_hash

            record["gold_hash"] = gold_hash(sample)
        grade = item.stash.get(GRADE_KEY, None)
        if grade is not None:
            record.update(grade.to_builtins())
            record["predicted"] = grade.response
            from pytest_llmeval.labels import answer_hash

            record["answer_sha256"] = answer_hash(grade.response)  # people's labels apply to this text only
            record["status"] = status if status == "error" else grade.tier
        if REPEATS_KEY in item.stash:  # an item all of whose repeats failed keeps them too
            fields: dict[str, Any] = item.stash[REPEATS_KEY]
            record.update(fields)
        return record

    def helper_record(self, item: pytest.Item, results: list[Any], passed: bool) -> dict[str, Any]:
        import statistics

        scores = self.empty_scores()
        by_metric = {r.metric or type(r).__name__: r for r in results}
        metrics = {name: round(float(r.score), 4) for name, r in by_metric.items()}
        scores["overall"] = round(statistics.fmean(metrics.values()), 4) if metrics else None
        failing = [r for r in results if not r.passed]
        return {
            "kind": "helper",
            "nodeid": item.nodeid,
            "sample_id": item.nodeid,
            "file": str(item.path),
            "question": None,
            "expected": None,
            "predicted": None,
            "task": "assertions",
            "domain": "-",
            # A helper checks its own threshold: its test passed or failed. It has no rubric
            # tier, so it is tallied apart from graded samples (see ``helper_records``).
            "status": "passed" if passed else "failed",
            "scores": scores,
            "metrics": metrics,
            "reason": failing[0].explanation if failing else "",
        }

    def add_record(self, record: dict[str, Any]) -> None:
        """One record per test: a later record for the same node (a rerun) replaces the earlier one."""
        attempts = self._attempts.pop(record["nodeid"], None)
        if attempts:
            record = {**record, "earlier_attempts": attempts}
        index = self._record_index.get(record["nodeid"])
        if index is None:
            self._record_index[record["nodeid"]] = len(self.records)
            self.records.append(record)
        else:
            self.records[index] = record

    def tally(self) -> Tally:
        """Graded gold samples (and errors, skips): the pass rate, means and gate."""
        from pytest_llmeval.report.tally import Tally

        return Tally([r for r in self.records if r["kind"] != "helper"], self.settings.errors, self.settings.review_passes)

    def helper_records(self) -> list[dict[str, Any]]:
        """Results of ``assert_*`` helpers in hand-written tests, shown apart from graded samples.

        A helper passes on its own threshold (``assert_retrieval`` may pass at 0.25), so
        mixing its score into tiers and means would make the numbers contradict each other.
        """
        return sorted((r for r in self.records if r["kind"] == "helper"), key=lambda r: r["nodeid"])

    def all_warnings(self) -> list[str]:
        """Run warnings, including graders that fell back (e.g. no sentence-transformers)."""
        fallbacks = sorted({f"{r.get('accuracy_grader')}: {r['accuracy_fallback']}" for r in self.records if r.get("accuracy_fallback")})
        return [*self.warnings, *(f"accuracy fallback used: {f}" for f in fallbacks)]

    # -- gates -----------------------------------------------------------------
    def pass_rate_gates(self) -> list[GateResult]:
        """``--llm-min-pass-rate``: the fraction of samples in the pass tier, for each model when
        several ``--llm-model`` specs run (a pooled rate would let a good model hide a bad one)."""
        gate = self.settings.min_pass_rate
        if gate is None or self.config.option.collectonly:  # --co grades nothing: no gate to apply
            return []
        by_model = self.model_tallies()
        if not by_model:
            tally = self.tally()
            if not tally.records and (
                self.incomplete_reason is not None or self.settings.source("min_pass_rate") is not Source.CLI
            ):
                # a run stopped before any sample (usage error, Ctrl-C), or a gate from the ini
                # file in a run without gold samples (say, unit tests only)
                return []
            return [self._pass_rate_verdict(tally, gate, None)]
        return [self._pass_rate_verdict(t, gate, m) for m, t in by_model.items()]

    def _pass_rate_verdict(self, tally: Tally, gate: float, model: str | None) -> GateResult:
        from pytest_llmeval.regression.gates import GateResult, nothing_graded_gate

        if tally.pass_rate is None:
            return nothing_graded_gate(
                gate, skipped=tally.tiers["skipped"], errors=tally.errors, model=model, gold_samples=bool(tally.records),
                errors_excluded=self.settings.errors is not ErrorsMode.FAIL,
            )
        whose = f" for {model}" if model else ""
        effect = self.corrections.get(model) or {}
        if effect.get("corrected"):
            return self._corrected_verdict(effect["corrected"], gate, model)
        note = self._unreviewed_note(tally)
        if effect.get("not_corrected"):
            note += f"; the grader's rate, not corrected by people's labels: {effect['not_corrected']}"
        if tally.pass_rate < gate:
            return GateResult("min_pass_rate", False, (
                f"llmeval gate FAILED{whose}: pass rate {tally.pass_rate:.1%} is below --llm-min-pass-rate "
                f"{gate:.1%} ({tally.passed} of {tally.denominator} samples in the pass tier, errors count as "
                f"{self.settings.errors.value}{note})"
            ), model)
        return GateResult("min_pass_rate", True, (
            f"llmeval gate passed{whose}: pass rate {tally.pass_rate:.1%} >= {gate:.1%} "
            f"({tally.passed} of {tally.denominator}{note})"
        ), model)

    def _corrected_verdict(self, corrected: dict[str, Any], gate: float, model: str | None) -> GateResult:
        """The gate on the pass rate people's labels corrected: its estimate, or its interval's lower bound."""
        from pytest_llmeval.regression.gates import GateResult

        whose = f" for {model}" if model else ""
        on_bound = self.settings.gate_on is GateOn.LOWER_BOUND
        value = corrected["low"] if on_bound else corrected["estimate"]
        what = "lower bound of the corrected pass rate" if on_bound else "corrected pass rate"
        rests = (
            f"corrected pass rate {corrected['estimate']:.1%}, {corrected['confidence']:.0%} interval "
            f"{corrected['low']:.1%} to {corrected['high']:.1%} ({corrected['interval']}), PPI++ from "
            f"{corrected['labels']} people's labels on a random subset of {corrected['population']} samples; "
            f"grader's rate {corrected['grader_rate']:.1%}; --llm-gate-on={self.settings.gate_on.value}"
        )
        if value < gate:
            return GateResult("min_pass_rate", False, (
                f"llmeval gate FAILED{whose}: {what} {value:.1%} is below --llm-min-pass-rate {gate:.1%} ({rests})"
            ), model)
        return GateResult("min_pass_rate", True, f"llmeval gate passed{whose}: {what} {value:.1%} >= {gate:.1%} ({rests})", model)

    def review_verdicts(self) -> tuple[dict[str, Any], list[str]]:
        """``--llm-review-import`` read once: (verdicts by review id, warnings)."""
        if self._review_verdicts is None:
            self._review_verdicts = ({}, [])
            if self.settings.review_import:
                from pytest_llmeval.report.review import read_verdicts

                self._review_verdicts = read_verdicts(self._input_path(self.settings.review_import))
        return self._review_verdicts

    def _input_path(self, value: str) -> Path:
        path = Path(value)
        return path if path.is_absolute() else Path(self.config.invocation_params.dir) / path

    def apply_people_labels(self) -> None:
        """Controller, once at the end: people's labels (``--llm-labels``, the random rows of
        ``--llm-review-import``) matched to this run's answers, and the corrected pass rates."""
        if self.is_worker or self.label_match is not None or self.config.option.collectonly:
            return
        from pytest_llmeval.labels import (
            LabelMatch,
            correction,
            label_field,
            labels_from_review,
            match_labels,
            read_labels,
        )

        labels = []
        if self.settings.labels:
            read, problems = read_labels(self._input_path(self.settings.labels), self.settings.labels)
            labels.extend(read)
            self.warnings.extend(f"labels error: {p}" for p in problems)
        if self.settings.review_import:
            labels.extend(labels_from_review(self.review_verdicts()[0]))
        if not labels and not self.settings.labels:
            self.label_match = LabelMatch()
            return
        self.label_match = match_labels(self.records, labels, self._baseline_answers())
        self.label_match.given = bool(self.settings.labels)
        self.people_labels = labels
        for record in self.records:
            applied = self.label_match.applied.get(record["nodeid"])
            if applied is not None:
                record["people_label"] = label_field(applied)
        self.warnings.extend(f"labels error: {p}" for p in self.label_match.problems)
        alpha = self.settings.alpha
        self.corrections = {None: correction(self.tally(), self.label_match, alpha=alpha)}
        for model, tally in self.model_tallies().items():
            self.corrections[model] = correction(tally, self.label_match, alpha=alpha)

    def _baseline_answers(self) -> frozenset[tuple[str, str]]:
        """(sample id, answer hash) of the baseline's answers: labels of those are for the comparison."""
        if self.baseline is None:
            return frozenset()
        return frozenset(
            (str(e.get("sample_id")), e["answer_sha256"]) for e in self.baseline.report["sample_results"]
            if isinstance(e, dict) and isinstance(e.get("answer_sha256"), str)
        )

    def junit_properties(self) -> None:
        """The corrected pass rates as properties of the JUnit XML's test suite (controller, before
        the XML is written; ``record_testsuite_property`` would run on xdist workers)."""
        if self.is_worker:
            return
        self.apply_people_labels()
        xml = next((p for p in self.config.pluginmanager.get_plugins() if callable(getattr(p, "add_global_property", None))), None)
        if xml is None:
            return
        from pytest_llmeval.report.people import junit_properties

        for name, value in junit_properties(self.corrections):
            xml.add_global_property(name, value)

    def _unreviewed_note(self, tally: Tally) -> str:
        if not tally.unreviewed_passes or self.settings.review_passes:
            return ""
        return f"; {tally.unreviewed_passes} pass-tier sample(s) needing review not counted, llm_review_passes counts them"

    def load_baseline(self) -> None:
        """Controller only, at configure time: a bad ``--llm-baseline`` is a usage error before anything runs."""
        if self.settings.fail_on_regression and not self.settings.baseline:
            raise pytest.UsageError("--llm-fail-on-regression (ini llm_fail_on_regression) needs --llm-baseline=PATH")
        if self.settings.baseline and not self.is_worker:
            from pytest_llmeval.regression.baseline import BaselineRun

            self.baseline = BaselineRun.load(
                self.settings.baseline, Path(self.config.invocation_params.dir), history=self.settings.history
            )

    def check_paths(self) -> None:
        """Controller only, at configure time: output folders writable, inputs regular files."""
        if not self.is_worker:
            from pytest_llmeval.report.outputs import check_output_paths

            check_output_paths(self)

    @property
    def comparison(self) -> dict[str, Any] | None:
        return None if self.baseline is None else self.baseline.comparison

    def baseline_status(self, entry: dict[str, Any]) -> str | None:
        return None if self.baseline is None else self.baseline.status_of(entry)

    def compare_with_baseline(self) -> None:
        if self.baseline is None:
            return
        from pytest_llmeval.report.json_report import run_identity, sample_result

        results = [sample_result(r) for r in self.records]
        self.baseline.compare(
            results, run_identity(self.settings), run_models=tuple(self.settings.models), labels=self.people_labels,
            **self.comparison_options(),
        )

    def comparison_options(self) -> dict[str, Any]:
        """How every paired comparison of this run is tested and gated."""
        return {
            "alpha": self.settings.alpha, "errors_mode": self.settings.errors.value,
            "margin": self.settings.regression_margin, "mode": self.settings.regression.value,
        }

    def compare_models(self) -> None:
        """Several ``--llm-model`` specs: each model after the first against the first (same paired test)."""
        if len(self.settings.models) < 2:
            return
        from pytest_llmeval.regression.multimodel import compare_models
        from pytest_llmeval.report.json_report import sample_result

        self.model_comparisons = compare_models(
            [sample_result(r) for r in self.records], self.settings.models, **self.comparison_options()
        )

    def model_tallies(self) -> dict[str, Tally]:
        """One tally per ``--llm-model`` spec, in the order given (empty with one model)."""
        from pytest_llmeval.report.tally import Tally

        if len(self.settings.models) < 2:
            return {}
        return {
            m: Tally([r for r in self.records if r.get("model") == m], self.settings.errors, self.settings.review_passes)
            for m in self.settings.models
        }

    def apply_gates(self, session: pytest.Session) -> None:
        """Evaluate every gate and set the exit status (controller only; see regression/gates.py)."""
        from pytest_llmeval.regression.gates import decide_exit, gate_only_line

        self.apply_people_labels()
        self.compare_with_baseline()
        self.compare_models()
        regression = self.baseline.gates() if self.baseline is not None and self.settings.fail_on_regression else []
        self.gates = [*self.pass_rate_gates(), *regression]
        if self.settings.gate_only:
            self.gate_only_message = gate_only_line(self.ledger, session.testsfailed)
        session.exitstatus = decide_exit(
            session.exitstatus, self.gates, self.ledger,
            gate_only=bool(self.settings.gate_only), testsfailed=session.testsfailed,
        )

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

    # -- pytest glue (called from plugin.py; logreport is a hook on this object) ---
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        import datetime as dt

        self.pytest_session = session
        self.started_at = dt.datetime.now(dt.timezone.utc)  # for --llm-history

    @pytest.hookimpl(trylast=True)  # after the terminal reporter has filed the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ledger.add(report)
        self._forget_quiet_phase(report)
        record = getattr(report, "llmeval", None)
        if record is None:
            return
        if str(report.outcome) == "rerun":  # not one of pytest's own outcomes
            # pytest-rerunfailures: this attempt is replaced by the next one; only the
            # final outcome counts, earlier attempts are listed under the sample.
            self._attempts.setdefault(record["nodeid"], []).append(record["status"])
            return
        self.add_record(record)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.ledger.add(report)

    def record_for(self, item: pytest.Item, report: pytest.TestReport, helper_results: list[Any] | None) -> dict[str, Any] | None:
        """The builtins record to attach to ``report`` (None when this phase adds nothing)."""
        if report.when == "teardown":  # no kind of item records its teardown
            return None
        from pytest_llmeval.collector import BadLineItem, GoldItem

        if isinstance(item, BadLineItem):
            if report.when != "setup":
                return None
            return _record(
                item, self.empty_scores(), sample_id=item.name, file=item.shown_path, line=item.lineno, status="error", reason=item.problem
            )
        if isinstance(item, GoldItem):
            if report.when == "setup" and report.failed:
                return self.gold_record(item, "error", error=_one_line(report.longreprtext))
            if report.when == "setup" and report.skipped:
                return self.gold_record(item, "skipped", error=_skip_reason(report))
            if report.when == "call":
                record = self.gold_record(item, "graded")
                item.config.hook.pytest_llmeval_sample_graded(item=item, record=record)
                return record
            return None
        if report.when == "call" and helper_results:
            return self.helper_record(item, helper_results, passed=report.passed)
        return None

    def crash_record(self, nodeid: str, message: str) -> dict[str, Any] | None:
        """The error record of a gold sample whose xdist worker died (the controller has no item,
        only the node id ``path.jsonl::id`` or ``path.jsonl::id[model]``)."""
        path, _, name = nodeid.partition("::")
        if not path.endswith(".jsonl") or not name:
            return None
        self.crashed.append(nodeid)
        model = self.settings.model
        for spec in self.settings.models if len(self.settings.models) > 1 else ():
            if name.endswith(f"[{spec}]"):
                name, model = name[: -len(spec) - 2], spec
        return {
            "kind": "gold", "nodeid": nodeid, "sample_id": name, "file": path, "line": None, "question": None,
            "expected": None, "predicted": None, "task": "-", "domain": "-", "status": "error",
            "scores": self.empty_scores(), "reason": _one_line(message), "model": model,
        }

    def _forget_quiet_phase(self, report: pytest.TestReport) -> None:
        """Drop a gold item's silent setup/teardown report from the terminal's stats.

        pytest's failure summary scans every such report once per failure (for teardown
        output), which is quadratic: 100k failing samples never finished printing. Reports
        with captured sections stay, so nothing that would be printed is lost.
        """
        if report.when == "call" or not report.passed or report.sections:
            return
        if not str(report.location[0]).endswith(".jsonl"):
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        quiet = getattr(reporter, "stats", {}).get("")
        if quiet and quiet[-1] is report:
            quiet.pop()

    def finish(self, session: pytest.Session, exitstatus: int) -> None:
        services = self._services()
        for service in services:
            service.close()
        if self.is_worker:
            if services:
                from pytest_llmeval.models import merge_stats

                self.config.workeroutput["llmeval"] = {"stats": merge_stats([s.stats() for s in services])}  # type: ignore[attr-defined]
            return
        self.remove_worker_scratch()
        # Only a run that went through to the end is complete: Ctrl-C or SIGTERM, an INTERNALERROR,
        # a usage error, -x/--maxfail or a fatal model error leave samples unrun.
        # A stop request (ours, -x, --maxfail) also ends with INTERRUPTED: its own reason comes first.
        if self.stopped_reason is not None:
            self.incomplete_reason = self.stopped_reason
        elif session.shouldstop or session.shouldfail:
            self.incomplete_reason = str(session.shouldstop or session.shouldfail)
        elif exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete_reason = "interrupted (Ctrl-C or SIGTERM)"
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            self.incomplete_reason = "INTERNALERROR"
        elif exitstatus == pytest.ExitCode.USAGE_ERROR:
            self.incomplete_reason = "usage error"
        elif exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
            self.incomplete_reason = f"exit status {int(exitstatus)}"
        elif self.crashed:
            shown = ", ".join(self.crashed[:5]) + (f" and {len(self.crashed) - 5} more" if len(self.crashed) > 5 else "")
            self.incomplete_reason = f"an xdist worker crashed running {len(self.crashed)} sample(s): {shown}"
        self._note_budget()
        self.apply_gates(session)
        from pytest_llmeval.report.outputs import write_outputs

        write_outputs(self, incomplete=self.incomplete_reason is not None)
        if self.output_errors and session.exitstatus in (
            pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED
        ):
            # Not "tests failed": CI must not read a run whose report is missing as a verdict.
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def remove_worker_scratch(self) -> None:
        """``-n N --llm-record=off``: workers shared a scratch cache of this run's prompts and
        answers in the temp directory; nothing of it may outlive the run."""
        if not self.worker_run_ids:
            return
        import shutil
        import tempfile
        from pathlib import Path

        from pytest_llmeval.models.cache import slug

        for run_id in self.worker_run_ids:
            shutil.rmtree(Path(tempfile.gettempdir()) / f"pytest-llmeval-{slug(run_id)}", ignore_errors=True)

    def merge_worker_output(self, workeroutput: dict[str, Any]) -> None:
        # A missing key means the plugin made no model calls on that worker.
        data = workeroutput.get("llmeval")
        if data and data.get("stats"):
            self.worker_stats.append(data["stats"])

    def print_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        if self.records or self.gates:  # a gate over zero graded samples still says why it failed
            from pytest_llmeval.display import safe_line
            from pytest_llmeval.report.terminal import summary_lines

            terminalreporter.write_sep("=", "llmeval summary", bold=True)
            for line, markup in summary_lines(self, worst=self.settings.worst):
                terminalreporter.write_line(safe_line(line), **markup)  # ids and answers are untrusted
        for line in self.output_errors:
            terminalreporter.write_line(line, red=True, bold=True)


def _record(
    item: pytest.Item,
    scores: dict[str, Any],
    *,
    sample_id: str,
    file: str,
    line: int,
    status: str,
    reason: str,
    question: str | None = None,
    expected: str | list[str | int | float] | None = None,
    task: str = "-",
    domain: str = "-",
) -> dict[str, Any]:
    """The builtins record of one gold line (sample or bad line) before grading adds its scores."""
    return {
        "kind": "gold",
        "nodeid": item.nodeid,
        "sample_id": sample_id,
        "file": file,
        "line": line,
        "question": question,
        "expected": expected,
        "predicted": None,
        "task": task,
        "domain": domain,
        "status": status,
        "scores": scores,
        "reason": reason,
    }


def _one_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    # The last line of a traceback names the exception; our own errors are one line anyway.
    return lines[-1] if lines else ""


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)
