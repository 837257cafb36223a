"""A sample whose xdist worker dies is an error in the denominator; the run is incomplete."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXACT, write_suite

CRASHING_APP = """
import os, signal

def pytest_llmeval_generate(sample, config):
    if sample.id == "s3":
        os.kill(os.getpid(), signal.SIGKILL)  # the app under test dies (a segfault, the OOM killer)
    return sample.expected
"""


def test_a_sample_whose_worker_crashed_is_an_error_and_the_run_incomplete(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    write_suite(
        pytester,
        [
            {"id": f"s{i}", "question": "q", "expected": f"a{i}", "eval_criteria": EXACT}
            for i in range(10)
        ],
    )
    pytester.makeconftest(CRASHING_APP)
    result = pytester.runpytest(
        "-n", "2", "-p", "no:cacheprovider", "--llm-min-pass-rate=0.95", "--llm-report=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*INCOMPLETE run: an xdist worker crashed running 1 sample(s): qa_eval.jsonl::s3*",
            "llmeval gate FAILED: pass rate 90.0% is below --llm-min-pass-rate 95.0% (9 of 10 samples*",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["metadata"]["incomplete"] is True
    assert report["aggregate_metrics"]["errors"] == 1
    crashed = next(s for s in report["sample_results"] if s["sample_id"] == "s3")
    assert crashed["status"] == "error"
    assert crashed["file"] == "qa_eval.jsonl"
    assert "crashed while running 'qa_eval.jsonl::s3'" in crashed["reason"]
    assert len(report["sample_results"]) == 10
