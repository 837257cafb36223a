"""The maths worker's speed-ups read every answer exactly as the slow path did.

Two shortcuts: latex2sympy's ``parse_number`` builds plain integers and decimals without
``sympy.Number(str)`` (which runs parse_expr), and math-verify's reading of a short LaTeX
answer is kept in a bounded cache keyed on the match's named groups. These tests run the
sympy side in this process on trusted text only (no guards installed here).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

import pytest

from pytest_llmeval.metrics.extractive import patterns as pats
from pytest_llmeval.metrics.extractive import worker as engine

pytest.importorskip("math_verify")


@pytest.fixture
def patched_parse_number(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """(original, patched) parse_number; the class gets its original back after the test."""
    import latex2sympy2_extended.latex2sympy2 as l2s

    original = l2s._Latex2Sympy.parse_number
    monkeypatch.setattr(l2s._Latex2Sympy, "parse_number", original)
    engine._patch_parse_number()
    patched = l2s._Latex2Sympy.parse_number
    assert patched is not original
    return original, patched


NUMBERS = [
    "0", "00", "007", "12", "1,000", "12345678901234567890123456789012345678901234567890",
    "3.25", "3.250", "000.5", "0.0", "1,000.5", "99999999999999999.99999999999999999",
    "1.", ".5", "1e5", "1.5E-3", "²", "١٢", "0,5", "1 000",
]  # fmt: skip


@pytest.mark.parametrize("text", NUMBERS)
def test_plain_numbers_read_as_sympy_number_reads_them(
    patched_parse_number: tuple[Any, Any], text: str
) -> None:
    import latex2sympy2_extended.latex2sympy2 as l2s
    import sympy

    original, patched = patched_parse_number
    converter = l2s._Latex2Sympy()

    def read(parse: Any) -> tuple[str, Any, Any]:
        try:
            value = parse(converter, text)
        except Exception as exc:  # the same failure, or the same value
            return ("error", type(exc).__name__, None)
        return (sympy.srepr(value), type(value), getattr(value, "_prec", None))

    assert read(patched) == read(original)


def test_plain_numbers_skip_parse_expr(
    patched_parse_number: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import latex2sympy2_extended.latex2sympy2 as l2s
    import sympy.parsing.sympy_parser as sp

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("parse_expr called")

    monkeypatch.setattr(sp, "parse_expr", refuse)
    _, patched = patched_parse_number
    assert str(patched(l2s._Latex2Sympy(), "1,024")) == "1024"
    assert str(patched(l2s._Latex2Sympy(), "2.50")) == "2.50000000000000"


def _latex_match(text: str, boxed_priority: int = 0) -> re.Match[str]:
    for pattern, _ in sorted(pats.latex_patterns("en", boxed_priority), key=lambda p: p[1]):
        found = list(pattern.finditer(text))
        if found:
            return found[-1]
    raise AssertionError(f"no LaTeX match in {text!r}")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fresh cache, and the texts math-verify was actually asked to read."""
    monkeypatch.setattr(engine, "_latex_cache", OrderedDict())
    reads: list[str] = []
    original = engine._extract_latex

    def extract(m: re.Match[str], boxed_priority: int) -> tuple[Any, str]:
        reads.append(m.group(0))
        return original(m, boxed_priority)

    monkeypatch.setattr(engine, "_extract_latex", extract)
    return reads


def test_repeated_latex_answer_is_parsed_once(counted: list[str]) -> None:
    first = engine.read_latex(_latex_match("so $\\frac{1}{3}$"), 0)
    again = engine.read_latex(_latex_match("We get $\\frac{1}{3}$ in the end."), 0)
    assert again is first
    assert counted == ["$\\frac{1}{3}$"]
    assert str(first[0]) == "1/3"
    # Another reading (other groups, or other options) is its own entry.
    engine.read_latex(_latex_match("so $\\frac{1}{3}$ percent"), 0)
    engine.read_latex(_latex_match("so $\\frac{1}{3}$"), 50)
    assert len(counted) == 3


def test_cached_reading_equals_an_uncached_one(counted: list[str]) -> None:
    from math_verify.parser import extract_latex

    for text in ("$x \\in [1, 3)$", "$\\boxed{2\\sqrt{3}}$", "$y > 7$", "$\\text{Monday}$"):
        cached = engine.read_latex(_latex_match(text), 0)
        engine.read_latex(_latex_match(text), 0)
        fresh = extract_latex.__wrapped__(_latex_match(text), engine._latex_config(0))
        assert (str(cached[0]), cached[1]) == (str(fresh[0]), fresh[1])


def test_mutable_matrices_are_not_kept(counted: list[str]) -> None:
    text = "$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$"
    first = engine.read_latex(_latex_match(text), 0)
    engine.read_latex(_latex_match(text), 0)
    assert type(first[0]).__name__ == "MutableDenseMatrix"
    assert len(counted) == 2  # a mutable value is not kept: each read goes to math-verify


def test_cache_is_bounded_and_skips_long_or_deep_answers(
    counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "LATEX_CACHE_SIZE", 3)
    # small bounds: reading a 1,000-character sum or 31 nested groups twice costs seconds and
    # proves no more than a short sum and a few groups past the bounds
    monkeypatch.setattr(engine, "MAX_CACHED_LATEX", 60)
    monkeypatch.setattr(engine, "MAX_CACHED_NESTING", 4)
    for n in range(5):
        engine.read_latex(_latex_match(f"${n}+x$"), 0)
    engine.read_latex(_latex_match("$4+x$"), 0)  # the newest entries stayed
    assert len(counted) == 5
    engine.read_latex(_latex_match("$0+x$"), 0)  # the oldest went: read afresh
    assert len(counted) == 6
    long_answer = "$" + "+".join(["x"] * (engine.MAX_CACHED_LATEX // 2 + 1)) + "$"
    engine.read_latex(_latex_match(long_answer), 0)
    engine.read_latex(_latex_match(long_answer), 0)
    assert len(counted) == 8
    # Deep nesting is read afresh each time: near the recursion limit the caller's stack matters.
    deep = (
        "$"
        + "{" * (engine.MAX_CACHED_NESTING + 1)
        + "1"
        + "}" * (engine.MAX_CACHED_NESTING + 1)
        + "$"
    )
    engine.read_latex(_latex_match(deep), 0)
    engine.read_latex(_latex_match(deep), 0)
    assert len(counted) == 10
