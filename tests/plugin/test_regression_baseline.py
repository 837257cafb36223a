"""``--llm-baseline``, ``--llm-fail-on-regression`` and ``python -m pytest_llmeval compare``."""

from __future__ import annotations

import json
import sys

import pytest

from tests.regression_helpers import MODEL, ids, load, make_suite, run, set_wrong

BASE_WRONG = ids(60)[:6]  # baseline: 54 of 60 pass
NEWLY_FAILING = ids(60)[6:18]  # 12 samples that passed in the baseline
NEWLY_PASSING = ids(60)[:2]  # 2 that failed in it


def compare_cli(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pytest_llmeval", "compare", *args)


def summary_block(lines: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(lines) if line.startswith("comparison with baseline"))
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].startswith("  "))
    return lines[start:end]


def make_baseline(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 60)
    set_wrong(pytester, BASE_WRONG)
    result = run(pytester, MODEL, "--llm-report=base.json", "--llm-gate-only")
    assert result.ret == pytest.ExitCode.OK


def test_significant_regression_fails_the_gate_with_one_line(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_baseline(pytester)
    set_wrong(pytester, [*ids(60)[2:6], *NEWLY_FAILING])
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
    comparison = load(pytester, "new.json")["comparison"]
    assert comparison["newly_failing"] == NEWLY_FAILING
    assert comparison["newly_passing"] == NEWLY_PASSING
    assert comparison["paired"] == 60
    assert comparison["test"] == "mcnemar_exact"
    assert comparison["p_value"] == pytest.approx(
        0.01294, abs=1e-5
    )  # binomial(2 of 14, 1/2), two-sided
    assert comparison["significant_regression"] is True
    assert comparison["pass_rate_delta"] == pytest.approx(-10 / 60, abs=1e-6)
    low, high = comparison["ci95"]
    assert low < -10 / 60 < high < 0
    assert comparison["baseline"]["path"] == "base.json"
    assert comparison["baseline"]["model"] == "python:llm_app:answer"
    assert comparison["only_in_baseline"] == comparison["only_in_run"] == []
    result.stdout.fnmatch_lines(
        [
            "comparison with baseline base.json (model python:llm_app:answer, *)",
            "  paired 60 | pass rate 90.0% -> 73.3% (delta -16.7%, 95% CI *)",
            "  newly failing (12): s06, s07, *, s17",
            "  newly passing (2): s00, s01",
            "  test: McNemar exact, p=0.01294",
            "  smallest drop detectable at alpha 0.05 with 60 paired samples: 10.0% (6 newly failing, none newly "
            "passing), 16.5% with 80% power",
            "  drop upper bound 27.1% (Tango score, one-sided 95%); margin 5.0%; the observed drop is itself not below "
            "the margin",
            "  verdict: significantly worse than the baseline (p=0.01294 < alpha 0.05)",
            "llmeval regression gate FAILED: significantly worse than baseline base.json: pass rate -16.7% "
            "(12 newly failing, 2 newly passing of 60 paired), McNemar exact p=0.01294 < alpha 0.05; smallest drop "
            "detectable at alpha 0.05 with 60 paired samples: 10.0% (6 newly failing, none newly passing), 16.5% with "
            "80% power; warning: more than the margin 5.0%: McNemar's exact test alone could fail only with 6 or "
            "more of the 60 samples newly failing",
        ]
    )
    samples = {s["sample_id"]: s for s in load(pytester, "new.json")["sample_results"]}
    assert samples["s06"]["baseline_status"] == "pass"
    assert samples["s06"]["status"] == "fail"
    assert samples["s00"]["baseline_status"] == "fail"

    # the offline compare agrees with the in-run comparison, object and printed block alike
    offline = compare_cli(pytester, "base.json", "new.json", "--json")
    assert offline.ret == 0
    assert json.loads(offline.stdout.str()) == comparison
    offline = compare_cli(pytester, "base.json", "new.json", "--fail-on-regression")
    assert offline.ret == 1
    block = summary_block(result.stdout.lines)
    assert offline.stdout.lines == [
        *block,
        next(line for line in result.stdout.lines if "regression gate" in line),
    ]


def test_change_within_noise_passes_and_says_so(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_baseline(pytester)
    set_wrong(pytester, [*ids(60)[1:6], "s30"])  # s00 newly passing, s30 newly failing
    result = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-report=new.json",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.OK
    comparison = load(pytester, "new.json")["comparison"]
    assert comparison["significant_regression"] is False
    assert comparison["newly_failing"] == ["s30"]
    assert comparison["newly_passing"] == ["s00"]
    assert comparison["p_value"] == 1.0
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate passed: within noise of baseline base.json: pass rate +0.0% (1 newly failing, "
            "1 newly passing of 60 paired), McNemar exact p=1 >= alpha 0.05, drop within the margin 5.0%; smallest "
            "drop detectable at alpha 0.05 with 60 paired samples: 10.0% (6 newly failing, none newly passing), "
            "10.0% with 80% power; warning: *",
        ]
    )
    # a stricter alpha in the ini, and without the gate: the comparison is still shown
    pytester.makeini("[pytest]\nllm_baseline = base.json\nllm_alpha = 0.01\n")
    result = run(pytester, MODEL)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # no gate-only: failed samples fail the run
    result.stdout.fnmatch_lines(["  verdict: within noise of the baseline (p=1 >= alpha 0.01)"])
    assert "regression gate" not in result.stdout.str()


def test_one_sided_samples_are_listed_not_paired_and_identity_differences_warned(
    pytester: pytest.Pytester,
) -> None:
    make_baseline(pytester)
    make_suite(pytester, 62)  # s60, s61 are new; drop s59 by rewriting the file without it
    path = pytester.path / "qa_eval.jsonl"
    path.write_text(
        "".join(line + "\n" for line in path.read_text().splitlines() if '"s59"' not in line)
    )
    set_wrong(pytester, BASE_WRONG, model="b")
    result = run(
        pytester,
        "--llm-model=python:llm_app:answer_b",
        "--llm-baseline=base.json",
        "-o",
        "llm_tiers=0.8,0.5",
        "--llm-report=new.json",
    )
    comparison = load(pytester, "new.json")["comparison"]
    assert comparison["paired"] == 59
    assert comparison["only_in_baseline"] == ["s59"]
    assert comparison["only_in_run"] == ["s60", "s61"]
    assert comparison["newly_failing"] == comparison["newly_passing"] == []
    assert len(comparison["warnings"]) == 1  # two named models are what is compared, not a warning
    result.stdout.fnmatch_lines(
        [
            "comparison: python:llm_app:answer_b (this run) vs python:llm_app:answer (baseline base.json, *)",
            "  only in baseline (not paired) (1): s59",
            "  only in this run (not paired) (2): s60, s61",
            "  warning: baseline rubric differs: *",
        ]
    )
    assert "model differs" not in result.stdout.str()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "missing.json: cannot read: No such file or directory"),
        ("{not json", "bad.json: not JSON: Expecting property name"),
        (
            '{"version": 1, "sample_results": [{"sample_id": 3}]}',
            "bad.json: sample_results[0]: field 'sample_id' missing or not a string",
        ),
        ("[]", "bad.json: not an --llm-report JSON (no 'sample_results' list)"),
    ],
)
def test_bad_baseline_is_a_one_line_usage_error(
    pytester: pytest.Pytester, content: str | None, message: str
) -> None:
    make_suite(pytester, 2)
    name = "missing.json" if content is None else "bad.json"
    if content is not None:
        (pytester.path / name).write_text(content)
    result = run(pytester, MODEL, f"--llm-baseline={name}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("ERROR: --llm-baseline (ini llm_baseline): baseline ")
    assert lines[0].endswith(message) or message in lines[0]


def test_compare_cli_within_noise_and_bad_input(pytester: pytest.Pytester) -> None:
    make_baseline(pytester)
    set_wrong(pytester, [*ids(60)[1:6], "s30"])
    result = run(pytester, MODEL, "--llm-baseline=base.json", "--llm-report=new.json")
    comparison = load(pytester, "new.json")["comparison"]
    offline = compare_cli(pytester, "base.json", "new.json", "--fail-on-regression")
    assert offline.ret == 0
    assert offline.stdout.lines[:-1] == summary_block(result.stdout.lines)
    assert offline.stdout.lines[-1].startswith(
        "llmeval regression gate passed: within noise of baseline base.json"
    )
    assert (
        json.loads(compare_cli(pytester, "base.json", "new.json", "--json").stdout.str())
        == comparison
    )
    # the same report on both sides: nothing changed
    same = json.loads(
        compare_cli(pytester, "new.json", "new.json", "--json", "--alpha=0.2").stdout.str()
    )
    assert (same["paired"], same["newly_failing"], same["p_value"], same["alpha"]) == (
        60,
        [],
        1.0,
        0.2,
    )
    (pytester.path / "bad.json").write_text("{")
    bad = compare_cli(pytester, "base.json", "bad.json")
    assert bad.ret == 4
    assert bad.stderr.lines == [
        "error: run bad.json: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ]
    assert compare_cli(pytester, "base.json", "new.json", "--alpha=2").ret == 4


def test_fail_on_regression_needs_a_baseline(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 2)
    result = run(pytester, MODEL, "--llm-fail-on-regression")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --llm-fail-on-regression (ini llm_fail_on_regression) needs --llm-baseline=PATH"]
    )
