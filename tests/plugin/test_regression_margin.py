"""The regression gate a small suite cannot fool: margin, non-inferiority, what the suite can detect."""

from __future__ import annotations

import json
import math
import random
import sys
from typing import Any

import pytest
from scipy import stats as scipy_stats

from pytest_llmeval.history.analysis import cochran_armitage, detectable_slope
from pytest_llmeval.regression import significance
from pytest_llmeval.regression.run_comparison import compare, comparison_lines
from tests.regression_helpers import MODEL, ids, load, make_suite, run, set_wrong


def _report(statuses: list[str]) -> dict[str, Any]:
    return {
        "metadata": {},
        "sample_results": [
            {"sample_id": f"s{i:03d}", "status": status, "file": "qa_eval.jsonl"}
            for i, status in enumerate(statuses)
        ],
    }


def _compare(base: list[str], new: list[str], **gate: Any) -> dict[str, Any]:
    return compare(
        _report(base), _report(new)["sample_results"], {}, baseline_path="base.json", **gate
    )


# -- formulas ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.2, 0.1, 0.05, 0.01, 0.001])
def test_min_discordant_is_the_first_count_scipy_binomtest_rejects(alpha: float) -> None:
    k = significance.min_discordant(alpha)
    assert (
        scipy_stats.binomtest(k, k, 0.5).pvalue
        < alpha
        <= scipy_stats.binomtest(k - 1, k - 1, 0.5).pvalue
    )


@pytest.mark.parametrize(
    ("sd", "n", "alpha"), [(0.3, 100, 0.05), (0.5, 12, 0.05), (0.2, 500, 0.01)]
)
def test_power_mde_against_scipy_norm(sd: float, n: int, alpha: float) -> None:
    expected = (scipy_stats.norm.ppf(1 - alpha / 2) + scipy_stats.norm.ppf(0.8)) * sd / math.sqrt(n)
    assert significance.power_mde(sd, n, alpha) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("b", "c"), [(5, 2), (12, 2), (1, 9), (30, 30)])
def test_tango_statistic_at_no_drop_is_mcnemars(b: int, c: int) -> None:
    assert significance.tango_z(b, c, 200, 0.0) == pytest.approx(
        (b - c) / math.sqrt(b + c), rel=1e-12
    )


@pytest.mark.parametrize(
    ("b", "c", "n", "alpha"),
    [(12, 2, 60, 0.05), (3, 4, 40, 0.05), (0, 5, 30, 0.1), (20, 0, 25, 0.01)],
)
def test_upper_bound_is_where_the_one_sided_score_test_starts_rejecting(
    b: int, c: int, n: int, alpha: float
) -> None:
    upper = significance.drop_upper_bound(b, c, n, alpha)
    assert upper is not None
    assert (b - c) / n <= upper < 1
    assert significance.tango_z(b, c, n, upper) == pytest.approx(
        scipy_stats.norm.ppf(alpha), abs=1e-6
    )


def test_upper_bound_without_any_change_is_the_closed_form() -> None:
    """b = c = 0: the score equation gives n * d / (1 - d) = z^2, so an unchanged small suite stays uncertain."""
    z = scipy_stats.norm.ppf(0.95)
    for n in (3, 6, 20, 52, 300):
        assert significance.drop_upper_bound(0, 0, n, 0.05) == pytest.approx(
            z * z / (n + z * z), abs=1e-9
        )


def test_upper_bound_covers_the_true_drop_in_simulation() -> None:
    """Nominal 95 % one-sided: the bound is at or above the true drop in at least ~93 % of draws."""
    rng = random.Random(7)
    for p_fail, p_pass, n in ((0.10, 0.05, 100), (0.03, 0.01, 200), (0.2, 0.2, 40)):
        covered = 0
        draws = 800
        for _ in range(draws):
            b = c = 0
            for _ in range(n):
                u = rng.random()
                b += u < p_fail
                c += p_fail <= u < p_fail + p_pass
            covered += significance.drop_upper_bound(b, c, n, 0.05) >= p_fail - p_pass
        assert covered / draws >= 0.93, (p_fail, p_pass, n, covered / draws)


