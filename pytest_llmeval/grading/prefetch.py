"""Before items run: the judge's requests batched (``--llm-batch``) and the texts the semantic
grader compares encoded in one batch. The model's own answers are the answer stage's
(:meth:`~pytest_llmeval.grading.answers.AnswerStage.prefetch`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.models.engine import Engine
    from pytest_llmeval.options import Settings
    from pytest_llmeval.rubric import Rubric
    from pytest_llmeval.sample import Sample


def check_batch(settings: Settings, config: pytest.Config) -> None:
    """``--llm-batch`` needs a cache to keep the results in, and one process to submit once."""
    if not settings.batch:
        return
    from pytest_llmeval.options import RecordMode

    if RecordMode(settings.record) is RecordMode.OFF:
        raise pytest.UsageError(
            "--llm-batch (ini llm_batch) keeps the batch's results in the response cache: "
            "it cannot run with --llm-record=off"
        )
    if not hasattr(config, "workerinput") and (config.getoption("numprocesses", None) or 0) not in (
        0,
        "0",
    ):
        raise pytest.UsageError(
            "--llm-batch (ini llm_batch) submits one batch from one process: run it without -n "
            "(grading a recorded cache is fast), then grade with -n if you like"
        )


def batch_judge(
    pairs: list[tuple[str | None, Sample]],
    *,
    settings: Settings,
    judge: Any,
    engine: Engine,
    make_rubric: Callable[[Any], Rubric],
    answer: Callable[[Sample, int, str | None], Answer],
    reporter: Any,
) -> str | None:
    """``--llm-batch``: once the answers are in, the judge's requests go in batch rounds too
    (see :func:`pytest_llmeval.models.batch.judge_rounds`); why the run is incomplete, or None."""
    from pytest_llmeval.models.service import CachedChatModel

    if not isinstance(judge, CachedChatModel):
        return None
    from pytest_llmeval.models.batch import judge_rounds

    def grade_all(capture: Any) -> None:
        rubric = make_rubric(capture)
        for model, sample in pairs:
            if not settings.model and sample.response is None:
                continue  # answered by the generate hook at setup: the user's code is not run twice
            for repeat in range(1, settings.repeat + 1):
                try:
                    rubric.grade(sample, answer(sample, repeat, model))
                except Exception:  # the item reports it when it runs
                    continue

    return judge_rounds(engine, judge.chat, grade_all, reporter=reporter)


def prefetch_embeddings(
    samples: list[Sample],
    *,
    settings: Settings,
    answer_text: Callable[[Sample], str | None],
    is_worker: bool,
) -> None:
    """One batched encode of the expected and answer texts the semantic grader will compare.

    Only samples whose answer is already known (model answer or pre-recorded ``response``)
    count: a sample that will be skipped, or whose answer comes from the generate hook at
    setup, must not make the run load the embedding model (seconds) up front.
    """
    import importlib.util

    from pytest_llmeval.registry import choose_accuracy_grader

    semantic = [
        s
        for s in samples
        if choose_accuracy_grader(s.criteria, s.gold, settings.accuracy) == "semantic_similarity"
    ]
    if not semantic or importlib.util.find_spec("sentence_transformers") is None:
        return
    texts: list[str] = []
    for sample in semantic:
        text = sample.response
        if settings.model:
            try:
                text = answer_text(sample)
            except Exception:  # the item itself reports the failure
                text = None
        if text is not None:
            texts.extend((sample.expected, text))
    if not texts:
        return
    from pytest_llmeval.errors import LLMEvalError, MissingExtraError
    from pytest_llmeval.metrics.freetext.semantic import prefetch

    try:
        prefetch(texts, model=settings.embedding_model)
    except MissingExtraError:
        return  # the grader falls back to rapidfuzz and the report says so
    except LLMEvalError as exc:
        if is_worker:
            return  # each item reports it; a usage error would only crash this worker
        # The model cannot load (a directory that is not a model, a missing extra):
        # one line for the run, not an INTERNALERROR or one error per sample.
        raise pytest.UsageError(f"{exc} (ini llm_embedding_model)") from None
