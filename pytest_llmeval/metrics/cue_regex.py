r"""One regex for a table of cue patterns, tried only where a cue can begin.

Python's ``re`` tries the alternatives of ``a|b|c`` one after another at every position: a table
of 60 cues costs 60 attempts at every character of an answer. :func:`any_of` joins a table into
one pattern with the same matches (the leftmost match; at one place, the earliest cue in the
table that matches) and far fewer attempts:

- a run of cues opening with ``\b`` whose first characters are letters shares one
  ``\b(?=\w)``, so the run is tried where a word starts, not at every character;
- inside the run, cues are grouped by the characters they can begin with, each group behind one
  lookahead on those characters; groups whose characters can match the same character are
  merged, so at any place at most one group can match and the table's order decides as before.

The first characters are read from each cue by the standard library's own regex parser. A cue
whose first characters it cannot name (a class like ``\W``, an optional start, no parser) keeps
its place in the table as a plain alternative: slower, never different.
"""

from __future__ import annotations

import importlib
import itertools
import re
from typing import Any


def _parser() -> Any:
    try:
        return importlib.import_module("re._parser")
    except ImportError:  # Python 3.10: the same parser under its old name, importable without a warning
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


def _groups(firsts: list[frozenset[str]], flags: int) -> list[list[int]]:
    """Indexes of the cues in each group, in the order of each group's first cue: two cues share a
    group when a character could match the first character of both (by the engine's own rules)."""
    letters = sorted(set().union(*firsts))
    parent = {letter: letter for letter in letters}

    def root(letter: str) -> str:
        while parent[letter] != letter:
            letter = parent[letter]
        return letter

    def join(a: str, b: str) -> None:
        parent[root(a)] = root(b)

    for a, b in itertools.combinations(letters, 2):
        # matching under the flags is an equivalence of characters: a and b overlap iff a matches b
        if re.fullmatch(re.escape(a), b, flags):
            join(a, b)
    for cue in firsts:
        anchor = min(cue)
        for letter in cue:
            join(letter, anchor)
    groups: dict[str, list[int]] = {}
    for index, cue in enumerate(firsts):
        groups.setdefault(root(min(cue)), []).append(index)
    return list(groups.values())


def _grouped(cues: list[tuple[str, frozenset[str]]], flags: int) -> str:
    """A run of word-opening cues (leading ``\\b`` removed) behind one word start, grouped by letters."""
    parts = []
    for members in _groups([letters for _, letters in cues], flags):
        letters = sorted(set().union(*(cues[i][1] for i in members)))
        alternatives = "|".join(f"(?:{cues[i][0]})" for i in members)
        parts.append(f"(?=[{''.join(re.escape(c) for c in letters)}])(?:{alternatives})")
    return r"\b(?=\w)(?:" + "|".join(parts) + ")"


def any_of(patterns: list[str], flags: int = 0) -> str:
    """``patterns`` as one alternation with the matches of ``"|".join(patterns)`` (each pattern
    wrapped in a group), built to be compiled with ``flags``."""

    def word_cue(pattern: str) -> frozenset[str] | None:
        return first_letters(pattern[2:], flags) if pattern.startswith(r"\b") else None

    out: list[str] = []
    for grouped, run in itertools.groupby(((p, word_cue(p)) for p in patterns), key=lambda pl: pl[1] is not None):
        cues = list(run)
        if grouped:
            out.append(_grouped([(p[2:], letters) for p, letters in cues if letters is not None], flags))
        else:
            out.extend(f"(?:{p})" for p, _ in cues)
    return "|".join(out)