def test_samples_needed_without_change_is_where_the_bound_meets_the_margin() -> None:
    n = significance.noninferiority_samples(0.0, 0.0, 0.05, 0.05)
    assert n == 52
    assert (
        significance.drop_upper_bound(0, 0, n, 0.05)
        <= 0.05
        < significance.drop_upper_bound(0, 0, n - 1, 0.05)
    )
    assert (
        significance.noninferiority_samples(0.06, 0.0, 0.05, 0.05) is None
    )  # the drop itself is beyond the margin


def test_samples_needed_give_about_80_percent_power_in_simulation() -> None:
    p_fail, p_pass, margin = 0.04, 0.03, 0.05
    n = significance.noninferiority_samples(p_fail, p_pass, margin, 0.05)
    assert n is not None
    rng = random.Random(11)
    draws, shown = 600, 0
    for _ in range(draws):
        b = c = 0
        for _ in range(n):
            u = rng.random()
            b += u < p_fail
            c += p_fail <= u < p_fail + p_pass
        shown += significance.drop_upper_bound(b, c, n, 0.05) <= margin
    assert 0.74 <= shown / draws <= 0.86


def test_detectable_trend_slope_is_where_cochran_armitage_reaches_alpha() -> None:
    counts = [(40, 50), (42, 50), (38, 50), (41, 50), (37, 50), (39, 50)]
    z, _, slope = cochran_armitage(counts)
    least, mde = detectable_slope(counts, 0.05)
    assert least == pytest.approx(scipy_stats.norm.ppf(0.975) * abs(slope / z), rel=1e-9)
    assert mde == pytest.approx(
        least * (1 + scipy_stats.norm.ppf(0.8) / scipy_stats.norm.ppf(0.975)), rel=1e-9
    )


# -- the comparison object and its gate line ------------------------------------------------------------


def test_six_paired_five_newly_failing_fails_the_default_gate_and_says_mcnemar_could_not() -> None:
    comparison = _compare(["pass"] * 6, ["fail"] * 5 + ["pass"])
    assert comparison["p_value"] == pytest.approx(
        scipy_stats.binomtest(5, 5, 0.5).pvalue
    )  # 0.0625: not significant
    assert comparison["gate_passed"] is False
    assert comparison["regression_mode"] == "difference"
    assert comparison["margin"] == 0.05
    assert comparison["min_detectable_drop"] == 1.0  # only all 6 newly failing reach p < 0.05
    assert comparison["min_detectable_newly_failing"] == 6
    assert comparison["gate_line"] == (
        "llmeval regression gate FAILED: pass rate dropped 83.3% from baseline base.json, more than the margin 5.0%: "
        "pass rate -83.3% (5 newly failing, 0 newly passing of 6 paired), McNemar exact p=0.0625 >= alpha 0.05; "
        "smallest drop detectable at alpha 0.05 with 6 paired samples: 100.0% (6 newly failing, none newly passing), "
        "100.0% with 80% power; warning: more than the margin 5.0%: McNemar's exact test alone could fail only if "
        "all 6 samples newly failed"
    )


def test_a_drop_within_the_margin_passes_and_a_larger_margin_lets_more_through() -> None:
    four_points = ["fail"] * 8 + [
        "pass"
    ] * 192  # McNemar p = 0.0078: significant, within the margin
    assert _compare(["pass"] * 200, four_points)["gate_passed"] is False
    # 3 newly passing (s000-s002), 2 newly failing (s003, s004): within noise and within the margin
    small = _compare(["fail"] * 3 + ["pass"] * 197, ["pass"] * 3 + ["fail"] * 2 + ["pass"] * 195)
    assert small["gate_passed"] is True
    assert "drop within the margin 5.0%" in small["gate_line"]
    assert "warning" not in small["gate_line"]  # 6 of 200 (3.0%) detectable: within the margin
    twelve = ["fail"] * 12 + [
        "pass"
    ] * 8  # 12 of 20 newly failing, p = 0.0005: significant, whatever the margin
    assert _compare(["pass"] * 20, twelve, margin=0.7)["gate_passed"] is False
    mild = ["fail"] * 3 + ["pass"] * 17  # 15 % drop, p = 0.25
    assert _compare(["pass"] * 20, mild)["gate_passed"] is False
    assert _compare(["pass"] * 20, mild, margin=0.2)["gate_passed"] is True


