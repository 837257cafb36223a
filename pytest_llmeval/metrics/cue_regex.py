r"""One regex for a table of cue patterns, tried only where a cue can begin.

Python's ``re`` tries the alternatives of ``a|b|c`` one after another at every position: a table
of 60 cues costs 60 attempts at every character of an answer. :func:`any_of` joins a table into
one pattern with the same matches (the leftmost match; at one place, the earliest cue in the
table that matches) and far fewer attempts:

- a run of cues opening with ``\b`` whose first characters are letters shares one
  ``\b(?=\w)``, so the run is tried where a word starts, not at every character;
- inside the run, one group per letter (letters some one character matches, like 'i' and 'ı'
  ignoring case, share one) behind a lookahead on it, holding every cue that can begin with that
  letter in table order: at any place at most one group can match, and inside it the table's
  order decides, as in the plain join. The groups sit in a few buckets, each behind a lookahead on its
  letters, so a word's letter is looked for in a few places, not in every group;
- groups inside the cues do not capture (the engine saves no group positions while it tries
  them); a cue anchored at the start of the text (``^``) keeps its table place at the first
  character and drops out past it, where the word cues around it form one run.

The first characters are read from each cue by the standard library's own regex parser. A cue
whose first characters it cannot name (a class like ``\W``, an optional start, no parser) keeps
its place in the table as a plain alternative: slower, never different.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import re
from typing import Any


def _parser() -> Any:
    try:
        return importlib.import_module("re._parser")
    except ImportError:
        # Python 3.10: the same parser under its old name, importable there without a warning
        return importlib.import_module("sre_parse")


def _opening(items: Any) -> tuple[set[str], bool] | None:
    """(characters the first one a match takes can be, whether a match can be empty) of parsed
    regex items; ``None`` when a first character is not a plain literal."""
    first: set[str] = set()
    for op, value in items:
        name = str(op)
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero width: consumes nothing
        if name == "LITERAL":
            return first | {chr(value)}, False
        if name == "IN":
            if not all(str(kind) == "LITERAL" for kind, _ in value):
                return None  # a range, a category or a negated class
            return first | {chr(code) for _, code in value}, False
        if name == "SUBPATTERN":
            inner = _opening(value[-1])
        elif name == "BRANCH":
            branches = [_opening(branch) for branch in value[1]]
            if any(b is None for b in branches):
                return None
            inner = (set().union(*(b[0] for b in branches if b)), any(b[1] for b in branches if b))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            inner = _opening(value[2])
            if inner is not None and value[0] == 0:
                inner = (inner[0], True)
        else:  # any character, a negated literal, a back reference
            return None
        if inner is None:
            return None
        first |= inner[0]
        if not inner[1]:
            return first, False
    return first, True


@functools.lru_cache(maxsize=1024)
def first_letters(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """The word characters a match of ``pattern`` can begin with, or ``None`` when that is not a
    known set of word characters (or the match can be empty)."""
    try:
        opening = _opening(_parser().parse(pattern, flags).data)
    except Exception:  # the parser is private to the standard library: any change means "unknown"
        return None
    if opening is None or opening[1] or not opening[0]:
        return None
    if not all(re.fullmatch(r"\w", char) for char in opening[0]):
        return None
    return frozenset(opening[0])


def _letter_classes(letters: set[str], flags: int) -> list[set[str]]:
    """``letters`` split into classes of letters some one character matches under ``flags``
    ('i' and 'ı' ignoring case); no character matches letters of two classes."""
    classes: list[set[str]] = []
    for letter in sorted(letters):
        # matching under the flags is an equivalence of characters: a and b overlap iff a matches b
        joined = [
            c for c in classes if any(re.fullmatch(re.escape(letter), other, flags) for other in c)
        ]
        merged = {letter}.union(*joined)
        classes = [c for c in classes if c not in joined] + [merged]
    return classes


def _behind(letters: set[str], body: str) -> str:
    return f"(?=[{''.join(re.escape(c) for c in sorted(letters))}])(?:{body})"


def _grouped(cues: list[tuple[str, frozenset[str]]], flags: int) -> str:
    """A run of word-opening cues (leading ``\\b`` removed) behind one word start, then one group
    per class of first letters holding every cue that can begin there, in table order.

    The groups sit in about sqrt(n) buckets, each behind a lookahead on its letters: a word's
    first letter is looked for in a few buckets and then a few groups, not in every group.
    """
    classes = _letter_classes(set().union(*(letters for _, letters in cues)), flags)
    groups = [
        _behind(letters, "|".join(f"(?:{cue})" for cue, first in cues if first & letters))
        for letters in classes
    ]
    # The order of groups and buckets changes no match: no character starts two groups.
    size = max(1, math.isqrt(len(groups)))
    buckets = [
        _behind(set().union(*classes[i : i + size]), "|".join(groups[i : i + size]))
        for i in range(0, len(groups), size)
    ]
    return r"\b(?=\w)(?:" + "|".join(buckets) + ")"


# A group number a pattern refers to (``\\1``, ``(?P=name)``, ``(?(1)...)``) needs its groups.
_GROUP_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")


def plain_groups(pattern: str, flags: int = 0) -> str:
    """``pattern`` with its capturing groups made non-capturing: the same matches, and the engine
    saves no group positions while it tries them (a large share of matching a big table). A
    pattern that refers to its groups, or is written in verbose mode, stays as it is."""
    if flags & re.VERBOSE or _GROUP_REFERENCE.search(pattern):
        return pattern
    out: list[str] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # a "]" right after "[" or "[^" is a literal member of the class
            end = index + 1 + (pattern[index + 1 : index + 2] == "^")
            if pattern[end : end + 1] == "]":
                out.append(pattern[index : end + 1])
                index = end + 1
                continue
        elif char == "(" and pattern[index + 1 : index + 2] != "?":
            out.append("(?:")
            index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _joined(patterns: list[str], flags: int) -> str:
    """``patterns`` in table order, each run of word cues grouped (see the module docstring)."""

    def word_cue(pattern: str) -> frozenset[str] | None:
        return first_letters(pattern[2:], flags) if pattern.startswith(r"\b") else None

    out: list[str] = []
    for grouped, run in itertools.groupby(
        ((p, word_cue(p)) for p in patterns), key=lambda pl: pl[1] is not None
    ):
        cues = list(run)
        if grouped:
            out.append(
                _grouped([(p[2:], letters) for p, letters in cues if letters is not None], flags)
            )
        else:
            out.extend(f"(?:{p})" for p, _ in cues)
    return "|".join(out)


def any_of(patterns: list[str], flags: int = 0) -> str:
    """``patterns`` as one alternation with the matches of ``"|".join(patterns)`` (each pattern
    wrapped in a group), built to be compiled with ``flags``. Groups inside the patterns do not
    capture (see :func:`plain_groups`): use ``group(0)``, ``start()`` and ``end()``.

    A cue anchored at the start of the text (``^`` without MULTILINE) splits the word cues around
    it into two runs; past the first character it cannot match, so there the other cues are tried
    as one run, and the table's own order is kept for the first character alone.
    """
    patterns = [plain_groups(p, flags) for p in patterns]
    at_start = [p for p in patterns if p.startswith("^")] if not flags & re.MULTILINE else []
    rest = [p for p in patterns if p not in at_start]
    if not at_start or not rest:
        return _joined(patterns, flags)
    # At the first character, the table as it is (tried at one place: no grouping needed).
    plain = "|".join(f"(?:{p})" for p in patterns)
    return f"^(?:{plain})|{_joined(rest, flags)}"
