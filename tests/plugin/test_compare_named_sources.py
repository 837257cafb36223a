"""Two runs that name their answer source: the comparison says once what is compared, and warns
about nothing. A run without a named source still warns."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import EXACT, write_suite

IDS = ("a", "b", "c")


def predictions(pytester: pytest.Pytester, name: str, wrong: tuple[str, ...] = ()) -> None:
    rows = [{"id": i, "response": "no" if i in wrong else "yes"} for i in IDS]
    (pytester.path / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    write_suite(
        pytester,
        [{"id": i, "question": "q", "expected": "yes", "eval_criteria": EXACT} for i in IDS],
    )
    predictions(pytester, "predictions_v1.jsonl")
    predictions(pytester, "predictions_v2.jsonl", wrong=("c",))
    result = pytester.runpytest("--llm-model=file:predictions_v1.jsonl", "--llm-report=v1.json")
    result.assert_outcomes(passed=3)
    return pytester


def test_two_prediction_files_are_named_once_without_a_warning(
    suite: pytest.Pytester, plugin_args: list[str]
) -> None:
    result = suite.runpytest(
        "--llm-model=file:predictions_v2.jsonl",
        "--llm-baseline=v1.json",
        "--llm-report=v2.json",
        *plugin_args,
    )
    result.stdout.fnmatch_lines(
        [
            "comparison: file:predictions_v2.jsonl (this run) vs file:predictions_v1.jsonl (baseline v1.json, *)",
            "  paired 3 | pass rate 100.0% -> 66.7%*",
        ]
    )
    out = result.stdout.str()
    assert "warning:" not in out
    assert "differs" not in out
    assert out.count("predictions_v1.jsonl") == 1
    comparison = json.loads((suite.path / "v2.json").read_text())["comparison"]
    assert comparison["warnings"] == []
    assert comparison["run"] == {"model": "file:predictions_v2.jsonl"}
    assert comparison["baseline"]["model"] == "file:predictions_v1.jsonl"


def test_the_offline_compare_command_says_the_same(suite: pytest.Pytester) -> None:
    suite.runpytest("--llm-model=file:predictions_v2.jsonl", "--llm-report=v2.json")
    run = subprocess.run(
        [sys.executable, "-m", "pytest_llmeval", "compare", "v1.json", "v2.json"],
        cwd=suite.path,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = run.stdout.splitlines()
    assert lines[0].startswith(
        "comparison: file:predictions_v2.jsonl (this run) vs file:predictions_v1.jsonl (baseline v1.json, "
    )
    assert "warning:" not in run.stdout


def test_a_run_without_a_named_source_still_warns(suite: pytest.Pytester) -> None:
    write_suite(
        suite,
        [
            {"id": i, "question": "q", "expected": "yes", "response": "yes", "eval_criteria": EXACT}
            for i in IDS
        ],
    )
    result = suite.runpytest("--llm-baseline=v1.json")
    result.stdout.fnmatch_lines(
        [
            "comparison with baseline v1.json (model file:predictions_v1.jsonl, *)",
            '  warning: baseline model differs: "file:predictions_v1.jsonl" (baseline) vs '
            '"pre-recorded responses / pytest_llmeval_generate" (this run); compared anyway',
        ]
    )
