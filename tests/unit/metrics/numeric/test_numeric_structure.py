"""Structure of the numeric grader: short named stages, the public API, and the speed devices
that must never change a match (first-character gates, the bounded prefix search)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pytest_llmeval.metrics.numeric.match as numeric
from pytest_llmeval.metrics.numeric.candidates import _PREFIX_RE, _PREFIX_RUN_CHARS, extract_values
from pytest_llmeval.metrics.numeric.locale_tables import first_char_gate

METRICS = Path(numeric.__file__).parent
MAX_FUNCTION_LINES = 80


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_numeric_function_runs_past_80_lines() -> None:
    files = sorted(METRICS.glob("*.py"))  # every stage of the numeric package
    assert len(files) >= 9
    too_long = [f for path in files for f in _long_functions(path)]
    assert too_long == []


def test_the_checker_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    path = tmp_path / "long.py"
    path.write_text(f"def long():\n{body}\n", encoding="utf-8")
    assert _long_functions(path) == [f"long.py:1 long ({MAX_FUNCTION_LINES + 1} lines)"]


def test_public_numeric_api_is_unchanged() -> None:
    assert sorted(numeric.__all__) == [
        "CATEGORY_SYNONYMS",
        "Candidate",
        "NumericMatch",
        "assert_numeric_match",
        "extract_values",
        "grade",
        "looks_numeric",
        "numeric_match",
        "register_category",
        "values_agree",
    ]
    for name in numeric.__all__:
        assert getattr(numeric, name) is not None


WORDS = ["prosent", "Prozent", "pour cent", "basispunkter", "ſtück", "Kelvin", "ıx", "éuro", "[x]"]


@pytest.mark.parametrize(
    "text",
    ["prosent", "PROSENT", " Prozent", "pour  cent", "kelvin", "KELVIN", "\u212aelvin", "Stück",
     "ſtück", "IX", "ıx", "Éuro", "[x]", "x", "", "12 %", "ounce"],
)  # fmt: skip
def test_first_char_gate_never_changes_a_match(text: str) -> None:
    alternation = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in WORDS)
    plain = re.compile(rf"(?i:{alternation})")
    gated = re.compile(rf"{first_char_gate(WORDS)}(?i:{alternation})")
    for pos in range(len(text) + 1):
        a, b = plain.match(text, pos), gated.match(text, pos)
        assert (a and a.span()) == (b and b.span())


@pytest.mark.parametrize(
    "b8",
    ["ue was $", "Revenue ", "USD\n", "$\n", " (US$ -", "2020-", "a - ", "kr. ", "(", "\u00a0€ "],
)
def test_prefix_search_from_the_last_foreign_character_is_the_full_search(b8: str) -> None:
    full = _PREFIX_RE.search(b8)
    bounded = _PREFIX_RE.search(b8, len(b8.rstrip(_PREFIX_RUN_CHARS)))
    assert full is not None
    assert bounded is not None
    assert (full.span(), full.groups()) == (bounded.span(), bounded.groups())


def test_currency_before_a_line_break_still_reads() -> None:
    # "$" matches before a final newline, so the prefix search must look past the line break.
    (c,) = extract_values("Revenue: $\n1,500 million")
    assert c.currency == "USD"
    assert c.value == 1.5e9


TAILS = [" / 2", " * 3", "**bold", " divided by 4", " Times 3", " - 5", "x 4", " in the prior year",
         ", a year earlier", " Last year", " to 5", "–6", " million", ". Revenue", "", "   ",
         "\u2003minus 2", "\u00a0to 9", " İn the prior year", " \u212a", " decrease", ", Rückgang",
         " tap", " Net loss", " ſ", " and 5"]  # fmt: skip


@pytest.mark.parametrize("tail", TAILS)
def test_first_character_checks_skip_only_patterns_that_cannot_match(tail: str) -> None:
    import pytest_llmeval.metrics.numeric.candidates as ex
    from pytest_llmeval.metrics.numeric.locale_tables import negative_after_pattern

    head = tail.lstrip()[:1]
    checks = [
        (ex._OP_AFTER_FIRST, ex._OPERATOR_AFTER_RE),
        (ex._CMP_AFTER_FIRST, ex._COMPARE_AFTER_RE),
        (ex._RANGE_AFTER_FIRST, ex._RANGE_AFTER_RE),
        (ex._negative_after_first(), ex._NEG_WORD_AFTER_RE),
        (ex._negative_after_first(), negative_after_pattern()),
    ]
    for first, pattern in checks:
        if not ex._may_start(head, first):
            assert pattern.match(tail) is None, (pattern.pattern[:40], tail)


def test_first_character_checks_let_real_matches_through() -> None:
    import pytest_llmeval.metrics.numeric.candidates as ex

    assert ex._may_start(" / 2".lstrip()[:1], ex._OP_AFTER_FIRST)
    assert ex._OPERATOR_AFTER_RE.match(" / 2")
    assert ex._may_start(" Last year".lstrip()[:1], ex._CMP_AFTER_FIRST)
    assert ex._may_start("\u2003minus 2".lstrip()[:1], ex._OP_AFTER_FIRST)
    assert not ex._may_start("", ex._OP_AFTER_FIRST)


def test_prefix_tree_accepts_the_same_words_as_the_alternation() -> None:
    from pytest_llmeval.metrics.numeric.roles import _CHANGE_WORDS, _alt, _trie

    words = {"fall", "fall med", "fell", "fell by", "decline", "declined", "declining", "a.b", "x"}
    for vocabulary in (words, _CHANGE_WORDS):
        plain = re.compile(rf"(?:{_alt(vocabulary)})", re.IGNORECASE)
        tree = re.compile(rf"(?:{_trie(vocabulary)})", re.IGNORECASE)
        probes = [*vocabulary, "fall  med", "FALL\tMED", "declin", "axb", "fel", "", "Rückgang um"]
        probes += [w.upper() for w in vocabulary] + [w + "s" for w in vocabulary]
        for probe in probes:
            assert bool(plain.fullmatch(probe)) == bool(tree.fullmatch(probe)), probe
