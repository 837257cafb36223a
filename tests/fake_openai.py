"""A small, real-HTTP, OpenAI-compatible chat server for tests.

Runs on 127.0.0.1 (random port) in a background thread. Replies are scripted:

    def test_x(fake_openai):
        fake_openai.reply_with(lambda body: "Paris")          # every request
        fake_openai.script(Reply.error(429, "slow down", headers={"Retry-After": "0.1"}), "Paris")
        client = OpenAI(base_url=fake_openai.url, api_key="sk-test")

A handler ``fn(body) -> str | Reply`` receives the JSON request body. A ``str`` is the
assistant content of a well-formed completion (with token usage). A :class:`Reply`
injects anything else: HTTP errors, ``Retry-After``, latency (``delay`` longer than
the client timeout gives a timeout), dropped connections (``drop=True``) and
malformed bodies (``body="not json"``, ``body={"id": "x"}``).

``accepted_formats`` mimics servers without structured output: ``{"text", "json_object"}``
answers a ``json_schema`` request as llama-cpp-python's server does (HTTP 500, "Input should be
'text' or 'json_object'"); ``{"text"}`` refuses ``json_object`` too.
``play_llama_cpp_python(answer)`` plays that server with a small model as judge: ``json_schema`` is
refused, ``json_object`` with a ``schema`` constrains the reply to ``answer(body)``, and without the
schema the model copies the schema in its prompt back (as a 1B model does). ``refused_fields``
answers 400 "Unrecognized request argument" to bodies with those fields, as OpenAI does.
``one_at_a_time`` mimics a single-slot local server (llama.cpp ``-np 1``): requests queue and
are served one by one, each taking ``latency``; a request the client gave up on is still served.
``report_timings`` adds llama.cpp's ``timings`` to replies: the time in the slot, not in the queue.

The batch API is played too: ``POST /v1/files`` (purpose ``batch``), ``POST /v1/batches``,
``GET /v1/batches/{id}`` and ``GET /v1/files/{id}/content``. Each row of a batch is answered by the
handler (a :class:`Reply` with status >= 400 becomes a row of the error file); ``batch_polls`` looks
answer ``in_progress`` first; ``batch_outcome`` ends the batch ``completed``, ``expired`` (only the
first ``batch_answered`` rows answered), ``failed`` or never (``stuck``). ``batch_calls`` lists the
(method, path) of every batch API request, ``batch_rows`` the rows answered.

``script(*replies)`` queues replies consumed first, one per request, before the handler.
``requests`` holds every received body, ``max_in_flight`` the peak of concurrent
chat requests, ``latency`` a default delay for every reply.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = ["FakeOpenAIServer", "Reply", "fake_openai"]


@dataclass
class Reply:
    """One scripted HTTP reply.

    - ``content``: assistant text of a normal completion (status 200 unless set).
    - ``body``: the JSON body (dict/list) or a raw string sent as is (malformed bodies).
    - ``raw``: bytes written to the socket with no HTTP framing, then the connection closes.
    - ``drop``: close the connection without replying (a dropped connection).
    - ``delay``: seconds to wait before replying (longer than the client timeout = timeout).
    - ``drip``: seconds between single bytes of the reply body (a server that trickles).
    - ``tool_calls``: ``[(name, arguments dict), ...]``: the reply calls these tools
      (``content`` may stay None, as OpenAI sends it).
    """

    content: str | None = None
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float | None = None
    raw: bytes | None = None
    drop: bool = False
    usage: dict[str, int] | None = None
    drip: float | None = None
    tool_calls: list[tuple[str, Any]] | None = None

    @classmethod
    def error(
        cls,
        status: int,
        message: str,
        *,
        type: str = "server_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
        delay: float | None = None,
    ) -> Reply:
        """An OpenAI-style error body: ``{"error": {"message", "type", "code"}}``."""
        body = {"error": {"message": message, "type": type, "param": None, "code": code}}
        return cls(status=status, body=body, headers=dict(headers or {}), delay=delay)


Handler = Callable[[dict[str, Any]], "str | Reply"]


def _last_user_message(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def echo(body: dict[str, Any]) -> str:
    """Default handler: the assistant repeats the last user message."""
    return _last_user_message(body)


def small_model(body: dict[str, Any], answer: Handler) -> str | Reply:
    """A 1B judge: follows a schema the server enforces (``json_object`` with ``schema``, the
    llama.cpp grammar), else copies the JSON Schema its prompt shows back, which matches nothing."""
    fmt = body.get("response_format")
    if (
        isinstance(fmt, dict)
        and fmt.get("type") == "json_object"
        and isinstance(fmt.get("schema"), dict)
    ):
        return answer(body)
    prompt = _last_user_message(body)
    _, found, schema = prompt.partition("JSON Schema:\n")
    return schema.strip() if found else '{"type": "object"}'


def _count_tokens(text: str) -> int:
    return len(text.split())


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # the default 5 resets bursts of concurrent connects
    owner: FakeOpenAIServer


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real API behind httpx
    # headers and body go out in two writes: with Nagle on, the delayed ACK adds ~40 ms a reply
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.server.owner._track(self.connection, add=False)

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path == "/_fake/stats":  # for a server in another process (benchmarks)
            with owner._lock:
                stats = {"requests": len(owner.requests), "max_in_flight": owner.max_in_flight}
            self._send(200, stats, {})
        elif self.path == "/_fake/reset":
            with owner._lock:
                owner.requests.clear()
                owner.max_in_flight = owner.in_flight
            self._send(200, {"ok": True}, {})
        elif "/batches/" in self.path or "/files/" in self.path:
            status, reply = owner._batch_get(self.path, self.headers.get("Authorization", ""))
            self._send(status, reply, {})
        elif self.path.rstrip("/").endswith("/models"):
            models = sorted(owner.known_models or {"fake-model"})
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in models]
            self._send(200, {"object": "list", "data": data}, {})
        else:
            self._send(
                404,
                {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}},
                {},
            )

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw_body = self.rfile.read(length) if length else b""
        if self.path.rstrip("/").endswith("/files"):
            status, reply = owner._upload(self.headers.get("Content-Type", ""), raw_body)
            self._send(status, reply, {})
            return
        try:
            body = json.loads(raw_body or b"{}")
        except ValueError:
            self._send(
                400,
                {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}},
                {},
            )
            return
        if self.path.rstrip("/").endswith("/batches"):
            status, reply = owner._create_batch(body)
            self._send(status, reply, {})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(
                404,
                {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}},
                {},
            )
            return
        owner._enter(body, {k.lower(): v for k, v in self.headers.items()})
        slot = owner._slot if owner.one_at_a_time else contextlib.nullcontext()
        try:
            with slot:
                self._serve(owner, body)
        finally:
            owner._leave()

    def _serve(self, owner: FakeOpenAIServer, body: dict[str, Any]) -> None:
        started = time.perf_counter()  # in the slot: what follows is service, not queue
        try:
            reply = owner._reply_for(body, self.headers.get("Authorization", ""))
            delay = owner.latency if reply.delay is None else reply.delay
            if delay > 0 and owner._stopping.wait(delay):
                self.close_connection = True
                return
            if reply.drop or reply.raw is not None:
                if reply.raw:
                    self.wfile.write(reply.raw)
                    self.wfile.flush()
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            served = time.perf_counter() - started
            self._send(
                reply.status,
                owner._body_for(reply, body, served),
                reply.headers,
                drip=reply.drip,
                owner=owner,
            )
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout) first

    def _send(
        self,
        status: int,
        body: Any,
        headers: dict[str, str],
        *,
        drip: float | None = None,
        owner: FakeOpenAIServer | None = None,
    ) -> None:
        payload = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        content_type = "text/plain" if isinstance(body, str) else "application/json"
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if drip is None:
            self.wfile.write(payload)
            self.wfile.flush()
            return
        self.wfile.flush()
        for index in range(len(payload)):  # one byte at a time: every read sees progress
            if owner is not None and owner._stopping.wait(drip):
                return
            self.wfile.write(payload[index : index + 1])
            self.wfile.flush()


class FakeOpenAIServer:
    """OpenAI-compatible ``/v1/chat/completions`` and ``/v1/models`` on 127.0.0.1."""

    def __init__(self, *, latency: float = 0.0) -> None:
        self.latency = latency
        self.known_models: set[str] | None = None  # set it to answer 404 model_not_found for others
        self.api_key: str | None = None  # set it to answer 401 to any other bearer token
        # set it to answer every request with this HTTP status and the Authorization header echoed
        # in the error body (servers that leak the key: redaction tests)
        self.echo_authorization: int | None = None
        self.accepted_formats: set[str] | None = None  # response_format types served; None: all
        self.one_at_a_time = False  # a single-slot server: requests wait in line
        self.refused_fields: set[str] = set()  # body fields answered with 400 (OpenAI's strictness)
        self.report_timings = (
            False  # add llama.cpp's "timings" (time in the slot, not in the queue)
        )
        self._slot = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []  # lower-case names
        self.in_flight = 0
        self.max_in_flight = 0
        self.batch_polls = 0  # looks answered in_progress before the batch ends
        self.batch_outcome = "completed"  # completed | expired | failed | stuck
        self.batch_answered = 0  # expired: rows answered before it expired
        self.batch_calls: list[tuple[str, str]] = []
        self.batch_rows = 0
        self.batch_junk: list[str] = []  # lines put before the output file's rows (hostile servers)
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, dict[str, Any]] = {}
        self._handler: Handler = echo
        self._queue: deque[str | Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ---------------------------------------------------------
    def reply_with(self, fn: Handler) -> None:
        """Answer every request with ``fn(body)`` (a ``str`` content or a :class:`Reply`)."""
        self._handler = fn

    def script(self, *replies: str | Reply) -> None:
        """Queue replies used one per request, in order, before the handler."""
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        """Forget requests, counters, scripts and settings; back to echo."""
        with self._lock:
            self.requests.clear()
            self.request_headers.clear()
            self.max_in_flight = self.in_flight
            self._queue.clear()
        self._handler = echo
        self.latency = 0.0
        self.known_models = None
        self.api_key = None
        self.echo_authorization = None
        self.accepted_formats = None
        self.one_at_a_time = False
        self.refused_fields = set()
        self.report_timings = False
        self.batch_polls = 0
        self.batch_outcome = "completed"
        self.batch_answered = 0
        self.batch_junk = []
        with self._lock:
            self.batch_calls.clear()
            self.batch_rows = 0

    def play_llama_cpp_python(self, answer: Handler) -> None:
        """llama-cpp-python's server with a small model: the schema must come inside ``json_object``."""
        self.accepted_formats = {"text", "json_object"}
        self.reply_with(lambda body: small_model(body, answer))

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def chat_requests(self) -> int:
        return len(self.requests)

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        httpd = _Server(("127.0.0.1", 0), _RequestHandler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        # let handler threads notice the shut sockets and close them
        deadline = time.monotonic() + 2
        while self._connections and time.monotonic() < deadline:
            time.sleep(0.01)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the batch API ---------------------------------------------------------
    def _upload(self, content_type: str, raw: bytes) -> tuple[int, Any]:
        from email.parser import BytesParser

        message = BytesParser().parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
        )
        fields = (
            {
                part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                for part in message.get_payload()
            }
            if message.is_multipart()
            else {}
        )
        with self._lock:
            self.batch_calls.append(("POST", "files"))
            if fields.get("purpose") != b"batch" or "file" not in fields:
                return 400, {
                    "error": {
                        "message": "purpose=batch and a file are required",
                        "type": "invalid_request_error",
                    }
                }
            file_id = f"file-{len(self._files) + 1}"
            self._files[file_id] = fields["file"]
        return 200, {
            "id": file_id,
            "object": "file",
            "purpose": "batch",
            "bytes": len(fields["file"]),
        }

    def _create_batch(self, body: dict[str, Any]) -> tuple[int, Any]:
        with self._lock:
            self.batch_calls.append(("POST", "batches"))
            if (
                body.get("input_file_id") not in self._files
                or body.get("endpoint") != "/v1/chat/completions"
            ):
                return 400, {
                    "error": {
                        "message": "unknown input file or endpoint",
                        "type": "invalid_request_error",
                    }
                }
            batch_id = f"batch_{len(self._batches) + 1}"
            rows = [
                json.loads(line)
                for line in self._files[body["input_file_id"]].splitlines()
                if line.strip()
            ]
            self._batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "status": "validating",
                "looks": 0,
                "rows": rows,
                "created_at": int(time.time()),
            }
        return 200, self._batch_view(batch_id)

    def _batch_view(self, batch_id: str) -> dict[str, Any]:
        batch = self._batches[batch_id]
        return {key: value for key, value in batch.items() if key not in ("rows", "looks")}

    def _batch_get(self, path: str, authorization: str) -> tuple[int, Any]:
        parts = path.rstrip("/").split("/")
        with self._lock:
            self.batch_calls.append(
                ("GET", "/".join(parts[-2:]) if parts[-1] != "content" else "content")
            )
        if parts[-1] == "content" and parts[-2] in self._files:
            return 200, self._files[parts[-2]].decode()
        batch = self._batches.get(parts[-1])
        if batch is None:
            return 404, {
                "error": {"message": f"no batch {parts[-1]}", "type": "invalid_request_error"}
            }
        batch["looks"] += 1
        total = len(batch["rows"])
        if batch["status"] in ("validating", "in_progress"):
            if batch["looks"] <= self.batch_polls or self.batch_outcome == "stuck":
                batch.update(
                    status="in_progress",
                    request_counts={"total": total, "completed": 0, "failed": 0},
                )
            else:
                self._run_batch(batch, authorization)
        return 200, self._batch_view(parts[-1])

    def _run_batch(self, batch: dict[str, Any], authorization: str) -> None:
        rows = batch["rows"]
        if self.batch_outcome == "failed":
            batch.update(
                status="failed",
                errors={
                    "object": "list",
                    "data": [{"code": "invalid_batch", "message": "the batch was refused"}],
                },
            )
            return
        if self.batch_outcome == "expired":
            rows = rows[: self.batch_answered]
        output, errors = [], []
        for index, row in enumerate(rows):
            body = row["body"]
            reply = self._reply_for(body, authorization)
            answer = {
                "id": f"batch_req_{index}",
                "custom_id": row["custom_id"],
                "error": None,
                "response": {
                    "status_code": reply.status,
                    "request_id": f"req_{index}",
                    "body": self._body_for(reply, body),
                },
            }
            (errors if reply.status >= 400 else output).append(json.dumps(answer))
        output[:0] = self.batch_junk
        with self._lock:
            self.batch_rows += len(rows)
            for name, lines in (("output_file_id", output), ("error_file_id", errors)):
                if lines:
                    file_id = f"file-{len(self._files) + 1}"
                    self._files[file_id] = ("\n".join(lines) + "\n").encode()
                    batch[name] = file_id
        batch.update(
            status="completed" if self.batch_outcome == "completed" else "expired",
            completed_at=int(time.time()),
            request_counts={
                "total": len(batch["rows"]),
                "completed": len(rows) - len(errors),
                "failed": len(errors),
            },
        )

    # -- used by the request handler ---------------------------------------
    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _enter(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _reply_for(self, body: dict[str, Any], authorization: str) -> Reply:
        if self.echo_authorization is not None:
            return Reply.error(
                self.echo_authorization, f"Bad request; headers: Authorization: {authorization}"
            )
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return Reply.error(
                401,
                "Incorrect API key provided.",
                type="invalid_request_error",
                code="invalid_api_key",
            )
        refused = sorted(self.refused_fields & set(body))
        if refused:
            return Reply.error(
                400,
                f"Unrecognized request argument supplied: {refused[0]}",
                type="invalid_request_error",
            )
        fmt = body.get("response_format")
        kind = fmt.get("type") if isinstance(fmt, dict) else "text"
        if self.accepted_formats is not None and kind not in self.accepted_formats:
            allowed = " or ".join(f"'{k}'" for k in sorted(self.accepted_formats, reverse=True))
            # what llama-cpp-python's server sends: its pydantic error, as a 500
            return Reply.error(
                500,
                "1 validation error for ChatCompletionRequestResponseFormat\ntype\n"
                f"  Input should be {allowed} [type=literal_error, input_value='{kind}', "
                "input_type=str]",
                type="internal_server_error",
            )
        model = str(body.get("model", ""))
        if self.known_models is not None and model not in self.known_models:
            return Reply.error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                type="invalid_request_error",
                code="model_not_found",
            )
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
        result = scripted if scripted is not None else self._handler(body)
        return Reply(content=result) if isinstance(result, str) else result

    def _body_for(self, reply: Reply, request: dict[str, Any], served: float = 0.0) -> Any:
        if reply.body is not None:
            return reply.body
        if reply.content is None and not reply.tool_calls:
            if reply.status >= 400:
                return {
                    "error": {
                        "message": f"HTTP {reply.status}",
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            return {}
        prompt = " ".join(
            m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
            for m in request.get("messages") or []
        )
        usage = reply.usage or {
            "prompt_tokens": _count_tokens(prompt),
            "completion_tokens": _count_tokens(reply.content or json.dumps(reply.tool_calls)),
        }
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for index, (name, arguments) in enumerate(reply.tool_calls)
            ]
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        timings = {}
        if self.report_timings:  # llama.cpp server's field: prompt processing + generation, in ms
            timings = {
                "timings": {
                    "prompt_n": usage["prompt_tokens"],
                    "prompt_ms": served * 100,
                    "predicted_n": usage["completion_tokens"],
                    "predicted_ms": served * 900,
                }
            }
        return {
            **timings,
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A started :class:`FakeOpenAIServer` (echo handler, no latency), stopped after the test."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


def main() -> None:
    """``python -m tests.fake_openai --latency 0.1``: serve until killed, printing the URL first."""
    import argparse

    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server (echo)")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeOpenAIServer(latency=args.latency).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
