"""One run's grading: answer -> rubric -> the item's grade.

A :class:`GradingPipeline` is built from (config, settings) and holds the answer stage, the judge,
the rubric components and the rubric. Conversations (turn by turn) and ``--llm-repeat`` (N times)
are stages of it, handed its ``answer`` and ``grade`` functions. It holds no reference to the run's
session: a fatal model error reaches the run through the ``on_stop`` callback, and what prefetching
and the budget have to say comes back as return values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from pytest_llmeval.grading.answers import AnswerStage
from pytest_llmeval.grading.run_budget import Budget
from pytest_llmeval.run_state import GRADE_KEY, REPEATS_KEY, sample_of

if TYPE_CHECKING:
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.models.base import Answer, ChatModel
    from pytest_llmeval.options import Settings
    from pytest_llmeval.rubric import GradeResult, Rubric
    from pytest_llmeval.sample import Sample


PIPELINE_KEY = pytest.StashKey["GradingPipeline"]()  # config.stash: the run's one pipeline


def get_pipeline(config: pytest.Config) -> GradingPipeline:
    """The run's one :class:`GradingPipeline` (the session holds it too)."""
    return config.stash[PIPELINE_KEY]


class GradedItem(Protocol):
    """What grading needs of a gold item (:class:`pytest_llmeval.collector.GoldItem`)."""

    sample: Sample
    model: str | None  # one of several --llm-model specs, or None
    stash: pytest.Stash
    user_properties: list[tuple[str, object]]


class GradingPipeline:
    """Answers, judge, components and rubric of one run (controller, worker or plain run)."""

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        *,
        on_stop: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.settings = settings
        self.budget = Budget(settings, getattr(config, "workerinput", None))
        self.answers = AnswerStage(config, settings, self.budget, on_stop)
        self._judge: ChatModel | None = None
        self._components: ComponentRegistry | None = None
        self._rubric: Rubric | None = None

    def check(self) -> None:
        """At configure time: a budget or batch the run could not keep is a usage error."""
        from pytest_llmeval.grading.prefetch import check_batch
        from pytest_llmeval.grading.run_budget import check_budget

        check_budget(self.settings)
        check_batch(self.settings, self.config)

    # -- what grades ----------------------------------------------------------------
    @property
    def judge(self) -> ChatModel | None:
        if self._judge is None and self.settings.judge_model is not None:
            # Built by the answer service so judge calls share its cache, concurrency bound and stats.
            self._judge = self.answers.service().chat_model(self.settings.judge_model)
        return self._judge

    @property
    def components(self) -> ComponentRegistry:
        """Rubric components: built-ins plus those from ``pytest_llmeval_components``."""
        if self._components is None:
            from pytest_llmeval.components import ComponentRegistry

            self._components = ComponentRegistry.from_hook(self.config)
        return self._components

    def empty_scores(self) -> dict[str, Any]:
        return {"overall": None, **dict.fromkeys(self.components.names())}

    @property
    def rubric(self) -> Rubric:
        if self._rubric is None:
            self._rubric = self.make_rubric(self.judge)
        return self._rubric

    def make_rubric(self, judge: Any) -> Rubric:
        """A rubric with the graders of ``pytest_llmeval_graders`` and this judge."""
        from pytest_llmeval.registry import GraderRegistry
        from pytest_llmeval.rubric import Rubric

        registry = GraderRegistry()
        for extra in self.config.hook.pytest_llmeval_graders(config=self.config):
            for name, grader in (extra or {}).items():
                registry.register(name, grader)
        return Rubric(self.settings, registry, judge=judge, components=self.components)

    # -- the stages -----------------------------------------------------------------
    def answer(self, sample: Sample, repeat: int = 1, model: str | None = None) -> Answer:
        return self.answers.answer(sample, repeat, model)

    def grade(self, sample: Sample, answer: Answer) -> GradeResult:
        return self.rubric.grade(sample, answer)

    def grade_sample(
        self,
        sample: Sample,
        *,
        repeat: int = 1,
        model: str | None = None,
        answers: list[Answer] | None = None,
    ) -> GradeResult:
        """One answer graded (kept in ``answers`` when given), or a conversation answered and
        graded turn by turn."""
        if sample.turns:
            from pytest_llmeval.conversation.runner import grade_conversation

            return grade_conversation(
                sample, answer=lambda asked: self.answer(asked, repeat, model), grade=self.grade
            )
        answer = self.answer(sample, repeat, model)
        if answers is not None:
            answers.append(answer)
        return self.grade(sample, answer)

    def grade_item(self, item: GradedItem) -> None:
        """Grade a gold item (each ``--llm-repeat`` on its own) into ``item.stash[GRADE_KEY]``
        (and ``REPEATS_KEY``) and its ``llmeval_*`` user properties."""
        # A rerun (pytest-rerunfailures) grades again: keep only this attempt's properties.
        item.user_properties[:] = [
            p for p in item.user_properties if not str(p[0]).startswith("llmeval_")
        ]
        answers: list[Answer] = []  # every answer this item got (all repeats): the history's usage
        if self.settings.repeat > 1:
            grade = self._grade_repeats(item, answers)
        else:
            grade = self.grade_sample(item.sample, model=item.model, answers=answers)
        if self.settings.history:
            from pytest_llmeval.history.record import answer_usage

            grade.record["answer_usage"] = answer_usage(
                answers, self.settings.prices, item.model or self.settings.model
            )
        item.user_properties.extend(detail_properties(grade))
        if self.settings.reference_metrics:
            from pytest_llmeval.metrics.freetext.reference import reference_metrics

            # Informational only: beside the verdict, never part of the overall score.
            grade.record["reference_metrics"] = reference_metrics(
                grade.response, item.sample.expected, model=self.settings.embedding_model
            )
        item.stash[GRADE_KEY] = grade
        item.user_properties.extend(grade_properties(grade))

    def _grade_repeats(self, item: GradedItem, answers: list[Answer]) -> GradeResult:
        """``--llm-repeat``: each repeat graded or an error on its own (one failed repeat loses none
        of the others); the repeats' fields in ``item.stash[REPEATS_KEY]`` even when all failed."""
        from pytest_llmeval.regression.repeats import grade_repeats

        combined, fields, error = grade_repeats(
            self.settings.repeat,
            lambda r: self.grade_sample(item.sample, repeat=r, model=item.model, answers=answers),
            self.settings.errors.value,
        )
        item.stash[REPEATS_KEY] = fields
        item.user_properties.append(
            ("llmeval_pass_count", f"{fields['pass_count']}/{fields['counted_repeats']}")
        )
        item.user_properties.append(("llmeval_stability", fields["stability"]))
        if combined is None:
            assert error is not None
            raise error  # every repeat failed: the item is an error (its repeats still reported)
        return combined

    # -- before items run -------------------------------------------------------------
    def prefetch(self, items: list[pytest.Item]) -> str | None:
        """Fetch every answer concurrently, batch the judge (``--llm-batch``), batch-encode texts for
        semantic graders; why the run is incomplete (a batch left unfinished), or None."""
        from pytest_llmeval.grading.prefetch import batch_judge, prefetch_embeddings

        # (item's model, sample) of gold items and llm_sample tests; a model is set with several --llm-model specs
        pairs = [
            (getattr(item, "model", None), sample)
            for item in items
            if (sample := sample_of(item)) is not None
        ]
        # a conversation's requests depend on its own earlier replies: asked turn by turn at setup
        conversations = [(model, sample) for model, sample in pairs if sample.turns]
        pairs = [(model, sample) for model, sample in pairs if not sample.turns]
        if not pairs:
            return None
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        incomplete = (
            self.answers.prefetch(pairs, conversations, reporter) if self.settings.model else None
        )
        if self.settings.batch:
            incomplete = incomplete or batch_judge(
                pairs,
                settings=self.settings,
                judge=self.judge,
                engine=self.answers.service().engine,
                make_rubric=self.make_rubric,
                answer=self.answer,
                reporter=reporter,
            )
        prefetch_embeddings(
            [sample for model, sample in pairs if model in (None, self.settings.model)],
            settings=self.settings,
            answer_text=self.answers.model_text,
            is_worker=hasattr(self.config, "workerinput"),
        )
        return incomplete