def test_non_inferiority_passes_only_when_the_upper_bound_is_within_the_margin() -> None:
    unchanged = _compare(
        ["pass"] * 250 + ["fail"] * 50, ["pass"] * 250 + ["fail"] * 50, mode="non-inferiority"
    )
    assert unchanged["gate_passed"] is True
    z2 = scipy_stats.norm.ppf(0.95) ** 2
    assert unchanged["drop_upper_bound"] == pytest.approx(z2 / (300 + z2), abs=1e-6)
    assert unchanged["samples_needed"] is None
    assert unchanged["gate_line"].startswith(
        "llmeval regression gate passed: non-inferior to baseline base.json: the drop's one-sided 95% upper bound "
        "is 0.9%, within the margin 5.0%; pass rate +0.0%"
    )
    small = _compare(["pass"] * 20, ["pass"] * 20, mode="non-inferiority")
    assert small["gate_passed"] is False
    assert small["samples_needed"] == 52
    assert (
        "the drop's one-sided 95% upper bound is 11.9%, more than the margin 5.0%"
        in small["gate_line"]
    )
    assert (
        "about 52 paired samples would be needed, not 20 (80% power, assuming the observed shares of changed "
        "pairs: 0.0% newly failing, 0.0% newly passing)" in small["gate_line"]
    )
    worse = _compare(["pass"] * 6, ["fail"] * 5 + ["pass"], mode="non-inferiority")
    assert worse["gate_passed"] is False
    assert (
        "the observed drop 83.3% is itself not below the margin, so no number of samples"
        in worse["gate_line"]
    )


def test_repeats_state_their_detectable_drop_and_bound() -> None:
    def entry(i: int, passes: int) -> dict[str, Any]:
        return {
            "sample_id": f"s{i}",
            "file": "f",
            "status": "pass" if passes == 3 else "fail",
            "pass_count": passes,
            "repeats": [{"status": "pass"}] * 3,
        }

    base = {"metadata": {}, "sample_results": [entry(i, 3) for i in range(30)]}
    new = [entry(i, 2 if i < 3 else 3) for i in range(30)]
    comparison = compare(base, new, {}, baseline_path="base.json", mode="non-inferiority")
    assert comparison["test"] == "paired_permutation"
    assert comparison["min_detectable_drop"] == pytest.approx(
        6 / 3 / 30, abs=1e-6
    )  # 6 samples down by 1 of 3
    assert comparison["newly_failing_share"] == pytest.approx(
        1 / 30, abs=1e-6
    )  # three samples, 1/3 each
    assert comparison["drop_upper_bound"] == pytest.approx(
        significance.drop_upper_bound(1.0, 0.0, 30, 0.05), abs=1e-6
    )
    assert "pass-fraction changes" in comparison["upper_bound_method"]


def test_the_summary_block_prints_what_the_pairing_can_detect() -> None:
    lines = [line for line, _ in comparison_lines(_compare(["pass"] * 6, ["fail"] * 5 + ["pass"]))]
    assert (
        "  smallest drop detectable at alpha 0.05 with 6 paired samples: 100.0% (6 newly failing, none newly "
        "passing), 100.0% with 80% power" in lines
    )
    assert (
        "  drop upper bound 96.2% (Tango score, one-sided 95%); margin 5.0%; the observed drop is itself not "
        "below the margin" in lines
    )


# -- through the plugin -----------------------------------------------------------------------------------


def _six(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 6)
    set_wrong(pytester, [])
    assert run(pytester, MODEL, "--llm-report=base.json").ret == pytest.ExitCode.OK
    set_wrong(pytester, ids(6)[:5])


