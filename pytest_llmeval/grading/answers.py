"""The answer stage: ``--llm-model`` > pre-recorded ``response`` > ``pytest_llmeval_generate`` hook."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.grading.run_budget import Budget
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.models.service import AnswerService
    from pytest_llmeval.options import Settings
    from pytest_llmeval.sample import Sample


def _ignore(reason: str) -> None:
    return None


class AnswerStage:
    """Answers of one run: a model service per ``--llm-model`` spec, made on first use.

    ``on_stop`` hears a fatal model error (401/403, unknown model) with the reason the run stops,
    before the error is raised to the item.
    """

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        budget: Budget,
        on_stop: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.settings = settings
        self.budget = budget
        self.on_stop = on_stop or _ignore
        self._services: dict[str | None, AnswerService] = {}  # None: the first --llm-model spec

    def service(self, model: str | None = None) -> AnswerService:
        """The AnswerService of one of several ``--llm-model`` specs (None or the first: the run's own)."""
        key = None if model is None or model == self.settings.model else model
        if key not in self._services:
            from pytest_llmeval.models.service import AnswerService

            self._services[key] = AnswerService(
                self.settings, rootdir=self.config.rootpath, model=key
            )
            self._services[key].engine.budget = self.budget.run_budget
        return self._services[key]

    def services(self) -> list[AnswerService]:
        """The services made so far, the run's own first."""
        return [s for _, s in sorted(self._services.items(), key=lambda pair: pair[0] is not None)]

    def answer(self, sample: Sample, repeat: int = 1, model: str | None = None) -> Answer:
        from pytest_llmeval.models.base import Answer

        if self.settings.model:
            from pytest_llmeval.errors import FatalModelError

            try:
                answer = self.service(model).answer(sample, repeat)
            except FatalModelError as exc:
                # 401/403/unknown model: one error item and one line, not N identical errors.
                self.on_stop(f"llmeval: stopping the run: {exc}")
                raise
            assert answer is not None  # a model spec has a provider: it answers or raises
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

    def model_text(self, sample: Sample) -> str | None:
        """The run's own model's answer text (fetched already by :meth:`prefetch`)."""
        answer = self.service().answer(sample)
        return None if answer is None else answer.text

    def prefetch(
        self,
        pairs: list[tuple[str | None, Sample]],
        conversations: list[tuple[str | None, Sample]],
        reporter: Any,
    ) -> str | None:
        """Each model's answers to ``pairs`` fetched concurrently (``--llm-batch``: in a batch first);
        why the run is incomplete, or None. ``conversations`` are asked turn by turn later, at setup."""
        workerinput = getattr(self.config, "workerinput", None)
        worker_index = int(str(workerinput["workerid"]).lstrip("gw")) if workerinput else 0
        worker_count = int(workerinput["workercount"]) if workerinput else 1
        incomplete: str | None = None
        for model in self.settings.models:
            model_samples = [sample for m, sample in pairs if m in (None, model)]
            if self.settings.batch:
                why = self.service(model).batch(model_samples, reporter=reporter)
                incomplete = incomplete or why
            later = sum(1 for m, _ in conversations if m in (None, model))
            self.service(model).prefetch(
                model_samples,
                worker_index=worker_index,
                worker_count=worker_count,
                reporter=reporter,
                later=later
                if worker_count == 1
                else 0,  # under xdist a worker's share is not known here
            )
        return incomplete
