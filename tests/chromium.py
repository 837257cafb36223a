"""A tiny headless-Chromium driver over the DevTools protocol on a pipe (stdlib only).

``chromium --remote-debugging-pipe`` reads NUL-terminated JSON commands on fd 3 and writes
replies and events on fd 4: no websocket library, no port, no browser download. Used by the
HTML report test and ``benchmarks/bench_html_report.py``.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
    "--mute-audio",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """Path of a Chromium binary, or None (``LLMEVAL_CHROMIUM`` overrides)."""
    override = os.environ.get("LLMEVAL_CHROMIUM")
    if override:
        return override if Path(override).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _above(fd: int, floor: int = 10) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)
    os.close(fd)
    return moved


class CDPError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page attached (flattened session)."""

    def __init__(
        self, binary: str, *, timeout: float = 60.0, window: tuple[int, int] = (1400, 1000)
    ) -> None:
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._buffer = b""
        self._profile = tempfile.mkdtemp(prefix="llmeval-chromium-")
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()
        # Child ends above fd 10, so moving them onto 3 and 4 cannot overwrite one with the other.
        to_child_r, from_child_w = _above(to_child_r), _above(from_child_w)
        # A small Python launcher moves the pipe ends to fds 3 and 4, where Chromium expects them
        # (dash, the usual /bin/sh, cannot redirect fds above 9).
        launcher = (
            "import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); os.dup2(w, 4); "
            "os.close(r); os.close(w); os.execv(sys.argv[3], sys.argv[3:])"
        )
        command = [
            sys.executable,
            "-c",
            launcher,
            str(to_child_r),
            str(from_child_w),
            binary,
            *FLAGS,
            f"--user-data-dir={self._profile}",
            f"--window-size={window[0]},{window[1]}",
            "about:blank",
        ]
        self.process = subprocess.Popen(
            command,
            pass_fds=(to_child_r, from_child_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.session: str | None = None
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)[
                "targetId"
            ]
            self.session = self.send(
                "Target.attachToTarget", {"targetId": target, "flatten": True}, session=False
            )["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    # -- protocol ----------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CDPError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_child_r], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._from_child_r, 1 << 20)
            if not chunk:
                raise CDPError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = True
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, timeout: float | None = None) -> dict[str, Any]:
        for event in self.events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return message

    # -- page helpers -------------------------------------------------------------
    def open(self, url: str) -> float:
        """Navigate and wait for the load event; returns the seconds it took."""
        self.events.clear()
        start = time.perf_counter()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        return time.perf_counter() - start

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise CDPError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.send(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}
        )["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors (CSP violations land there)."""
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "assert",
            ):
                errors.append(
                    " ".join(
                        str(a.get("value", a.get("description", "")))
                        for a in params.get("args", [])
                    )
                )
            elif (
                event["method"] == "Log.entryAdded"
                and params.get("entry", {}).get("level") == "error"
            ):
                errors.append(str(params["entry"].get("text")))
        return errors

    def requested_urls(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                with contextlib.suppress(CDPError, OSError):
                    self.send("Browser.close", session=False)
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=10)
        finally:
            for fd in (self._to_child_w, self._from_child_r):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