def test_six_paired_five_newly_failing_fails_the_run(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    _six(pytester)
    result = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-report=new.json",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "  smallest drop detectable at alpha 0.05 with 6 paired samples: 100.0% (6 newly failing, none newly "
            "passing), 100.0% with 80% power",
            "  drop upper bound 96.2% (Tango score, one-sided 95%); margin 5.0%; the observed drop is itself not below "
            "the margin",
            "  verdict: within noise of the baseline (p=0.0625 >= alpha 0.05)",
            "llmeval regression gate FAILED: pass rate dropped 83.3% from baseline base.json, more than the margin 5.0%: "
            "*McNemar exact p=0.0625 >= alpha 0.05; *warning: more than the margin 5.0%: McNemar's exact test alone "
            "could fail only if all 6 samples newly failed",
        ]
    )
    report = load(pytester, "new.json")
    comparison = report["comparison"]
    assert comparison["gate_passed"] is False
    assert (
        comparison["margin"],
        comparison["min_detectable_drop"],
        comparison["regression_mode"],
    ) == (0.05, 1.0, "difference")
    assert [g["passed"] for g in report["gates"] if g["name"] == "regression"] == [False]
    # a margin that accepts the drop: only the significance test is left, and it cannot fail here
    result = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-regression-margin=0.9",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate passed: within noise of baseline base.json*"
            "drop within the margin 90.0%; *100.0% (6 newly failing*"
        ]
    )


def test_non_inferiority_from_the_ini_and_the_offline_compare(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 60)
    set_wrong(pytester, ids(60)[:6])
    assert (
        run(pytester, MODEL, "--llm-report=base.json", "--llm-gate-only").ret == pytest.ExitCode.OK
    )
    pytester.makeini("[pytest]\nllm_regression = non-inferiority\nllm_regression_margin = 0.1\n")
    result = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-report=same.json",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.OK  # unchanged, 60 pairs: bound 4.3% <= 10%
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate passed: non-inferior to baseline base.json: the drop's "
            "one-sided 95% upper bound is 4.3%, within the margin 10.0%; *"
        ]
    )
    comparison = load(pytester, "same.json")["comparison"]
    assert comparison["regression_mode"] == "non-inferiority"
    assert comparison["drop_upper_bound"] == pytest.approx(
        significance.drop_upper_bound(0, 0, 60, 0.05), abs=1e-6
    )
    result = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-regression-margin=0.02",
        "--llm-report=strict.json",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    needed = significance.noninferiority_samples(0.0, 0.0, 0.02, 0.05)
    result.stdout.fnmatch_lines(
        [
            f"llmeval regression gate FAILED: not shown non-inferior to baseline base.json: *"
            f"about {needed} paired samples would be needed, not 60 *"
        ]
    )
    assert load(pytester, "strict.json")["comparison"]["samples_needed"] == needed
    offline = pytester.run(
        sys.executable,
        "-m",
        "pytest_llmeval",
        "compare",
        "base.json",
        "strict.json",
        "--fail-on-regression",
        "--regression",
        "non-inferiority",
        "--margin",
        "0.02",
        "--json",
    )
    assert offline.ret == 1
    assert json.loads(offline.stdout.str())["samples_needed"] == needed


def test_bad_mode_or_margin_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 2)
    result = run(pytester, MODEL, "--llm-regression=superiority")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-regression*must be one of difference|non-inferiority*"])
    result = run(pytester, MODEL, "--llm-regression-margin=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-regression-margin*must be between 0 and 1*"])


def test_several_models_print_what_their_pairing_can_detect(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 20)
    set_wrong(pytester, [], model="a")
    set_wrong(pytester, ids(20)[:2], model="b")
    result = run(
        pytester,
        "--llm-model=python:llm_app:answer",
        "--llm-model=python:llm_app:answer_b",
        "--llm-report=r.json",
        "--llm-gate-only",
        *plugin_args,
    )
    result.stdout.fnmatch_lines(
        [
            "python:llm_app:answer_b vs python:llm_app:answer",
            "*",
            "  test: McNemar exact, p=0.5",
            "  smallest drop detectable at alpha 0.05 with 20 paired samples: 30.0% (6 newly failing, none newly "
            "passing), 30.0% with 80% power",
            "  drop upper bound 26.2% (Tango score, one-sided 95%); margin 5.0%; the observed drop is itself not below "
            "the margin",
        ]
    )
    comparison = load(pytester, "r.json")["by_model"]["python:llm_app:answer_b"]["comparison"]
    assert comparison["min_detectable_drop"] == 0.3
    assert comparison["gate_passed"] is False  # a 10-point drop: beyond the margin


