"""Exception hierarchy of pytest-llmeval."""

from __future__ import annotations

from typing import Any


class LLMEvalError(Exception):
    """Base class of every error raised by pytest-llmeval."""


class GraderError(LLMEvalError):
    """A grader could not produce a score (bad settings, judge failure, timeout).

    Reported as an *error* outcome, never as a fail.
    """


class ModelError(LLMEvalError):
    """A model or judge call failed after its retries, or replied with something unusable."""

    def __init__(
        self, message: str, *, status: int | None = None, attempts: int = 1, timed_out: bool = False
    ) -> None:
        from pytest_llmeval.redact import redact

        # Server error bodies may echo the Authorization header: never keep the key.
        super().__init__(redact(message))
        self.status = status
        self.attempts = attempts
        self.timed_out = timed_out


class FatalModelError(ModelError):
    """A failure no retry or later sample can fix (401/403, unknown model): stops the run once."""


class CacheUnwritableError(FatalModelError):
    """The cache folder cannot take a reply (a file in its place, read-only, no space left):
    stops the run before a reply is paid for and thrown away."""


class ResponseFormatRejected(ModelError):
    """The endpoint refused the request's ``response_format`` (e.g. llama-cpp-python's server
    rejects ``json_schema``). Deterministic, so never retried: the engine falls back instead."""


class CacheMissError(ModelError):
    """Replay-only mode (``--llm-record=none``) was asked for a request that is not cached."""


class CacheCorruptError(ModelError):
    """A cache file exists but cannot be used (hand-edited, truncated, nested absurdly deep);
    in replay-only mode that is an error naming the file, otherwise it is re-recorded."""


class MissingExtraError(ImportError, LLMEvalError):
    """An optional dependency is needed; the message names the ``pip install`` that adds it."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(f"{feature} needs the optional package {module!r}: {install_hint(extra)}")


def install_hint(extra: str) -> str:
    """The ``pip install`` line that adds an optional extra (under the distribution's own name)."""
    from pytest_llmeval import DIST_NAME

    return f"pip install '{DIST_NAME}[{extra}]'"


class LLMEvalAssertionError(AssertionError):
    """Raised by the ``assert_*`` helpers; ``result`` holds the metric's result object."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
