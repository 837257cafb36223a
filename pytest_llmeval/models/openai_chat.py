"""One OpenAI-compatible chat endpoint over plain HTTP (httpx2), with our own retry loop.

Not the ``openai`` SDK: we need one POST and its raw reply, and the SDK costs 0.57 s CPU to
import and 2.1 ms CPU a request against 0.10 s and 0.7 ms for httpx2, which the SDK itself
uses (measured on 200 refused connections); an unreachable endpoint must cost little.

Retried: 408/409/429 (``Retry-After`` honoured), 5xx, timeouts, dropped connections,
with exponential backoff and full jitter. Not retried: malformed replies and other 4xx.
Fatal (stops the run): 401/403 and 404 (unknown model or wrong endpoint).
A reply refusing the request's ``response_format`` (whatever its status: llama-cpp-python
answers 500) raises :class:`ResponseFormatRejected` at once, so the engine can fall back.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pytest_llmeval.bounded_json import MAX_NESTING, nesting
from pytest_llmeval.errors import FatalModelError, ModelError, ResponseFormatRejected
from pytest_llmeval.models import formats, limits
from pytest_llmeval.models.base import Completion, Usage
from pytest_llmeval.models.cache import MAX_REPLY_BYTES

if TYPE_CHECKING:
    import httpx2

    from pytest_llmeval.models.limits import AdaptiveLimit

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
BACKOFF_BASE_S = 0.5  # first retry waits up to this; doubles each attempt (tests lower it)
BACKOFF_CAP_S = 30.0
RETRY_AFTER_CAP_S = 120.0
_RETRY_STATUSES = {408, 409, 429}
_FATAL_STATUSES = {401, 403, 404}


def backoff_delay(attempt: int) -> float:
    """Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2**(attempt-1))]."""
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return random.uniform(ceiling / 2, ceiling)


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date), capped."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return min(RETRY_AFTER_CAP_S, max(0.0, float(value) / 1000))
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(RETRY_AFTER_CAP_S, max(0.0, seconds))


# Words of a server refusing a structured-output field itself (OpenAI's "Unrecognized request
# argument supplied: guided_json", vLLM, llama.cpp, llama-cpp-python's pydantic "Input should be
# 'text' or 'json_object'"). Checked only for requests that carried such a field.
_FORMAT_WORDS = (
    "response_format",
    "json_schema",
    "json_object",
    "structured output",
    "structured_outputs",
    "guided_json",
    "grammar",
    "format",
)


def rejects_response_format(status: int, detail: str) -> bool:
    """Whether an error reply refuses the request's ``response_format`` (not a transient failure)."""
    if status in _FATAL_STATUSES or status in _RETRY_STATUSES - {409}:
        return False
    text = detail.lower()
    return any(word in text for word in _FORMAT_WORDS)


def _error_message(body: Any, fallback: str) -> str:
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return json.dumps(body)[:300]
    if isinstance(body, str) and body.strip():
        return body.strip()[:300]
    return fallback