def test_html_report_shows_the_gate_line(pytester: pytest.Pytester) -> None:
    pytest.importorskip("jinja2")
    _six(pytester)
    run(pytester, MODEL, "--llm-baseline=base.json", "--llm-html=r.html", "--llm-report=r.json")
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    line = load(pytester, "r.json")["comparison"]["gate_line"]
    assert line.startswith("llmeval regression gate FAILED: pass rate dropped 83.3%")
    from markupsafe import escape

    assert (
        f'<span class="bad">FAILED</span> {escape(line)}</div>' in html
    )  # among the gates, though not gating


# -- the seam for rates corrected by people's labels ---------------------------------------------------------


def test_ppi_paired_delta_covers_the_peoples_delta_in_simulation() -> None:
    """A grader wrong on 15 % of answers, 20 % of 300 pairs labelled at random: the 95 % interval of the
    people's paired delta covers it in at least ~93 % of draws."""
    from pytest_llmeval.regression.ppi import ppi_difference

    rng = random.Random(3)
    draws, covered = 300, 0
    z = scipy_stats.norm.ppf(0.975)
    for _ in range(draws):
        people = [(rng.random() < 0.7, rng.random() < 0.62) for _ in range(300)]
        graded = [tuple(p if rng.random() > 0.15 else not p for p in pair) for pair in people]
        chosen = set(rng.sample(range(300), 60))
        labelled = [
            (float(people[i][1]) - people[i][0], float(graded[i][1]) - graded[i][0], str(i))
            for i in chosen
        ]
        population = [float(graded[i][1]) - graded[i][0] for i in range(300)]
        estimate, se, _ = ppi_difference(labelled, population)
        truth = sum(float(r) - b for b, r in people) / 300
        covered += abs(estimate - truth) <= z * se
    assert covered / draws >= 0.93


def test_a_corrected_estimator_plugs_into_the_comparison_and_its_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_llmeval.regression import run_comparison as module

    monkeypatch.setitem(
        module.ESTIMATORS, "corrected", module.corrected_estimator(lambda e: e.get("label"))
    )
    rng = random.Random(5)
    base, new = _report(["pass"] * 200), _report(["pass"] * 190 + ["fail"] * 10)
    for i in rng.sample(
        range(200), 60
    ):  # the people disagree with the grader on a few labelled answers
        base["sample_results"][i]["label"] = True
        new["sample_results"][i]["label"] = (
            new["sample_results"][i]["status"] == "pass" and i % 7 != 0
        )
    comparison = compare(
        base, new["sample_results"], {}, baseline_path="base.json", estimator="corrected"
    )
    assert comparison["test"] == "ppi_plus_plus"
    assert (
        comparison["ci_method"]
        == "PPI++ normal interval, cluster-robust (60 samples labelled on both sides)"
    )
    assert comparison["upper_bound_method"] == "normal, one-sided 95%"
    assert comparison["min_detectable_newly_failing"] is None
    se = (comparison["ci95"][1] - comparison["ci95"][0]) / 2 / scipy_stats.norm.ppf(0.975)
    assert comparison["drop_upper_bound"] == pytest.approx(
        -comparison["pass_rate_delta"] + scipy_stats.norm.ppf(0.95) * se, abs=1e-5
    )
    assert comparison["min_detectable_drop"] == pytest.approx(
        scipy_stats.norm.ppf(0.975) * se, abs=1e-5
    )
    assert "PPI++ z p=" in comparison["gate_line"]
    assert "(normal approximation)" in comparison["gate_line"]
    unlabelled = compare(
        base,
        _report(["pass"] * 190 + ["fail"] * 10)["sample_results"],
        {},
        baseline_path="b",
        estimator="corrected",
    )
    assert (
        unlabelled["test"] == "mcnemar_exact"
    )  # labels on one side only: the grader's verdicts decide
