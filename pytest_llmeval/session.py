"""Per-run state: answers, grading, per-sample records, tallies and the gate decision.

One ``LLMEvalSession`` lives in ``config.stash[SESSION_KEY]``. Records are plain
builtins copied onto test reports, so the controller aggregates the same data with
or without pytest-xdist.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.options import ErrorsMode, GateOn, Settings, Source
from pytest_llmeval.records.sample import SampleRecord
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
    from pytest_llmeval.models.base import Answer, ChatModel
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.regression.gates import GateResult
    from pytest_llmeval.report.tally import Tally
    from pytest_llmeval.rubric import GradeResult, Rubric
    from pytest_llmeval.sample import Sample





class LLMEvalSession:
    """State of one pytest run for pytest-llmeval (controller, worker or plain run)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.records: list[SampleRecord] = []
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

    # -- records ---------------------------------------------------------------
    def add_record(self, record: SampleRecord) -> None:
        """One record per test: a later record for the same node (a rerun) replaces the earlier one."""
        attempts = self._attempts.pop(record.nodeid, None)
        if attempts:
            record = record.replace(earlier_attempts=attempts)
        index = self._record_index.get(record.nodeid)
        if index is None:
            self._record_index[record.nodeid] = len(self.records)
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
                from pytest_llmeval.review import read_verdicts

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
        for index, record in enumerate(self.records):
            applied = self.label_match.applied.get(record.nodeid)
            if applied is not None:
                self.records[index] = record.replace(people_label=label_field(applied))
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
        from pytest_llmeval.models.answers import merge_stats

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
        self.add_record(SampleRecord.from_json(record))

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
                from pytest_llmeval.models.answers import merge_stats

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

