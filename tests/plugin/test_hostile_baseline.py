"""A baseline that cannot be compared fails loudly.

Unknown report versions and renamed statuses are refused, duplicate ids are an error, deep nesting
and huge integers are one located usage error, and a comparison with no (or too few) paired
samples fails the regression gate with a reason instead of "within noise".
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from tests.regression_helpers import MODEL, ids, load, make_suite, run, set_wrong


def make_baseline(pytester: pytest.Pytester, n: int = 10) -> dict[str, Any]:
    make_suite(pytester, n)
    set_wrong(pytester, [])
    assert run(pytester, MODEL, "--llm-report=base.json").ret == pytest.ExitCode.OK
    return load(pytester, "base.json")


def write_json(pytester: pytest.Pytester, name: str, value: Any) -> None:
    (pytester.path / name).write_text(json.dumps(value), encoding="utf-8")


def gate_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-report=new.json",
        *args,
    )


@pytest.mark.parametrize("change", ["other-ids", "other-paths"])
def test_a_baseline_that_pairs_with_nothing_fails_the_gate_with_a_reason(
    pytester: pytest.Pytester, change: str, plugin_args: list[str]
) -> None:
    base = make_baseline(pytester)
    for entry in base["sample_results"]:
        if change == "other-ids":
            entry["sample_id"] = "old-" + entry["sample_id"]
        else:
            entry["file"] = "legacy/" + entry["file"]
    write_json(pytester, "base.json", base)
    result = gate_run(pytester, *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "  verdict: not comparable: 0 paired samples, fewer than the 6 needed to detect a regression at alpha 0.05",
            "llmeval regression gate FAILED: baseline base.json pairs with 0 of this run's samples, fewer than the 6 "
            "a regression at alpha 0.05 needs to be detectable (10 only in the baseline, 10 only in this run; "
            "do the sample ids and file paths match?)",
        ]
    )
    assert "within noise" not in result.stdout.str()
    report = load(pytester, "new.json")
    assert report["comparison"]["paired"] == 0
    assert report["comparison"]["min_paired"] == 6
    assert [g["passed"] for g in report["gates"]] == [False]


def test_too_few_paired_samples_fail_the_gate_even_when_nothing_changed(
    pytester: pytest.Pytester,
) -> None:
    make_baseline(pytester, 5)  # five samples: even five newly failing would be p=0.0625
    result = gate_run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate FAILED: baseline base.json pairs with 5 of this run's samples, fewer than the 6*"
        ]
    )
    # the same five samples at a looser alpha can show a regression: the gate judges them
    result = gate_run(pytester, "-o", "llm_alpha=0.1")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["llmeval regression gate passed: within noise of baseline base.json*of 5 paired*"]
    )


def test_the_offline_compare_fails_the_gate_on_no_pairs_too(pytester: pytest.Pytester) -> None:
    base = make_baseline(pytester)
    run(pytester, MODEL, "--llm-report=new.json")
    for entry in base["sample_results"]:
        entry["sample_id"] += "-renamed"
    write_json(pytester, "base.json", base)
    result = pytester.run(
        sys.executable,
        "-m",
        "pytest_llmeval",
        "compare",
        "base.json",
        "new.json",
        "--fail-on-regression",
    )
    assert result.ret == 1
    assert result.stdout.lines[-1].startswith(
        "llmeval regression gate FAILED: baseline base.json pairs with 0"
    )


def _version_99(base: dict[str, Any]) -> None:
    base["version"] = 99
    for entry in base["sample_results"]:
        entry["status"] = {"pass": "PASSED"}.get(entry["status"], entry["status"])


def _renamed_status(base: dict[str, Any]) -> None:
    base["sample_results"][3]["status"] = "PASSED"


def _duplicate(base: dict[str, Any]) -> None:
    base["sample_results"].append({**base["sample_results"][2], "status": "fail"})


def _no_version(base: dict[str, Any]) -> None:
    del base["version"]


BAD_BASELINES = {
    "version-99": (
        _version_99,
        "field 'version': 99; this pytest-llmeval reads report version 1 only",
    ),
    "no-version": (
        _no_version,
        "field 'version': missing; this pytest-llmeval reads report version 1 only",
    ),
    "renamed-status": (
        _renamed_status,
        "sample_results[3]: field 'status': 'PASSED' is not one of pass, acceptable, fail, error, skipped",
    ),
    "duplicate-id": (
        _duplicate,
        "sample_results[10]: field 'sample_id': duplicate id 's02' in qa_eval.jsonl (first at sample_results[2])",
    ),
}


@pytest.mark.parametrize("name", list(BAD_BASELINES))
def test_a_baseline_of_another_version_or_with_duplicates_is_refused(
    pytester: pytest.Pytester, name: str
) -> None:
    edit, message = BAD_BASELINES[name]
    base = make_baseline(pytester)
    edit(base)
    write_json(pytester, "base.json", base)
    result = gate_run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("ERROR: --llm-baseline (ini llm_baseline): baseline ")
    assert f"base.json: {message}" in lines[0]


def test_deep_nesting_and_huge_integers_are_one_located_error(pytester: pytest.Pytester) -> None:
    base = make_baseline(pytester, 3)
    base["sample_results"][1]["reason"] = "@@DEEP@@"
    base["sample_results"][2]["line"] = "@@INT@@"
    text = json.dumps(base, indent=1)
    cases = {
        # nesting the json module itself cannot hold, and nesting that later code would recurse over
        "deep-100k.json": (
            text.replace('"@@DEEP@@"', "[" * 100_000 + "]" * 100_000),
            "nested more than 64 levels deep",
        ),
        "deep-500.json": (
            text.replace('"@@DEEP@@"', "[" * 500 + "]" * 500),
            "nested more than 64 levels deep",
        ),
        "huge-int.json": (
            text.replace('"@@INT@@"', "9" * 5000),
            "integer of 5000 digits is out of range (at most 300)",
        ),
    }
    for name, (content, problem) in cases.items():
        content = content.replace('"@@INT@@"', "3").replace('"@@DEEP@@"', '""')
        (pytester.path / name).write_text(content, encoding="utf-8")
        result = run(pytester, MODEL, f"--llm-baseline={name}", "--llm-fail-on-regression")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, name
        lines = [line for line in result.stderr.lines if line.strip()]
        assert len(lines) == 1, (name, lines[:3])
        line_number = content[: content.index("[[[" if "deep" in name else "9999")].count("\n") + 1
        assert f"{name}: not JSON: {problem}: line {line_number} column " in lines[0], lines[0]
        assert "INTERNALERROR" not in result.stdout.str()


def test_a_well_paired_baseline_still_gates_as_before(pytester: pytest.Pytester) -> None:
    make_baseline(pytester, 20)
    set_wrong(pytester, ids(20)[:8])
    result = gate_run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate FAILED: significantly worse than baseline base.json*8 newly failing*of 20 paired*"
        ]
    )
