"""Beside the plugins people already run: pytest-randomly, pytest-html, pytest-timeout, pytest-rerunfailures.

Each run beside one of them must give the report a plain run gives (rerunfailures: each sample
counted once, with its final outcome).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import inner_addopts, write_suite

EXACT = {"accuracy": "exact", "weights": {"length": 0}}
SUITE = [
    {
        "id": "right",
        "question": "Capital of Norway?",
        "expected": "Oslo",
        "response": "Oslo",
        "eval_criteria": EXACT,
    },
    {
        "id": "wrong",
        "question": "Capital of Sweden?",
        "expected": "Stockholm",
        "response": "Oslo",
        "eval_criteria": EXACT,
    },
    {
        "id": "also-right",
        "question": "Capital of Denmark?",
        "expected": "København",
        "response": "København",
        "eval_criteria": EXACT,
    },
    {
        "id": "keywords",
        "question": "Capital of Finland?",
        "expected": "Helsinki",
        "response": "Helsinki",
        "eval_criteria": {
            "accuracy": "exact",
            "must_include": ["Helsinki", "Finland"],
            "weights": {"length": 0},
        },
    },
]
HELPER_TESTS = """
from pytest_llmeval import assert_must_include

def test_helper_passes():
    assert_must_include("Oslo is the capital.", ["Oslo"])

def test_helper_fails():
    assert_must_include("Oslo is the capital.", ["Bergen"])
"""


# The entry points each companion plugin registers (pytest-html needs pytest-metadata's).
COMPANION_ENTRY_POINTS = {
    "randomly": ("randomly",),
    "html": ("html", "metadata"),
    "timeout": ("timeout",),
    "rerunfailures": ("rerunfailures",),
}


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on the companion plugin: aggregates, tallies and every sample's outcome."""
    return {
        "aggregate": report["aggregate_metrics"],
        "by_task": report["by_task"],
        "samples": {s["nodeid"]: (s["status"], s["scores"]) for s in report["sample_results"]},
        "helpers": {s["nodeid"]: s["status"] for s in report["helper_results"]},
        "total": report["metadata"]["total_samples"],
    }


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest_subprocess("--llm-report=r.json", "-p", "no:cacheprovider", *args)
    return result, json.loads((pytester.path / "r.json").read_text())


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    write_suite(pytester, SUITE)
    pytester.makepyfile(test_helpers=HELPER_TESTS)
    return pytester


@pytest.mark.parametrize(
    ("plugin", "args"),
    [
        pytest.param(
            "randomly", ["-p", "randomly", "-p", "no:xdist", "--randomly-seed=4"], id="randomly"
        ),
        pytest.param(
            "randomly", ["-p", "randomly", "-n", "2", "--randomly-seed=7"], id="randomly-xdist"
        ),
        pytest.param("html", ["--html=report.html", "--self-contained-html"], id="html"),
        pytest.param("timeout", ["--timeout=120"], id="timeout"),
    ],
)
def test_companion_plugin_gives_the_plain_report(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin: str, args: list[str]
) -> None:
    pytest.importorskip(
        {"randomly": "pytest_randomly", "html": "pytest_html", "timeout": "pytest_timeout"}[plugin]
    )
    plain, plain_report = run(suite, "-p", "no:xdist")
    # The inner runs block the dev plugins by default (tests/conftest.py); this one opts in.
    monkeypatch.setenv("PYTEST_ADDOPTS", inner_addopts(*COMPANION_ENTRY_POINTS[plugin]))
    beside, beside_report = run(suite, *args)
    assert beside.ret == plain.ret == pytest.ExitCode.TESTS_FAILED
    assert beside.parseoutcomes() == plain.parseoutcomes()
    assert comparable(beside_report) == comparable(plain_report)
    assert plain_report["metadata"]["total_samples"] == len(SUITE)
    if plugin == "randomly":
        beside.stdout.fnmatch_lines(["*Using --randomly-seed=*"])
    if plugin == "html":
        html = (suite.path / "report.html").read_text(encoding="utf-8")
        assert "qa_eval.jsonl::wrong" in html


FLAKY_CONFTEST = """
calls = {}

def pytest_llmeval_generate(sample, config):
    # 'flaky' answers wrong the first time and right after; 'stubborn' is always wrong.
    calls[sample.id] = calls.get(sample.id, 0) + 1
    if sample.id == "flaky":
        return "Oslo" if calls[sample.id] > 1 else "Bergen"
    return "Bergen" if sample.id == "stubborn" else "Oslo"
"""


@pytest.mark.parametrize("xdist", [["-p", "no:xdist"], ["-n", "2"]], ids=["no-xdist", "xdist-2"])
def test_reruns_count_each_sample_once_with_its_final_outcome(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, xdist: list[str]
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    monkeypatch.setenv("PYTEST_ADDOPTS", inner_addopts(*COMPANION_ENTRY_POINTS["rerunfailures"]))
    question = {"question": "Capital of Norway?", "expected": "Oslo", "eval_criteria": EXACT}
    write_suite(pytester, [{"id": name, **question} for name in ("steady", "flaky", "stubborn")])
    pytester.makeconftest(FLAKY_CONFTEST)
    pytester.makepyfile(test_helpers=HELPER_TESTS)
    result, report = run(pytester, "--reruns=1", *xdist)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["failed"], outcomes["rerun"]) == (3, 2, 3)
    samples = {s["sample_id"]: s for s in report["sample_results"]}
    assert sorted(samples) == ["flaky", "steady", "stubborn"]  # 3 samples, not 5
    assert report["metadata"]["total_samples"] == 3
    assert {name: s["status"] for name, s in samples.items()} == {
        "steady": "pass",
        "flaky": "pass",
        "stubborn": "fail",
    }
    assert samples["flaky"]["earlier_attempts"] == ["fail"]
    assert samples["stubborn"]["earlier_attempts"] == ["fail"]
    assert "earlier_attempts" not in samples["steady"]
    aggregate = report["aggregate_metrics"]
    assert (aggregate["pass"], aggregate["fail"], aggregate["pass_rate"]) == (
        2,
        1,
        pytest.approx(2 / 3),
    )
    assert report["helpers"] == {"total": 2, "passed": 1, "failed": 1}
    result.stdout.fnmatch_lines(
        ["samples: 3 graded, 0 error(s) | pass 2  acceptable 0  fail 1  error 0"]
    )
