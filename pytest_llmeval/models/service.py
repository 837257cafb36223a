"""What the plugin talks to: :class:`AnswerService` (answers under test) and
:func:`make_chat_model` (the judge's model). Both share one engine: loop, bound, cache, stats.

Where an answer comes from, first match wins:

1. ``--llm-model`` given: that model answers **every** sample, pre-recorded ``response``
   fields included (the user asked to test that model).
2. the sample's ``response`` field (answers recorded elsewhere);
3. the ``pytest_llmeval_generate`` hook (``hook_generate(sample) -> str | dict | None``);
4. nothing: :meth:`AnswerService.answer` returns ``None`` and the plugin skips the sample.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import FatalModelError, ModelError
from pytest_llmeval.models.base import Answer, Completion
from pytest_llmeval.models.engine import Engine
from pytest_llmeval.models.progress import Progress
from pytest_llmeval.models.providers import (
    FileProvider,
    OpenAIProvider,
    PythonProvider,
    answer_from_value,
    load_callable,
    split_spec,
)
from pytest_llmeval.models.usage import merge_stats

if TYPE_CHECKING:
    from pytest_llmeval.sample import Sample

__all__ = ["AnswerService", "CachedChatModel", "PythonChatModel", "make_chat_model", "merge_stats"]

HookGenerate = Callable[["Sample"], Any]
_Key = tuple[str, str]
_AnswerKey = tuple[str, str, int]


def _key(sample: Sample) -> _Key:
    return (sample.path, sample.id)  # ids are unique per file only


class AnswerService:
    """Answers for the samples of one run (one per xdist worker)."""

    def __init__(
        self,
        settings: Any,
        *,
        rootdir: Path,
        hook_generate: HookGenerate | None = None,
        model: str | None = None,
    ) -> None:
        self.settings = settings
        self.rootdir = Path(rootdir)
        self.hook_generate = hook_generate
        self.engine = Engine(settings, rootdir=self.rootdir)
        self.provider: OpenAIProvider | PythonProvider | FileProvider | None = None
        spec = settings.model if model is None else model  # model: one of several --llm-model specs
        if spec:
            kind, rest = split_spec(spec)
            if kind == "python":
                self.provider = PythonProvider(self.engine, rest, self.rootdir)
            elif kind == "file":
                self.provider = FileProvider(rest, self.rootdir)
            else:
                self.provider = OpenAIProvider(self.engine, rest)
        self.repeat = max(1, int(getattr(settings, "repeat", 1) or 1))
        self._results: dict[_AnswerKey, Answer | ModelError] = {}
        self._others: set[_Key] = set()  # other xdist workers' shares
        self._fatal: FatalModelError | None = None

    @property
    def model_name(self) -> str | None:
        return None if self.provider is None else self.provider.name

    def prefetch(
        self,
        samples: list[Sample],
        *,
        worker_index: int = 0,
        worker_count: int = 1,
        reporter: Any = None,
        later: int = 0,
    ) -> None:
        """Fetch this worker's share of the model answers concurrently (blocks until done).

        The share is every ``worker_count``-th sample from ``worker_index``; other samples
        are answered on demand by :meth:`answer`, which waits for the worker holding their lock.
        ``later``: conversations of this model, answered turn by turn as they run (the progress line says so).
        """
        if self.provider is None or not self.provider.prefetch or self._fatal is not None:
            return
        run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
        if worker_count > 1 and run_id:
            self.engine.share_between_workers(run_id)
        share: list[Sample] = []
        seen: set[_Key] = set()
        for index, sample in enumerate(samples):
            key = _key(sample)
            if index % max(1, worker_count) != worker_index:
                self._others.add(key)
            elif key not in seen and any(
                (*key, r) not in self._results for r in range(1, self.repeat + 1)
            ):
                seen.add(key)
                share.append(sample)
        if not share:
            return
        progress = Progress(
            reporter, len(share) * self.repeat, f"answers from {self.provider.name}", later=later
        )
        try:
            self.engine.runner.run(self._prefetch(share, progress))
        finally:
            progress.finish()

    def batch(self, samples: list[Sample], *, reporter: Any = None) -> str | None:
        """``--llm-batch``: answer the uncached requests of these samples through the provider's
        batch API (see :mod:`.batch`); why the run is incomplete, or None."""
        if not isinstance(self.provider, OpenAIProvider) or self._fatal is not None:
            return None
        from pytest_llmeval.models.batch import run_batch

        try:
            outcome = run_batch(
                self.engine, self.provider.chat, samples, repeat=self.repeat, reporter=reporter
            )
        except FatalModelError as exc:
            self._fatal = exc  # every item of this model reports it; nothing is asked live
            return str(exc)
        self._results.update(outcome.results)
        return outcome.incomplete

    async def _prefetch(self, share: list[Sample], progress: Progress) -> None:
        assert self.provider is not None
        provider = self.provider

        async def one(sample: Sample) -> None:
            # a sample's repeats run in order (a stateful python: model sees repeat 1 first)
            for repeat in range(1, self.repeat + 1):
                if (*_key(sample), repeat) in self._results:
                    continue  # answered by the batch phase (--llm-batch)
                try:
                    answer = await provider.aanswer(sample, repeat=repeat)
                except FatalModelError as exc:
                    self._fatal = self._fatal or exc
                    progress.stopped = True
                    for task in tasks:
                        task.cancel()  # one clear stop, not N identical errors
                    raise
                except ModelError as exc:
                    self._results[(*_key(sample), repeat)] = exc
                    progress.advance(error=True)
                else:
                    self._results[(*_key(sample), repeat)] = answer
                    progress.advance(cached=answer.cached)

        tasks = [asyncio.ensure_future(one(sample)) for sample in share]
        await asyncio.gather(*tasks, return_exceptions=True)

    def answer(self, sample: Sample, repeat: int = 1) -> Answer | None:
        """The answer under test (``repeat``: 1-based index under ``--llm-repeat``), or ``None`` when no
        source has one (the plugin skips the sample).

        Raises :class:`ModelError` (an error item), :class:`CacheMissError` (replay miss) or
        :class:`FatalModelError` (stop the run).
        """
        if self.provider is not None:
            key = (*_key(sample), repeat)
            result = self._results.get(key)
            if result is None and self._fatal is not None:
                raise self._fatal  # answers fetched before the stop are still graded
            if result is None:
                try:
                    result = self.engine.runner.run(
                        self.provider.aanswer(
                            sample, shared=_key(sample) in self._others, repeat=repeat
                        )
                    )
                except FatalModelError as exc:
                    self._fatal = exc
                    raise
                except ModelError as exc:
                    result = exc
                self._results[key] = result
            if isinstance(result, ModelError):
                raise result
            return result
        if sample.response is not None:
            return Answer(text=sample.response, source="response")
        if self.hook_generate is not None:
            value = self.hook_generate(sample)
            if inspect.isawaitable(value):
                value = self.engine.runner.run(_await(value))
            if value is not None:
                return answer_from_value(value, source="hook", sample_id=sample.id)
        return None

    def chat_model(self, spec: str) -> ChatModelType:
        """A judge model sharing this service's loop, concurrency bound, cache and stats."""
        return _chat_model(spec, self.engine, self.rootdir, owns_engine=False)

    def stats(self) -> dict[str, Any]:
        """Builtins only (xdist-safe): calls, cache_hits, retries, errors, tokens, latencies, cost."""
        return self.engine.stats.as_dict()

    def close(self) -> None:
        """Close HTTP clients and stop the private loop (call once at session end)."""
        self.engine.close()


