"""Per-run state: answers, grading, the per-sample records, and the run's end.

One ``LLMEvalSession`` lives in ``config.stash[SESSION_KEY]``. Each test's record travels on its
report as builtins, so the controller collects the same records with or without pytest-xdist;
when the run ends they are frozen into one run record (see :mod:`pytest_llmeval.run_end`) that
the gates and every output read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.options import Settings
from pytest_llmeval.records.collect import RecordBook, forget_quiet_phase
from pytest_llmeval.regression.gates import FailureLedger
from pytest_llmeval.run_state import GRADE_KEY, REPEATS_KEY, SESSION_KEY, sample_of

if TYPE_CHECKING:
    from pytest_llmeval.collector import GoldItem
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.models.base import Answer, ChatModel
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample import SampleRecord
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.report.outputs import OutputLog
    from pytest_llmeval.rubric import GradeResult, Rubric
    from pytest_llmeval.sample import Sample


class LLMEvalSession:
    """State of one pytest run for pytest-llmeval (controller, worker or plain run)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.book = RecordBook()
        self.worker_stats: list[dict[str, Any]] = []
        self.worker_run_ids: set[str] = set()  # xdist run ids (their --llm-record=off scratch caches)
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
        self._rubric: Rubric | None = None
        self._answers: Any = None
        self._other_answers: dict[str, Any] = {}  # AnswerService per extra --llm-model spec
        self._judge: ChatModel | None = None
        self._components: ComponentRegistry | None = None
        self.pytest_session: pytest.Session | None = None
        self.started_at: Any = None
        self.budget_note: dict[str, Any] | None = None  # why --llm-budget-* stopped requests (history)
        self._budget: Any = None
        self.budget_file: str | None = None

    # -- answers ---------------------------------------------------------------
    @property
    def answers(self) -> Any:
        """The model layer's AnswerService (only when ``--llm-model`` is set)."""
        if self._answers is None:
            from pytest_llmeval.models.answers import AnswerService

            self._answers = AnswerService(self.settings, rootdir=self.config.rootpath)
            self._answers.engine.budget = self.run_budget
        return self._answers

    def answers_for(self, model: str | None) -> Any:
        """The AnswerService of one of several ``--llm-model`` specs (the first: :attr:`answers`)."""
        if model is None or model == self.settings.model:
            return self.answers
        if model not in self._other_answers:
            from pytest_llmeval.models.answers import AnswerService

            self._other_answers[model] = AnswerService(self.settings, rootdir=self.config.rootpath, model=model)
            self._other_answers[model].engine.budget = self.run_budget
        return self._other_answers[model]

    # -- run budget (--llm-budget-usd / --llm-budget-tokens) -----------------------
    def check_budget(self) -> None:
        if self.settings.budget_usd is None:
            return
        if not self.settings.prices:
            raise pytest.UsageError("--llm-budget-usd (ini llm_budget_usd) needs llm_prices to know what a call costs")
        from pytest_llmeval.models.stats import Stats

        # a request to a model without a price would cost an unknown amount: the cap could not hold
        prices = Stats(self.settings.prices)
        served = [m for m in (*self.settings.models, self.settings.judge_model) if m and not m.startswith(("python:", "file:"))]
        unpriced = [m for m in served if prices._price(m) is None]
        if unpriced:
            raise pytest.UsageError(
                f"--llm-budget-usd (ini llm_budget_usd): llm_prices has no price for {', '.join(unpriced)}, "
                f"so what its requests cost is unknown (priced: {', '.join(sorted(self.settings.prices))})"
            )

    def check_batch(self) -> None:
        """``--llm-batch`` needs a cache to keep the results in, and one process to submit once."""
        if not self.settings.batch:
            return
        from pytest_llmeval.options import RecordMode

        if RecordMode(self.settings.record) is RecordMode.OFF:
            raise pytest.UsageError("--llm-batch (ini llm_batch) keeps the batch's results in the response cache: "
                                    "it cannot run with --llm-record=off")
        if not self.is_worker and (self.config.getoption("numprocesses", None) or 0) not in (0, "0"):
            raise pytest.UsageError(
                "--llm-batch (ini llm_batch) submits one batch from one process: run it without -n "
                "(grading a recorded cache is fast), then grade with -n if you like"
            )

    @property
    def run_budget(self) -> Any:
        """The run's :class:`~pytest_llmeval.models.budget.RunBudget` (None without a cap); under
        xdist a state file every worker shares (see :meth:`shared_budget_file`)."""
        if self._budget is None and (self.settings.budget_usd is not None or self.settings.budget_tokens is not None):
            from pytest_llmeval.models.budget import RunBudget

            path = (getattr(self.config, "workerinput", None) or {}).get("llmeval_budget_file") or self.budget_file
            self._budget = RunBudget(self.settings.budget_usd, self.settings.budget_tokens, Path(path) if path else None)
        return self._budget

    def shared_budget_file(self) -> str | None:
        """Controller under xdist: the budget state file handed to each worker (made once)."""
        if self.settings.budget_usd is None and self.settings.budget_tokens is None:
            return None
        if self.budget_file is None:
            import os
            import tempfile

            fd, self.budget_file = tempfile.mkstemp(prefix="pytest-llmeval-budget-", suffix=".json")
            os.close(fd)
            self._budget = None  # read the shared file from now on
        return self.budget_file

    def _note_budget(self) -> None:
        """Controller at the end: what the budget spent; refused requests make the run incomplete."""
        if self.run_budget is None:
            return
        self.budget_note = self.run_budget.note()
        if self.budget_note["spent"]["refused"] and self.incomplete_reason is None:
            self.incomplete_reason = self.budget_note["reached"]
        if self.budget_file is not None:
            Path(self.budget_file).unlink(missing_ok=True)

    def _services(self) -> list[Any]:
        return [s for s in (self._answers, *self._other_answers.values()) if s is not None]

    def prefetch(self, items: list[pytest.Item]) -> None:
        """Before items run: fetch every answer concurrently, then batch-encode texts for semantic graders."""
        # (item, sample) for gold items and llm_sample tests; an item's model is set with several --llm-model specs
        pairs = [(getattr(item, "model", None), sample) for item in items if (sample := sample_of(item)) is not None]
        # a conversation's requests depend on its own earlier replies: asked turn by turn at setup
        conversations = [(model, sample) for model, sample in pairs if sample.turns]
        pairs = [(model, sample) for model, sample in pairs if not sample.turns]
        samples = [sample for model, sample in pairs if model in (None, self.settings.model)]
        if not pairs:
            return
        if self.settings.model:
            workerinput = getattr(self.config, "workerinput", None)
            worker_index = int(str(workerinput["workerid"]).lstrip("gw")) if workerinput else 0
            worker_count = int(workerinput["workercount"]) if workerinput else 1
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            for model in self.settings.models:
                model_samples = [sample for m, sample in pairs if m in (None, model)]
                if self.settings.batch:
                    why = self.answers_for(model).batch(model_samples, reporter=reporter)
                    self.incomplete_reason = self.incomplete_reason or why
                later = sum(1 for m, _ in conversations if m in (None, model))
                self.answers_for(model).prefetch(
                    model_samples, worker_index=worker_index, worker_count=worker_count, reporter=reporter,
                    later=later if worker_count == 1 else 0,  # under xdist a worker's share is not known here
                )
        if self.settings.batch:
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            self.incomplete_reason = self.incomplete_reason or self._batch_judge(pairs, reporter)
        self._prefetch_embeddings(samples)

    def _prefetch_embeddings(self, samples: list[Sample]) -> None:
        """One batched encode of the expected and answer texts the semantic grader will compare.

        Only samples whose answer is already known (model answer or pre-recorded ``response``)
        count: a sample that will be skipped, or whose answer comes from the generate hook at
        setup, must not make the run load the embedding model (seconds) up front.
        """
        import importlib.util

        from pytest_llmeval.registry import choose_accuracy_grader

        semantic = [
            s for s in samples
            if choose_accuracy_grader(s.criteria, s.gold, self.settings.accuracy) == "semantic_similarity"
        ]
        if not semantic or importlib.util.find_spec("sentence_transformers") is None:
            return
        texts: list[str] = []
        for sample in semantic:
            answer_text = sample.response
            if self.settings.model:
                try:
                    answer_text = self.answers.answer(sample).text
                except Exception:  # the item itself reports the failure
                    answer_text = None
            if answer_text is not None:
                texts.extend((sample.expected, answer_text))
        if not texts:
            return
        from pytest_llmeval.errors import LLMEvalError, MissingExtraError
        from pytest_llmeval.metrics.freetext.semantic import prefetch

        try:
            prefetch(texts, model=self.settings.embedding_model)
        except MissingExtraError:
            return  # the grader falls back to rapidfuzz and the report says so
        except LLMEvalError as exc:
            if self.is_worker:
                return  # each item reports it; a usage error would only crash this worker
            # The model cannot load (a directory that is not a model, a missing extra):
            # one line for the run, not an INTERNALERROR or one error per sample.
            raise pytest.UsageError(f"{exc} (ini llm_embedding_model)") from None

    def answer_for(self, sample: Sample, repeat: int = 1, model: str | None = None) -> Answer:
        """Precedence: ``--llm-model`` > pre-recorded ``response`` > ``pytest_llmeval_generate`` hook."""
        from pytest_llmeval.models.base import Answer

        if self.settings.model:
            from pytest_llmeval.errors import FatalModelError

            try:
                answer: Answer = self.answers_for(model).answer(sample, repeat)
            except FatalModelError as exc:
                # 401/403/unknown model: one error item and one line, not N identical errors.
                self.stopped_reason = f"llmeval: stopping the run: {exc}"
                if self.pytest_session is not None:
                    self.pytest_session.shouldstop = self.stopped_reason
                raise
            return answer
        if sample.response is not None:
            return Answer(text=sample.response, source="response")
        generated = self.config.hook.pytest_llmeval_generate(sample=sample, config=self.config)
        if generated is None:
            pytest.skip(
                f"no answer for sample {sample.id!r}: it has no 'response' field and no "
                "pytest_llmeval_generate hook returned one (or pass --llm-model)"
            )
        from pytest_llmeval.models.providers import answer_from_value

        return answer_from_value(generated, source="hook", sample_id=sample.id)

    # -- grading ---------------------------------------------------------------
    @property
    def judge(self) -> ChatModel | None:
        if self._judge is None and self.settings.judge_model is not None:
            # Built by the answer service so judge calls share its cache, concurrency bound and stats.
            self._judge = self.answers.chat_model(self.settings.judge_model)
        return self._judge

    @property
    def components(self) -> ComponentRegistry:
        """Rubric components: built-ins plus those from ``pytest_llmeval_components``."""
        if self._components is None:
            from pytest_llmeval.components import ComponentRegistry

            self._components = ComponentRegistry.from_hook(self.config)
        return self._components

    @property
    def rubric(self) -> Rubric:
        if self._rubric is None:
            self._rubric = self._make_rubric(self.judge)
        return self._rubric

    def _make_rubric(self, judge: Any) -> Rubric:
        from pytest_llmeval.registry import GraderRegistry
        from pytest_llmeval.rubric import Rubric

        registry = GraderRegistry()
        for extra in self.config.hook.pytest_llmeval_graders(config=self.config):
            for name, grader in (extra or {}).items():
                registry.register(name, grader)
        return Rubric(self.settings, registry, judge=judge, components=self.components)

    def _batch_judge(self, pairs: list[tuple[str | None, Sample]], reporter: Any) -> str | None:
        """``--llm-batch``: once the answers are in, the judge's requests go in batch rounds too
        (see :func:`pytest_llmeval.models.batch.judge_rounds`); why the run is incomplete, or None."""
        from pytest_llmeval.models.service import CachedChatModel

        judge = self.judge
        if not isinstance(judge, CachedChatModel):
            return None
        from pytest_llmeval.models.batch import judge_rounds

        def grade_all(capture: Any) -> None:
            rubric = self._make_rubric(capture)
            for model, sample in pairs:
                if not self.settings.model and sample.response is None:
                    continue  # answered by the generate hook at setup: the user's code is not run twice
                for repeat in range(1, self.settings.repeat + 1):
                    try:
                        rubric.grade(sample, self.answer_for(sample, repeat, model))
                    except Exception:  # the item reports it when it runs
                        continue

        return judge_rounds(self.answers.engine, judge.chat, grade_all, reporter=reporter)

    def grade_item(self, item: GoldItem) -> None:
        # A rerun (pytest-rerunfailures) grades again: keep only this attempt's properties.
        item.user_properties[:] = [p for p in item.user_properties if not str(p[0]).startswith("llmeval_")]
        answers: list[Answer] = []  # every answer this item got (all repeats): the history's usage
        if self.settings.repeat > 1:
            from pytest_llmeval.regression.repeats import grade_repeats

            # each repeat graded or an error on its own: one failed repeat loses none of the others
            combined, fields, error = grade_repeats(
                self.settings.repeat, lambda r: self.grade_once(item, r, answers), self.settings.errors.value
            )
            item.stash[REPEATS_KEY] = fields
            item.user_properties.append(("llmeval_pass_count", f"{fields['pass_count']}/{fields['counted_repeats']}"))
            item.user_properties.append(("llmeval_stability", fields["stability"]))
            if combined is None:
                assert error is not None
                raise error  # every repeat failed: the item is an error (its repeats still reported)
            grade = combined
        else:
            grade = self.grade_once(item, answers=answers)
        if self.settings.history:
            from pytest_llmeval.history.record import answer_usage

            grade.record["answer_usage"] = answer_usage(answers, self.settings.prices, item.model or self.settings.model)
        if grade.record.get("turns"):
            item.user_properties.append(("llmeval_turns", ",".join(t["tier"] for t in grade.record["turns"])))
        accuracy = grade.components.get("accuracy")
        if accuracy is not None and isinstance(accuracy.details.get("fields"), list):  # the structured grader
            wrong = [f["path"] for f in accuracy.details["fields"] if not f["ok"]]
            item.user_properties.append(("llmeval_fields", f"{len(accuracy.details['fields']) - len(wrong)}/{len(accuracy.details['fields'])} agree"))
            if wrong:
                item.user_properties.append(("llmeval_fields_wrong", ", ".join(wrong[:20])))
        if self.settings.reference_metrics:
            from pytest_llmeval.metrics.freetext.reference import reference_metrics

            # Informational only: beside the verdict, never part of the overall score.
            grade.record["reference_metrics"] = reference_metrics(
                grade.response, item.sample.expected, model=self.settings.embedding_model
            )
        item.stash[GRADE_KEY] = grade
        item.user_properties.append(("llmeval_tier", grade.tier))
        item.user_properties.append(("llmeval_score", f"{grade.overall:.4f}"))
        for name, comp in grade.components.items():
            item.user_properties.append((f"llmeval_{name}", f"{comp.score:.4f}"))
        if grade.record.get("matched_expected") is not None:
            item.user_properties.append(("llmeval_matched_expected", str(grade.record["matched_expected"])))
        if grade.record.get("needs_review"):
            item.user_properties.append(("llmeval_needs_review", "true"))

    def grade_once(self, item: GoldItem, repeat: int = 1, answers: list[Answer] | None = None) -> GradeResult:
        """One answer graded (kept in ``answers`` when given), or a conversation answered and
        graded turn by turn."""
        if item.sample.turns:
            from pytest_llmeval.conversation.runner import grade_conversation

            return grade_conversation(self, item.sample, repeat=repeat, model=item.model)
        answer = self.answer_for(item.sample, repeat, item.model)
        if answers is not None:
            answers.append(answer)
        return self.rubric.grade(item.sample, answer)

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

    def record_for(self, item: pytest.Item, report: pytest.TestReport, helper_results: list[Any] | None) -> dict[str, Any] | None:
        """The builtins record to attach to ``report`` (None when this phase adds nothing)."""
        from pytest_llmeval.records.build import record_for

        return record_for(item, report, helper_results, self.settings, self.components.names())

    def crash_record(self, nodeid: str, message: str) -> dict[str, Any] | None:
        """The error record of a gold sample whose xdist worker died (None for other tests)."""
        from pytest_llmeval.records.build import crash_record

        record = crash_record(nodeid, message, self.settings.models, self.settings.model, self.components.names())
        if record is None:
            return None
        self.crashed.append(nodeid)
        return record.to_json()

    # -- the run's start and end (called from plugin.py) ---------------------------
    def load_baseline(self) -> None:
        """Controller only, at configure time: a bad ``--llm-baseline`` is a usage error before anything runs."""
        if not self.is_worker:
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
                from pytest_llmeval.models.answers import merge_stats

                self.config.workeroutput["llmeval"] = {"stats": merge_stats([s.stats() for s in services])}  # type: ignore[attr-defined]
            return
        from pytest_llmeval import run_end

        self.remove_worker_scratch()
        self.incomplete_reason = run_end.incomplete_reason(session, exitstatus, stopped=self.stopped_reason, crashed=self.crashed)
        self._note_budget()
        self.run = run_end.freeze(run_end.RunState(
            self.settings, tuple(self.records), tuple(self.components.names()), Path(self.config.invocation_params.dir),
            self.config.rootpath, self.ledger, testsfailed=session.testsfailed, warnings=tuple(self.warnings),
            baseline=self.baseline, incomplete_reason=self.incomplete_reason, model_stats=self.model_stats(),
            started_at=self.started_at, collected=session.testscollected,
            collected_gold=run_end.collected_gold(session.items) if self.settings.history else (),
            budget_note=self.budget_note, collect_only=bool(self.config.option.collectonly),
            shard=self.config.pluginmanager.get_plugin("llmeval-shard"),
        ))
        run_end.add_junit_properties(self.config, self.run)

    def finish(self, session: pytest.Session) -> None:
        """Last thing at session finish (controller): the gates' exit status, then the outputs."""
        if self.run is None:
            return
        from pytest_llmeval.regression.gates import decide_exit
        from pytest_llmeval.report.outputs import write_outputs

        session.exitstatus = decide_exit(
            session.exitstatus, list(self.run.gates), self.ledger,
            gate_only=bool(self.settings.gate_only), testsfailed=session.testsfailed,
        )
        self.outputs = write_outputs(self.run, exitstatus=int(session.exitstatus))
        if self.outputs.errors and session.exitstatus in (
            pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED
        ):
            # Not "tests failed": CI must not read a run whose report is missing as a verdict.
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def print_summary(self, terminalreporter: Any) -> None:
        if self.run is None or self.outputs is None:
            return
        if self.run.records or self.run.gates:  # a gate over zero graded samples still says why it failed
            from pytest_llmeval.display import safe_line
            from pytest_llmeval.report.terminal import summary_lines

            terminalreporter.write_sep("=", "llmeval summary", bold=True)
            for line, markup in summary_lines(self.run, self.outputs, worst=self.settings.worst):
                terminalreporter.write_line(safe_line(line), **markup)  # ids and answers are untrusted
        for line in self.outputs.errors:
            terminalreporter.write_line(line, red=True, bold=True)

    def model_stats(self) -> dict[str, Any] | None:
        stats = list(self.worker_stats)
        stats.extend(service.stats() for service in self._services())
        if not stats:
            return None
        from pytest_llmeval.models.answers import merge_stats

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
            shutil.rmtree(Path(tempfile.gettempdir()) / f"pytest-llmeval-{slug(run_id)}", ignore_errors=True)

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
