"""Rubric components as a registry: built-ins, conftest-added components, weights and reports."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.components import BUILTIN_COMPONENTS, ComponentRegistry
from pytest_llmeval.errors import GraderError
from tests.conftest import write_suite

POLITE_CONFTEST = """
from pytest_llmeval import MetricResult

def polite(ctx):
    if ctx.sample.metadata.get("task") == "skip-polite":
        return None  # does not apply to this sample
    ok = "please" in ctx.response.lower()
    # ctx.results holds the components scored before this one
    return MetricResult(metric="polite", passed=ok, score=float(ok),
                        explanation=f"says please: {ok}; accuracy was {ctx.results['accuracy'].score:.1f}")

def pytest_llmeval_components(config):
    return {"polite": polite}
"""

SUITE = [
    {
        "id": "rude",
        "question": "q",
        "expected": "Oslo",
        "response": "Oslo",
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
    {
        "id": "nice",
        "question": "q",
        "expected": "Oslo, please",
        "response": "Oslo, please",
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
    {
        "id": "exempt",
        "question": "q",
        "expected": "Oslo",
        "response": "Oslo",
        "metadata": {"task": "skip-polite"},
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
]


def test_builtin_components_keep_their_order_and_default_weights() -> None:
    registry = ComponentRegistry()
    assert registry.names() == [
        "accuracy",
        "citation",
        "length",
        "keywords",
        "retrieval",
        "language",
    ]
    assert registry.default_weights() == {
        "accuracy": 0.5,
        "citation": 0.25,
        "length": 0.15,
        "keywords": 0.1,
        "retrieval": 0.0,
        "language": 0.0,
    }
    assert set(BUILTIN_COMPONENTS) == set(registry.names())


def test_unknown_component_names_the_registered_ones() -> None:
    with pytest.raises(
        GraderError,
        match="unknown rubric component 'nope'; registered components: accuracy, citation",
    ):
        ComponentRegistry().get("nope")


def test_conftest_component_is_reported_not_scored_in_rubric_summary_and_json(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, SUITE)
    pytester.makeconftest(POLITE_CONFTEST)
    result = pytester.runpytest("--llm-report=r.json", *plugin_args)
    # weight 0: 'rude' still passes on accuracy alone
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["mean overall 1.000 | accuracy 1.000 | length (info) 0.500 | polite (info) 0.500"]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert by_id["rude"]["scores"]["polite"] == 0.0
    assert by_id["nice"]["scores"]["polite"] == 1.0
    assert by_id["exempt"]["scores"]["polite"] is None  # None from the component: not applied
    assert "polite" not in by_id["exempt"]["components"]
    rude = by_id["rude"]["components"]["polite"]
    assert rude["weight"] == 0
    assert rude["metric"] == "polite"
    assert rude["reason"] == "says please: False; accuracy was 1.0"
    assert report["aggregate_metrics"]["components"]["polite"] == pytest.approx(0.5)


def test_conftest_component_has_a_bar_in_the_html_report(pytester: pytest.Pytester) -> None:
    pytest.importorskip("jinja2")
    write_suite(pytester, SUITE)
    pytester.makeconftest(POLITE_CONFTEST)
    pytester.runpytest("--llm-html=r.html").assert_outcomes(passed=3)
    assert "polite" in (pytester.path / "r.html").read_text(encoding="utf-8")


def test_conftest_component_counts_when_weighted_and_shows_in_the_failure_table(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, SUITE)
    pytester.makeconftest(POLITE_CONFTEST)
    pytester.makeini("[pytest]\nllm_weights = accuracy=0.5, polite=0.5, length=0\n")
    result = pytester.runpytest("--llm-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*sample 'rude' (qa_eval.jsonl:1) graded FAIL: overall 0.500*",
            "*polite*0.000*0.50*polite: says please: False*",
            "mean overall 0.833 | accuracy 1.000 | length (info) 0.500 | polite 0.500",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    nice = next(s for s in report["sample_results"] if s["sample_id"] == "nice")
    assert nice["components"]["polite"]["weight"] == pytest.approx(0.5)


def test_per_sample_weight_opts_a_conftest_component_in(pytester: pytest.Pytester) -> None:
    suite = [
        dict(SUITE[0], eval_criteria={"accuracy": "exact", "weights": {"length": 0, "polite": 1}})
    ]
    write_suite(pytester, suite)
    pytester.makeconftest(POLITE_CONFTEST)
    pytester.runpytest().assert_outcomes(failed=1)


def test_component_returning_a_non_result_is_an_error_naming_it(pytester: pytest.Pytester) -> None:
    write_suite(pytester, SUITE[:1])
    pytester.makeconftest(
        "def pytest_llmeval_components(config):\n    return {'odd': lambda ctx: 0.5}\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*rubric component 'odd' returned float, not a MetricResult or None*"]
    )


def test_weight_for_an_unregistered_component_lists_known_ones(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester, [dict(SUITE[0], eval_criteria={"accuracy": "exact", "weights": {"polite": 1}})]
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*unknown rubric component(s) ?'polite'? in weights; known: accuracy, citation, length*"]
    )
