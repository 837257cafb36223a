"""Stage 1: find the answer's JSON value (whole text, fenced block, first balanced value, tool call).

The answer is untrusted text: it is read up to ``MAX_JSON_CHARS`` characters, parsed by the stdlib
(no eval), and refused past ``MAX_NESTING`` levels. A missing or unreadable value is a *reason*
(the model's answer is wrong), never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pytest_llmeval.bounded_json import MAX_NESTING, bounded_int, nesting, reject_constant

MAX_JSON_CHARS = 1_000_000  # a 10 MB reply is cut here before any parse
MAX_CANDIDATES = 8  # balanced-value starts tried before giving up (bounds the scan's time)
_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|jsonc)?[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Extracted:
    """The value found (``found`` False: ``reason`` says why none was) and where it came from."""

    found: bool
    value: Any = None
    source: str = ""  # "whole text" | "fenced block" | "balanced value" | "tool call <name>"
    reason: str = ""


def parse_bounded(text: str) -> tuple[Any, str | None]:
    """(value, None) or (None, problem) for one JSON text, bounded in size and nesting."""
    if len(text) > MAX_JSON_CHARS:
        return None, f"JSON of {len(text)} characters is longer than the {MAX_JSON_CHARS} read"
    try:
        value = json.loads(text, parse_constant=reject_constant, parse_int=bounded_int)
    except RecursionError:
        return None, f"JSON nested more than {MAX_NESTING} levels deep"
    except ValueError as exc:
        return None, f"not JSON ({str(exc).split(':')[0][:80]})"
    if nesting(value, MAX_NESTING) > MAX_NESTING:  # the gold reader's bounded walk
        return None, f"JSON nested more than {MAX_NESTING} levels deep"
    return value, None


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the value opening at ``start`` (string-aware bracket count), None when it
    never closes, -1 when it nests deeper than ``MAX_NESTING``."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            if depth > MAX_NESTING:
                return -1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def extract_json(text: str, *, want_container: bool = True) -> Extracted:
    """The first JSON value of ``text``: the whole text, a fenced block, then the first balanced
    object or array. ``want_container``: a bare scalar only counts when it is the whole text."""
    full_length = len(text or "")
    text = (text or "")[:MAX_JSON_CHARS]
    stripped = text.strip()
    if not stripped:
        return Extracted(False, reason="the answer is empty: no JSON")
    value, problem = parse_bounded(stripped)
    if problem is None and (not want_container or isinstance(value, dict | list)):
        return Extracted(True, value, "whole text")
    last_problem = problem if problem and "nested" in problem else None
    for match in _FENCE_RE.finditer(text):
        value, problem = parse_bounded(match.group(1).strip())
        if problem is None:
            return Extracted(True, value, "fenced block")
        last_problem = f"fenced block: {problem}"
    for tried, match in enumerate(re.finditer(r"[{\[]", text)):
        if tried >= MAX_CANDIDATES:
            break
        end = _balanced_end(text, match.start())
        if end == -1:  # the values inside it are parts of it, not answers
            last_problem = f"JSON nested more than {MAX_NESTING} levels deep"
            break
        if end is None:  # never closes: nor does any value opening inside it
            last_problem = last_problem or f"unbalanced brackets from character {match.start()}"
            break
        value, problem = parse_bounded(text[match.start() : end])
        if problem is None and isinstance(value, dict | list):
            return Extracted(True, value, "balanced value")
        last_problem = last_problem or f"text from character {match.start()}: {problem}"
    reason = "no JSON object or array in the answer"
    if full_length > MAX_JSON_CHARS:
        reason += (
            f" (an answer of {full_length} characters: only the first {MAX_JSON_CHARS} are read)"
        )
        last_problem = None
    return Extracted(False, reason=f"{reason} ({last_problem})" if last_problem else reason)


def tool_call_arguments(tool_calls: list[dict[str, Any]] | None) -> Extracted | None:
    """The first tool call's arguments as the answer's JSON (None: no tool call)."""
    for call in tool_calls or ():
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        arguments = function.get("arguments")
        name = str(function.get("name", ""))[:80]
        if isinstance(arguments, dict | list):
            return Extracted(True, arguments, f"tool call {name}")
        value, problem = parse_bounded(str(arguments or ""))
        if problem is not None:
            return Extracted(False, reason=f"tool call {name!r}: arguments are {problem}")
        return Extracted(True, value, f"tool call {name}")
    return None
