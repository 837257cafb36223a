"""Adaptive concurrency: additive increase, multiplicative decrease (AIMD), as TCP does and
as Inspect's adaptive connections do for model APIs.

``--llm-concurrency`` is the ceiling, reached after a slow start (2 in flight, doubling each
round of successes). A timeout or an HTTP 429 halves the number of requests
allowed in flight (once per round: requests already in flight when it was halved do not halve
it again); each success adds ``1 / limit``, so about one more slot per round of successes.
A single-slot local server that queues requests therefore settles at one request in flight
instead of spending every timeout waiting in its queue.
"""

from __future__ import annotations

import asyncio
import collections
import math
from types import TracebackType

OK = "ok"
OVERLOAD = "overload"  # a timeout or a 429: the server is saturated
OTHER = "other"  # any other failure says nothing about load


class AdaptiveLimit:
    """An asyncio bound whose size follows the server's signals (used inside one loop)."""

    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, int(maximum))
        # Slow start (TCP's): begin with 2 in flight and double each round of successes until
        # the first overload, so a slow single-slot server is never flooded by the first wave.
        self.limit = float(min(2, self.maximum))
        self.slow_start = True
        self.in_flight = 0
        self.lowest = self.maximum
        self.decreases = 0
        self._round = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    @property
    def allowed(self) -> int:
        return max(1, math.floor(self.limit))

    async def acquire(self) -> int:
        """Wait for a slot; returns the round it was taken in (give it back to :meth:`release`)."""
        while self.in_flight >= self.allowed:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._wake()  # pass the wake-up on
                raise
        self.in_flight += 1
        return self._round

    def release(self, taken_in: int, outcome: str = OTHER) -> None:
        """Give a slot back, with what the request said about the server's load."""
        self.in_flight -= 1
        if outcome == OVERLOAD and taken_in == self._round:
            self.limit = max(1.0, math.floor(self.limit / 2))
            self.slow_start = False
            self._round += 1
            self.decreases += 1
            self.lowest = min(self.lowest, self.allowed)
        elif outcome == OK and self.limit < self.maximum:
            step = 1.0 if self.slow_start else 1.0 / self.allowed
            self.limit = min(float(self.maximum), self.limit + step)
        self._wake()

    def _wake(self) -> None:
        free = self.allowed - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release(-1, OTHER)  # a plain bound (python: providers); no load signal


class Breaker:
    """A circuit breaker for an endpoint nobody answers at (connection refused, no route).

    After ``threshold`` connection failures in a row with no success, requests fail at once
    instead of each paying its connection attempts and retry back-off (an endpoint that is
    down would otherwise cost every sample its full retry schedule). Every ``cool_down``
    seconds one request is let through to try again; a success closes the breaker.
    """

    def __init__(self, threshold: int = 5, cool_down: float = 5.0) -> None:
        # 5 refusals in a row: more than a restart blip; a 5 s trial interval is cheap either way.
        self.threshold = threshold
        self.cool_down = cool_down
        self.failures = 0
        self.last_error = ""
        self._retry_at = 0.0

    def blocks(self, now: float) -> bool:
        """Whether a request now should fail without trying (lets one through per cool-down)."""
        if self.failures < self.threshold:
            return False
        if now >= self._retry_at:
            self._retry_at = now + self.cool_down  # this request is the trial
            return False
        return True

    def record(self, connected: bool, now: float, error: str = "") -> None:
        if connected:
            self.failures = 0
            return
        self.failures += 1
        self.last_error = error
        if self.failures == self.threshold:
            self._retry_at = now + self.cool_down
