"""Regular expressions from untrusted text, compiled by RE2: linear time on any answer."""

from __future__ import annotations

from typing import Any


class LinearRegexError(ValueError):
    """RE2 cannot compile the pattern (backreferences, lookaround, bad syntax); the message is RE2's."""


def compile_linear(pattern: str) -> Any:
    """``pattern`` compiled by RE2, or :class:`LinearRegexError` with RE2's reason."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        message = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise LinearRegexError(message) from exc