async def _await(value: Any) -> Any:
    return await value


class CachedChatModel:
    """Synchronous, cached chat over an OpenAI-compatible model (the judge's ``ChatModel``)."""

    def __init__(self, engine: Engine, model: str, *, owns_engine: bool) -> None:
        from pytest_llmeval.judge.settings import judge_settings

        self.engine = engine
        # the judge's own base URL, key, timeout, temperature (0), max tokens and extra body
        self.chat = engine.chat(model, judge_settings(engine.settings))
        self.name = self.chat.name
        self._owns_engine = owns_engine

    # The judge may pass ``accept=``: replies it rejects are never cached (see Engine.complete).
    accepts_validator = True

    def complete(
        self,
        messages: list[dict[str, str]],
        response_format: dict[str, Any] | None = None,
        *,
        accept: Callable[[str], bool] | None = None,
    ) -> Completion:
        """Safe to call from sync code inside a running event loop (runs on our private loop)."""
        return self.engine.runner.run(
            self.engine.complete(self.chat, list(messages), response_format, accept=accept)
        )

    def stats(self) -> dict[str, Any]:
        return self.engine.stats.as_dict()

    def close(self) -> None:
        if self._owns_engine:
            self.engine.close()


class PythonChatModel:
    """``python:pkg.mod:func`` judge: ``func(messages, response_format)`` returns the reply text."""

    def __init__(self, engine: Engine, target: str, rootdir: Path, *, owns_engine: bool) -> None:
        self.engine = engine
        self.name = f"python:{target}"
        self.func = load_callable(target, rootdir, flag="--llm-judge")
        self._owns_engine = owns_engine

    def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None = None
    ) -> Completion:
        try:
            value = self.func(list(messages), response_format)
            if inspect.isawaitable(value):
                value = self.engine.runner.run(_await(value))
        except Exception as exc:
            raise ModelError(f"{self.name} raised: {type(exc).__name__}: {exc}") from exc
        if not isinstance(value, str):
            raise ModelError(f"{self.name} returned {type(value).__name__}; expected str")
        return Completion(text=value, model=self.name)

    def stats(self) -> dict[str, Any]:
        return self.engine.stats.as_dict()

    def close(self) -> None:
        if self._owns_engine:
            self.engine.close()


ChatModelType = CachedChatModel | PythonChatModel


def _chat_model(spec: str, engine: Engine, rootdir: Path, *, owns_engine: bool) -> ChatModelType:
    kind, rest = split_spec(spec)
    if kind == "python":
        return PythonChatModel(engine, rest, rootdir, owns_engine=owns_engine)
    if kind == "file":
        import pytest

        raise pytest.UsageError(
            f"--llm-judge={spec!r}: a predictions file cannot judge; use openai:MODEL or python:mod:func"
        )
    return CachedChatModel(engine, rest, owns_engine=owns_engine)


def make_chat_model(spec: str, settings: Any, *, rootdir: Path | None = None) -> ChatModelType:
    """A judge model (``openai:MODEL``, bare name or ``python:mod:func``) with its own engine.

    Prefer :meth:`AnswerService.chat_model` in the plugin so answers and judge share one
    cache, bound and stats. Call ``close()`` when done.
    """
    root = Path.cwd() if rootdir is None else Path(rootdir)
    return _chat_model(spec, Engine(settings, rootdir=root), root, owns_engine=True)
