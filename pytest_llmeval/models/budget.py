"""``--llm-budget-usd`` / ``--llm-budget-tokens``: a cap on what a whole run spends.

Every model and judge request of the run counts (cache hits cost nothing). Once the run has spent the
cap, no new request starts: each asks :meth:`RunBudget.check` first, which raises
:class:`BudgetExceeded` (a :class:`ModelError`, so the sample becomes an error item that says why).
Requests already in flight when the cap is reached still finish and count: the overshoot is at most
``--llm-concurrency`` requests per process.

Under xdist the spend is shared: the controller names a state file in the temp directory and hands it
to the workers (``workerinput``); each spend is a read-add-write under an exclusive file lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_llmeval.errors import ModelError


class BudgetExceeded(ModelError):
    """The run has spent its ``--llm-budget-*``: no new model or judge request."""


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[Any]:
    """The state file opened and locked exclusively (POSIX ``flock``, Windows ``msvcrt.locking``)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+", encoding="utf-8") as handle:
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows CI only
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
            try:
                yield handle
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield handle
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class RunBudget:
    """The run's cap and what it has spent (in memory, or in ``path`` shared by xdist workers)."""

    def __init__(self, usd: float | None, tokens: int | None, path: Path | None = None) -> None:
        self.usd = usd
        self.tokens = tokens
        self.path = path
        self._guard = threading.Lock()
        self._spent = {"tokens": 0, "usd": 0.0, "requests": 0, "refused": 0}

    def _read(self, handle: Any) -> dict[str, Any]:
        handle.seek(0)
        try:
            data = json.loads(handle.read() or "{}")
        except ValueError:
            data = {}
        spent = dict(self._spent)
        for name in spent:
            value = data.get(name) if isinstance(data, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                spent[name] = value
        return spent

    def _update(self, **add: float) -> dict[str, Any]:
        with self._guard:
            if self.path is None:
                for name, value in add.items():
                    self._spent[name] += value
                return dict(self._spent)
            with _locked(self.path) as handle:
                spent = self._read(handle)
                for name, value in add.items():
                    spent[name] += value
                if add:
                    handle.seek(0)
                    handle.truncate()
                    handle.write(json.dumps(spent))
                    handle.flush()
                return spent

    def spent(self) -> dict[str, Any]:
        return self._update()

    def reason(self, spent: dict[str, Any] | None = None) -> str | None:
        """Why no new request may start, or None while the run is under its cap."""
        spent = self.spent() if spent is None else spent
        if self._tokens_reached(spent):
            return f"run budget reached: {spent['tokens']} tokens used of --llm-budget-tokens={self.tokens}"
        if self.usd is not None and spent["usd"] >= self.usd:
            return f"run budget reached: ${spent['usd']:.4f} spent of --llm-budget-usd={self.usd:g}"
        return None

    def check(self) -> None:
        """Before a request: raise :class:`BudgetExceeded` once the cap is reached. The message
        names the cap, not the spend: requests in flight still add to it, and the summary gives the total."""
        spent = self.spent()
        if self.reason(spent) is not None:
            self._update(refused=1)
            cap = (
                f"--llm-budget-tokens={self.tokens}"
                if self._tokens_reached(spent)
                else f"--llm-budget-usd={self.usd:g}"
            )
            raise BudgetExceeded(
                f"run budget reached ({cap}); no new model or judge requests in this run; "
                "the llmeval summary gives what the run spent"
            )

    def _tokens_reached(self, spent: dict[str, Any]) -> bool:
        return self.tokens is not None and spent["tokens"] >= self.tokens

    def spend(self, tokens: int, usd: float | None) -> None:
        self._update(tokens=tokens, usd=usd or 0.0, requests=1)

    def note(self) -> dict[str, Any]:
        """What the history and the report record: the caps, the spend, and why requests stopped."""
        spent = self.spent()
        return {
            "usd": self.usd,
            "tokens": self.tokens,
            "spent": spent,
            "reached": self.reason(spent),
        }
