"""Answer providers named by ``--llm-model``: ``openai:MODEL`` (or a bare name),
``python:pkg.mod:func`` and ``file:predictions.jsonl``."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import ModelError
from pytest_llmeval.models.base import Answer, Usage

# A bare --llm-model value that looks like a file: checked where options are read, named here too.
from pytest_llmeval.options import path_like_problem as path_like_problem

if TYPE_CHECKING:
    from pytest_llmeval.models.engine import Engine
    from pytest_llmeval.sample import Sample

_TEXT_KEYS = ("text", "response", "answer", "output", "prediction")


def _usage_error(message: str) -> Exception:
    import pytest

    return pytest.UsageError(message)


def split_spec(spec: str) -> tuple[str, str]:
    """``("openai", "gpt-4o-mini")``, ``("python", "pkg.mod:func")``, ``("file", "preds.jsonl")``."""
    spec = spec.strip()
    kind, sep, rest = spec.partition(":")
    if sep and kind in ("openai", "python", "file"):
        if not rest.strip():
            raise _usage_error(f"--llm-model={spec!r}: nothing after '{kind}:'")
        return kind, rest.strip()
    return "openai", spec  # bare model names may contain ':' (ollama tags such as llama3:8b)


# Suffixes of files that hold answers, never of a model name; a bare spec ending in one is a path.
def load_callable(target: str, rootdir: Path, *, flag: str = "--llm-model") -> Callable[..., Any]:
    """Import ``pkg.mod:func`` (the rootdir is importable, like a rootdir conftest)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise _usage_error(f"{flag}=python:{target}: expected python:package.module:function")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name.split(".")[0] or str(rootdir) in sys.path:
            raise _usage_error(
                f"{flag}=python:{target}: cannot import {module_name!r}: {exc}"
            ) from None
        sys.path.insert(0, str(rootdir))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc2:
            raise _usage_error(
                f"{flag}=python:{target}: cannot import {module_name!r}: {exc2}"
            ) from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _usage_error(
                f"{flag}=python:{target}: {module_name!r} has no attribute {attr!r}"
            ) from None
    if not callable(obj):
        raise _usage_error(f"{flag}=python:{target}: {attr!r} is not callable")
    return obj  # type: ignore[no-any-return]


def answer_from_value(value: Any, *, source: str, sample_id: str) -> Answer:
    """A str, or a dict with text (or response/answer/output) and optional contexts, retrieved, usage."""
    from pytest_llmeval.fileio import scrub_surrogates

    if isinstance(value, str):
        return Answer(text=scrub_surrogates(value), source=source)
    if isinstance(value, dict):
        value = scrub_surrogates(value)  # a lone surrogate would stop the reports
        text = next((value[k] for k in _TEXT_KEYS if isinstance(value.get(k), str)), None)
        from pytest_llmeval.models.openai_chat import clean_tool_calls

        tool_calls = clean_tool_calls(value.get("tool_calls"))
        if text is None and tool_calls:
            text = ""  # a reply that only calls tools
        if text is None:
            raise ModelError(
                f"{source} returned a dict without a text field for sample {sample_id!r} "
                f"(expected one of {', '.join(_TEXT_KEYS)}; got keys {sorted(value)})"
            )
        usage = value.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        contexts = value.get("contexts")
        retrieved = value.get("retrieved")
        return Answer(
            text=text,
            source=source,
            contexts=[str(c) for c in contexts] if isinstance(contexts, list) else None,
            retrieved=[str(r) for r in retrieved] if isinstance(retrieved, list) else None,
            usage=Usage(
                int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
            ),
            tool_calls=tool_calls,
        )
    raise ModelError(
        f"{source} returned {type(value).__name__} for sample {sample_id!r}; expected str or dict with 'text'"
    )


class OpenAIProvider:
    """A model behind an OpenAI-compatible API; cached, bounded and retried by the engine."""

    prefetch = True

    def __init__(self, engine: Engine, model: str) -> None:
        self.engine = engine
        self.chat = engine.chat(model)
        self.name = self.chat.name

    async def aanswer(self, sample: Sample, *, shared: bool = False, repeat: int = 1) -> Answer:
        completion = await self.engine.complete(
            self.chat,
            [dict(m) for m in sample.messages],
            label=sample.id if repeat == 1 else f"{sample.id} (repeat {repeat})",
            count_hit=not shared,
            repeat=repeat,
            tools=sample.tools,
        )
        return Answer(
            text=completion.text,
            source=self.name,
            usage=completion.usage,
            cached=completion.cached,
            latency_s=completion.latency_s,
            tool_calls=completion.tool_calls,
        )


