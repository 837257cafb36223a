"""Gold files become items: formats, ids, bad lines, BOM, globs."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_suite

EXACT = {"accuracy": "exact", "weights": {"length": 0}}


def test_flat_and_gold_layer_formats_each_line_one_item(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"id": "flat", "question": "Capital of Norway?", "expected": "Oslo", "response": "Oslo", "eval_criteria": EXACT},
            {
                "messages": [
                    {"role": "system", "content": "Svar kort."},
                    {"role": "user", "content": "Hva er hovedstaden i Norge?"},
                    {"role": "assistant", "content": "Oslo"},
                ],
                "metadata": {"domain": "geo", "task": "qa", "locale": "nb-NO", "split": "test"},
                "response": "Oslo",
                "eval_criteria": EXACT,
            },
        ],
    )
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(["qa_eval.jsonl::flat", "qa_eval.jsonl::line2", "2 tests collected*"])
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)


def test_bad_lines_are_error_items_and_the_rest_still_runs(pytester: pytest.Pytester, plugin_args: list[str]) -> None:
    good = {"question": "q", "expected": "yes", "response": "yes", "eval_criteria": EXACT}
    write_suite(
        pytester,
        [
            {"id": "a", **good},
            '{"id": "broken", "question": ',
            {"id": "b", "question": "no expected field"},
            {"id": "c", "question": "q", "expected": "x", "eval_criteria": {"must_include": "not-a-list"}},
            {"id": "a", **good},
            {"id": "d", **good},
        ],
    )
    result = pytester.runpytest("-rE", *plugin_args)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == 2
    assert outcomes["errors"] == 4
    result.stdout.fnmatch_lines_random(
        [
            "*qa_eval.jsonl:2: invalid JSON at column*",
            "*qa_eval.jsonl:3: field 'expected' missing*",
            "*qa_eval.jsonl:4: field 'eval_criteria.must_include': 'not-a-list' is not of type 'array'*",
            "*qa_eval.jsonl:5: field 'id': duplicate id 'a' (first on line 1)*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_bom_and_blank_lines_are_fine_and_ids_fall_back_to_line_numbers(pytester: pytest.Pytester) -> None:
    text = "\n".join(
        [
            json.dumps({"question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT}),
            "",
            "   ",
            json.dumps({"question": "q", "expected": "b", "response": "b", "eval_criteria": EXACT}),
        ]
    )
    (pytester.path / "bom_eval.jsonl").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(["bom_eval.jsonl::line1", "bom_eval.jsonl::line4"])
    pytester.runpytest().assert_outcomes(passed=2)


def test_ini_glob_selects_gold_files(pytester: pytest.Pytester) -> None:
    record = {"question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT}
    write_suite(pytester, [record], name="default_eval.jsonl")
    write_suite(pytester, [record], name="other.llmeval.jsonl")
    write_suite(pytester, [record], name="gold/custom.jsonl")
    write_suite(pytester, [record], name="notes.jsonl")
    pytester.runpytest("--co", "-q").stdout.fnmatch_lines(["*2 tests collected*"])
    pytester.makeini("[pytest]\nllm_gold_files = custom.jsonl\n")
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(["gold/custom.jsonl::line1", "*1 test collected*"])


def test_collection_is_identical_across_runs_and_xdist(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [{"id": f"s{i}", "question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT} for i in range(30)])
    first = pytester.runpytest("--co", "-q").stdout.lines
    second = pytester.runpytest("--co", "-q").stdout.lines
    assert [line for line in first if "::" in line] == [line for line in second if "::" in line]
    result = pytester.runpytest("-n", "2")
    result.assert_outcomes(passed=30)


def test_file_config_line_sets_defaults_and_must_come_first(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"accuracy": "exact", "weights": {"length": 0}}},
            {"id": "ok", "question": "q", "expected": "Oslo", "response": "oslo"},
            {"llmeval_file": {"accuracy": "fuzzy"}},
        ],
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*qa_eval.jsonl:3: 'llmeval_file' must come before the first sample*"])
