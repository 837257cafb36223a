"""Numbers in other scripts' separators and the Turkish I in ``must_include``."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.keywords import must_include
from pytest_llmeval.metrics.numeric.match import numeric_match
from tests.conftest import write_suite


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("１２．５％", "12.5%"),  # fullwidth digits, full stop and percent sign (not 12)
        (
            "١٢٫٥٪",
            "12.5%",
        ),  # Arabic-Indic digits, Arabic decimal separator and percent sign (not 12)
        ("۱۲٫۵٪", "12.5%"),  # Extended Arabic-Indic (Persian) digits
        ("＄１，５００ million", "$1,500 million"),  # fullwidth dollar and comma (not 5e8)
        ("$1٬500 million", "$1,500 million"),  # Arabic thousands separator (not 1e6)
        ("Revenue was ١٬٢٣٤٫٥ million.", "1,234.5 million"),
    ],
)
def test_digits_and_separators_of_other_scripts_read_as_one_number(
    response: str, expected: str
) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


@pytest.mark.parametrize(
    ("response", "wrong"),
    [("１２．５％", "12%"), ("١٢٫٥٪", "12%"), ("＄１，５００ million", "$500 million")],
)
def test_the_folded_number_is_not_the_fragment_read_before(response: str, wrong: str) -> None:
    assert not numeric_match(response, wrong).passed


@pytest.mark.parametrize(
    ("response", "keyword"),
    [
        ("İSTANBUL is the largest city", "istanbul"),  # dotted capital İ casefolds to i + U+0307
        ("istanbul is the largest city", "İstanbul"),
        ("ISPARTA lies inland", "ısparta"),  # dotless ı against I
        ("Isparta lies inland", "ISPARTA"),
        ("ıspartа".replace("а", "a") + " lies inland", "Isparta"),
        ("i̇stanbul (lowercased with a combining dot)", "istanbul"),
    ],
)
def test_turkish_dotted_and_dotless_i_match_must_include_both_ways(
    response: str, keyword: str
) -> None:
    result = must_include(response, [keyword])
    assert result.passed, result.explanation


def test_folding_does_not_make_other_words_equal() -> None:
    assert not must_include("Isparta", ["Asparta"]).passed
    assert not must_include("straße", ["strasse x"]).passed


def test_must_include_with_a_turkish_capital_passes_in_a_run(pytester: pytest.Pytester) -> None:
    criteria = {"accuracy": "exact", "weights": {"length": 0}, "must_include": ["İzmir"]}
    write_suite(
        pytester,
        [
            {
                "id": "tr",
                "question": "q",
                "expected": "IZMIR",
                "response": "IZMIR",
                "eval_criteria": criteria,
            }
        ],
    )
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1)
