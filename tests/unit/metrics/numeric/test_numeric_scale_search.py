"""The declared-scale search that starts near the first scale word finds what a search of the
whole answer finds (pytest_llmeval.metrics.numeric.gold.response_scale)."""

from __future__ import annotations

import random

import pytest

from pytest_llmeval.metrics.numeric.gold import (
    _RESPONSE_SCALE_RE,
    _SCALE_NAMES,
    _UNICODE_SPACES,
    response_scale,
)

PIECES = [
    "(in millions)",
    "(amounts in $ thousands)",
    "( figures in usd billions of dollars )",
    "amounts are in thousands",
    "Figures in USD millions",
    "expressed in $ billions",
    "MILLIONS",
    "thousands",
    "billions)",
    "(",
    ")",
    "$",
    "€",
    "in ",
    "are ",
    " ",
    "\n",
    "\t",
    "\x1c",
    "revenue",
    "of dollars",
    "usd",
    "us$",
    "12.5",
    ",",
    ".",
    "5",
    "reported in",
    "Amounts",
    "İ",
    "ſ",
    "values",
    "numbers in millions",
    "x",
    "In thousands of dollars,",
    "in USD millions:",
    ":",
]


def _whole_search(text: str) -> float | None:
    rs = _RESPONSE_SCALE_RE.search(text[:20000])
    return _SCALE_NAMES.get(next(g for g in rs.groups() if g).lower()) if rs else None


@pytest.mark.parametrize("seed", range(4))
def test_same_scale_as_a_search_of_the_whole_answer(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        assert response_scale(text) == _whole_search(text), text


@pytest.mark.parametrize(
    ("text", "scale"),
    [
        ("Revenue was 5.2 (in millions).", 1e6),
        ("Net income 12; amounts are in thousands.", 1e3),
        ("9,(in billions)", 1e9),  # the lead run stops at ",": the match starts after it
        ("5amounts are in millions", None),  # no word boundary before "amounts"
        ("The millions of users; (in thousands)", 1e3),  # the first scale word has no match
        ("Costs   \n\n  (in   millions )", 1e6),
        ("no scale here", None),
        ("In thousands of dollars, revenue was 1,500,000.", 1e3),
        ("In USD millions: revenue 1,500, costs 1,200.", 1e6),
        ("Sales grew in millions of units.", None),  # no comma or colon: not a lead
    ],
)
def test_declared_scales(text: str, scale: float | None) -> None:
    assert response_scale(text) == scale == _whole_search(text)


def test_many_scale_words_read_alike() -> None:
    # Every window is bounded by its neighbours: 2,500 words are read once each.
    for text in ("millions " * 2500, "millions" * 2500, "(in " * 2000 + "millions)", "x " * 9000):
        assert response_scale(text) == _whole_search(text)


def test_the_space_list_is_what_backslash_s_matches() -> None:
    import re
    import sys

    spaces = {chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c))}
    assert spaces == set(_UNICODE_SPACES)
