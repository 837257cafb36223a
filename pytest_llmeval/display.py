"""Untrusted text (model answers, sample ids) made safe to show: terminal, JUnit, HTML.

ANSI escapes in an answer can erase and rewrite lines of a CI log (``\\x1b[2K\\x1b[1A``), a carriage
return can overwrite one, and right-to-left overrides reorder what is shown (an id ``abc\\u202edcba``
reads differently from what it is). Such characters are shown as their Python escapes instead
(``\\x1b``, ``\\u202e``); the JSON report keeps the text as it was.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls (0x9b is a CSI in some terminals), and the
# bidirectional marks, embeddings, overrides and isolates (the "Trojan Source" set and its marks).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ON_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    return ascii(match.group(0))[1:-1]


def safe_text(text: str) -> str:
    """``text`` with control and bidi characters escaped; newlines and tabs kept (messages, answers)."""
    return text if _UNSAFE.search(text) is None else _UNSAFE.sub(_escape, text)


def safe_line(text: str) -> str:
    """``text`` for one line (ids, summary lines): newlines and tabs escaped too."""
    return (
        text if _UNSAFE_ON_ONE_LINE.search(text) is None else _UNSAFE_ON_ONE_LINE.sub(_escape, text)
    )


def safe_tree(value: Any) -> Any:
    """A copy of a report-shaped value (dicts, lists, strings) with every string passed through
    :func:`safe_text`; the report is our own data, a handful of levels deep."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {key: safe_tree(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [safe_tree(item) for item in value]
    return value
