"""``--llm-batch``: the run's uncached model requests go through the provider's batch API.

Each uncached request (under the cache key a live call would use) becomes one line of a JSONL
input in the OpenAI batch format (``{"custom_id", "method", "url", "body"}``, which vLLM's batch
runner also reads). The input is uploaded (``POST /files``, purpose ``batch``), submitted
(``POST /batches``, window 24h) and polled (``GET /batches/{id}``); the output and error files
(``GET /files/{id}/content``) fill the replay cache, so grading then runs as on replay.

Resumable: a state file per submitted batch in ``<cache dir>/.batches/<model>/`` is written right
after submission and removed once the batch's results are kept, so a run stopped in between picks
the same batch up (no second submission, no second bill).

Judge requests quote the answers, so they follow in rounds (:func:`judge_rounds`): once the answers
are in, a capture pass grades with a judge that writes down each request the cache lacks, and those
are batched in turn.

Every reply is untrusted: the metadata replies and each output line are read up to a bound, and
a malformed row is an error of its own request only.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.bounded_json import MAX_NESTING, nesting
from pytest_llmeval.errors import FatalModelError, ModelError
from pytest_llmeval.models.base import Answer, Completion, Usage
from pytest_llmeval.models.cache import MAX_FILE_BYTES, cache_key, legacy_key, slug

if TYPE_CHECKING:
    from pytest_llmeval.models.engine import Engine
    from pytest_llmeval.models.openai_chat import OpenAIChat
    from pytest_llmeval.sample import Sample

_KEY = re.compile(r"[0-9a-f]{64}")
_ID = re.compile(r"[A-Za-z0-9_.:-]{1,200}")
PROGRESS_EVERY_S = 60.0  # off a terminal: a line on each status change, else at most this often
STATE_DIR = ".batches"
STATE_VERSION = 1
CHAT_URL = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
MAX_META_BYTES = 1024 * 1024  # a file or batch object
MAX_ROW_BYTES = MAX_FILE_BYTES  # one line of an output or error file
MAX_STATE_BYTES = 1024 * 1024 * 1024
ENDED = ("completed", "expired", "failed", "cancelled")
REASON_CHARS = 300

AnswerKey = tuple[str, str, int]  # (gold file, sample id, repeat)


class BatchError(ModelError):
    """The batch API refused or broke a step (upload, submission, a look at the batch)."""


@dataclass
class Request:
    """One uncached request: its cache key (the batch's ``custom_id``) and what waits for it."""

    key: str
    identity: dict[str, Any]
    label: str
    answers: list[AnswerKey] = field(default_factory=list)
    body: dict[str, Any] | None = None  # what is sent (None: resumed, already sent)
    accept: Callable[[str], bool] | None = (
        None  # the judge's check of a reply: one it rejects is not cached
    )


@dataclass
class Pending:
    """A submitted batch: its state file and its requests by ``custom_id``."""

    id: str
    path: Path
    requests: dict[str, Request]
    submitted: float
    status: str = "validating"
    info: dict[str, Any] = field(default_factory=dict)
    failed_looks: int = 0


@dataclass
class Outcome:
    """What the batch phase gives the answer service."""

    results: dict[AnswerKey, Answer | ModelError] = field(default_factory=dict)
    incomplete: str | None = None
    submitted: int = 0
    resumed: int = 0


def request_body(
    chat: OpenAIChat, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """The chat-completion body a live call sends for the same request."""
    body: dict[str, Any] = {
        "model": chat.model,
        "messages": messages,
        "temperature": chat.temperature,
    }
    # a client may carry a role's default cap (the judge's) where its settings give none
    max_tokens = (
        chat.max_tokens
        if chat.max_tokens is not None
        else getattr(chat, "default_max_tokens", None)
    )
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if chat.seed is not None:
        body["seed"] = chat.seed
    if tools:
        body["tools"] = tools
    body.update(chat.extra_body)
    return body


class BatchAPI:
    """The files and batches endpoints of one OpenAI-compatible server (plain HTTP, bounded reads)."""

    def __init__(self, chat: OpenAIChat) -> None:
        import httpx2

        self.name = chat.name
        self.base_url = chat.base_url
        self.client = httpx2.Client(
            base_url=chat.base_url + "/",
            headers={"Authorization": f"Bearer {chat._api_key()}", "User-Agent": "pytest-llmeval"},
            timeout=httpx2.Timeout(max(chat.timeout, 60.0)),
        )

    def close(self) -> None:
        self.client.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        import httpx2

        try:
            with self.client.stream(method, path, **kwargs) as response:
                raw = b""
                for chunk in response.iter_bytes():
                    raw += chunk
                    if len(raw) > MAX_META_BYTES:
                        raise BatchError(
                            f"{self.name}: {method} {path}: reply larger than {MAX_META_BYTES} bytes"
                        )
                status = response.status_code
        except httpx2.HTTPError as exc:
            raise BatchError(
                f"{self.name}: {method} {path} at {self.base_url} failed: {type(exc).__name__}: {exc}"
            ) from None
        body = meta_body(raw)
        if status >= 400:
            detail = (
                _reason(body)
                if isinstance(body, dict)
                else raw[:REASON_CHARS].decode("utf-8", "replace")
            )
            error = FatalModelError if status in (401, 403, 404) else BatchError
            hint = (
                " (does this server offer the batch API? run without --llm-batch)"
                if status == 404
                else ""
            )
            raise error(
                f"{self.name}: {method} {path} at {self.base_url}: HTTP {status}: {detail}{hint}",
                status=status,
            )
        if not isinstance(body, dict):
            raise BatchError(
                f"{self.name}: {method} {path}: the reply is not a JSON object: {raw[:200]!r}"
            )
        return body

    def upload(self, content: bytes) -> str:
        body = self._call(
            "POST",
            "files",
            data={"purpose": "batch"},
            files={"file": ("llmeval-batch.jsonl", content, "application/jsonl")},
        )
        return _object_id(body, "file", self.name)

    def create(self, file_id: str) -> str:
        body = self._call(
            "POST",
            "batches",
            json={
                "input_file_id": file_id,
                "endpoint": CHAT_URL,
                "completion_window": COMPLETION_WINDOW,
                "metadata": {"source": "pytest-llmeval"},
            },
        )
        return _object_id(body, "batch", self.name)

    def get(self, batch_id: str) -> dict[str, Any]:
        return self._call("GET", f"batches/{batch_id}")

    def rows(self, file_id: str, limit: int) -> Iterator[dict[str, Any] | str]:
        """The file's lines as JSON objects (a line that is not one: a description of the problem);
        at most ``limit`` lines of at most :data:`MAX_ROW_BYTES` each."""
        import httpx2

        try:
            with self.client.stream("GET", f"files/{file_id}/content") as response:
                if response.status_code >= 400:
                    raise BatchError(
                        f"{self.name}: GET files/{file_id}/content: HTTP {response.status_code}"
                    )
                pending = b""
                count = 0
                for chunk in response.iter_bytes():
                    pending += chunk
                    while b"\n" in pending:
                        line, pending = pending.split(b"\n", 1)
                        if line.strip():
                            count += 1
                            yield _row(line)
                        if count >= limit:
                            return
                    if len(pending) > MAX_ROW_BYTES:
                        raise BatchError(
                            f"{self.name}: file {file_id}: a line longer than {MAX_ROW_BYTES} bytes"
                        )
                if pending.strip():
                    yield _row(pending)
        except httpx2.HTTPError as exc:
            raise BatchError(
                f"{self.name}: reading file {file_id} failed: {type(exc).__name__}: {exc}"
            ) from None


def meta_body(raw: bytes) -> Any:
    """The JSON value of a files or batches reply; None when it is not JSON or nests too deep to walk."""
    try:
        body = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return None if nesting(body) > MAX_NESTING else body


def _row(line: bytes) -> dict[str, Any] | str:
    try:
        row = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return f"a line that is not JSON: {line[:80]!r}"
    return row if isinstance(row, dict) else f"a line that is not a JSON object: {line[:80]!r}"


def _object_id(body: dict[str, Any], what: str, name: str) -> str:
    value = body.get("id")
    if not isinstance(value, str) or not _ID.fullmatch(
        value
    ):  # it goes into URLs, file names, the terminal
        raise BatchError(f"{name}: the {what} reply has no usable id: {json.dumps(body)[:200]}")
    return value


def _reason(body: Any) -> str:
    """The provider's words for a failed row or request (bounded)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            message = inner.get("message")
            code = inner.get("code")
            if isinstance(message, str) and message:
                return (f"{code}: " if isinstance(code, str) and code else "") + message[
                    :REASON_CHARS
                ]
        return json.dumps(body)[:REASON_CHARS]
    return str(body)[:REASON_CHARS]


class BatchRun:
    """One model's batch phase: find the uncached requests, resume or submit, wait, keep the results."""

    def __init__(self, engine: Engine, chat: OpenAIChat, *, reporter: Any = None) -> None:
        self.engine = engine
        self.chat = chat
        self.settings = engine.settings
        self.cache = engine.cache_for(chat.name)
        self.reporter = reporter
        self.state_dir = engine.cache_root / STATE_DIR / slug(chat.name)
        self.outcome = Outcome()
        self._api: BatchAPI | None = None
        self._statuses = ""  # of the last progress line

    @property
    def api(self) -> BatchAPI:
        if self._api is None:
            self._api = BatchAPI(self.chat)
        return self._api

    # -- which requests ---------------------------------------------------------
    def requests(self, samples: list[Sample], repeat: int) -> dict[str, Request]:
        """The uncached requests of these samples, by cache key (two samples asking the same share one)."""
        assert self.cache is not None
        wanted: dict[str, Request] = {}
        seen: set[tuple[str, str]] = set()
        for sample in samples:
            if (sample.path, sample.id) in seen:
                continue
            seen.add((sample.path, sample.id))
            for index in range(1, repeat + 1):
                messages = [dict(m) for m in sample.messages]
                identity = self.chat.identity(messages, None, sample.tools)
                if index > 1:
                    identity = {**identity, "repeat": index}
                key = cache_key(identity)
                if key not in wanted and self.cache.reads and self._cached(key, identity):
                    continue
                label = sample.id if index == 1 else f"{sample.id} (repeat {index})"
                if key not in wanted:
                    wanted[key] = Request(
                        key, identity, label, body=request_body(self.chat, messages, sample.tools)
                    )
                wanted[key].answers.append((sample.path, sample.id, index))
        return wanted

    def _cached(self, key: str, identity: dict[str, Any]) -> bool:
        assert self.cache is not None
        return any(
            self.cache.get(k) is not None for k in (key, legacy_key(identity, self.chat.base_url))
        )

    # -- state files --------------------------------------------------------------
    def _load_pending(self) -> list[Pending]:
        """Batches an earlier run submitted at this endpoint and did not collect."""
        found: list[Pending] = []
        if not self.state_dir.is_dir():
            return found
        for path in sorted(self.state_dir.glob("*.json")):
            try:
                with path.open("rb") as handle:
                    data = json.loads(handle.read(MAX_STATE_BYTES))
                if (
                    data.get("version") != STATE_VERSION
                    or data.get("endpoint") != self.chat.base_url
                ):
                    continue  # another endpoint's batch: only that endpoint can answer for it
                requests: dict[str, Request] = {}
                for entry in data["requests"]:
                    identity = entry["identity"]
                    if not isinstance(identity, dict) or not isinstance(
                        identity.get("messages"), list
                    ):
                        raise ValueError("a request without messages")
                    key = cache_key(
                        identity
                    )  # the request's hash, unless redaction changed the request
                    if key != entry.get("key") and _KEY.fullmatch(str(entry.get("key"))):
                        key = entry["key"]
                    requests[key] = Request(key, identity, str(entry.get("label") or "")[:200])
                found.append(
                    Pending(
                        str(data["id"]), path, requests, float(data.get("submitted") or time.time())
                    )
                )
            except (
                OSError,
                ValueError,
                KeyError,
                TypeError,
                AttributeError,
                RecursionError,
            ) as exc:
                self._note(
                    f"llmeval batch: state file {path} unreadable ({type(exc).__name__}: {exc}); ignored"
                )
        return found

    def _save(self, pending: Pending) -> None:
        from pytest_llmeval.fileio import write_atomic
        from pytest_llmeval.redact import redact, strip_url_credentials

        state = {
            "version": STATE_VERSION,
            "id": pending.id,
            "endpoint": self.chat.base_url,
            "endpoint_shown": strip_url_credentials(self.chat.base_url),
            "model": self.chat.name,
            "submitted": pending.submitted,
            "requests": [
                {"key": r.key, "label": r.label, "identity": r.identity}
                for r in pending.requests.values()
            ],
        }
        # a prompt quoting the API key never gets it written (as in the cache files)
        write_atomic(
            pending.path, redact(json.dumps(state, ensure_ascii=False)) + "\n", newline="\n"
        )

    # -- the phase ------------------------------------------------------------------
    def run(self, samples: list[Sample], repeat: int) -> Outcome:
        if self.cache is None or not self.cache.writes:
            return self.outcome  # replay only: nothing may be recorded, so nothing is bought
        return self.send(self.requests(samples, repeat))

    def send(self, wanted: dict[str, Request]) -> Outcome:
        """Resume this endpoint's pending batches, submit what they do not hold, wait, keep the results."""
        try:
            pending = self._load_pending()
            for batch in pending:
                for key, request in batch.requests.items():
                    if key in wanted:
                        mine = wanted.pop(key)
                        request.answers, request.accept = mine.answers, mine.accept
            self.outcome.resumed = len(pending)
            if wanted:
                pending += self._submit(list(wanted.values()))
            if pending:
                self._wait(pending)
        finally:
            if self._api is not None:
                self._api.close()
        return self.outcome

    def _submit(self, requests: list[Request]) -> list[Pending]:
        size = int(self.settings.batch_size)
        submitted: list[Pending] = []
        for start in range(0, len(requests), size):
            chunk = requests[start : start + size]
            try:
                if self.engine.budget is not None:
                    self.engine.budget.check()
                lines = [
                    json.dumps(
                        {"custom_id": r.key, "method": "POST", "url": CHAT_URL, "body": r.body},
                        ensure_ascii=False,
                    )
                    for r in chunk
                ]
                file_id = self.api.upload(("\n".join(lines) + "\n").encode("utf-8"))
                batch_id = self.api.create(file_id)
            except ModelError as exc:
                self._fail(chunk, exc)
                self._incomplete(f"batch not submitted: {exc}")
                continue
            batch = Pending(
                batch_id,
                self.state_dir / f"{slug(batch_id)}.json",
                {r.key: r for r in chunk},
                time.time(),
            )
            self._save(batch)  # before anything else: a stop from here on resumes this batch
            self.outcome.submitted += 1
            submitted.append(batch)
        return submitted

    def _wait(self, pending: list[Pending]) -> None:
        poll = float(self.settings.batch_poll)
        wait = self.settings.batch_wait
        deadline = None if wait is None else time.monotonic() + float(wait)
        started = time.perf_counter()
        active = list(pending)
        shown = ("", 0.0)
        while active:
            for batch in list(active):
                state = self._look(batch)
                if state != "running":
                    active.remove(batch)
                if state == "ended":
                    self._collect(batch)
            shown = self._progress(pending, started, shown)
            if not active:
                break
            if deadline is not None and time.monotonic() >= deadline:
                for batch in active:
                    self._unfinished(
                        batch,
                        f"batch {batch.id} still {batch.status} after llm_batch_wait={wait:g} s; "
                        "the next run picks it up",
                    )
                break
            time.sleep(
                poll if deadline is None else max(0.0, min(poll, deadline - time.monotonic()))
            )
        self._progress(pending, started, shown, final=True)

    def _look(self, batch: Pending) -> str:
        """Poll once: ``ended``, ``running``, or ``gone`` (it cannot be followed any more)."""
        try:
            info = self.api.get(batch.id)
        except ModelError as exc:
            batch.failed_looks += 1
            if isinstance(exc, FatalModelError) or batch.failed_looks > int(
                self.settings.max_retries
            ):
                batch.status = "unknown"
                self._unfinished(batch, f"batch {batch.id} cannot be followed: {exc}")
                if exc.status == 404:
                    batch.path.unlink(
                        missing_ok=True
                    )  # the server does not know it: nothing to resume
                return "gone"
            return "running"  # a transient failure: the next look tries again
        batch.failed_looks = 0
        batch.info = info
        status = info.get("status")
        batch.status = (
            status
            if isinstance(status, str) and re.fullmatch(r"[a-z_]{1,40}", status)
            else "unknown"
        )
        return "ended" if batch.status in ENDED else "running"

    def _collect(self, batch: Pending) -> None:
        """Keep every row the batch answered; the others are errors (and, unless it completed,
        the run is incomplete)."""
        answered: set[str] = set()
        limit = 2 * len(batch.requests) + 100  # stray lines are skipped, not read without end
        latency = _turnaround(batch)
        for field_name in ("output_file_id", "error_file_id"):
            file_id = batch.info.get(field_name)
            if not isinstance(file_id, str) or not _ID.fullmatch(file_id):
                continue
            try:
                for row in self.api.rows(file_id, limit):
                    key = self._keep_row(batch, row, latency, answered)
                    if key is not None:
                        answered.add(key)
            except BatchError as exc:
                self._unfinished(batch, f"batch {batch.id}: {exc}", skip=answered)
                return  # the state stays: the next run reads the files again
        missing = [r for k, r in batch.requests.items() if k not in answered]
        if batch.status == "completed":
            self._fail(
                missing,
                ModelError(f"{self.chat.name}: batch {batch.id} returned no row for this request"),
            )
        elif missing:
            why = (
                _reason(batch.info.get("errors", {}).get("data", [{}])[0])
                if isinstance(batch.info.get("errors"), dict)
                else ""
            )
            self._fail(
                missing,
                ModelError(
                    f"{self.chat.name}: batch {batch.id} {batch.status} before answering this request"
                    + (f": {why}" if why else "")
                ),
            )
            self._incomplete(
                f"batch {batch.id} {batch.status}: {len(missing)} of {len(batch.requests)} request(s) unanswered"
            )
        batch.path.unlink(missing_ok=True)

    def _keep_row(
        self, batch: Pending, row: dict[str, Any] | str, latency: float, answered: set[str]
    ) -> str | None:
        """Write one answered row into the cache (or note its error); its key, or None for a stray row
        (not JSON, an id the batch did not ask, a second row for an answered id)."""
        from pytest_llmeval.models.openai_chat import parse_completion

        if isinstance(row, str):
            self._note(f"llmeval batch {batch.id}: {row}")
            return None
        custom_id = row.get("custom_id")
        request = batch.requests.get(custom_id) if isinstance(custom_id, str) else None
        if request is None or request.key in answered:
            return None
        response = row.get("response")
        response = response if isinstance(response, dict) else {}
        status = response.get("status_code")
        body = response.get("body")
        if row.get("error") or status != 200 or not isinstance(body, dict):
            reason = _reason(row["error"]) if row.get("error") else _reason(body)
            self._fail(
                [request],
                ModelError(
                    f"{self.chat.name}: batch {batch.id} failed this request (HTTP {status}): {reason}",
                    status=status if isinstance(status, int) else None,
                ),
            )
            self.engine.stats.record_error()
            return request.key
        try:
            parsed = parse_completion(json.dumps(body), status=200, model=self.chat.name)
        except ModelError as exc:
            self._fail([request], ModelError(f"batch {batch.id}: {exc}", status=200))
            self.engine.stats.record_error()
            return request.key
        completion = Completion(
            text=parsed["text"],
            usage=Usage(**parsed["usage"]),
            latency_s=latency,
            model=parsed["model"],
            junk_usage=parsed["junk_usage"],
            usage_missing=parsed["usage_missing"],
            tool_calls=parsed["tool_calls"],
        )
        self._account(request, completion)
        assert self.cache is not None
        if request.accept is not None and not request.accept(completion.text):
            self.cache.note_unusable(
                request.key, completion.text
            )  # asked again live when its sample is graded
            return request.key
        self.engine.batched.add(request.key)  # reading it back this run is no cache hit
        self.engine._record(
            self.cache,
            request.key,
            request.identity,
            completion,
            chat=self.chat,
            label=request.label,
        )
        for answer_key in request.answers:
            self.outcome.results[answer_key] = Answer(
                text=completion.text,
                source=self.chat.name,
                usage=completion.usage,
                latency_s=latency,
                tool_calls=completion.tool_calls,
            )
        return request.key

    def _account(self, request: Request, completion: Completion) -> None:
        """Stats and run budget, at the batch price (``llm_batch_price`` of ``llm_prices``)."""
        from pytest_llmeval.models.usage import estimate_usage

        factor = float(self.settings.batch_price)
        usage = completion.usage
        if completion.usage_missing:
            usage = estimate_usage(
                request.identity["messages"], completion.text, completion.tool_calls
            )
        stats = self.engine.stats
        stats.record_call(
            self.chat.model,
            usage,
            completion.latency_s,
            estimated=completion.usage_missing,
            price_factor=factor,
        )
        if completion.junk_usage:
            stats.record_junk_usage()
        if self.engine.budget is not None:
            tokens, usd = stats.usage_cost(self.chat.model, usage)
            self.engine.budget.spend(tokens, None if usd is None else usd * factor)

    # -- outcomes ---------------------------------------------------------------------
    def _fail(self, requests: list[Request], error: ModelError) -> None:
        for request in requests:
            self.engine.batch_failures[request.key] = (
                error  # a judge request too: not bought again live
            )
            for answer_key in request.answers:
                self.outcome.results[answer_key] = error

    def _unfinished(self, batch: Pending, reason: str, *, skip: set[str] | None = None) -> None:
        self._fail(
            [r for k, r in batch.requests.items() if k not in (skip or ())],
            ModelError(f"{self.chat.name}: {reason}"),
        )
        self._incomplete(reason)

    def _incomplete(self, reason: str) -> None:
        self.outcome.incomplete = self.outcome.incomplete or reason

    # -- progress ---------------------------------------------------------------------
    def _note(self, line: str) -> None:
        if self.reporter is not None and getattr(self.reporter, "verbosity", 0) >= 0:
            self.reporter.write_line(line)

    def _progress(
        self,
        pending: list[Pending],
        started: float,
        shown: tuple[str, float],
        *,
        final: bool = False,
    ) -> tuple[str, float]:
        """Status and request counts of each batch: live on a terminal; otherwise a line on each
        status change, and at most every :data:`PROGRESS_EVERY_S` while counts move."""
        parts, statuses = [], []
        for batch in pending:
            counts = batch.info.get("request_counts")
            counts = counts if isinstance(counts, dict) else {}
            done, failed = (
                counts.get(k) if isinstance(counts.get(k), int) else 0
                for k in ("completed", "failed")
            )
            parts.append(
                f"{batch.id} {batch.status} {done}/{len(batch.requests)} done, {failed} failed"
            )
            statuses.append(batch.status)
        text = f"llmeval batch ({self.chat.name}): " + "; ".join(parts)
        reporter = self.reporter
        now = time.perf_counter()
        if reporter is None or getattr(reporter, "verbosity", 0) < 0:
            return shown
        line = f"{text}, {now - started:.1f} s"
        if getattr(reporter, "isatty", False):
            reporter.rewrite(line)
            if final:
                reporter.write_line("")
            return text, now
        last_text, last_at = shown
        changed = " ".join(statuses) != self._statuses
        self._statuses = " ".join(statuses)
        if text != last_text and (changed or final or now - last_at >= PROGRESS_EVERY_S):
            reporter.write_line(line)
            return text, now
        return shown


def _turnaround(batch: Pending) -> float:
    """The batch's time from creation to completion as the provider states it (else as seen here)."""
    created, ended = (
        batch.info.get("created_at"),
        batch.info.get("completed_at") or batch.info.get("expired_at"),
    )
    if (
        all(isinstance(v, int | float) and not isinstance(v, bool) for v in (created, ended))
        and 0 <= ended - created < 10**7  # type: ignore[operator]
    ):
        return float(ended - created)  # type: ignore[operator]
    return max(0.0, time.time() - batch.submitted)


def run_batch(
    engine: Engine,
    chat: OpenAIChat,
    samples: list[Sample],
    *,
    repeat: int = 1,
    reporter: Any = None,
) -> Outcome:
    """The batch phase of one model over these samples (see the module docstring)."""
    return BatchRun(engine, chat, reporter=reporter).run(samples, repeat)


class _Deferred(ModelError):
    """A judge request the cache cannot answer yet: written down for the next batch round."""


class CaptureJudge:
    """The judge of a capture pass: replies from the cache, and writes down (then refuses) each
    request the cache does not hold, with the body a live call would send."""

    accepts_validator = True

    def __init__(self, engine: Engine, chat: OpenAIChat) -> None:
        self.engine = engine
        self.chat = chat
        self.name = chat.name
        self.cache = engine.cache_for(chat.name)
        self.missing: dict[str, Request] = {}

    def complete(
        self,
        messages: list[dict[str, str]],
        response_format: dict[str, Any] | None = None,
        *,
        accept: Callable[[str], bool] | None = None,
    ) -> Completion:
        from pytest_llmeval.models import formats

        assert self.cache is not None
        messages = [dict(m) for m in messages]
        identity = self.chat.identity(messages, response_format, None)
        key = cache_key(identity)
        for candidate in (key, legacy_key(identity, self.chat.base_url)):
            hit = (
                self.engine._from_cache(self.cache, candidate, count_hit=False, accept=accept)
                if self.cache.reads
                else None
            )
            if hit is not None:
                return hit
        if key not in self.missing:
            sent, fields = (
                messages,
                ({"response_format": response_format} if response_format else {}),
            )
            if response_format is not None and formats.negotiable(response_format):
                known = self.engine.formats.get(self.chat.base_url)
                sent, fields = formats.wire_request(
                    known[0] if known else formats.JSON_SCHEMA,
                    messages,
                    response_format,
                    grammar=self.chat.grammar_server,
                )
            body = request_body(self.chat, sent, None)
            body.update(fields)
            body.update(self.chat.extra_body)
            self.missing[key] = Request(key, identity, "judge", body=body, accept=accept)
        raise _Deferred(f"{self.name}: judge request deferred to the batch")


def judge_rounds(
    engine: Engine,
    chat: OpenAIChat,
    grade_all: Callable[[CaptureJudge], None],
    *,
    reporter: Any = None,
    rounds: int = 3,
) -> str | None:
    """Batch the judge's requests: grade every answered sample with a :class:`CaptureJudge`, batch
    what it could not answer, and again (a judge's second request may quote its first reply), at
    most ``rounds`` times; why the run is incomplete, or None. What is left is asked live."""
    cache = engine.cache_for(chat.name)
    if cache is None or not cache.writes:
        return None
    asked: set[str] = set()
    for _ in range(rounds):
        capture = CaptureJudge(engine, chat)
        grade_all(capture)
        wanted = {
            k: r for k, r in capture.missing.items() if k not in asked
        }  # failed rows: live at grading
        if not wanted:
            return None
        asked.update(wanted)
        outcome = BatchRun(engine, chat, reporter=reporter).send(wanted)
        if outcome.incomplete:
            return outcome.incomplete
    return None
