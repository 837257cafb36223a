"""The asyncio side of the model layer: a private event loop, the concurrency bound, the
rate limit, and cached calls with cross-process exactly-once.

Our loop runs in its own daemon thread, so sync callers (pytest items, the judge) block on a
future and nothing ever meets "event loop is already running", under pytest-asyncio or not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_llmeval.errors import (
    CacheCorruptError,
    CacheUnwritableError,
    FatalModelError,
    ModelError,
    ResponseFormatRejected,
)
from pytest_llmeval.fileio import read_regular_bytes
from pytest_llmeval.models import formats
from pytest_llmeval.models.base import Completion, Usage
from pytest_llmeval.models.cache import ResponseCache, cache_key, legacy_key, slug
from pytest_llmeval.models.format_memory import FormatMemory, endpoint_key
from pytest_llmeval.models.limits import AdaptiveLimit
from pytest_llmeval.models.usage import Stats
from pytest_llmeval.options import RecordMode

if TYPE_CHECKING:
    from pytest_llmeval.models.openai_chat import OpenAIChat

T = TypeVar("T")
LOCK_POLL_S = 0.05


class LoopRunner:
    """A private event loop in a daemon thread; ``run(coro)`` blocks the caller until done."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._guard:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="llmeval-models", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        loop = self.loop
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("LoopRunner.run() called from its own loop thread (await instead)")
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def close(self, *closers: Coroutine[Any, Any, None]) -> None:
        with self._guard:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            for closer in closers:
                closer.close()
            return

        async def shutdown() -> None:
            for closer in closers:
                with contextlib.suppress(Exception):  # closing is best effort
                    await closer
            await loop.shutdown_asyncgens()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        assert thread is not None
        thread.join(timeout=10)
        loop.close()


class RateLimiter:
    """Spaces request starts ``60 / rpm`` seconds apart (``rpm=None``: no limit)."""

    def __init__(self, rpm: float | None) -> None:
        self.interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock: asyncio.Lock | None = None

    async def wait(self) -> None:
        if not self.interval:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


