"""Untrusted JSON (gold lines, predictions files, baselines) read within bounds.

Every problem is one located message (``...: line L column C``) instead of a ``RecursionError``,
an ``OverflowError`` later on, or a silent replacement character: text that is not UTF-8,
nesting deeper than :data:`MAX_NESTING`, integers longer than :data:`MAX_INT_DIGITS` digits,
NaN/Infinity, and (for line files) lines longer than :data:`MAX_LINE_BYTES`. :func:`loads` reads a
whole document, :func:`parse_line` one line of a JSONL file (gold samples, labels); both share the
guards below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Deeper values are refused before anything recurses over them (validation, reports, xdist).
MAX_NESTING = 64
# Integers past float range are never a meaningful gold value, weight, count or setting.
MAX_INT_DIGITS = 300
# One JSONL line (a gold sample with its contexts, one prediction): larger is refused unread,
# so a file without newlines cannot make the collector hold it whole.
MAX_LINE_BYTES = 16 * 1024 * 1024

_LONG_INT = re.compile(r"[\[:,]\s*(-?\d{" + str(MAX_INT_DIGITS + 1) + ",})")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # only a JSON escape puts a surrogate in a str


class JSONProblem(ValueError):
    """Text that cannot be used as JSON; the message says where and why, in one line."""


def reject_constant(name: str) -> Any:
    """``parse_constant`` hook: NaN and Infinity are no JSON numbers."""
    raise ValueError(f"{name} is not a JSON number")


def finite_float(text: str) -> float:
    """``parse_float`` hook: ``1e999`` is refused, not read as infinity."""
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def bounded_int(text: str) -> int:
    """``parse_int`` hook: an integer past float range is no gold value, amount or count."""
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"integer of {digits} digits is out of range (at most {MAX_INT_DIGITS})")
    return int(text)


def within_nesting(text: str, limit: int = MAX_NESTING) -> bool:
    """True when ``text`` cannot hold containers nested past ``limit``: every array or object opens
    with its own bracket, so a text with at most ``limit`` of them needs no walk of its value."""
    return text.count("[") + text.count("{") <= limit


def nesting(value: Any, limit: int = MAX_NESTING) -> int:
    """Depth of nested arrays/objects (stops counting past ``limit``), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack.extend(
                (child, depth + 1) for child in (node.values() if isinstance(node, dict) else node)
            )
    return deepest


def decode_problem(exc: json.JSONDecodeError) -> str:
    """The decoder's message, or what the usual hand-editing slips are called (a trailing comma)."""
    closing = exc.doc[exc.pos : exc.pos + 1]
    before = exc.doc[: exc.pos].rstrip()
    if closing in ("}", "]") and before.endswith(","):
        return f"a trailing comma before {closing!r} (JSON allows none)"
    return exc.msg


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line} column {column}"


def _too_deep_at(text: str, limit: int) -> int:
    """Index of the first bracket that opens level ``limit + 1`` (strings skipped), else 0."""
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return index
        elif char in "]}":
            depth -= 1
    return 0


def _decode(text: str) -> Any:
    return json.loads(
        text, parse_constant=reject_constant, parse_float=finite_float, parse_int=bounded_int
    )


def loads(text: str, *, max_nesting: int = MAX_NESTING) -> Any:
    """Parse untrusted JSON text; :class:`JSONProblem` (located) when it is not usable."""
    too_deep = f"nested more than {max_nesting} levels deep"
    try:
        value = _decode(text)
    except json.JSONDecodeError as exc:
        problem = decode_problem(exc)  # "Expecting ...", or a trailing comma
        raise JSONProblem(
            f"{problem}: line {exc.lineno} column {exc.colno} (char {exc.pos})"
        ) from None
    except RecursionError:
        raise JSONProblem(f"{too_deep}: {_where(text, _too_deep_at(text, max_nesting))}") from None
    except ValueError as exc:  # long integers, NaN/Infinity, 1e999
        found = _LONG_INT.search(text)
        where = ": " + _where(text, found.start(1)) if found and "integer" in str(exc) else ""
        raise JSONProblem(f"{str(exc).split(';')[0]}{where}") from None
    if not within_nesting(text, max_nesting) and nesting(value, max_nesting) > max_nesting:
        raise JSONProblem(f"{too_deep}: {_where(text, _too_deep_at(text, max_nesting))}")
    return value


def parse_line(line: str) -> tuple[Any, str | None]:
    """(value, None) or (None, problem) for one JSONL line; the problem names the column, the caller
    the file and line. A lone surrogate escape (``"\\ud800"``) becomes U+FFFD: no report or cache
    file could encode it."""
    too_deep = f"invalid JSON: nested more than {MAX_NESTING} levels deep"
    try:
        value = _decode(line)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON at column {exc.colno}: {decode_problem(exc)}"
    except RecursionError:
        return None, too_deep
    except ValueError as exc:  # long integers, NaN/Infinity, 1e999
        return None, f"invalid JSON: {str(exc).split(';')[0]}"
    if not within_nesting(line) and nesting(value) > MAX_NESTING:
        return None, too_deep
    if _SURROGATE_ESCAPE.search(line):
        from pytest_llmeval.fileio import scrub_surrogates

        value = scrub_surrogates(value)
    return value, None


def read_lines(
    path: Path, *, max_line_bytes: int | None = None
) -> Iterator[tuple[int, str | None, str | None]]:
    """(line number, text, None) or (line number, None, problem) for each non-blank line, in file order.

    Lines end at ``\\n`` only (JSONL): U+2028, U+2029 or U+0085 inside a string are text. A UTF-8
    byte order mark at the start is skipped. Each line is decoded on its own, so a line that is not
    UTF-8 (a Latin-1 ``å``) is one located problem and the other lines still read. A line longer
    than ``max_line_bytes`` is skipped unread (memory stays bounded by the cap).
    """
    if max_line_bytes is None:
        max_line_bytes = MAX_LINE_BYTES
    from pytest_llmeval.fileio import open_regular

    with open_regular(path) as handle:
        number = 0
        while True:
            raw = handle.readline(max_line_bytes + 1)
            if not raw:
                return
            number += 1
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                while (rest := handle.readline(1024 * 1024)) and not rest.endswith(b"\n"):
                    pass
                yield number, None, f"line longer than {max_line_bytes} bytes (not read)"
                continue
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield (
                    number,
                    None,
                    f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at column {exc.start + 1} ({exc.reason})",
                )
                continue
            if text.strip():
                yield number, text, None
