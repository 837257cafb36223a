"""Several ``--llm-model`` specs in one run: one item per model, side by side, compared with the first."""

from __future__ import annotations

import json
import re

import pytest

from tests.regression_helpers import ids, load, make_suite, run, set_wrong

A = "python:llm_app:answer"
B = "python:llm_app:answer_b"


def test_two_models_each_sample_graded_once_per_model(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 20)
    set_wrong(pytester, ["s00"], model="a")
    set_wrong(pytester, ids(20)[:9], model="b")  # b misses 8 samples a gets right
    result = run(
        pytester, f"--llm-model={A}", f"--llm-model={B}", "--llm-report=r.json", "-v", *plugin_args
    )
    assert result.parseoutcomes() == {"passed": 19 + 11, "failed": 1 + 9}
    for model in (A, B):
        assert re.search(
            rf"qa_eval.jsonl::s05\[{re.escape(model)}\] (PASSED|FAILED)|(PASSED|FAILED) qa_eval.jsonl::s05\[{re.escape(model)}\]",
            result.stdout.str(),
        )
    report = load(pytester, "r.json")
    assert report["metadata"]["models"] == [A, B]
    by_model = report["by_model"]
    assert list(by_model) == [A, B]
    assert (by_model[A]["total"], by_model[A]["pass"]) == (20, 19)
    assert (by_model[B]["total"], by_model[B]["pass"]) == (20, 11)
    assert set(by_model[A]["by_task"]) == {"math", "qa"}
    assert by_model[A]["comparison"] is None
    versus = by_model[B]["comparison"]
    assert versus["newly_failing"] == ids(20)[1:9]
    assert versus["newly_passing"] == []
    assert versus["paired"] == 20
    assert versus["test"] == "mcnemar_exact"
    assert versus["p_value"] == pytest.approx(2 / 2**8)
    assert versus["significant_regression"] is True
    graded = [(s["sample_id"], s["model"]) for s in report["sample_results"]]
    assert sorted(graded) == sorted((sid, m) for sid in ids(20) for m in (A, B))
    result.stdout.fnmatch_lines(
        [
            f"by model (pass rate)  *{A}  {B}",
            "(all) *95.0% (19/20) *55.0% (11/20)",
            "math *90.0% (9/10) *50.0% (5/10)",
            "qa *100.0% (10/10) *60.0% (6/10)",
            f"{B} vs {A}",
            "  newly failing (8): s01, s02, s03, s04, s05, s06, s07, s08",
            "  test: McNemar exact, p=0.007812",
        ]
    )


def test_models_from_ini_one_per_line_and_baseline_pairs_the_first(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester, 6)
    set_wrong(pytester, ["s01"], model="a")
    set_wrong(pytester, [], model="b")
    assert (
        run(pytester, f"--llm-model={A}", "--llm-report=base.json").ret
        == pytest.ExitCode.TESTS_FAILED
    )
    pytester.makeini(f"[pytest]\nllm_model =\n    {A}\n    {B}\n")
    result = run(pytester, "--llm-baseline=base.json", "--llm-report=r.json", "--llm-gate-only")
    assert result.ret == pytest.ExitCode.OK
    report = load(pytester, "r.json")
    assert list(report["by_model"]) == [A, B]
    assert report["comparison"]["paired"] == 6  # the first model against the baseline
    assert report["comparison"]["newly_failing"] == []
    statuses = {
        (s["sample_id"], s["model"]): s.get("baseline_status") for s in report["sample_results"]
    }
    assert statuses[("s01", A)] == "fail"
    assert statuses[("s01", B)] is None
    pytester.makeini(f"[pytest]\nllm_model =\n    {A}\n    {A}\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*ini llm_model*model '{A}' given twice*"])
    assert json.dumps(report)  # builtins only