def parse_completion(text: str, *, status: int, model: str) -> dict[str, Any]:
    """Validate a chat-completion body; malformed ones raise :class:`ModelError` naming the problem."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        raise ModelError(
            f"malformed reply from {model}: HTTP {status} body is not JSON: {text[:200]!r}",
            status=status,
        ) from None
    if nesting(body) > MAX_NESTING:  # before anything walks it (surrogate scrub, cache, reports)
        raise ModelError(
            f"malformed reply from {model}: HTTP {status} body nested more than {MAX_NESTING} levels deep",
            status=status,
        )
    if not isinstance(body, dict):
        raise ModelError(
            f"malformed reply from {model}: expected a JSON object, got {text[:200]!r}",
            status=status,
        )
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ModelError(
            f"malformed reply from {model}: no choices in {text[:200]!r}", status=status
        )
    first = choices[0] if isinstance(choices[0], dict) else {}
    message = first.get("message")
    message = message if isinstance(message, dict) else {}
    content = message.get("content")
    tool_calls = clean_tool_calls(message.get("tool_calls"))
    if tool_calls and not isinstance(content, str):
        content = ""  # a reply that only calls tools
    if not tool_calls and (not isinstance(content, str) or not content.strip()):
        finish = first.get("finish_reason")
        raise ModelError(
            f"malformed reply from {model}: empty content (finish_reason={finish!r})", status=status
        )
    usage = body.get("usage")
    counts = {
        name: _token_count(usage.get(name) if isinstance(usage, dict) else 0)
        for name in ("prompt_tokens", "completion_tokens")
    }
    from pytest_llmeval.fileio import scrub_surrogates
    from pytest_llmeval.redact import redact

    # a lone surrogate ("\ud800") anywhere in the reply would stop the cache file and the reports: replaced here
    reply: dict[str, Any] = scrub_surrogates(
        {
            "text": redact(
                content if isinstance(content, str) else ""
            ),  # a model quoting the key back never gets it written anywhere
            "tool_calls": tool_calls,
            "finish_reason": first.get("finish_reason"),
            "model": str(body.get("model") or model)[:200],
            "usage": {name: count or 0 for name, count in counts.items()},
            # a usage field that is not token counts is ignored, and counted in the stats
            "junk_usage": usage is not None
            and (not isinstance(usage, dict) or None in counts.values()),
            # no token counts at all: the run counts an estimate (stats.estimate_usage), or its budget would not hold
            "usage_missing": not isinstance(usage, dict)
            or None in counts.values()
            or not any(name in usage for name in counts),
            "service_s": server_service_s(body),
        }
    )
    return reply


MAX_SERVICE_S = 86400.0


def server_service_s(body: dict[str, Any]) -> float | None:
    """The server's own time on the request, from llama.cpp's ``timings`` (prompt + generation,
    in ms; excludes the time queued for a slot), or None when the reply does not say."""
    timings = body.get("timings")
    if not isinstance(timings, dict):
        return None
    total = 0.0
    for name in ("prompt_ms", "predicted_ms"):
        value = timings.get(name)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 <= value < MAX_SERVICE_S * 1000
        ):
            return None  # junk: no figure rather than a wrong one
        total += value
    return total / 1000


MAX_TOOL_CALLS = 64
MAX_ARGUMENT_CHARS = 200_000


def clean_tool_calls(value: Any) -> list[dict[str, Any]] | None:
    """A reply's ``tool_calls`` as ``[{"id", "type", "function": {"name", "arguments"}}]``
    (arguments a JSON string, as the API sends them), bounded; None when there are none."""
    if not isinstance(value, list) or not value:
        return None
    from pytest_llmeval.redact import redact

    calls = []
    for call in value[:MAX_TOOL_CALLS]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if isinstance(arguments, dict | list) else ""
        calls.append(
            {
                "id": str(call.get("id") or "")[:200],
                "type": "function",
                "function": {
                    "name": function["name"][:200],
                    "arguments": redact(arguments[:MAX_ARGUMENT_CHARS]),
                },
            }
        )
    return calls or None


def _token_count(value: Any) -> int | None:
    """A token count, 0 when absent, None when it is junk (a string, negative, a bool, huge)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**12:
        return value
    return None


