"""Result objects shared by every metric, and the glue that turns a result into an assertion."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

from pytest_llmeval.errors import LLMEvalAssertionError


@dataclass(kw_only=True)
class MetricResult:
    """What every metric returns.

    Subclasses add their own fields (declare them with ``@dataclass(kw_only=True)``).
    ``score`` is in [0, 1]; ``explanation`` is one paragraph a person reads in a failure.
    """

    metric: str = ""
    passed: bool = False
    score: float = 0.0
    explanation: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.passed


# Results recorded by assert_* helpers while a hand-written test runs. The plugin
# sets a fresh list per test call (see plugin.py); outside a test this is None and
# recording is a no-op. A ContextVar, not a global, so threads/async stay separate.
current_recorder: contextvars.ContextVar[list[MetricResult] | None] = contextvars.ContextVar(
    "llmeval_current_recorder", default=None
)


def record(result: MetricResult) -> None:
    """Add ``result`` to the running test's tally (no-op outside a test)."""
    recorder = current_recorder.get()
    if recorder is not None:
        recorder.append(result)


def enforce(result: MetricResult) -> MetricResult:
    """Record ``result``; raise :class:`LLMEvalAssertionError` with its explanation if it failed."""
    __tracebackhide__ = True
    record(result)
    if not result.passed:
        name = result.metric or type(result).__name__
        raise LLMEvalAssertionError(
            f"{name} failed (score {result.score:.3f}): {result.explanation}", result
        )
    return result
