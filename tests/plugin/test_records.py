"""Per-sample records across processes: what a custom component or the graded hook adds survives the
trip from an xdist worker to the controller, and reaches the shard report a merge replays."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXACT, write_suite

pytest_plugins = ["pytester"]

CONFTEST = """
from pytest_llmeval.metrics.base import MetricResult


def pytest_llmeval_components(config):
    def polite(ctx):
        ok = "please" in ctx.response.lower()
        ctx.record["polite"] = ok  # a sample-level field of this component
        return MetricResult(metric="polite", passed=ok, score=float(ok), explanation=f"says please: {ok}")
    return {"polite": polite}


def pytest_llmeval_sample_graded(item, record):
    record["reviewed_by"] = "conftest"
"""


def test_fields_of_custom_components_and_hooks_reach_the_controller(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "a",
                "question": "q",
                "expected": "Oslo please",
                "response": "Oslo please",
                "eval_criteria": EXACT,
            },
            {
                "id": "b",
                "question": "q",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            },
            "{not json",
        ],
    )
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest(
        *plugin_args, "--llm-shard=1/1", "--llm-run-id=r", "--llm-report=r.json"
    )
    result.assert_outcomes(passed=2, errors=1)
    report = json.loads((pytester.path / "r.json").read_text())
    extras = report["shard"]["record_extras"]
    assert extras["qa_eval.jsonl::a"]["polite"] is True
    assert extras["qa_eval.jsonl::b"]["polite"] is False
    assert extras["qa_eval.jsonl::a"]["reviewed_by"] == "conftest"
    assert {e["sample_id"]: e["status"] for e in report["sample_results"]} == {
        "a": "pass",
        "b": "pass",
        "qa_eval.jsonl:3": "error",
    }
    assert report["aggregate_metrics"]["components"]["polite"] == 0.5
