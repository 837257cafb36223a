"""``--llm-repeat`` under faults: each repeat is graded or an error on its own, and the
run's repeat figures count the same samples as the pass rate."""

from __future__ import annotations

import pytest

from tests.conftest import EXACT, write_suite
from tests.regression_helpers import load, run

FLAKY_APP = """
def answer(sample):
    if sample["id"] == "dead" or sample["repeat"] == 3:
        raise RuntimeError(f"upstream 502 on repeat {sample['repeat']}")
    return sample["expected"]
"""


def suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(flaky_app=FLAKY_APP)
    ids = ["s0", "s1", "s2", "dead"]
    write_suite(
        pytester,
        [
            {"id": i, "question": f"q {i}", "expected": f"A {i}", "eval_criteria": EXACT}
            for i in ids
        ],
    )


def test_one_failed_repeat_loses_none_of_the_others(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    suite(pytester)
    result = run(
        pytester,
        "--llm-model=python:flaky_app:answer",
        "--llm-repeat=5",
        "--llm-report=r.json",
        *plugin_args,
    )
    result.assert_outcomes(
        passed=3, errors=1
    )  # not errors=4: a failed repeat does not make its sample an error
    report = load(pytester, "r.json")
    samples = {s["sample_id"]: s for s in report["sample_results"]}
    s0 = samples["s0"]
    assert s0["status"] == "pass"
    assert [r["status"] for r in s0["repeats"]] == ["pass", "pass", "error", "pass", "pass"]
    error = s0["repeats"][2]
    assert error["repeat"] == 3
    assert "upstream 502 on repeat 3" in error["reason"]
    assert (s0["pass_count"], s0["counted_repeats"], s0["repeat_errors"], s0["stability"]) == (
        4,
        5,
        1,
        "flaky",
    )
    dead = samples["dead"]  # every repeat failed: an error item that still lists its repeats
    assert dead["status"] == "error"
    assert [r["repeat"] for r in dead["repeats"]] == [1, 2, 3, 4, 5]
    assert dead["stability"] == "stable_fail"
    assert "all 5 repeats failed; repeat 1: " in dead["reason"]
    aggregate = report["aggregate_metrics"]
    # the same four samples in every figure: errors count as fail, in the pass rate and the repeats
    assert aggregate["samples"] == 4
    assert (aggregate["stable_pass"], aggregate["flaky"], aggregate["stable_fail"]) == (0, 3, 1)
    assert aggregate["mean_pass_rate"] == pytest.approx((0.8 * 3 + 0) / 4)
    assert aggregate["pass_rate"] == pytest.approx(0.75)
    assert aggregate["repeat_errors"] == 8
    result.stdout.fnmatch_lines(
        [
            "*stable pass 0  flaky 3  stable fail 1 | mean pass rate 60.0%*repeat errors 8 (count as fail)*"
        ]
    )


def test_under_errors_exclude_failed_repeats_leave_the_denominators(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester)
    result = run(
        pytester,
        "--llm-model=python:flaky_app:answer",
        "--llm-repeat=5",
        "-o",
        "llm_errors=exclude",
        "--llm-report=r.json",
    )
    result.assert_outcomes(passed=3, errors=1)
    report = load(pytester, "r.json")
    s0 = next(s for s in report["sample_results"] if s["sample_id"] == "s0")
    assert (s0["pass_count"], s0["counted_repeats"], s0["stability"]) == (4, 4, "stable_pass")
    aggregate = report["aggregate_metrics"]
    assert aggregate["samples"] == 3  # the all-error sample is out, as it is out of the pass rate
    assert aggregate["mean_pass_rate"] == pytest.approx(1.0)
    assert aggregate["pass_rate"] == pytest.approx(1.0)
