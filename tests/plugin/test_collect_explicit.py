"""A gold file named on the command line is collected whatever ``llm_gold_files`` says; a folder
that yields nothing names the patterns."""

from __future__ import annotations

import pytest

from tests.conftest import EXACT, write_suite

SAMPLE = {"id": "a", "question": "q", "expected": "4", "response": "4", "eval_criteria": EXACT}
HINT = (
    "llmeval: evals yielded no test: its 2 .jsonl file(s) (evals/more.jsonl, evals/qa.jsonl) match none of "
    "llm_gold_files '*_eval.jsonl *.llmeval.jsonl'; rename them, set llm_gold_files (ini, or -o llm_gold_files=...), "
    "or name a gold file on the command line"
)


def test_explicit_gold_file_is_collected_whatever_the_patterns(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [SAMPLE], name="evals/qa.jsonl")
    result = pytester.runpytest("evals/qa.jsonl")
    result.assert_outcomes(passed=1)
    assert "not found" not in result.stdout.str() + result.stderr.str()


def test_explicit_sample_node_id_works_too(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [SAMPLE, {**SAMPLE, "id": "b"}], name="qa.jsonl")
    result = pytester.runpytest("qa.jsonl::b", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["qa.jsonl::b PASSED*"])


def test_unmatched_jsonl_in_a_folder_is_still_left_alone(pytester: pytest.Pytester) -> None:
    """Data files beside tests (predictions, fixtures) are not gold files unless named."""
    write_suite(pytester, [SAMPLE], name="evals/qa_eval.jsonl")
    write_suite(pytester, ['{"not": "a gold line"}'], name="evals/predictions.jsonl")
    result = pytester.runpytest("evals")
    result.assert_outcomes(passed=1)
    assert "yielded no test" not in result.stdout.str()


def test_a_folder_that_yields_nothing_names_the_patterns(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, [SAMPLE], name="evals/qa.jsonl")
    write_suite(pytester, [SAMPLE], name="evals/more.jsonl")
    result = pytester.runpytest("evals", *plugin_args)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines([HINT])


def test_only_the_empty_folder_is_named(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [SAMPLE], name="evals/qa.jsonl")
    write_suite(pytester, [SAMPLE], name="evals/more.jsonl")
    pytester.makepyfile(**{"unit/test_unit": "def test_ok():\n    pass\n"})
    result = pytester.runpytest("unit", "evals")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([HINT])
    assert "unit yielded" not in result.stdout.str()


def test_the_patterns_from_the_ini_file_are_named(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [SAMPLE], name="evals/qa_eval.jsonl")
    pytester.makeini("[pytest]\nllm_gold_files = *.gold.jsonl\n")
    result = pytester.runpytest("evals")
    result.stdout.fnmatch_lines(
        ["*its 1 .jsonl file(s) (evals/qa_eval.jsonl) match none of llm_gold_files '*.gold.jsonl'*"]
    )