def detail_properties(grade: GradeResult) -> list[tuple[str, str]]:
    """The ``llmeval_*`` user properties of a conversation's turns and a structured answer's fields."""
    props: list[tuple[str, str]] = []
    if grade.record.get("turns"):
        props.append(("llmeval_turns", ",".join(t["tier"] for t in grade.record["turns"])))
    accuracy = grade.components.get("accuracy")
    if accuracy is not None and isinstance(
        accuracy.details.get("fields"), list
    ):  # the structured grader
        fields = accuracy.details["fields"]
        wrong = [f["path"] for f in fields if not f["ok"]]
        props.append(("llmeval_fields", f"{len(fields) - len(wrong)}/{len(fields)} agree"))
        if wrong:
            props.append(("llmeval_fields_wrong", ", ".join(wrong[:20])))
    return props


def grade_properties(grade: GradeResult) -> list[tuple[str, str]]:
    """The ``llmeval_*`` user properties of a graded item: tier, scores, review flag (JUnit XML reads them)."""
    props = [("llmeval_tier", grade.tier), ("llmeval_score", f"{grade.overall:.4f}")]
    props.extend(
        (f"llmeval_{name}", f"{comp.score:.4f}") for name, comp in grade.components.items()
    )
    if grade.record.get("matched_expected") is not None:
        props.append(("llmeval_matched_expected", str(grade.record["matched_expected"])))
    if grade.record.get("needs_review"):
        props.append(("llmeval_needs_review", "true"))
    return props