def test_report_identical_with_and_without_xdist(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 12)
    set_wrong(pytester, ["s01"], model="a")
    assert (
        run(
            pytester,
            f"--llm-model={A}",
            "--llm-repeat=2",
            "--llm-report=base.json",
            "--llm-gate-only",
        ).ret
        == 0
    )
    set_wrong(pytester, {"s02": [True, False], "s03": [False, True]}, model="a")
    set_wrong(pytester, ids(12)[:4], model="b")
    args = [
        f"--llm-model={A}",
        f"--llm-model={B}",
        "--llm-repeat=2",
        "--llm-baseline=base.json",
        "--llm-gate-only",
        "--llm-fail-on-regression",
        "--llm-min-pass-rate=0.5",
    ]
    plain = run(pytester, *args, "--llm-report=plain.json", "-p", "no:xdist")
    dist = run(pytester, *args, "--llm-report=dist.json", "-n", "2")
    assert plain.ret == dist.ret == pytest.ExitCode.OK

    def normalised(name: str) -> dict[str, object]:
        report = load(pytester, name)
        report["metadata"].pop("timestamp")
        report.pop("model_stats")
        return report

    first, second = normalised("plain.json"), normalised("dist.json")
    assert first == second
    assert first["comparison"]["test"] == "paired_permutation"
    assert first["aggregate_metrics"]["flaky"] == 2
    assert set(first["by_model"]) == {A, B}


def test_pass_rate_gate_applies_to_each_model(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    # Pooled, 19 + 11 of 40 = 75% would pass a 70% gate; b alone (55%) does not.
    make_suite(pytester, 20)
    set_wrong(pytester, ["s00"], model="a")
    set_wrong(pytester, ids(20)[:9], model="b")
    args = (
        f"--llm-model={A}",
        f"--llm-model={B}",
        "--llm-report=r.json",
        "--llm-gate-only",
        *plugin_args,
    )
    result = run(pytester, *args, "--llm-min-pass-rate=0.7")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"llmeval gate passed for {A}: pass rate 95.0% >= 70.0% (19 of 20)",
            f"llmeval gate FAILED for {B}: pass rate 55.0% is below --llm-min-pass-rate 70.0%*",
        ]
    )
    report = load(pytester, "r.json")
    assert report["aggregate_metrics"]["gate_passed"] is False
    assert (report["by_model"][A]["gate_passed"], report["by_model"][B]["gate_passed"]) == (
        True,
        False,
    )
    assert [g["passed"] for g in report["gates"]] == [True, False]
    assert run(pytester, *args, "--llm-min-pass-rate=0.5").ret == pytest.ExitCode.OK


def test_baseline_with_several_models_pairs_each_model_with_itself(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 20)
    set_wrong(pytester, ["s00"], model="a")
    set_wrong(pytester, ids(20)[:3], model="b")
    base = run(
        pytester,
        f"--llm-model={A}",
        f"--llm-model={B}",
        "--llm-report=base.json",
        "--llm-gate-only",
    )
    assert base.ret == pytest.ExitCode.OK
    set_wrong(pytester, ids(20)[:9], model="b")  # b now also misses s03..s08; a is unchanged
    result = run(
        pytester, f"--llm-model={A}", f"--llm-model={B}", "--llm-baseline=base.json",
        "--llm-fail-on-regression", "--llm-gate-only", "--llm-report=r.json", *plugin_args,
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"llmeval regression gate passed for {A}: within noise of baseline base.json*",
            f"llmeval regression gate FAILED for {B}: significantly worse than baseline base.json*",
        ]
    )
    report = load(pytester, "r.json")
    assert (
        report["comparison"]["newly_failing"] == []
    )  # the top-level comparison is the first model's
    versus = report["by_model"][B]["baseline_comparison"]
    assert versus["newly_failing"] == ids(20)[3:9]
    assert versus["p_value"] == pytest.approx(2 / 2**6)
    assert report["by_model"][A]["baseline_comparison"] == report["comparison"]
    statuses = {
        (s["sample_id"], s["model"]): s.get("baseline_status") for s in report["sample_results"]
    }
    assert (statuses[("s00", A)], statuses[("s01", B)], statuses[("s05", B)]) == (
        "fail",
        "fail",
        "pass",
    )