class PythonProvider:
    """``python:pkg.mod:func``: ``func(sample_dict)`` (sync or async) returns str or dict.

    Not cached (it is the user's own code); sync callables run in threads, bounded by
    ``--llm-concurrency`` like API calls.
    """

    prefetch = True

    def __init__(self, engine: Engine, target: str, rootdir: Path) -> None:
        self.engine = engine
        self.name = f"python:{target}"
        self.func = load_callable(target, rootdir)

    async def aanswer(self, sample: Sample, *, shared: bool = False, repeat: int = 1) -> Answer:
        payload = sample.to_dict()
        if int(getattr(self.engine.settings, "repeat", 1) or 1) > 1:
            payload["repeat"] = (
                repeat  # 1-based; only under --llm-repeat, so single runs see the same dict
            )
        async with self.engine.semaphore:
            if self.engine.budget is not None:
                self.engine.budget.check()  # with the slot held: requests in flight have counted
            await self.engine.limiter.wait()
            started = time.perf_counter()
            try:
                if inspect.iscoroutinefunction(self.func):
                    value = await self.func(payload)
                else:
                    value = await asyncio.to_thread(self.func, payload)
                    if inspect.isawaitable(value):
                        value = await value
            except Exception as exc:
                self.engine.stats.record_error()
                raise ModelError(
                    f"{self.name} raised for sample {sample.id!r}: {type(exc).__name__}: {exc}"
                ) from exc
            latency = time.perf_counter() - started
        try:
            answer = answer_from_value(value, source=self.name, sample_id=sample.id)
        except ModelError:
            self.engine.stats.record_error()
            raise
        answer.latency_s = latency
        self.engine.stats.record_call(self.name, answer.usage, latency)
        if self.engine.budget is not None:
            self.engine.budget.spend(*self.engine.stats.usage_cost(self.name, answer.usage))
        return answer


class FileProvider:
    """``file:predictions.jsonl``: one JSON object per line with ``id`` and the answer text."""

    prefetch = False

    def __init__(self, path: str, rootdir: Path) -> None:
        self.name = f"file:{path}"
        self.path = Path(path) if Path(path).is_absolute() else rootdir / path
        self.predictions: dict[str, dict[str, Any]] = {}
        # Lines that could not be read: each is one located problem; the other lines still answer.
        self.problems: list[str] = []
        from pytest_llmeval.fileio import check_regular

        try:
            check_regular(self.path)  # a FIFO would block for ever
            self._read()
        except OSError as exc:
            raise _usage_error(
                f"--llm-model={self.name}: cannot read {self.path}: {exc.strerror}"
            ) from None

    def _read(self) -> None:
        """Read as gold files are read: lines end at "\n" only, a BOM is skipped, each line is
        UTF-8 on its own, and nesting, integers and line length are bounded."""
        from pytest_llmeval.bounded_json import JSONProblem, loads, read_lines

        for number, line, problem in read_lines(self.path):
            record: Any = None
            if line is not None:
                try:
                    record = loads(line)
                except JSONProblem as exc:
                    problem = f"not JSON: {exc}"
                else:
                    if not isinstance(record, dict) or "id" not in record:
                        problem = "a prediction needs an 'id' field"
            if problem is not None:
                self.problems.append(f"{self.path}:{number}: {problem}")
                continue
            self.predictions.setdefault(str(record["id"]), record)

    def answer(self, sample: Sample) -> Answer:
        record = self.predictions.get(sample.id)
        if record is None:
            known = ", ".join(list(self.predictions)[:5]) or "none"
            unread = ""
            if self.problems:
                unread = (
                    f"; {len(self.problems)} line(s) could not be read, first {self.problems[0]}"
                )
            raise ModelError(
                f"{self.path} has no prediction for sample {sample.id!r} "
                f"({len(self.predictions)} ids in the file, e.g. {known}){unread}"
            )
        return answer_from_value(record, source=self.name, sample_id=sample.id)

    async def aanswer(self, sample: Sample, *, shared: bool = False, repeat: int = 1) -> Answer:
        return self.answer(sample)  # a predictions file answers every repeat the same
