"""Progress of the prefetch: a live line on a terminal, one summary line otherwise, nothing under -q."""

from __future__ import annotations

import time
from typing import Any


class Progress:
    """``reporter`` is pytest's terminal reporter (or ``None`` on xdist workers and in tests)."""

    REFRESH_S = 0.1

    def __init__(self, reporter: Any, total: int, what: str, *, later: int = 0) -> None:
        self.reporter = reporter
        self.total = total
        self.what = what
        self.later = later  # conversations: each turn's request waits for the reply before it
        self.done = self.errors = self.hits = 0
        self.started = time.perf_counter()
        self._shown = 0.0
        self.stopped = False
        verbose = reporter is not None and getattr(reporter, "verbosity", 0) >= 0
        self.live = verbose and bool(getattr(reporter, "isatty", False))
        self.summary = verbose

    def line(self) -> str:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        rate = self.done / elapsed
        return (
            f"llmeval {self.what}: {self.done}/{self.total} done, {self.hits} cached, "
            f"{self.errors} errors, {rate:.1f}/s, {elapsed:.1f} s"
            + (", stopped by a fatal model error" if self.stopped else "")
            + (
                f"; {self.later} conversation(s) answered turn by turn as they run"
                if self.later
                else ""
            )
        )

    def advance(self, *, error: bool = False, cached: bool = False) -> None:
        self.done += 1
        self.errors += error
        self.hits += cached
        if self.live:
            now = time.perf_counter()
            if now - self._shown >= self.REFRESH_S or self.done == self.total:
                self._shown = now
                self.reporter.rewrite(self.line())

    def finish(self) -> None:
        if self.total == 0:
            return
        if self.live:
            self.reporter.rewrite(self.line())
            self.reporter.write_line("")
        elif self.summary:
            self.reporter.write_line(self.line())
