"""The ``structured`` grader: JSON extraction, schema, field-by-field comparison, lines, balance."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pytest_llmeval import assert_structured_match, structured_match
from pytest_llmeval.errors import LLMEvalAssertionError
from pytest_llmeval.metrics.structured.assign import best_assignment
from pytest_llmeval.metrics.structured.extract import MAX_NESTING, extract_json
from tests.conftest import write_suite

pytest_plugins = ["pytester"]

# Office supplies bought for 1 250 kr incl. 25 % VAT, paid from the bank account (NS 4102).
POSTING: dict[str, Any] = {
    "date": "2024-03-01",
    "lines": [
        {"account": 6800, "vat_code": "1", "debit": 1000.0},
        {"account": 1920, "credit": 1250.0},
        {"account": 2710, "vat_code": "1", "debit": 250.0},
    ],
}
SWAPPED = {
    "date": "2024-03-01",
    "lines": [POSTING["lines"][2], POSTING["lines"][0], POSTING["lines"][1]],
}
SCHEMA = {
    "type": "object",
    "required": ["date", "lines"],
    "properties": {
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["account"],
                "properties": {"account": {"type": "integer"}},
            },
        },
    },
}


def _with(lines_change: dict[int, dict[str, Any]]) -> dict[str, Any]:
    lines = [dict(line) for line in POSTING["lines"]]
    for index, change in lines_change.items():
        lines[index].update(change)
    return {**POSTING, "lines": lines}


# -- extraction ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ('{"a": 1}', "whole text"),
        ('Here it is:\n```json\n{"a": 1}\n```\nDone.', "fenced block"),
        ('The posting is {"a": 1} as asked {"b": 2}', "balanced value"),
        ('Braces in strings: {"a": 1, "note": "} not the end {"}', "balanced value"),
    ],
)
def test_json_is_found_wherever_the_answer_puts_it(text: str, source: str) -> None:
    found = extract_json(text)
    assert found.found
    assert found.source == source
    assert found.value["a"] == 1


def test_deeply_nested_and_huge_answers_are_refused_quickly() -> None:
    import time

    deep = "[" * 100_000 + "]" * 100_000
    started = time.perf_counter()
    result = structured_match(deep, POSTING)
    huge = json.dumps({"lines": [{"account": 1920, "credit": 1.0}] * 300_000})  # ~10 MB
    assert len(huge) > 9_000_000
    result_huge = structured_match(huge, POSTING)
    assert time.perf_counter() - started < 5
    assert not result.passed
    assert "no JSON" in result.explanation
    assert not result_huge.passed
    assert result_huge.score == 0.0
    assert extract_json("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)).found is False


# -- comparison ---------------------------------------------------------------------------------


def test_lines_in_another_order_pass() -> None:
    result = structured_match(json.dumps(SWAPPED), POSTING, balance=True)
    assert result.passed
    assert result.score == 1.0
    assert result.lines[0]["f1"] == 1.0


def test_wrong_account_fails_naming_the_field_and_costs_line_precision() -> None:
    result = structured_match(json.dumps(_with({1: {"account": 1900}})), POSTING)
    assert not result.passed
    assert result.failed_fields == ["lines[1].account"]
    assert "lines[1].account: expected 1920, got 1900 (exact)" in result.explanation
    assert result.agreement == pytest.approx(8 / 9)
    assert result.score <= 0.5  # below every default cut-off
    assert result.lines[0]["precision"] == pytest.approx(2 / 3, abs=1e-4)


def test_identity_and_amount_defaults() -> None:
    # an account given as text is the same identity; an amount as "1 000,00 kr" is the same amount
    answer = _with({0: {"account": "6800", "debit": "1 000,00 kr"}})
    assert structured_match(json.dumps(answer), POSTING).passed
    # amounts are exact by default and take a tolerance per field
    off = json.dumps(_with({0: {"debit": 1000.004}}))
    assert not structured_match(off, POSTING).passed
    assert structured_match(off, POSTING, fields={"lines[].debit": {"tolerance": 0.005}}).passed
    # dates are identities in any common notation
    assert structured_match(json.dumps({**POSTING, "date": "01.03.2024"}), POSTING).passed
    assert not structured_match(json.dumps({**POSTING, "date": "2024-03-02"}), POSTING).passed


def test_missing_and_invented_lines_both_cost() -> None:
    fewer = {**POSTING, "lines": POSTING["lines"][:2]}
    result = structured_match(json.dumps(fewer), POSTING)
    assert result.lines[0] == {
        "path": "lines",
        "gold": 3,
        "answer": 2,
        "matched": 2,
        "exact": 2,
        "precision": 1.0,
        "recall": pytest.approx(2 / 3, abs=1e-4),
        "f1": 0.8,
        "in_order": False,
    }
    assert "lines[2]" in result.failed_fields
    more = {**POSTING, "lines": [*POSTING["lines"], {"account": 7770, "debit": 5.0}]}
    result = structured_match(json.dumps(more), POSTING)
    assert not result.passed
    assert result.lines[0]["precision"] == 0.75
    assert "lines[answer 3]" in result.failed_fields


def test_an_answer_inventing_thousands_of_lines_is_compared_in_order_quickly() -> None:
    import time

    answer = {
        **POSTING,
        "lines": [*POSTING["lines"], *({"account": 1920, "credit": 1.0} for _ in range(20_000))],
    }
    started = time.perf_counter()
    result = structured_match(json.dumps(answer), POSTING)
    assert time.perf_counter() - started < 10
    assert not result.passed
    assert result.lines[0]["in_order"] is True
    assert result.lines[0]["recall"] == 1.0
    assert result.lines[0]["answer"] == 20_003


def test_unbalanced_posting_fails_the_balance_check() -> None:
    answer = json.dumps(_with({2: {"debit": 200.0}}))
    result = structured_match(answer, _with({2: {"debit": 200.0}}), balance=True)
    assert not result.passed
    assert result.balanced is False
    assert "does not balance (debits - credits = -50)" in result.explanation
    per_currency = {
        "lines": [
            {"account": 1920, "amount": 10, "currency": "EUR"},
            {"account": 3000, "amount": -10, "currency": "NOK"},
        ]
    }
    result = structured_match(json.dumps(per_currency), per_currency, balance=True)
    assert not result.passed
    assert "EUR: debits - credits = 10" in result.explanation


def test_schema_violation_names_its_path() -> None:
    answer = json.dumps(_with({1: {"account": "1920"}}))
    result = structured_match(answer, POSTING, schema=SCHEMA)
    assert not result.passed
    assert result.schema_errors == ["lines[1].account: '1920' is not of type 'integer'"]


def test_not_json_fails_with_the_reason() -> None:
    result = structured_match("Debet 6800 1000, kredit 1920 1250.", POSTING)
    assert not result.passed
    assert result.score == 0.0
    assert result.explanation == "no JSON object or array in the answer"


def test_assert_helper_raises_naming_the_field() -> None:
    assert_structured_match(json.dumps(SWAPPED), POSTING)
    with pytest.raises(LLMEvalAssertionError, match=r"lines\[1\]\.account"):
        assert_structured_match(json.dumps(_with({1: {"account": 1900}})), POSTING)


def test_assignment_is_optimal_like_scipy() -> None:
    scipy_optimize = pytest.importorskip("scipy.optimize")
    rng = random.Random(7)
    for _ in range(200):
        rows, cols = rng.randint(1, 6), rng.randint(1, 6)
        matrix = [
            [rng.choice([0.0, 0.5, 1.0, rng.random()]) for _ in range(cols)] for _ in range(rows)
        ]
        ours = sum(matrix[i][j] for i, j in best_assignment(matrix))
        r, c = scipy_optimize.linear_sum_assignment(matrix, maximize=True)
        assert ours == pytest.approx(sum(matrix[i][j] for i, j in zip(r, c, strict=True)))


# -- plugin: gold files -------------------------------------------------------------------------


def _sample(sample_id: str, answer: Any, **criteria: Any) -> dict[str, Any]:
    text = (
        answer if isinstance(answer, str) else "Forslag:\n```json\n" + json.dumps(answer) + "\n```"
    )
    return {
        "id": sample_id,
        "question": "Bokfør kjøp av kontorrekvisita, 1 250 kr inkl. mva, betalt fra bank.",
        "expected_structured": POSTING,
        "response": text,
        "eval_criteria": {"weights": {"length": 0}, "structured": {"schema": SCHEMA, **criteria}},
    }


POSTING_SUITE = [
    _sample("swapped", SWAPPED, balance=True),
    _sample("wrong-account", _with({1: {"account": 1900}})),
    _sample("not-json", "Debet 6800 kr 1000, kredit 1920 kr 1250."),
    _sample("schema", _with({1: {"account": "1920"}})),
    {
        **_sample("unbalanced", _with({2: {"debit": 200.0}}), balance=True),
        "expected_structured": _with({2: {"debit": 200.0}}),
    },
]


def test_posting_suite_verdicts(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    write_suite(pytester, POSTING_SUITE, "posting_eval.jsonl")
    result = pytester.runpytest("--llm-report=r.json", "--junitxml=j.xml", *plugin_args)
    result.assert_outcomes(passed=1, failed=4)
    junit = (pytester.path / "j.xml").read_text()
    assert '<property name="llmeval_fields_wrong" value="lines[1].account" />' in junit
    assert '<property name="llmeval_fields" value="9/9 agree" />' in junit
    result.stdout.fnmatch_lines(
        [
            "*wrong: lines[[]1].account: expected 1920, got 1900 (exact)*",
            "*no JSON object or array in the answer*",
            "*schema violations: lines[[]1].account: '1920' is not of type 'integer'*",
            "*balance: posting does not balance (debits - credits = -50)*",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert by_id["swapped"]["status"] == "pass"
    assert by_id["swapped"]["accuracy_grader"] == "structured"
    fields = by_id["wrong-account"]["components"]["accuracy"]["details"]["fields"]
    assert [f["path"] for f in fields if not f["ok"]] == ["lines[1].account"]
    assert by_id["wrong-account"]["components"]["accuracy"]["details"]["lines"][0][
        "f1"
    ] == pytest.approx(2 / 3, abs=1e-4)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {"eval_criteria": {"structured": {"schema": {"type": "objekt"}}}},
            "*field 'eval_criteria.structured.schema': invalid JSON Schema at type*",
        ),
        (
            {
                "eval_criteria": {"structured": {"schema": SCHEMA}},
                "expected_structured": {"date": "x"},
            },
            "*field 'expected_structured': fails its own schema*<root>: 'lines' is a required property*",
        ),
        (
            {"eval_criteria": {"structured": {"balanse": True}}},
            "*field 'eval_criteria.structured.balanse': unknown key; did you mean 'eval_criteria.structured.balance'?*",
        ),
    ],
)
def test_bad_structured_gold_is_one_located_error(
    pytester: pytest.Pytester, record: dict[str, Any], message: str
) -> None:
    good = {"id": "ok", "question": "q", "expected_structured": {"a": 1}, "response": '{"a": 1}'}
    bad = {"id": "bad", "question": "q", "expected_structured": POSTING, "response": "{}", **record}
    write_suite(pytester, [good, bad], "s_eval.jsonl")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*s_eval.jsonl:2: " + message.lstrip("*")])


def test_file_header_schema_applies_to_every_sample(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"structured": {"schema": SCHEMA}}},
            {
                "id": "a",
                "question": "q",
                "expected_structured": POSTING,
                "response": json.dumps(_with({0: {"account": "6800"}})),
            },
        ],
        "h_eval.jsonl",
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*schema violations: lines[[]0].account: '6800' is not of type 'integer'*"]
    )


def test_header_with_an_invalid_schema_is_one_error_on_the_header_line(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"structured": {"schema": {"type": 12}}}},
            {"id": "a", "question": "q", "expected_structured": {"a": 1}, "response": '{"a": 1}'},
        ],
        "h_eval.jsonl",
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*h_eval.jsonl:1: file header: field 'llmeval_file.structured.schema': invalid JSON Schema at type*"
        ]
    )


HOSTILE_ANSWERS = """
import json

