"""Support for hand-written tests: the ``llm_sample`` fixture and the helpers' tally."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.metrics.base import MetricResult, current_recorder

if TYPE_CHECKING:
    from pytest_llmeval.grading.pipeline import GradingPipeline
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.sample import Sample


class LLMSample:
    """A gold sample inside a hand-written test; ``answer`` is fetched on first use."""

    def __init__(self, sample: Sample, pipeline: GradingPipeline) -> None:
        self.sample = sample
        self._pipeline = pipeline
        self._answer: Answer | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sample, name)

    @property
    def from_model(self) -> bool:
        """Whether ``--llm-model`` answers this sample (fetched already, before the tests ran)."""
        return bool(self._pipeline.settings.model)

    @property
    def answer_obj(self) -> Answer:
        if self._answer is None:
            self._answer = self._pipeline.answer(self.sample)
        return self._answer

    @property
    def answer(self) -> str:
        """The answer text under test (model, pre-recorded response or your generate hook)."""
        return self.answer_obj.text


def parametrize_samples(metafunc: pytest.Metafunc, marker_name: str) -> None:
    """Parametrize ``llm_sample`` over the samples of the files named by the marker."""
    from pytest_llmeval.collector import iter_samples

    marker = metafunc.definition.get_closest_marker(marker_name)
    if marker is None or not marker.args:
        raise pytest.UsageError(
            f"{metafunc.definition.nodeid}: the llm_sample fixture needs @pytest.mark.{marker_name}('path/to/gold.jsonl')"
        )
    from pytest_llmeval.collector import display_path

    base = Path(metafunc.definition.path).parent
    samples: list[Any] = []
    ids: list[str] = []
    for name in marker.args:
        path = (base / name).resolve()
        # the same shown path as gold items: one key, so one answer per sample per run
        shown = display_path(path, metafunc.config.rootpath)
        _check_gold_path(metafunc, marker_name, name, path)
        for number, sample, problem in iter_samples(path, shown):
            if sample is None:
                samples.append(
                    pytest.param(None, marks=pytest.mark.skip(reason=f"{path}:{number}: {problem}"))
                )
                ids.append(f"{path.name}:{number}")
            else:
                samples.append(sample)
                ids.append(sample.id)
    metafunc.parametrize("llm_sample", samples, ids=ids, indirect=True)


def _check_gold_path(metafunc: pytest.Metafunc, marker_name: str, name: str, path: Path) -> None:
    """A marker path that is not a regular file (a FIFO would block for ever) is one collection
    error for that test module, naming the marker and the path."""
    from pytest_llmeval.fileio import NotRegularFileError, check_regular

    try:
        check_regular(path)
    except NotRegularFileError as exc:
        raise pytest.Collector.CollectError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{marker_name}({name!r}): {exc}"
        ) from None


@contextlib.contextmanager
def recording(item: pytest.Item, pipeline: GradingPipeline) -> Iterator[list[MetricResult]]:
    """Collect the results of ``assert_*`` helpers called by the test; set the default judge."""
    results: list[MetricResult] = []
    # A rerun (pytest-rerunfailures) records again: keep only this attempt's properties.
    item.user_properties[:] = [
        p for p in item.user_properties if not str(p[0]).startswith("llmeval_")
    ]
    token = current_recorder.set(results)
    judge_token = model_token = None
    if pipeline.settings.embedding_model:
        from pytest_llmeval.metrics.freetext import semantic

        model_token = semantic.default_model.set(pipeline.settings.embedding_model)
    if pipeline.settings.judge_model is not None:
        from pytest_llmeval.judge import default_judge

        judge_token = default_judge.set(pipeline.judge)
    try:
        yield results
    finally:
        current_recorder.reset(token)
        if judge_token is not None:
            from pytest_llmeval.judge import default_judge

            default_judge.reset(judge_token)
        if model_token is not None:
            from pytest_llmeval.metrics.freetext import semantic

            semantic.default_model.reset(model_token)
        for result in results:
            name = result.metric or type(result).__name__
            item.user_properties.append((f"llmeval_{name}", f"{float(result.score):.4f}"))
        if results:
            scores = [float(r.score) for r in results]
            item.user_properties.append(("llmeval_score", f"{sum(scores) / len(scores):.4f}"))
