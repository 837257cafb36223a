"""Rubric tiers as outcomes, the summary, JUnit properties, the JSON report and the gate."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_suite


def keyword_sample(
    sample_id: str, found: int, *, task: str = "qa", domain: str = "finance"
) -> dict[str, Any]:
    """Only keywords count: overall = found / 5 (accuracy and length are informational)."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    return {
        "id": sample_id,
        "question": "Which words?",
        "expected": "answer",
        "response": "answer " + " ".join(words[:found]),
        "metadata": {"task": task, "domain": domain},
        "eval_criteria": {
            "accuracy": "exact",
            "must_include": words,
            "weights": {"length": 0, "accuracy": 0, "keywords": 1},
        },
    }


# acceptable-1: 0.7 * exact(1.0) + 0.3 * keywords(1 of 2) = 0.85
TIER_SUITE = [
    {
        "id": "pass-1",
        "question": "q",
        "expected": "Oslo",
        "response": "Oslo",
        "metadata": {"task": "qa", "domain": "geo"},
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
    {
        "id": "pass-2",
        "question": "q",
        "expected": "Bergen",
        "response": "bergen",
        "metadata": {"task": "qa", "domain": "geo"},
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
    {
        "id": "acceptable-1",
        "question": "q",
        "expected": "Oslo",
        "response": "Oslo",
        "metadata": {"task": "glossary", "domain": "geo"},
        "eval_criteria": {
            "accuracy": "exact",
            "must_include": ["Oslo", "fjord"],
            "weights": {"length": 0, "accuracy": 0.7, "keywords": 0.3},
        },
    },
    {
        "id": "fail-1",
        "question": "q",
        "expected": "Oslo",
        "response": "Stockholm",
        "metadata": {"task": "qa", "domain": "geo"},
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    },
]


def run_suite(pytester: pytest.Pytester, records: list[Any], *args: str) -> pytest.RunResult:
    write_suite(pytester, records)
    return pytester.runpytest(*args)


def test_tiers_map_to_outcomes_with_acceptable_category(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    result = run_suite(pytester, TIER_SUITE, "-v", *plugin_args)
    outcomes = result.parseoutcomes()
    assert outcomes == {"passed": 2, "acceptable": 1, "failed": 1}
    # Verbose lines read "id WORD" without xdist and "WORD id" with it.
    for sample_id, word in (
        ("acceptable-1", "ACCEPTABLE"),
        ("fail-1", "FAILED"),
        ("pass-1", "PASSED"),
    ):
        assert re.search(rf"{sample_id} {word}|{word} \S*{sample_id}\b", result.stdout.str()), (
            sample_id,
            word,
        )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_acceptable_shows_letter_a(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, TIER_SUITE[:3])
    result.stdout.fnmatch_lines(["qa_eval.jsonl ..A*"])
    assert result.ret == pytest.ExitCode.OK


def test_fail_message_lists_each_component_with_score_weight_and_why(
    pytester: pytest.Pytester,
) -> None:
    suite = [
        {
            "id": "rev",
            "question": "Which city?",
            "expected": "Oslo",
            "response": "Stockholm is the answer",
            "eval_criteria": {
                "accuracy": "exact",
                "must_include": ["Stockholm"],
                "max_tokens": 300,
            },
        }
    ]
    result = run_suite(pytester, suite)
    result.stdout.fnmatch_lines(
        [
            "*sample 'rev' (qa_eval.jsonl:1) graded FAIL: overall 0.* < 0.75 (acceptable), pass needs >= 0.90",
            "*component*score*weight*why",
            "*accuracy*0.000*0.67*exact: *",
            "*length*0.500*0.20*4 tokens, under 50*",
            "*keywords*1.000*0.13*all 1 required phrases present*",
            "*expected: Oslo",
            "*response: Stockholm is the answer",
        ]
    )


def test_weights_renormalise_over_applicable_components_and_ini_overrides(
    pytester: pytest.Pytester,
) -> None:
    # No citation required, no keywords: accuracy 0.5 and length 0.15 (asked for by max_tokens)
    # renormalise to 0.769/0.231.
    suite = [
        {
            "id": "s",
            "question": "q",
            "expected": "Oslo",
            "response": "Oslo",
            "eval_criteria": {"accuracy": "exact", "max_tokens": 300},
        }
    ]
    write_suite(pytester, suite)
    pytester.runpytest("--llm-report=r.json")
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert sample["scores"]["overall"] == pytest.approx((0.5 * 1 + 0.15 * 0.5) / 0.65, abs=1e-4)
    assert sample["components"]["accuracy"]["weight"] == pytest.approx(0.5 / 0.65)
    assert sample["status"] == "acceptable"
    pytester.makeini("[pytest]\nllm_weights = accuracy=1, length=0\n")
    pytester.runpytest("--llm-report=r.json")
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert sample["scores"]["overall"] == 1.0
    assert sample["status"] == "pass"


def test_tier_cutoffs_configurable_in_ini_and_per_sample(pytester: pytest.Pytester) -> None:
    suite = [
        {
            "id": "s",
            "question": "q",
            "expected": "Oslo",
            "response": "Oslo",
            "eval_criteria": {"accuracy": "exact", "max_tokens": 300},
        }
    ]
    write_suite(pytester, suite)  # overall 0.885 (length 0.5, asked for by max_tokens)
    pytester.makeini("[pytest]\nllm_tiers = 0.8,0.5\n")
    assert pytester.runpytest().parseoutcomes() == {"passed": 1}
    suite[0]["eval_criteria"]["tiers"] = [0.99, 0.95]
    write_suite(pytester, suite)
    assert pytester.runpytest().parseoutcomes() == {"failed": 1}


def test_summary_printed_under_quiet_with_groups_worst_and_rate(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, TIER_SUITE, "-q")
    result.stdout.fnmatch_lines(
        [
            "*= llmeval summary =*",
            "samples: 4 graded, 0 error(s) | pass 2  acceptable 1  fail 1  error 0",
            "pass rate: 50.0% (2 of 4 in the pass tier; errors count as fail)",
            "mean overall *| accuracy 0.750*",
            "by task * n * pass * acc * fail * err * rate * overall",
            "glossary * 1 * 0 * 1 * 0 * 0 * 0.0%*",
            "qa * 3 * 2 * 0 * 1 * 0 * 66.7%*",
            "worst samples (up to 5):",
            "  FAIL * 0.00  qa_eval.jsonl::fail-1  accuracy 0.00: *",
            "  ACCEPTABLE * qa_eval.jsonl::acceptable-1  *",
        ]
    )
    assert "by domain" not in result.stdout.str()  # a single domain says nothing


def test_junit_has_tier_score_and_component_properties(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    run_suite(pytester, TIER_SUITE, "--junitxml=junit.xml", *plugin_args)
    root = ET.parse(pytester.path / "junit.xml").getroot()
    props = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }
    assert props["pass-1"]["llmeval_tier"] == "pass"
    assert props["acceptable-1"]["llmeval_tier"] == "acceptable"
    assert props["fail-1"]["llmeval_tier"] == "fail"
    assert float(props["fail-1"]["llmeval_score"]) == 0.0
    assert float(props["acceptable-1"]["llmeval_keywords"]) == 0.5
    assert {"llmeval_accuracy", "llmeval_length"} <= set(props["pass-1"])


def test_json_report_keys_and_values(pytester: pytest.Pytester) -> None:
    run_suite(pytester, [*TIER_SUITE, '{"id": "broken"'], "--llm-report=out/report.json")
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert set(report) >= {
        "metadata",
        "aggregate_metrics",
        "by_task",
        "by_domain",
        "sample_results",
        "failed_samples",
        "warnings",
    }
    meta = report["metadata"]
    assert meta["eval_files"] == ["qa_eval.jsonl"]
    assert meta["total_samples"] == 5
    assert meta["incomplete"] is False
    assert {"model", "timestamp"} <= set(meta)
    agg = report["aggregate_metrics"]
    assert set(agg) >= {
        "overall_score",
        "accuracy",
        "citation_coverage",
        "avg_length_tokens",
        "pass_rate",
    }
    assert agg["pass_rate"] == pytest.approx(2 / 5)
    assert agg["errors"] == 1
    sample = next(s for s in report["sample_results"] if s["sample_id"] == "fail-1")
    assert sample["question"] == "q"
    assert sample["expected"] == "Oslo"
    assert sample["predicted"] == "Stockholm"
    assert set(sample["scores"]) >= {"overall", "accuracy", "citation", "length", "keywords"}
    assert sample["status"] == "fail"
    assert {s["status"] for s in report["failed_samples"]} == {"fail", "error"}
    assert report["by_task"]["qa"]["total"] == 3
    assert report["by_domain"]["geo"]["pass"] == 2


def test_gate_turns_an_all_green_run_red_with_one_line(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    # pass, pass, acceptable: every test passes, but only 2 of 3 samples reach the pass tier.
    result = run_suite(pytester, TIER_SUITE[:3], "--llm-min-pass-rate=0.9", *plugin_args)
    assert result.parseoutcomes() == {"passed": 2, "acceptable": 1}
    result.stdout.fnmatch_lines(
        [
            "llmeval gate FAILED: pass rate 66.7% is below --llm-min-pass-rate 90.0% (2 of 3 samples in the pass tier, errors count as fail)"
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result = pytester.runpytest("--llm-min-pass-rate=0.6", *plugin_args)
    result.stdout.fnmatch_lines(["llmeval gate passed: pass rate 66.7% >= 60.0% (2 of 3)"])
    assert result.ret == pytest.ExitCode.OK


def test_gate_from_ini(pytester: pytest.Pytester) -> None:
    write_suite(pytester, TIER_SUITE[:3])
    pytester.makeini("[pytest]\nllm_min_pass_rate = 0.5\n")
    assert pytester.runpytest().ret == pytest.ExitCode.OK
    pytester.makeini("[pytest]\nllm_min_pass_rate = 0.7\n")
    assert pytester.runpytest().ret == pytest.ExitCode.TESTS_FAILED


def test_errors_mode_fail_vs_exclude(pytester: pytest.Pytester) -> None:
    suite = [TIER_SUITE[0], TIER_SUITE[1], '{"broken']
    write_suite(pytester, suite)
    result = pytester.runpytest("--llm-min-pass-rate=0.8", "-p", "no:randomly")
    result.stdout.fnmatch_lines(
        ["pass rate: 66.7% (2 of 3 in the pass tier; errors count as fail)", "llmeval gate FAILED*"]
    )
    result = pytester.runpytest("--llm-min-pass-rate=0.8", "-o", "llm_errors=exclude")
    result.stdout.fnmatch_lines(
        [
            "pass rate: 100.0% (2 of 2 in the pass tier; errors count as exclude)",
            "llmeval gate passed*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the error item itself still fails the run


def _normalised_report(path: Path) -> dict[str, Any]:
    report = json.loads(path.read_text())
    report["metadata"].pop("timestamp")
    return report


def test_xdist_gives_identical_summary_report_and_exit_code(pytester: pytest.Pytester) -> None:
    suite = (
        TIER_SUITE
        + [keyword_sample(f"k{i}", i % 6, task=f"t{i % 3}") for i in range(12)]
        + ['{"oops": 1}']
    )
    write_suite(pytester, suite)
    plain = pytester.runpytest(
        "--llm-report=plain.json", "--llm-min-pass-rate=0.8", "-p", "no:xdist"
    )
    dist = pytester.runpytest("--llm-report=dist.json", "--llm-min-pass-rate=0.8", "-n", "2")
    assert plain.ret == dist.ret == pytest.ExitCode.TESTS_FAILED

    def summary(result: pytest.RunResult) -> list[str]:
        lines = result.stdout.lines
        start = next(i for i, line in enumerate(lines) if "llmeval summary" in line)
        end = next(
            i
            for i, line in enumerate(lines)
            if "short test summary" in line or (line.startswith("=") and i > start + 1)
        )
        return lines[start:end]

    assert summary(plain) == summary(dist)
    assert _normalised_report(pytester.path / "plain.json") == _normalised_report(
        pytester.path / "dist.json"
    )


def test_usage_error_names_both_spellings(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--llm-min-pass-rate=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--llm-min-pass-rate='1.5' (ini llm_min_pass_rate / --llm-min-pass-rate): must be between 0 and 1*"
        ]
    )
    pytester.makeini("[pytest]\nllm_errors = ignore\n")
    result = pytester.runpytest()
    result.stderr.fnmatch_lines(["*ini llm_errors='ignore'*must be one of fail|exclude*"])


def test_unknown_grader_is_an_error_listing_registered_names(pytester: pytest.Pytester) -> None:
    result = run_suite(
        pytester,
        [
            {
                "id": "s",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": {"accuracy": "bleu"},
            }
        ],
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*sample 's': GraderError: unknown grader 'bleu'; registered graders: *exact*fuzzy*numeric*"
        ]
    )