class OpenAIChat:
    """Chat completions against one model at one OpenAI-compatible endpoint."""

    provider = "openai"

    def __init__(self, model: str, settings: Any) -> None:
        self.model = model
        self.base_url = (
            settings.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_URL
        ).rstrip("/")
        self.api_key_env = settings.api_key_env or "OPENAI_API_KEY"
        # the ini key naming the key variable, in error messages (the judge has its own)
        self.key_flag = (
            "llm_judge_api_key_env"
            if getattr(settings, "role", None) == "judge"
            else "llm_api_key_env"
        )
        self.temperature = settings.temperature
        self.max_tokens = settings.max_tokens
        # sent when max_tokens is unset (the judge's bound); not in the cache key, so caches
        # recorded without it still replay
        self.default_max_tokens = getattr(settings, "default_max_tokens", None)
        # Set once a reply carries llama.cpp's ``timings``: its json_schema form is a grammar that
        # enforces every keyword, so the full schema (maxLength, pattern) can be sent there.
        self.grammar_server = False
        self.seed = settings.seed
        self.timeout = float(settings.timeout)
        self.extra_body = dict(settings.extra_body or {})
        self.max_retries = int(settings.max_retries)
        self._client: httpx2.AsyncClient | None = None
        self.breaker = limits.Breaker()

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def request_settings(self) -> dict[str, Any]:
        """What tells two clients of one model apart (the model's and the judge's)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "timeout": self.timeout,
            "extra_body": self.extra_body,
            "key_flag": self.key_flag,
        }

    def identity(
        self,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """What the cache key covers: never the API key, the timeout or the endpoint URL
        (a cache recorded at 127.0.0.1 must replay at localhost or on another port)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "params": {
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "seed": self.seed,
                "extra_body": self.extra_body,
                "response_format": formats.public(response_format),
                # only when sent: caches recorded without tools keep their keys
                **({"tools": tools} if tools else {}),
            },
        }

    def _api_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if key:
            from pytest_llmeval.redact import register_secret

            register_secret(key)
            return key
        if self.base_url == OPENAI_DEFAULT_URL:
            raise FatalModelError(
                f"{self.name}: no API key: set the environment variable {self.api_key_env} "
                f"(or name another one with {self.key_flag}), or replay the cache with --llm-record=none"
            )
        return "EMPTY"  # local servers (vLLM, Ollama, llama.cpp) accept any key

    def client(self) -> httpx2.AsyncClient:
        if self._client is None:
            import httpx2

            self._client = httpx2.AsyncClient(
                base_url=self.base_url + "/",
                headers={
                    "Authorization": f"Bearer {self._api_key()}",
                    "Content-Type": "application/json",
                    "User-Agent": "pytest-llmeval",
                },
                timeout=httpx2.Timeout(self.timeout),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def complete(
        self,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
        *,
        before_attempt: Callable[[], Awaitable[None]] | None = None,
        on_retry: Callable[[], None] | None = None,
        slot: AdaptiveLimit | None = None,
        structured: dict[str, Any] | None = None,
        admit: Callable[[], None] | None = None,
        still_wanted: Callable[[], None] | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> Completion:
        """Call the endpoint, retrying transient failures; raise ModelError/FatalModelError after.

        ``admit`` runs with the slot held, before each attempt is sent (the run budget: it raises
        to refuse the request).

        Each attempt holds one ``slot`` (none while backing off) and reports to it whether the
        server looked overloaded (timeout, 429), so the concurrency adapts. ``still_wanted`` runs
        with the slot held and may raise :class:`ModelError` (the cache stopped taking replies).
        """
        attempts = self.max_retries + 1
        last: ModelError | None = None
        request = (messages, response_format, structured, tools)
        for attempt in range(1, attempts + 1):
            taken, waited = await self._take_slot(
                attempt, slot, before_attempt, (admit, still_wanted)
            )
            if attempt > 1 and on_retry is not None:
                on_retry()
            completion, last, wait = await self._attempt(request, attempt, slot, taken, waited)
            if completion is not None:
                return completion
            if attempt < attempts:
                delay = backoff_delay(attempt) if wait is None else wait * random.uniform(1.0, 1.1)
                await asyncio.sleep(delay)
        assert last is not None
        raise last

    async def _take_slot(
        self,
        attempt: int,
        slot: AdaptiveLimit | None,
        before_attempt: Callable[[], Awaitable[None]] | None,
        checks: tuple[Callable[[], None] | None, ...],
    ) -> tuple[int, float]:
        """Wait for the rate limit and a concurrency slot, then, with the slot held, run what may
        refuse the request (the breaker, the run budget, a cache that stopped taking replies)."""
        queued = time.perf_counter()
        if before_attempt is not None:
            await before_attempt()
        taken = await slot.acquire() if slot is not None else 0
        waited = time.perf_counter() - queued
        try:
            # Checked with the slot held: the breaker may have opened while we waited.
            self._refuse_if_unreachable(attempt)
            for check in checks:
                if check is not None:
                    check()
        except ModelError:
            if slot is not None:
                slot.release(taken)
            raise
        return taken, waited

    async def _attempt(
        self,
        request: tuple[Any, ...],
        attempt: int,
        slot: AdaptiveLimit | None,
        taken: int,
        waited: float,
    ) -> tuple[Completion | None, ModelError | None, float | None]:
        """One request with the slot held: the completion, or the retryable error and its
        ``Retry-After`` wait; the slot learns whether the server looked overloaded."""
        import httpx2

        messages, response_format, structured, tools = request
        outcome = limits.OTHER
        started = time.perf_counter()
        try:
            try:
                status, text, headers = await self._post(
                    messages, response_format, structured, tools
                )
            except httpx2.ConnectError as exc:
                self.breaker.record(False, time.monotonic(), f"{type(exc).__name__}: {exc}")
                raise
            self.breaker.record(True, time.monotonic())
            if status >= 400:
                outcome = limits.OVERLOAD if status == 429 else limits.OTHER
                error, wait = self._http_error(
                    status, text, headers, attempt, response_format, structured
                )
                return None, error, wait
            parsed = parse_completion(text, status=status, model=self.name)
            if parsed["service_s"] is not None:
                self.grammar_server = True
            outcome = limits.OK
            return (
                Completion(
                    text=parsed["text"],
                    usage=Usage(**parsed["usage"]),
                    latency_s=time.perf_counter() - started,
                    attempts=attempt,
                    model=parsed["model"],
                    junk_usage=parsed["junk_usage"],
                    usage_missing=parsed["usage_missing"],
                    wait_s=waited,
                    service_s=parsed["service_s"],
                    tool_calls=parsed["tool_calls"],
                ),
                None,
                None,
            )
        except httpx2.TimeoutException:
            outcome = limits.OVERLOAD
            timed_out = ModelError(
                f"{self.name}: timed out after {self.timeout:g} s, {attempt} attempt(s)",
                attempts=attempt,
                timed_out=True,
            )
            return None, timed_out, None
        except httpx2.TransportError as exc:  # refused, reset, dropped, bad framing
            failed = ModelError(
                f"{self.name}: connection to {self.base_url} failed after {attempt} attempt(s): "
                f"{type(exc).__name__}: {exc}",
                attempts=attempt,
            )
            return None, failed, None
        except ModelError as exc:
            exc.attempts = attempt
            raise
        finally:
            if slot is not None:
                slot.release(taken, outcome)

    def _refuse_if_unreachable(self, attempt: int) -> None:
        if self.breaker.blocks(time.monotonic()):
            raise ModelError(
                f"{self.name}: {self.base_url} is unreachable: {self.breaker.failures} connection "
                f"failures in a row (last: {self.breaker.last_error}); not tried again for "
                f"{self.breaker.cool_down:g} s",
                attempts=attempt,
            )

    def _http_error(
        self,
        status: int,
        text: str,
        headers: Any,
        attempt: int,
        response_format: dict[str, Any] | None,
        structured: dict[str, Any] | None = None,
    ) -> tuple[ModelError, float | None]:
        """A retryable error and its ``Retry-After`` wait; raises what must not be retried."""
        try:
            body: Any = json.loads(text)
        except (ValueError, RecursionError):
            body = text
        if nesting(body) > MAX_NESTING:  # shown as text, never walked
            body = text
        detail = _error_message(body, f"HTTP {status}")
        if status in _FATAL_STATUSES:
            what = {401: "authentication failed", 403: "permission denied"}.get(
                status, "unknown model or wrong endpoint"
            )
            raise FatalModelError(
                f"{self.name} at {self.base_url}: {what} (HTTP {status}): {detail}",
                status=status,
                attempts=attempt,
            )
        asked = (
            [f"response_format {response_format.get('type')!r}"]
            if response_format is not None
            else []
        )
        asked += sorted(structured or {})
        if asked and rejects_response_format(status, detail):
            raise ResponseFormatRejected(
                f"{self.name} at {self.base_url} refuses {', '.join(asked)} (HTTP {status}): {detail}",
                status=status,
                attempts=attempt,
            )
        error = ModelError(
            f"{self.name}: HTTP {status} after {attempt} attempt(s): {detail}",
            status=status,
            attempts=attempt,
        )
        if status not in _RETRY_STATUSES and status < 500:
            raise error
        return error, retry_after_seconds(headers)

    async def _post(
        self,
        messages: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
        structured: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> tuple[int, str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
        }
        max_tokens = self.max_tokens if self.max_tokens is not None else self.default_max_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if self.seed is not None:
            body["seed"] = self.seed
        if response_format is not None:
            body["response_format"] = formats.public(response_format)
        body.update(structured or {})  # vLLM's structured_outputs / guided_json, Ollama's format
        if tools:
            body["tools"] = tools
        body.update(self.extra_body)  # merged into the body, as the OpenAI SDK's extra_body is
        # plain HTTP: we validate the body ourselves so malformed replies become clear errors.
        # llm_timeout bounds the whole request, not each read: a server dripping one byte at a
        # time would otherwise hold it for ever.
        try:
            return await asyncio.wait_for(self._exchange(body), self.timeout)
        except asyncio.TimeoutError:
            import httpx2

            raise httpx2.ReadTimeout(f"no complete reply within {self.timeout:g} s") from None

    async def _exchange(self, body: dict[str, Any]) -> tuple[int, str, Any]:
        """Send and read the reply, at most :data:`MAX_REPLY_BYTES` of it."""
        async with self.client().stream("POST", "chat/completions", json=body) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
                raise self._too_large(response.status_code, f"{int(declared)} bytes announced")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():  # decoded: a gzip bomb counts in full
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise self._too_large(response.status_code, "more than that sent")
                chunks.append(chunk)
            raw = b"".join(chunks)
            encoding = response.charset_encoding or "utf-8"
            try:
                text = raw.decode(encoding, errors="replace")
            except LookupError:  # an unknown charset named by the server
                text = raw.decode("utf-8", errors="replace")
            return response.status_code, text, response.headers

    def _too_large(self, status: int, detail: str) -> ModelError:
        return ModelError(
            f"{self.name}: reply larger than {MAX_REPLY_BYTES} bytes ({detail}); not read further"
            " (the cache keeps and replays replies up to that size)",
            status=status,
        )
