"""Hostile answers graded as passes by mistake: a figure that overflows to infinity agrees with nothing."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.judge.offline import _simple_values
from pytest_llmeval.metrics.numeric import extract_values, numeric_match
from tests.conftest import write_suite

pytest_plugins = ["pytester"]

HUGE = "9" * 400  # float() reads it as inf
NUMERIC = {"accuracy": "numeric", "weights": {"length": 0}}


@pytest.mark.parametrize(
    ("answer", "gold"),
    [
        (f"The answer is {HUGE}.", "42"),
        (f"The answer is {HUGE}.", "1.5 million"),
        (f"Revenue fell by {HUGE}%.", "-3%"),
        (f"A loss of ${HUGE}.", "-$2 billion"),
        (f"It is {'9' * 300} billion.", "5 billion"),  # finite digits, inf after the scale word
        (f"It is -{HUGE}.", "-7"),
    ],
)
def test_a_figure_that_overflows_agrees_with_no_gold(answer: str, gold: str) -> None:
    result = numeric_match(answer, gold)
    assert not result.passed
    assert "inf" not in result.explanation


def test_a_digit_run_past_the_float_range_is_no_figure() -> None:
    assert extract_values(f"Total {HUGE} and 12.")[0].value == 12
    assert extract_values(f"Total {'9' * 300} billion.") == []
    assert _simple_values(f"{HUGE} and 3 million") == [(3e6, False)]


def test_overflowing_answers_fail_in_a_run(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "plain",
                "question": "How much?",
                "expected": "42",
                "response": f"It is {HUGE}.",
                "eval_criteria": NUMERIC,
            },
            {
                "id": "scaled",
                "question": "How much?",
                "expected": "$2 billion",
                "response": f"${'9' * 300} billion",
                "eval_criteria": NUMERIC,
            },
            {
                "id": "amount",
                "question": "q",
                "expected_structured": {"amount": 1250.0},
                "response": json.dumps({"amount": HUGE}),
            },
            {
                "id": "fine",
                "question": "How much?",
                "expected": "42",
                "response": "It is 42.",
                "eval_criteria": NUMERIC,
            },
        ],
    )
    result = pytester.runpytest("--llm-report=r.json", *plugin_args)
    result.assert_outcomes(passed=1, failed=3)
    by_id = {
        s["sample_id"]: s
        for s in json.loads((pytester.path / "r.json").read_text())["sample_results"]
    }
    assert "difference inf" not in by_id["plain"]["reason"]
