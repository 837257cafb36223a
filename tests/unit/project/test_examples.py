"""The example suites (what ``make demo`` runs) show every tier, fail the run, and report.

One subprocess run of ``pytest example_suites`` from the project root, exactly as a
newcomer would type it; the assertions read its terminal output, JSON report and JUnit XML.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]

# The tier each pre-recorded response was written to land in (see example_suites/README.md).
EXPECTED_TIERS = {
    "fy22-net-sales": "pass",
    "fy22-net-income": "pass",
    "fy22-services-sales": "pass",
    "fy22-diluted-eps": "acceptable",  # right figure, far too long
    "fy22-margin-mix": "fail",  # "roughly double": neither gold figure stated
    "fy22-rd-expense": "fail",  # the SG&A figure instead of R&D
    "fy22-effective-tax-rate": "fail",  # a refusal
    "prime-choice": "pass",
    "percent-choice": "fail",  # right working, wrong letter
    "office-supplies-swapped": "pass",  # posting lines in another order
    "credit-sale-wrong-account": "fail",  # lines[1].account 3100 instead of 3000
    "food-purchase-unbalanced": "fail",  # debits and credits differ
    "bank-fee-prose": "fail",  # a posting in prose: no JSON
    "vat-rate-asks-first": "pass",  # asks which goods, then both rates right
    "vat-rate-answers-at-once": "fail",  # answers before asking: the clarify turn fails
}


class DemoRun:
    def __init__(
        self, proc: subprocess.CompletedProcess[str], report: dict[str, Any], junit: ET.Element
    ) -> None:
        self.proc = proc
        self.report = report
        self.junit = junit

    @property
    def samples(self) -> dict[str, dict[str, Any]]:
        return {s["sample_id"]: s for s in self.report["sample_results"]}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    out = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LLMEVAL_"))}
    env["HF_HUB_OFFLINE"] = "1"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "example_suites",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--llm-report={out / 'report.json'}",
            f"--junitxml={out / 'junit.xml'}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (out / "report.json").exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((out / "report.json").read_text("utf-8"))
    return DemoRun(proc, report, ET.parse(out / "junit.xml").getroot())


@pytest.mark.slow
def test_demo_fails_the_run_because_samples_fail(demo: DemoRun) -> None:
    assert demo.proc.returncode == 1, demo.proc.stdout[-3000:] + demo.proc.stderr[-3000:]
    # Failed samples are failed tests, never errors or internal errors.
    assert "INTERNALERROR" not in demo.proc.stdout + demo.proc.stderr
    assert re.search(r"\b\d+ failed, \d+ passed, \d+ acceptable in ", demo.proc.stdout), (
        demo.proc.stdout[-2000:]
    )


@pytest.mark.slow
def test_summary_shows_every_tier_and_no_errors(demo: DemoRun) -> None:
    match = re.search(
        r"samples: (\d+) graded, (\d+) error\(s\) \| pass (\d+)\s+acceptable (\d+)\s+fail (\d+)\s+error (\d+)",
        demo.proc.stdout,
    )
    assert match, demo.proc.stdout[-3000:]
    graded, errors, passed, acceptable, failed, error_tier = map(int, match.groups())
    assert errors == error_tier == 0
    assert passed > 0
    assert acceptable > 0
    assert failed > 0
    assert graded == passed + acceptable + failed
    assert "llmeval summary" in demo.proc.stdout
    for line in ("by task", "by domain", "worst samples", "FAIL"):
        assert line in demo.proc.stdout


@pytest.mark.slow
def test_each_demo_sample_lands_in_its_documented_tier(demo: DemoRun) -> None:
    got = {sample_id: demo.samples[sample_id]["status"] for sample_id in EXPECTED_TIERS}
    assert got == EXPECTED_TIERS
    refusals = [s["sample_id"] for s in demo.report["sample_results"] if s["refusal"]]
    assert refusals == ["fy22-effective-tax-rate"]
    assert demo.report["aggregate_metrics"]["refusals"] == 1
    assert "refusals: 1" in demo.proc.stdout
    vat = [s for s in demo.report["sample_results"] if s["domain"] == "vat"]
    # The gold-layer file has no ids: items are named by line number.
    assert {s["sample_id"] for s in vat} == {"line2", "line3", "line4", "line5", "line6"}
    # line6 contradicts the gold (services are taxable too): the offline judge cannot tell from its
    # words, so it is undecided (needs review), and the missing citation and keywords fail it
    assert {s["sample_id"]: s["status"] for s in vat} == {
        "line2": "pass",
        "line3": "pass",
        "line4": "pass",
        "line5": "pass",
        "line6": "fail",
    }
    line6 = next(s for s in vat if s["sample_id"] == "line6")
    assert line6["needs_review"] is True
    assert line6["review_between"] == "offline judge (abstains)"
    assert all(s["scores"]["citation"] is not None for s in vat)


@pytest.mark.slow
def test_json_report_has_the_documented_keys(demo: DemoRun) -> None:
    report = demo.report
    for key in (
        "metadata",
        "aggregate_metrics",
        "by_task",
        "by_domain",
        "sample_results",
        "failed_samples",
        "warnings",
    ):
        assert key in report
    for key in ("model", "eval_files", "total_samples", "timestamp"):
        assert key in report["metadata"]
    assert report["metadata"]["incomplete"] is False
    assert sorted(report["metadata"]["eval_files"]) == [
        "example_suites/conversations/nb_vat_conversation_eval.jsonl",
        "example_suites/finance/apple_fy2022_eval.jsonl",
        "example_suites/math/math_choice_eval.jsonl",
        "example_suites/postings/nb_posting_proposals_eval.jsonl",
        "example_suites/vat/nb_vat_glossary_eval.jsonl",
    ]
    for key in ("overall_score", "accuracy", "citation_coverage", "avg_length_tokens", "pass_rate"):
        assert isinstance(report["aggregate_metrics"][key], float)
    assert {"finance", "vat", "math"} <= set(report["by_domain"])
    assert {"numeric_qa", "glossary", "multiple_choice"} <= set(report["by_task"])
    assert "assertions" not in report["by_task"]  # helper tests are counted apart
    sample = demo.samples["fy22-net-sales"]
    for key in ("sample_id", "question", "expected", "predicted", "scores", "status"):
        assert key in sample
    assert set(sample["scores"]) >= {"overall", "accuracy", "citation", "length", "keywords"}
    assert sample["predicted"].startswith(
        "Apple's total net sales for fiscal 2022 were $394,328 million"
    )
    failed = {s["sample_id"] for s in report["failed_samples"]}
    assert {"fy22-rd-expense", "fy22-effective-tax-rate", "percent-choice"} <= failed
    assert "fy22-net-sales" not in failed


@pytest.mark.slow
def test_helper_tests_are_tallied_apart(demo: DemoRun) -> None:
    helpers = demo.report["helper_results"]
    assert all(s["kind"] == "helper" for s in helpers)
    assert not [s for s in demo.report["sample_results"] if s["kind"] == "helper"]
    ids = {s["sample_id"] for s in helpers}
    assert "example_suites/test_helpers_demo.py::test_vat_answer_cites_the_law_it_relies_on" in ids
    # llm_sample is parametrized over the finance gold file: one helper record per sample.
    assert sum("test_finance_answers_fit_the_answer_card[" in i for i in ids) == 12
    assert all(s["status"] == "passed" for s in helpers)
    assert demo.report["helpers"] == {"total": len(helpers), "passed": len(helpers), "failed": 0}
    assert (
        f"assertion helpers: {len(helpers)} test(s), {len(helpers)} passed, 0 failed"
        in demo.proc.stdout
    )


@pytest.mark.slow
def test_junit_carries_tier_and_score_per_gold_item(demo: DemoRun) -> None:
    properties: dict[str, dict[str, str]] = {}
    for case in demo.junit.iter("testcase"):
        props = {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
        properties[case.get("name", "")] = props
    eps = properties["fy22-diluted-eps"]
    assert eps["llmeval_tier"] == "acceptable"
    assert 0.75 <= float(eps["llmeval_score"]) < 0.9
    assert float(eps["llmeval_accuracy"]) == 1.0
    assert properties["fy22-rd-expense"]["llmeval_tier"] == "fail"


@pytest.mark.slow
def test_structured_and_conversation_suites_name_what_failed(demo: DemoRun) -> None:
    wrong = demo.samples["credit-sale-wrong-account"]["components"]["accuracy"]
    assert [f["path"] for f in wrong["details"]["fields"] if not f["ok"]] == ["lines[1].account"]
    assert (
        demo.samples["food-purchase-unbalanced"]["components"]["accuracy"]["details"]["balanced"]
        is False
    )
    assert "no JSON object or array" in demo.samples["bank-fee-prose"]["reason"]
    turns = demo.samples["vat-rate-answers-at-once"]["turns"]
    assert [(t["accuracy_grader"], t["tier"]) for t in turns] == [
        ("clarify", "fail"),
        ("answer_correctness", "pass"),
        ("answer_correctness", "pass"),
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="make and sh")
@pytest.mark.parametrize(("pytest_code", "make_code"), [(0, 0), (1, 0), (4, 2)])
def test_make_demo_exits_as_the_readme_says(
    tmp_path: Path, pytest_code: int, make_code: int
) -> None:
    """The README and getting-started: pytest's 1 is printed, the target exits 0; above 1 it fails."""
    stub = tmp_path / "python"
    stub.write_text(f"#!/bin/sh\nexit {pytest_code}\n", encoding="utf-8")
    stub.chmod(0o755)
    stamp = tmp_path / "stamp"
    stamp.touch()
    os.utime(
        stamp, (2**31 - 1, 2**31 - 1)
    )  # newer than the stub and pyproject.toml: nothing to install
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "demo", f"PY={stub}", f"STAMP={stamp}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert f"pytest exit code: {pytest_code}" in done.stdout
    assert done.returncode == make_code, done.stdout + done.stderr
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "so pytest exits 1. The target prints that code and still exits 0" in readme