def pytest_llmeval_generate(sample, config):
    if sample.id == "huge":
        return json.dumps({"lines": [{"account": 1920, "credit": 1.0}] * 300_000})
    if sample.id == "deep":
        return "Svar: " + "[" * 200_000 + "]" * 200_000
    return '{"a": 1}'
"""


def test_hostile_answers_fail_with_a_reason_and_nothing_else_stops(
    pytester: pytest.Pytester,
) -> None:
    import time

    pytester.makeconftest(HOSTILE_ANSWERS)
    write_suite(
        pytester,
        [
            {"id": "huge", "question": "q", "expected_structured": POSTING},
            {"id": "deep", "question": "q", "expected_structured": POSTING},
            {"id": "fine", "question": "q", "expected_structured": {"a": 1}},
        ],
        "x_eval.jsonl",
    )
    started = time.perf_counter()
    result = pytester.runpytest("--llm-report=r.json")
    elapsed = time.perf_counter() - started
    result.assert_outcomes(passed=1, failed=2)
    by_id = {
        s["sample_id"]: s
        for s in json.loads((pytester.path / "r.json").read_text())["sample_results"]
    }
    assert "only the first 1000000 are read" in by_id["huge"]["reason"]
    assert f"nested more than {MAX_NESTING} levels deep" in by_id["deep"]["reason"]
    assert elapsed < 30


def test_length_does_not_weigh_a_structured_gold_unless_asked(pytester: pytest.Pytester) -> None:
    big = {
        "lines": [
            {"account": 1000 + i, "vat_code": "1", "debit": float(i), "text": "Kjøp av varer"}
            for i in range(12)
        ]
    }
    write_suite(
        pytester,
        [
            {
                "id": "big",
                "question": "q",
                "expected_structured": big,
                "response": json.dumps(big, indent=2),
            }
        ],
        "l_eval.jsonl",
    )
    result = pytester.runpytest("--llm-report=r.json")
    result.assert_outcomes(passed=1)
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert sample["scores"]["overall"] == 1.0
    assert "length" not in sample["components"]  # dropped: the weights renormalise over the rest


def test_a_400_digit_integer_in_the_answer_is_a_fail_with_a_reason(
    pytester: pytest.Pytester,
) -> None:
    huge = "1" + "0" * 400
    result = structured_match(
        '{"account": 3000, "amount": ' + huge + "}", {"account": 3000, "amount": 5}
    )
    assert not result.passed
    assert "integer of 401 digits" in result.explanation
    write_suite(
        pytester,
        [
            {
                "id": "s0",
                "question": "q",
                "expected_structured": {"account": 3000, "amount": 5},
                "response": '{"account": 3000, "amount": ' + huge + "}",
            }
        ],
        "x_eval.jsonl",
    )
    result_run = pytester.runpytest("--llm-report=r.json")
    result_run.assert_outcomes(failed=1)  # a wrong answer, not an error item
    [sample] = json.loads((pytester.path / "r.json").read_text())["sample_results"]
    assert "integer of 401 digits" in sample["reason"]
