"""Gold items are graded by the run's grading pipeline: every conversation turn and every repeat
goes through its one ``grade`` stage, with or without xdist."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import EXACT, write_suite

pytest_plugins = ["pytester"]

# A conftest that wraps the pipeline's grade stage: each call appends (sample id, answer, tier).
SPY_CONFTEST = """
import json
import os

import pytest

from pytest_llmeval.grading.pipeline import PIPELINE_KEY


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    pipeline = config.stash[PIPELINE_KEY]
    grade = pipeline.grade

    def logged(sample, answer):
        result = grade(sample, answer)
        with open(os.path.join(str(config.rootpath), "grades.log"), "a", encoding="utf-8") as log:
            log.write(json.dumps([sample.id, answer.text, result.tier]) + "\\n")
        return result

    pipeline.grade = logged
"""


def conversation() -> dict[str, Any]:
    return {
        "id": "chat",
        "messages": [
            {"role": "user", "content": "Which VAT rate applies?"},
            {"role": "assistant", "content": "What do you sell?", "response": "What do you sell?"},
            {"role": "user", "content": "Food in a shop."},
            {"role": "assistant", "content": "15 percent.", "response": "25 percent."},
        ],
        "eval_criteria": {**EXACT, "conversation": {"aggregate": "min"}},
    }


def test_turns_and_repeats_go_through_the_pipelines_grade_stage(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    pytester.makeconftest(SPY_CONFTEST)
    plain = {
        "id": "capital",
        "question": "Capital of France?",
        "expected": "Paris",
        "response": "Paris",
        "eval_criteria": EXACT,
    }
    write_suite(pytester, [plain, conversation()])
    result = pytester.runpytest("--llm-repeat=2", "--llm-report=r.json", *plugin_args)
    result.assert_outcomes(passed=1, failed=1)
    lines = (pytester.path / "grades.log").read_text(encoding="utf-8").splitlines()
    calls = sorted(tuple(json.loads(line)) for line in lines)
    assert calls == sorted(
        [("capital", "Paris", "pass")] * 2
        + [("chat/turn1", "What do you sell?", "pass")] * 2
        + [("chat/turn2", "25 percent.", "fail")] * 2
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert [t["tier"] for t in by_id["chat"]["turns"]] == ["pass", "fail"]
    assert (by_id["chat"]["pass_count"], by_id["capital"]["pass_count"]) == (0, 2)
