"""People's labels in a run: the labels file, the review import's random rows, the corrected pass rate,
its gate and its outputs (JSON, JUnit, terminal), with and without xdist."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.stats

from pytest_llmeval.report.review import select_for_review
from tests.conftest import EXACT, write_suite
from tests.extras import needs

# (response, people's verdict): exact passes people accept, right answers the exact grader fails,
# wrong answers, and exact passes people reject (the question wanted more than the name).
KINDS = [
    ("Oslo", True),
    ("The capital is Oslo", True),
    ("Bergen", False),
    ("Oslo", False),
    ("Oslo", True),
]


def suite(n: int = 100) -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": f"q{i}",
            "expected": "Oslo",
            "response": KINDS[i % 5][0],
            "group": f"g{i // 2}",
            "eval_criteria": EXACT,
        }
        for i in range(n)
    ]


def label_rows(ids: range | list[int]) -> list[dict[str, Any]]:
    return [
        {
            "sample_id": f"s{i}",
            "response": KINDS[i % 5][0],
            "label": "correct" if KINDS[i % 5][1] else "incorrect",
        }
        for i in ids
    ]


def write_labels(
    pytester: pytest.Pytester,
    rows: Sequence[dict[str, Any] | str],
    *,
    random: bool = True,
    name: str = "labels.jsonl",
) -> Path:
    header = (
        [json.dumps({"llmeval_labels": {"selection": "random", "seed": "t"}})] if random else []
    )
    path = pytester.path / name
    path.write_text(
        "\n".join([*header, *(r if isinstance(r, str) else json.dumps(r) for r in rows)]) + "\n",
        encoding="utf-8",
    )
    return path


LABELLED = list(range(0, 100, 3))  # 34 of 100, a fixed subset: 14 disagreements with the grader


def expected_correction(ids: list[int], n: int = 100, alpha: float = 0.05) -> dict[str, float]:
    """The PPI++ estimate and interval, computed directly (numpy, scipy)."""
    grader = np.array([1.0 if KINDS[i % 5][0] == "Oslo" else 0.0 for i in range(n)])
    y = np.array([1.0 if KINDS[i % 5][1] else 0.0 for i in ids])
    yhat = grader[ids]
    lam = float(np.clip(np.cov(y, yhat, ddof=1)[0, 1] / np.var(grader, ddof=1), 0, 1))
    residual = y - lam * yhat
    estimate = lam * grader.mean() + residual.mean()
    groups = np.array([i // 2 for i in ids])
    sums = np.array([np.sum(residual[groups == g] - residual.mean()) for g in np.unique(groups)])
    g = len(sums)
    variance = (1 - len(ids) / n) * g / (g - 1) * np.sum(sums**2) / len(ids) ** 2
    z = scipy.stats.norm.ppf(1 - alpha / 2)
    return {
        "estimate": estimate,
        "low": estimate - z * np.sqrt(variance),
        "high": estimate + z * np.sqrt(variance),
        "grader_rate": grader.mean(),
        "lam": lam,
    }


def report(pytester: pytest.Pytester, name: str = "r.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    return data


def test_random_labels_correct_the_pass_rate_and_the_gate(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, suite())
    write_labels(pytester, label_rows(LABELLED))
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-report=r.json",
        "--junitxml=j.xml",
        "--llm-min-pass-rate=0.55",
        "--llm-gate-only",
        *plugin_args,
    )
    want = expected_correction(LABELLED)
    aggregate = report(pytester)["aggregate_metrics"]
    corrected = aggregate["corrected_pass_rate"]
    assert aggregate["pass_rate"] == pytest.approx(0.6)  # the grader's
    assert corrected["interval"] == "normal"
    assert corrected["labels"] == 34
    assert corrected["population"] == 100
    assert corrected["groups"] == 34
    for key in ("estimate", "low", "high", "grader_rate", "lam"):
        assert corrected[key] == pytest.approx(want[key]), key
    assert corrected["method"].startswith("PPI++")
    # of the 34 labelled: 13 wrong answers, 7 of which the grader passed; 21 right ones, 7 of which it failed
    assert aggregate["grader_error"]["false_pass"]["rate"] == pytest.approx(7 / 13)
    assert aggregate["grader_error"]["false_fail"]["rate"] == pytest.approx(7 / 21)
    assert aggregate["people_labels"]["applied"] == 34
    assert aggregate["people_labels"]["random"] == 34
    result.stdout.fnmatch_lines(
        [
            "people's labels: 34 read, 34 applied to this run's answers (34 from a random selection)",
            f"corrected pass rate: {want['estimate']:.1%} (95% interval {want['low']:.1%} to {want['high']:.1%}) vs the grader's 60.0%*",
            "grader error on 34 random labels: false pass 53.8% (*, 7 of 13 incorrect); false fail 33.3% (*, 7 of 21 correct)",
            f"llmeval gate passed: corrected pass rate {want['estimate']:.1%} >= 55.0% (*PPI++ from 34 people's labels*--llm-gate-on=estimate)",
        ]
    )
    assert result.ret == pytest.ExitCode.OK
    suite_props = {
        str(p.get("name")): str(p.get("value"))
        for p in ET.parse(pytester.path / "j.xml").getroot().iter("property")
    }
    assert float(suite_props["llmeval_corrected_pass_rate"]) == pytest.approx(
        want["estimate"], abs=1e-4
    )
    assert float(suite_props["llmeval_corrected_low"]) == pytest.approx(want["low"], abs=1e-4)
    assert suite_props["llmeval_corrected_labels"] == "34"
    assert float(suite_props["llmeval_false_pass_rate"]) == pytest.approx(7 / 13, abs=1e-4)


def test_lower_bound_gate_fails_where_the_estimate_passes(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite())
    write_labels(pytester, label_rows(LABELLED))
    want = expected_correction(LABELLED)
    args = (
        "--llm-labels=labels.jsonl",
        "--llm-min-pass-rate=0.55",
        "--llm-gate-only",
        "-p",
        "no:xdist",
    )
    assert pytester.runpytest(*args).ret == pytest.ExitCode.OK
    result = pytester.runpytest(*args, "--llm-gate-on=lower-bound")
    result.stdout.fnmatch_lines(
        [
            f"llmeval gate FAILED: lower bound of the corrected pass rate {want['low']:.1%} is below --llm-min-pass-rate 55.0%*"
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_plain_labels_file_does_not_correct_and_says_why(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite())
    write_labels(pytester, label_rows(LABELLED), random=False)
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-report=r.json",
        "--llm-min-pass-rate=0.5",
        "-p",
        "no:xdist",
    )
    aggregate = report(pytester)["aggregate_metrics"]
    assert aggregate["corrected_pass_rate"] is None
    assert aggregate["grader_error"] is None
    assert "not from a random selection" in aggregate["people_labels"]["not_corrected"]
    result.stdout.fnmatch_lines(
        [
            "pass rate not corrected by people's labels: the 34 label(s) that applied are not from a random selection*",
            "human agreement: 20/34 agree*",
            "llmeval gate passed: pass rate 60.0% >= 50.0% (60 of 100; the grader's rate, not corrected by people's labels: *)",
        ]
    )


def test_bad_labels_are_one_located_error_each_and_the_rest_apply(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, suite())
    rows: list[dict[str, Any] | str] = [*label_rows(LABELLED)]
    rows += [
        {"sample_id": "nope", "response": "Oslo", "label": "correct"},  # line 36
        {"sample_id": "s1", "response": "The capital is Oslo", "label": "maybe"},  # 37
        "{not json",  # 38
        {"sample_id": "s0", "response": "Oslo", "label": "incorrect"},  # 39: disagrees with line 2
        {"sample_id": "s2", "label": "correct"},  # 40: no response
        {
            "sample_id": "s4",
            "response": "Oslo (changed)",
            "label": "correct",
        },  # 41: the answer is another
    ]
    write_labels(pytester, rows)
    result = pytester.runpytest("--llm-labels=labels.jsonl", "--llm-report=r.json", *plugin_args)
    result.stdout.fnmatch_lines_random(
        [
            "warning: labels error: labels.jsonl:36: field 'sample_id': 'nope' matches no sample of this run",
            "warning: labels error: labels.jsonl:37: field 'label': 'maybe' is not 'correct' or 'incorrect'; skipped",
            "warning: labels error: labels.jsonl:38: not JSON: invalid JSON*",
            "warning: labels error: labels.jsonl:39: field 'label': the answer of 's0' is labelled incorrect here and correct at labels.jsonl:2; neither used",
            "warning: labels error: labels.jsonl:40: field 'response' missing*",
            "people's labels: 37 read, 33 applied to this run's answers (33 from a random selection), 4 did not apply "
            "(1 answer changed, 1 sample not in run, 2 labels disagree)",
        ]
    )
    aggregate = report(pytester)["aggregate_metrics"]
    assert aggregate["corrected_pass_rate"]["labels"] == 33
    assert aggregate["people_labels"]["not_applied"] == {
        "answer changed": 1,
        "sample not in run": 1,
        "labels disagree": 2,
    }


def test_labels_follow_the_answer_text_not_the_sample(pytester: pytest.Pytester) -> None:
    """A label from an earlier run applies while the answer is the same and stops when it changes."""
    write_suite(pytester, suite(40))
    write_labels(pytester, label_rows(range(40)))
    pytester.runpytest("--llm-labels=labels.jsonl", "--llm-report=r.json", "-p", "no:xdist")
    assert report(pytester)["aggregate_metrics"]["people_labels"]["applied"] == 40
    changed = suite(40)
    for record in changed[:12]:
        record["response"] += " (new model)"
    write_suite(pytester, changed)
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl", "--llm-report=r.json", "-p", "no:xdist"
    )
    assert report(pytester)["aggregate_metrics"]["people_labels"]["not_applied"] == {
        "answer changed": 12
    }
    result.stdout.fnmatch_lines(
        ["  12 label(s) did not apply because the answer changed: the correction assumes*"]
    )


def test_too_few_random_labels_do_not_correct(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite())
    write_labels(pytester, label_rows(range(9)))
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-report=r.json",
        "--llm-min-pass-rate=0.5",
        "-p",
        "no:xdist",
    )
    aggregate = report(pytester)["aggregate_metrics"]
    assert aggregate["corrected_pass_rate"] is None
    assert aggregate["grader_error"]["labels"] == 9  # measured, shown with its wide intervals
    result.stdout.fnmatch_lines(
        [
            "pass rate not corrected by people's labels: 9 random label(s) applied, fewer than the 10 a correction needs",
            "llmeval gate passed: pass rate 60.0% >= 50.0% (*fewer than the 10 a correction needs)",
        ]
    )


def test_without_labels_the_fields_are_null(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite(10))
    pytester.runpytest("--llm-report=r.json", "-p", "no:xdist")
    aggregate = report(pytester)["aggregate_metrics"]
    assert aggregate["corrected_pass_rate"] is None
    assert aggregate["grader_error"] is None
    assert "people_labels" not in aggregate


def test_a_missing_labels_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite(3))
    result = pytester.runpytest("--llm-labels=missing.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-labels=missing.jsonl: no such file*"])


def test_group_from_the_sample_or_the_file_header(pytester: pytest.Pytester) -> None:
    records: list[dict[str, Any] | str] = [json.dumps({"llmeval_file": {"group": "doc-a"}})]
    records += [
        {
            "id": "a",
            "question": "q",
            "expected": "Oslo",
            "response": "Oslo",
            "eval_criteria": EXACT,
        },
        {
            "id": "b",
            "question": "q",
            "expected": "Oslo",
            "response": "Oslo",
            "group": 7,
            "eval_criteria": EXACT,
        },
    ]
    write_suite(pytester, records)
    pytester.runpytest("--llm-report=r.json", "-p", "no:xdist")
    groups = {s["sample_id"]: s.get("group") for s in report(pytester)["sample_results"]}
    assert groups == {"a": "doc-a", "b": "7"}


def test_review_import_random_rows_correct_and_picked_rows_only_count_for_agreement(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, suite())
    pytester.runpytest(
        "--llm-review-export=review.csv", "-o", "llm_review_fraction=0.3", "-p", "no:xdist"
    )
    with (pytester.path / "review.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    random_rows = [r for r in rows if r["selected_because"] == "random"]
    picked = [r for r in rows if r["selected_because"] == "failed"]
    assert len(random_rows) == 30
    assert picked
    for row in rows:
        i = int(row["sample_id"][1:])
        row["human_verdict"] = "pass" if KINDS[i % 5][1] else "fail"
    with (pytester.path / "reviewed.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = pytester.runpytest(
        "--llm-review-import=reviewed.csv", "--llm-report=r.json", "-p", "no:xdist"
    )
    data = report(pytester)
    corrected = data["aggregate_metrics"]["corrected_pass_rate"]
    assert corrected["labels"] == 30
    ids = sorted(int(r["sample_id"][1:]) for r in random_rows)
    assert corrected["estimate"] == pytest.approx(expected_correction(ids)["estimate"])
    assert data["aggregate_metrics"]["people_labels"]["not_random"] == len(picked)
    assert data["human_agreement"]["overall"]["n"] == len(
        rows
    )  # every reviewed row counts for agreement
    result.stdout.fnmatch_lines(
        [
            f"people's labels: {len(rows)} read, {len(rows)} applied to this run's answers (30 from a random selection)"
        ]
    )


def test_spot_check_draw_is_independent_of_verdicts() -> None:
    records = [
        {"kind": "gold", "file": "f.jsonl", "line": i, "sample_id": f"s{i}", "status": "pass"}
        for i in range(50)
    ]
    flipped = [{**r, "status": "fail" if i % 3 else "acceptable"} for i, r in enumerate(records)]
    drawn = [r["sample_id"] for why, r in select_for_review(records, 0.3, "x") if why == "random"]
    assert len(drawn) == 15
    assert drawn == [
        r["sample_id"] for why, r in select_for_review(flipped, 0.3, "x") if why == "random"
    ]


def test_several_models_get_a_correction_each(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [{**r, "response": None} for r in suite()])
    (pytester.path / "a.jsonl").write_text(
        "\n".join(json.dumps({"id": f"s{i}", "response": KINDS[i % 5][0]}) for i in range(100))
        + "\n",
        encoding="utf-8",
    )
    (pytester.path / "b.jsonl").write_text(
        "\n".join(
            json.dumps({"id": f"s{i}", "response": "Oslo" if i % 2 else "Bergen"})
            for i in range(100)
        )
        + "\n",
        encoding="utf-8",
    )
    rows = label_rows(LABELLED) + [
        {
            "sample_id": f"s{i}",
            "response": "Oslo" if i % 2 else "Bergen",
            "label": "correct" if i % 2 else "incorrect",
            "model": "file:b.jsonl",
        }
        for i in range(0, 100, 4)
    ]
    write_labels(pytester, rows)
    result = pytester.runpytest(
        "--llm-model=file:a.jsonl",
        "--llm-model=file:b.jsonl",
        "--llm-labels=labels.jsonl",
        "--llm-report=r.json",
        "--llm-min-pass-rate=0.4",
        "-p",
        "no:xdist",
    )
    by_model = report(pytester)["by_model"]
    assert by_model["file:a.jsonl"]["corrected_pass_rate"]["estimate"] == pytest.approx(
        expected_correction(LABELLED)["estimate"]
    )
    b = by_model["file:b.jsonl"]["corrected_pass_rate"]
    # its own 25 labels, and the others' labels where its answer is the very text labelled
    same_text = {i for i in LABELLED if ("Oslo" if i % 2 else "Bergen") == KINDS[i % 5][0]}
    assert b["labels"] == len(set(range(0, 100, 4)) | same_text)
    result.stdout.fnmatch_lines_random(
        [
            "[[]file:a.jsonl] corrected pass rate:*",
            "[[]file:b.jsonl] corrected pass rate:*",
            "llmeval gate passed for file:a.jsonl: corrected pass rate*",
            "llmeval gate * for file:b.jsonl: corrected pass rate*",
        ]
    )


def test_a_labels_file_without_labels_says_the_rate_is_the_grader_s(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, suite(20))
    write_labels(pytester, [])
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl", "--llm-min-pass-rate=0.5", "-p", "no:xdist"
    )
    result.stdout.fnmatch_lines(
        [
            "people's labels: 0 read, 0 applied to this run's answers (0 from a random selection)",
            "pass rate not corrected by people's labels: no label was read",
            "llmeval gate passed: pass rate 60.0% >= 50.0% (12 of 20; the grader's rate, not corrected by people's labels: no label was read)",
        ]
    )


@needs("html")
def test_html_report_plots_the_corrected_rate(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite())
    write_labels(pytester, label_rows(LABELLED))
    pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-html=r.html",
        "--llm-min-pass-rate=0.5",
        "-p",
        "no:xdist",
    )
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="corrected-pass-rate">') :]
    section = section[: section.index("</section>")]
    want = expected_correction(LABELLED)
    assert f"{want['estimate']:.1%}" in section
    assert f"{want['low']:.1%} to {want['high']:.1%} (normal)" in section
    assert section.count("<circle") == 2  # the grader's rate and the corrected one
    assert 'stroke-dasharray="3,2"' in section  # the gate


def test_review_rows_picked_by_verdict_are_named_beside_the_correction(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, suite())
    picked = [{**row, "selection": "failed"} for row in label_rows(range(1, 100, 5))]
    write_labels(pytester, [*label_rows(LABELLED), *picked])
    result = pytester.runpytest("--llm-labels=labels.jsonl", "-p", "no:xdist")
    only_picked = len(
        set(range(1, 100, 5)) - set(LABELLED)
    )  # a random label wins on an answer labelled twice
    result.stdout.fnmatch_lines(
        [
            f"{only_picked} label(s) not from a random selection * count for agreement only, not in the correction"
        ]
    )


def test_error_items_count_as_failures_for_people_too(pytester: pytest.Pytester) -> None:
    """With -o llm_errors=fail an error item is a known failure: the corrected rate covers it as one."""
    write_suite(pytester, [*suite(), '{"id": "broken", "question": 1}', "not json"])
    write_labels(pytester, label_rows(LABELLED))
    pytester.runpytest("--llm-labels=labels.jsonl", "--llm-report=r.json", "-p", "no:xdist")
    corrected = report(pytester)["aggregate_metrics"]["corrected_pass_rate"]
    want = expected_correction(LABELLED)
    assert corrected["population"] == 102
    for key in ("estimate", "low", "high", "grader_rate"):
        assert corrected[key] == pytest.approx(want[key] * 100 / 102), key
    pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-report=r.json",
        "-o",
        "llm_errors=exclude",
        "-p",
        "no:xdist",
    )
    assert report(pytester)["aggregate_metrics"]["corrected_pass_rate"][
        "estimate"
    ] == pytest.approx(want["estimate"])


def test_review_rows_name_their_answer_by_hash_or_by_text(tmp_path: Path) -> None:
    import hashlib

    from pytest_llmeval.report.review import read_verdicts

    path = tmp_path / "reviewed.csv"
    digest = hashlib.sha256(b"kept").hexdigest()
    path.write_text(
        "id,selected_because,response,response_sha256,human_verdict\n"
        f"f::a,random,ignored,{digest},pass\n"
        "f::b,random,'=1+1,,fail\n"  # a defused formula: the answer is "=1+1"
        "f::c,failed,,,fail\n",
        encoding="utf-8",
    )
    verdicts, warnings = read_verdicts(path)
    assert warnings == []
    assert verdicts["f::a"].answer_sha256 == digest
    assert verdicts["f::b"].answer_sha256 == hashlib.sha256(b"=1+1").hexdigest()
    assert verdicts["f::c"].answer_sha256 is None
    assert [verdicts[k].selected_because for k in ("f::a", "f::b", "f::c")] == [
        "random",
        "random",
        "failed",
    ]


def test_hostile_label_lines_are_located_and_bounded(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite())
    path = write_labels(pytester, label_rows(LABELLED))
    with path.open("ab") as handle:
        handle.write(
            b'{"sample_id": "s1", "label": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
        )  # line 36
        handle.write(b'{"sample_id": "s1", "response": "x", "label": ' + b"9" * 400 + b"}\n")  # 37
        handle.write(
            b'{"sample_id": "s1", "response": "caf\xe9", "label": "correct"}\n'
        )  # 38: Latin-1
        handle.write(b'{"sample_id": "s1", "response_sha256": "abc", "label": "correct"}\n')  # 39
        handle.write(b'{"sample_id": ["s1"], "response": "x", "label": "correct"}\n')  # 40
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl", "--llm-report=r.json", "-p", "no:xdist"
    )
    result.stdout.fnmatch_lines_random(
        [
            "warning: labels error: labels.jsonl:36: not JSON: invalid JSON: nested more than 64 levels deep",
            "warning: labels error: labels.jsonl:37: not JSON: *",
            "warning: labels error: labels.jsonl:38: not UTF-8 text: byte 0xe9*",
            "warning: labels error: labels.jsonl:39: field 'response_sha256': not 64 hex digits; skipped",
            "warning: labels error: labels.jsonl:40: field 'sample_id': must be a string, got list; skipped",
        ]
    )
    assert report(pytester)["aggregate_metrics"]["corrected_pass_rate"]["labels"] == 34


def test_collect_only_reads_no_labels(pytester: pytest.Pytester) -> None:
    write_suite(pytester, suite(5))
    write_labels(pytester, [{"sample_id": "nope", "response": "x", "label": "correct"}])
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl", "--co", "--llm-report=r.json", "-p", "no:xdist"
    )
    assert result.ret == pytest.ExitCode.OK
    data = report(pytester)
    assert "people_labels" not in data["aggregate_metrics"]
    assert not [w for w in data["warnings"] if "labels error" in w]
