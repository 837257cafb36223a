"""A predictions path given without ``file:`` is refused with the spelling that works; an incomplete
run names its real cause, not "interrupted"."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.models.providers import path_like_problem
from tests.conftest import EXACT, write_suite
from tests.fake_openai import FakeOpenAIServer


@pytest.mark.parametrize(
    "spec",
    ["predictions_v1.jsonl", "out/preds.JSON", "./preds", "../runs/a.csv", "/abs/answers.txt"],
)
def test_path_like_specs_are_refused(spec: str) -> None:
    problem = path_like_problem(spec)
    assert problem is not None
    assert f"file:{spec}" in problem


@pytest.mark.parametrize(
    "spec",
    [
        "gpt-4o-mini",
        "llama3:8b",
        "meta-llama/Llama-3.1-8B-Instruct",
        "openai:odd.jsonl",
        "file:p.jsonl",
        "python:m:f",
    ],
)
def test_model_names_and_prefixed_specs_pass(spec: str) -> None:
    assert path_like_problem(spec) is None


def test_bare_predictions_path_is_a_usage_error_suggesting_file(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [{"id": "a", "question": "q", "expected": "4"}])
    (pytester.path / "predictions_v1.jsonl").write_text(
        json.dumps({"id": "a", "response": "4"}) + "\n"
    )
    result = pytester.runpytest("--llm-model=predictions_v1.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --llm-model='predictions_v1.jsonl' (ini llm_model / --llm-model): looks like a file path, not a "
            "model name; a predictions file is given as file:predictions_v1.jsonl (write openai:predictions_v1.jsonl *",
        ]
    )
    assert "API key" not in result.stdout.str() + result.stderr.str()
    # the suggested spelling works
    result = pytester.runpytest("--llm-model=file:predictions_v1.jsonl")
    result.assert_outcomes(passed=1)


def test_an_existing_file_without_suffix_is_a_path_too(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [{"id": "a", "question": "q", "expected": "4"}])
    (pytester.path / "preds").write_text(json.dumps({"id": "a", "response": "4"}) + "\n")
    result = pytester.runpytest("--llm-model=preds")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*a predictions file is given as file:preds *"])


def test_a_fatal_model_error_is_the_incomplete_reason(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.known_models = {"llama3:8b"}
    write_suite(pytester, [{"id": f"s{i}", "question": "q", "expected": "a"} for i in range(3)])
    result = pytester.runpytest(
        "--llm-model=gpt-typo",
        f"--llm-base-url={fake_openai.url}",
        "--llm-record=off",
        "--llm-report=r.json",
    )
    result.stdout.fnmatch_lines(
        [
            "INCOMPLETE run: llmeval: stopping the run: openai:gpt-typo at *: unknown model or wrong endpoint (HTTP 404)*"
        ]
    )
    assert "Ctrl-C" not in result.stdout.str()
    assert json.loads((pytester.path / "r.json").read_text())["metadata"]["incomplete"] is True


def test_maxfail_is_the_incomplete_reason(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "b",
                "eval_criteria": EXACT,
            }
            for i in range(3)
        ],
    )
    result = pytester.runpytest("-x")
    result.stdout.fnmatch_lines(
        ["INCOMPLETE run: stopping after 1 failures; these figures cover only the 1 result(s)*"]
    )
    assert "Ctrl-C" not in result.stdout.str()