class Engine:
    """Shared by the answer service and judge chat models: one loop, one bound, one cache root."""

    def __init__(self, settings: Any, *, rootdir: Path) -> None:
        self.settings = settings
        self.mode = RecordMode(settings.record)
        self.cache_root = (rootdir / settings.cache_dir).resolve()
        self.stats = Stats(settings.prices)
        self.runner = LoopRunner()
        self.limiter = RateLimiter(settings.rpm)
        self._semaphore: AdaptiveLimit | None = None
        self._caches: dict[str, ResponseCache] = {}
        self._scratch: Path | None = None
        self._failures: Path | None = None  # this run's failed requests, shared by xdist workers
        self._chats: dict[str, OpenAIChat] = {}
        self._guard = threading.Lock()
        # endpoint URL -> structured-output form it takes (formats.LADDER), found once, kept in the cache dir
        self.formats = FormatMemory(None if self.mode is RecordMode.OFF else self.cache_root)
        self._format_locks: dict[str, asyncio.Lock] = {}
        self.budget: Any = None  # the run's RunBudget (--llm-budget-*), set by the plugin session
        # Set when the cache stopped taking files mid-run: no further reply is bought to be lost.
        self._cache_error: CacheUnwritableError | None = None
        self.batched: set[str] = (
            set()
        )  # keys of replies the batch phase (--llm-batch) fetched this run
        self.batch_failures: dict[
            str, ModelError
        ] = {}  # its requests left unanswered: not bought again live

    @property
    def semaphore(self) -> AdaptiveLimit:
        """The concurrency bound: ``--llm-concurrency`` at most, less while the server is
        overloaded (AIMD, see :mod:`.limits`)."""
        if self._semaphore is None:
            self._semaphore = AdaptiveLimit(int(self.settings.concurrency))
        return self._semaphore

    def chat(self, model: str, settings: Any = None) -> OpenAIChat:
        """The endpoint client of ``model``; ``settings``: its own request settings (the judge's)."""
        from pytest_llmeval.models.openai_chat import OpenAIChat

        chat = OpenAIChat(model, self.settings if settings is None else settings)
        key = json.dumps(chat.request_settings(), sort_keys=True, default=str)
        with self._guard:
            return self._chats.setdefault(key, chat)

    def share_between_workers(self, run_id: str) -> None:
        """Under xdist, ask each request once per run, failures included: workers share the
        failures of this run (and with ``--llm-record=off`` a scratch cache; the project cache
        stays untouched) in a directory for this run in the temp directory."""
        run_dir = Path(tempfile.gettempdir()) / f"pytest-llmeval-{slug(run_id)}"
        self._failures = run_dir / "failures"
        if self.mode is RecordMode.OFF and self._scratch is None:
            self._scratch = run_dir

    def _shared_failure(self, key: str) -> ModelError | None:
        """The failure another worker of this run (or the batch phase) met on this request (None: none known)."""
        if key in self.batch_failures:
            return self.batch_failures[key]
        if self._failures is None:
            return None
        try:
            data = json.loads(read_regular_bytes(self._failures / f"{key}.json", 1 << 20))
            return ModelError(
                str(data["message"]), status=data.get("status"), attempts=int(data["attempts"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _fetched_this_run(self, key: str) -> bool:
        """Whether a worker of this run fetched this reply (reading it is then no cache hit,
        whichever worker reads it first, so hits are the same with and without xdist)."""
        if key in self.batched:
            return True
        return self._failures is not None and (self._failures.parent / "fetched" / key).exists()

    def _mark_fetched(self, key: str) -> None:
        if self._failures is None:
            return
        with contextlib.suppress(OSError):
            folder = self._failures.parent / "fetched"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / key).touch()

    def _share_failure(self, key: str, error: ModelError) -> None:
        if self._failures is None:
            return
        data = {"message": str(error), "status": error.status, "attempts": error.attempts}
        with contextlib.suppress(OSError):
            self._failures.mkdir(parents=True, exist_ok=True)
            tmp = self._failures / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, self._failures / f"{key}.json")

    def cache_for(self, namespace: str) -> ResponseCache | None:
        if self.mode is RecordMode.OFF and self._scratch is None:
            return None
        with self._guard:
            if namespace not in self._caches:
                root = self.cache_root if self._scratch is None else self._scratch
                try:
                    if self._scratch is not None:
                        cache = ResponseCache(self._scratch, namespace, RecordMode.NEW)
                    else:
                        cache = ResponseCache(self.cache_root, namespace, self.mode)
                    if cache.writes:
                        cache.check_writable()  # before the first request, not after paying for it
                except OSError as exc:  # a file where the cache folder should be
                    raise ResponseCache(root, namespace, RecordMode.NONE).unwritable(exc) from None
                self._caches[namespace] = cache
            return self._caches[namespace]

    @property
    def stale_lock_after(self) -> float:
        s = self.settings
        timeout = max(float(s.timeout), float(getattr(s, "judge_timeout", None) or 0))
        return timeout * (int(s.max_retries) + 1) + 60.0 * int(s.max_retries) + 60.0

    async def complete(
        self,
        chat: OpenAIChat,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None = None,
        *,
        label: str | None = None,
        count_hit: bool = True,
        repeat: int = 1,
        accept: Callable[[str], bool] | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """A cached, bounded, retried call. Exactly once across processes sharing the cache dir.

        ``count_hit=False``: reading what another xdist worker fetched in this run is not a cache hit.
        ``repeat``: the answer's repeat index (``--llm-repeat``); each repeat is its own request.
        ``accept``: a reply it rejects (a judge reply that fails validation) is returned but never
        cached, and a cached one it rejects is asked again wherever the mode may record.
        ``tools``: OpenAI tool definitions sent with the request (part of the cache key).
        """
        if self._cache_error is not None:
            raise self._cache_error
        cache = self.cache_for(chat.name)
        if cache is None:
            return await self._call(chat, messages, response_format, tools)
        identity = chat.identity(messages, response_format, tools)
        if repeat > 1:
            # only repeats >= 2 enter the key, so a cache recorded by single runs replays as repeat 1
            identity = {**identity, "repeat": repeat}
        key = cache_key(identity)
        if cache.reads:
            hit = self._from_cache(cache, key, count_hit, accept=accept)
            if hit is None:  # a format-1 file recorded at this same endpoint
                hit = self._from_cache(
                    cache, legacy_key(identity, chat.base_url), count_hit, accept=accept
                )
            if hit is not None:
                return hit
        if not cache.writes:
            if count_hit:  # a sample of another worker's share: that worker counts the miss
                self.stats.record_error()
            raise cache.unusable_error(key) or cache.miss_error(key, identity, label=label)
        # "all" mode re-records, but still takes a reply another worker wrote while we waited
        fresh = None if cache.reads else time.time()
        hit, waited = await self._lock_or_hit(cache, key, count_hit, fresh, accept)
        if hit is not None:
            return hit
        try:
            if cache.reads or waited:
                hit = self._from_cache(cache, key, count_hit, newer_than=fresh, accept=accept)
                if hit is not None:
                    return hit
            failure = self._shared_failure(key)
            if failure is not None:
                raise failure  # failed once this run already: not asked again (nor counted)
            try:
                completion = await self._call(chat, messages, response_format, tools)
            except FatalModelError:
                raise
            except ModelError as exc:
                self._share_failure(key, exc)
                raise
            if accept is not None and not accept(completion.text):
                cache.note_unusable(
                    key, completion.text
                )  # never cached: the next recording run asks again
                return completion
            self._mark_fetched(key)  # before the reply is visible to other workers
            self._record(cache, key, identity, completion, chat=chat, label=label)
            return completion
        finally:
            cache.unlock(key)

    async def _lock_or_hit(
        self,
        cache: ResponseCache,
        key: str,
        count_hit: bool,
        fresh: float | None,
        accept: Callable[[str], bool] | None,
    ) -> tuple[Completion | None, bool]:
        """Take the request's lock, or the reply another worker wrote while we waited for it:
        (that reply or None with the lock held, whether we waited)."""
        waited = False
        while not cache.try_lock(key, stale_after=self.stale_lock_after):
            # Another worker is asking the same thing: wait for its reply instead of paying twice.
            # try_lock takes over a stale lock (dead holder), so this loop cannot hang forever.
            waited = True
            await asyncio.sleep(LOCK_POLL_S)
            hit = self._from_cache(cache, key, count_hit, newer_than=fresh, accept=accept)
            if hit is not None:
                return hit, waited
            failure = self._shared_failure(key)
            if failure is not None:
                raise failure
        return None, waited

    def _record(
        self,
        cache: ResponseCache,
        key: str,
        identity: dict[str, Any],
        completion: Completion,
        *,
        chat: OpenAIChat,
        label: str | None,
    ) -> None:
        """Keep the paid reply; a cache that stops taking files stops later requests instead."""
        try:
            cache.put(
                key,
                identity,
                {
                    "text": completion.text,
                    "model": completion.model,
                    **({"tool_calls": completion.tool_calls} if completion.tool_calls else {}),
                    "usage": {
                        "prompt_tokens": completion.usage.prompt_tokens,
                        "completion_tokens": completion.usage.completion_tokens,
                    },
                },
                label=label,
                endpoint=chat.base_url,
            )
        except OSError as exc:
            # The disk filled (or the folder went away) mid-run: this paid reply is still
            # graded; no later request is sent to be thrown away.
            self._cache_error = self._cache_error or cache.unwritable(exc)

    def _from_cache(
        self,
        cache: ResponseCache,
        key: str,
        count_hit: bool = True,
        *,
        newer_than: float | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> Completion | None:
        """The cached reply, or None to ask. A corrupt file is re-recorded where the mode records,
        else a :class:`CacheCorruptError` naming it; a reply ``accept`` rejects likewise."""
        if newer_than is not None and not cache.written_after(key, newer_than):
            return None
        record, problem = cache.load(key)
        if record is None:
            if problem is not None and not cache.writes:
                self.stats.record_error()
                raise CacheCorruptError(
                    f"cache file {cache.path_for(key)} is corrupt: {problem}. "
                    "Delete it or re-record it with --llm-record=new."
                )
            return None
        response = record["response"]
        text = response["text"]
        if accept is not None and not accept(text) and cache.writes:
            return None  # a cached reply the caller refuses answers nothing: ask again
        if count_hit and not self._fetched_this_run(key):
            self.stats.record_hit()
        return Completion(
            text=text,
            usage=_cached_usage(response.get("usage")),
            cached=True,
            attempts=0,
            model=str(response.get("model") or "")[:200],
            tool_calls=_cached_tool_calls(response.get("tool_calls")),
        )

    async def _call(
        self,
        chat: OpenAIChat,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """Send, negotiating structured output once per endpoint (the cache key stays the
        request as asked: the reply is validated against the schema whatever was sent)."""
        if response_format is None or not formats.negotiable(response_format):
            return await self._send(
                chat,
                messages,
                {"response_format": formats.public(response_format)} if response_format else {},
                tools,
            )
        endpoint = chat.base_url
        known = self.formats.get(endpoint)
        if known is None:
            lock = self._format_locks.setdefault(endpoint, asyncio.Lock())
            async with lock:  # the first call probes; the others wait for its answer
                known = self.formats.get(endpoint)
                if known is None:
                    return await self._probe(chat, endpoint, messages, response_format, tools)
        form, tried = known
        try:
            completion = await self._send(
                chat,
                *formats.wire_request(form, messages, response_format, grammar=chat.grammar_server),
                tools,
            )
        except ResponseFormatRejected:
            # the server behind this URL changed since the form was chosen: choose again
            self.formats.forget(endpoint)
            return await self._probe(chat, endpoint, messages, response_format, tools)
        completion.structured = f"{tried} (remembered for {endpoint_key(endpoint)})"
        return completion

    async def _probe(
        self,
        chat: OpenAIChat,
        endpoint: str,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any],
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """Each form in turn until the server takes one (the reply is the caller's to validate:
        a refusal is the server's answer about the form, a bad reply is the model's)."""
        tried: list[tuple[str, str]] = []
        for form in formats.LADDER:
            try:
                completion = await self._send(
                    chat,
                    *formats.wire_request(
                        form, messages, response_format, grammar=chat.grammar_server
                    ),
                    tools,
                )
            except ResponseFormatRejected:
                tried.append((form, "refused"))
                continue  # deterministic: the next form, never a retry of this one
            tried.append((form, "used"))
            return self._chosen(endpoint, form, tried, completion)
        raise AssertionError(
            "the last form sends no structured-output field, so it cannot be refused"
        )

    def _chosen(
        self, endpoint: str, form: str, tried: list[tuple[str, str]], completion: Completion
    ) -> Completion:
        self.formats.put(endpoint, form, formats.describe(tried))
        completion.structured = formats.describe(tried)
        return completion

    async def _send(
        self,
        chat: OpenAIChat,
        messages: list[dict[str, Any]],
        fields: dict[str, Any],
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """One request; ``fields``: body fields asking for structured output (``response_format``...)."""

        async def before_attempt() -> None:
            await self.limiter.wait()

        fields = dict(fields)

        def still_wanted() -> None:
            if self._cache_error is not None:
                raise self._cache_error  # a reply bought now could not be kept

        try:
            completion = await chat.complete(
                messages,
                fields.pop("response_format", None),
                structured=fields,
                before_attempt=before_attempt,
                on_retry=self.stats.record_retry,
                slot=self.semaphore,  # per attempt: no slot is held while backing off
                # the run budget, checked with the slot held: BudgetExceeded once the cap is spent
                admit=None if self.budget is None else self.budget.check,
                still_wanted=still_wanted,
                **({"tools": tools} if tools else {}),
            )
        except (ResponseFormatRejected, CacheUnwritableError):
            raise  # not an error of the run: the caller falls back to a simpler format; or fatal
        except ModelError:
            self.stats.record_error()
            raise
        usage = completion.usage
        if completion.usage_missing:
            from pytest_llmeval.models.usage import estimate_usage

            usage = estimate_usage(messages, completion.text, completion.tool_calls)
        self.stats.record_call(
            chat.model,
            usage,
            completion.latency_s,
            wait_s=completion.wait_s,
            service_s=completion.service_s,
            estimated=completion.usage_missing,
        )
        if self.budget is not None:
            self.budget.spend(*self.stats.usage_cost(chat.model, usage))
        if completion.junk_usage:
            self.stats.record_junk_usage()
        return completion

    def close(self) -> None:
        closers = [chat.aclose() for chat in self._chats.values()]
        self._chats.clear()
        self.runner.close(*closers)


def _cached_usage(value: Any) -> Usage:
    """Token counts from a cache file; anything but a non-negative int counts as 0."""
    usage = value if isinstance(value, dict) else {}

    def count(name: str) -> int:
        number = usage.get(name)
        return (
            number
            if isinstance(number, int) and not isinstance(number, bool) and 0 <= number < 10**12
            else 0
        )

    return Usage(count("prompt_tokens"), count("completion_tokens"))


def _cached_tool_calls(value: Any) -> list[dict[str, Any]] | None:
    """Tool calls from a cache file, kept only in the shape the API sends (else none)."""
    from pytest_llmeval.models.openai_chat import clean_tool_calls

    return clean_tool_calls(value)
