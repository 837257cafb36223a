"""Human review: the export (which samples, deterministic), the import and the agreement figures."""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

# Loaded before any in-process inner run: numpy (under sklearn) cannot be imported twice per process.
from sklearn.metrics import cohen_kappa_score

from pytest_llmeval.report.review import cohen_kappa, read_verdicts, select_for_review
from tests.conftest import write_suite
from tests.extras import needs

EXACT = {"accuracy": "exact", "weights": {"length": 0}}

FLAGGING_GRADER = """
from pytest_llmeval.metrics.base import MetricResult

def flagged(ctx):
    return MetricResult(metric="flagged", passed=True, score=1.0, explanation="judge and fuzzy disagree",
                        details={"needs_review": True})

def pytest_llmeval_graders(config):
    return {"flagged": flagged}
"""


def review_suite() -> list[dict[str, Any]]:
    """6 fails, 3 needs-review passes and 40 plain passes, interleaved."""
    records = []
    for i in range(49):
        if i % 8 == 3 and len([r for r in records if r["id"].startswith("fail")]) < 6:
            records.append(
                {
                    "id": f"fail-{i}",
                    "question": f"q{i}",
                    "expected": "Oslo",
                    "response": "Bergen",
                    "eval_criteria": EXACT,
                }
            )
        elif i % 16 == 5 and len([r for r in records if r["id"].startswith("review")]) < 3:
            records.append(
                {
                    "id": f"review-{i}",
                    "question": f"q{i}",
                    "expected": "x",
                    "response": "x",
                    "eval_criteria": {"accuracy": "flagged", "weights": {"length": 0}},
                }
            )
        else:
            records.append(
                {
                    "id": f"ok-{i}",
                    "question": f"q{i}",
                    "expected": "Oslo",
                    "response": "Oslo",
                    "eval_criteria": EXACT,
                }
            )
    return records


def test_review_suite_shape() -> None:
    ids = [r["id"] for r in review_suite()]
    assert (
        sum(i.startswith("fail") for i in ids),
        sum(i.startswith("review") for i in ids),
        sum(i.startswith("ok") for i in ids),
    ) == (6, 3, 40)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_export_holds_a_random_spot_check_and_every_fail_and_review(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, review_suite())
    pytester.makeconftest(FLAGGING_GRADER)
    result = pytester.runpytest("--llm-review-export=out/review.csv", "-p", "no:xdist")
    path = pytester.path / "out" / "review.csv"
    rows = read_csv(path)
    ids = [r["id"].split("::", 1)[1] for r in rows]
    assert sorted(i for i in ids if not i.startswith("ok")) == sorted(
        [r["id"] for r in review_suite() if not r["id"].startswith("ok")]
    )
    # the spot check: 0.2 of ALL 49 graded samples (whatever their verdict), exactly: the lowest hashes
    drawn = [r for r in rows if r["selected_because"] == "random"]
    assert len(drawn) == 10
    assert {r["seed"] for r in rows} == {"llmeval"}
    others = len(rows) - 10
    result.stdout.fnmatch_lines(
        [
            f"review export: {len(rows)} samples to out/review.csv (10 random spot check (seed 'llmeval'), *)"
        ]
    )
    assert others == sum(1 for r in rows if r["selected_because"] in ("failed", "needs_review"))
    assert list(rows[0]) == [
        "id",
        "file",
        "sample_id",
        "selected_because",
        "seed",
        "question",
        "expected",
        "response",
        "response_sha256",
        "tier",
        "score",
        "grader",
        "reason",
        "human_verdict",
        "human_note",
    ]
    by_id = {r["id"]: r for r in rows}
    fail = next(r for k, r in by_id.items() if "fail-" in k)
    assert (fail["tier"], fail["response"], fail["grader"]) == ("fail", "Bergen", "exact")
    assert fail["selected_because"] in ("failed", "random")
    assert fail["response_sha256"] == hashlib.sha256(b"Bergen").hexdigest()
    assert fail["id"] == f"{fail['file']}::{fail['sample_id']}"
    assert fail["expected"] == "Oslo"
    assert fail["question"].startswith("q")
    assert fail["reason"]
    assert all(r["human_verdict"] == "" and r["human_note"] == "" for r in rows)
    assert {r["selected_because"] for r in rows if "review-" in r["id"]} <= {
        "needs_review",
        "random",
    }
    first = path.read_bytes()
    # A rerun and a run on two xdist workers write the same bytes.
    pytester.runpytest("--llm-review-export=out/review.csv", "-p", "no:xdist")
    assert path.read_bytes() == first
    pytester.runpytest("--llm-review-export=out/review.csv", "-n", "2")
    assert path.read_bytes() == first
    # Another seed picks another share of the same size.
    pytester.runpytest("--llm-review-export=out/other.jsonl", "-o", "llm_review_seed=7")
    lines = [
        json.loads(line)
        for line in (pytester.path / "out" / "other.jsonl").read_text().splitlines()
    ]
    assert len(lines) == len(rows) or len(lines) >= 10
    assert {r["id"] for r in lines} != {r["id"] for r in rows}


def test_selection_ignores_record_order_and_rounds_the_share() -> None:
    records = [
        {"kind": "gold", "file": "f.jsonl", "line": i, "sample_id": f"s{i}", "status": "pass"}
        for i in range(41)
    ]
    chosen = select_for_review(records, 0.2, "seed")
    assert len(chosen) == 8  # round(8.2)
    assert select_for_review(list(reversed(records)), 0.2, "seed") == chosen
    assert select_for_review(records, 0.0, "seed") == []
    assert len(select_for_review(records, 1.0, "seed")) == 41
    # A sample chosen from the full run stays chosen in a run that holds it and fewer others
    # only if its rank stays among the lowest: the choice depends on ids, never on positions.
    assert {r["sample_id"] for _, r in chosen} == {
        r["sample_id"] for _, r in select_for_review(records[::-1], 0.2, "seed")
    }


def test_csv_export_defuses_spreadsheet_formulas(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "f",
                "question": '=HYPERLINK("http://x")',
                "expected": "Oslo",
                "response": "+1 Bergen",
                "eval_criteria": EXACT,
            }
        ],
    )
    pytester.runpytest("--llm-review-export=r.csv")
    row = read_csv(pytester.path / "r.csv")[0]
    assert row["question"] == '\'=HYPERLINK("http://x")'
    assert row["response"] == "'+1 Bergen"


def test_bad_export_extension_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--llm-review-export=r.xlsx")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--llm-review-export='r.xlsx' (ini llm_review_export / --llm-review-export): must end in .csv or .jsonl*"
        ]
    )


# -- import and agreement -------------------------------------------------------------------------


def agreement_suite() -> list[dict[str, Any]]:
    """30 samples: passes, acceptables and fails under two graders (exact, fuzzy)."""
    records = []
    for i in range(30):
        grader = "exact" if i % 2 else "fuzzy"
        if i % 3 == 0:
            response = "Stockholm"  # fail under both
        elif i % 7 == 0:
            records.append(
                {
                    "id": f"s{i}",
                    "question": f"q{i}",
                    "expected": "Oslo",
                    "response": "Oslo",
                    "eval_criteria": {
                        "accuracy": grader,
                        "must_include": ["Oslo", "fjord"],
                        "weights": {"length": 0, "accuracy": 0.7, "keywords": 0.3},
                    },
                }
            )
            continue
        else:
            response = "Oslo"
        records.append(
            {
                "id": f"s{i}",
                "question": f"q{i}",
                "expected": "Oslo",
                "response": response,
                "eval_criteria": {"accuracy": grader, "weights": {"length": 0}},
            }
        )
    return records


@needs("html")
def test_import_of_20_verdicts_gives_agreement_and_kappa(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, agreement_suite())
    pytester.runpytest(
        "--llm-review-export=review.csv",
        "-o",
        "llm_review_fraction=1",
        "--llm-report=first.json",
        *plugin_args,
    )
    rows = read_csv(pytester.path / "review.csv")
    assert len(rows) == 30
    # People judge 20 rows: a fixed pattern that agrees with some verdicts and not others.
    human: dict[str, str] = {}
    for n, row in enumerate(rows[:20]):
        human[row["id"]] = "pass" if (n * 7) % 5 < 3 else "fail"
        row["human_verdict"] = human[row["id"]].upper() if n == 0 else human[row["id"]]
        row["human_note"] = f"note {n}"
    with (pytester.path / "review.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    # The filled-in file is never overwritten by another export to the same path.
    result = pytester.runpytest("--llm-review-export=review.csv", *plugin_args)
    result.stdout.fnmatch_lines(
        ["*review export review.csv not written: it already holds human verdicts*"]
    )
    assert read_csv(pytester.path / "review.csv") == rows
    result = pytester.runpytest(
        "--llm-review-import=review.csv", "--llm-report=r.json", "--llm-html=r.html", *plugin_args
    )
    report = json.loads((pytester.path / "r.json").read_text())
    section = report["human_agreement"]
    # Independently: the plugin's verdict from the JSON report's tiers, then sklearn.
    plugin = {
        f"{s['file']}::{s['sample_id']}": (
            "pass" if s["status"] in ("pass", "acceptable") else "fail"
        )
        for s in report["sample_results"]
    }
    ids = sorted(human)
    y_plugin = [plugin[i] for i in ids]
    y_human = [human[i] for i in ids]
    assert section["overall"]["n"] == 20
    assert section["overall"]["agreement"] == pytest.approx(
        sum(a == b for a, b in zip(y_plugin, y_human, strict=True)) / 20
    )
    assert section["overall"]["kappa"] == pytest.approx(
        cohen_kappa_score(y_plugin, y_human), abs=1e-6
    )
    table = section["overall"]["table"]
    for p, h in itertools.product(("pass", "fail"), repeat=2):
        assert table[f"plugin_{p}"][f"human_{h}"] == sum(
            1 for a, b in zip(y_plugin, y_human, strict=True) if (a, b) == (p, h)
        )
    graders = {
        f"{s['file']}::{s['sample_id']}": s["accuracy_grader"] for s in report["sample_results"]
    }
    for grader in ("exact", "fuzzy"):
        sub = [i for i in ids if graders[i] == grader]
        got = section["by_grader"][grader]
        assert got["n"] == len(sub)
        assert got["kappa"] == pytest.approx(
            cohen_kappa_score([plugin[i] for i in sub], [human[i] for i in sub]), abs=1e-6
        )
    disagreements = {d["id"] for d in section["disagreements"]}
    assert disagreements == {i for i in ids if plugin[i] != human[i]}
    assert all(d["human_note"].startswith("note ") for d in section["disagreements"])
    kappa = section["overall"]["kappa"]
    agree = section["overall"]["agree"]
    html = (
        (pytester.path / "r.html")
        .read_text(encoding="utf-8")
        .split('id="human-agreement"', 1)[1]
        .split("</section>", 1)[0]
    )
    assert f'<td class="num">{kappa:.3f}</td>' in html
    assert all(d in html for d in disagreements)
    result.stdout.fnmatch_lines(
        [
            f"human agreement: {agree}/20 agree ({agree / 20:.1%}), Cohen's kappa {kappa:.3f} | *",
            "  exact: *",
            "  fuzzy: *",
            "disagreements with people*",
        ]
    )


def test_unknown_and_bad_rows_are_warnings_naming_the_row(pytester: pytest.Pytester) -> None:
    write_suite(pytester, agreement_suite()[:4])
    (pytester.path / "review.jsonl").write_text(
        "\n".join(
            [
                json.dumps({"id": "qa_eval.jsonl::s0", "human_verdict": "fail"}),
                json.dumps({"id": "qa_eval.jsonl::nope", "human_verdict": "pass"}),
                json.dumps({"id": "qa_eval.jsonl::s1", "human_verdict": "maybe"}),
                "{not json",
                json.dumps({"id": "qa_eval.jsonl::s2", "human_verdict": ""}),
                json.dumps({"file": "qa_eval.jsonl", "sample_id": "s3", "human_verdict": "pass"}),
            ]
        )
        + "\n"
    )
    result = pytester.runpytest("--llm-review-import=review.jsonl", "--llm-report=r.json")
    result.stdout.fnmatch_lines(
        [
            "*warning: review import review.jsonl line 2: id 'qa_eval.jsonl::nope' matches no sample of this run; skipped*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*review.jsonl line 3 (id 'qa_eval.jsonl::s1'): human_verdict 'maybe' is not pass or fail*"
        ]
    )
    result.stdout.fnmatch_lines(["*review.jsonl line 4: not JSON*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["human_agreement"]["overall"]["n"] == 2  # s0 by id, s3 by file + sample_id
    assert any("qa_eval.jsonl::nope" in w for w in report["warnings"])


def test_gold_human_label_feeds_the_agreement(pytester: pytest.Pytester) -> None:
    suite = agreement_suite()[:6]
    labels = ["fail", "pass", "pass", "fail", "fail", "pass"]
    for record, label in zip(suite, labels, strict=True):
        record["human_label"] = label
    write_suite(pytester, suite)
    result = pytester.runpytest("--llm-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    section = report["human_agreement"]
    assert section["sources"]["gold_labels"] == 6
    plugin = [
        "pass" if s["status"] in ("pass", "acceptable") else "fail"
        for s in sorted(report["sample_results"], key=lambda s: int(s["sample_id"][1:]))
    ]
    assert section["overall"]["agree"] == sum(a == b for a, b in zip(plugin, labels, strict=True))
    assert {s["sample_id"]: s.get("human_label") for s in report["sample_results"]} == {
        f"s{i}": labels[i] for i in range(6)
    }
    result.stdout.fnmatch_lines(["human agreement: */6 agree*"])
    bad = [{**suite[0], "human_label": "yes"}]
    write_suite(pytester, bad)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*field 'human_label'*"])


@pytest.mark.parametrize(
    "table",
    [
        (10, 2, 3, 5),
        (0, 4, 4, 0),
        (7, 0, 0, 9),
        (3, 3, 3, 3),
        (1, 0, 5, 14),
        (0, 0, 2, 8),
        (12, 1, 0, 0),
    ],
)
def test_kappa_matches_sklearn(table: tuple[int, int, int, int]) -> None:
    a, b, c, d = table
    plugin = ["pass"] * (a + b) + ["fail"] * (c + d)
    human = ["pass"] * a + ["fail"] * b + ["pass"] * c + ["fail"] * d
    ours = cohen_kappa(
        {
            "plugin_pass": {"human_pass": a, "human_fail": b},
            "plugin_fail": {"human_pass": c, "human_fail": d},
        }
    )
    if len(set(plugin)) == 1 and len(set(human)) == 1:
        assert ours is None  # chance agreement is 1: kappa is undefined (sklearn gives nan)
    else:
        assert ours == pytest.approx(cohen_kappa_score(plugin, human), abs=1e-12)


def test_read_verdicts_takes_common_spellings(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "id,human_verdict,human_note\na,PASS,\nb, Fail ,why\nc,yes,\nd,0,\ne,,\nf,perhaps,\n"
    )
    verdicts, warnings = read_verdicts(path)
    assert {k: v.verdict for k, v in verdicts.items()} == {
        "a": "pass",
        "b": "fail",
        "c": "pass",
        "d": "fail",
    }
    assert verdicts["b"].note == "why"
    assert verdicts["b"].source == "r.csv row 3"
    assert len(warnings) == 1
    assert "row 7 (id 'f'): human_verdict 'perhaps' is not pass or fail" in warnings[0]


def test_read_verdicts_bounds_and_missing_file(tmp_path: Path) -> None:
    verdicts, warnings = read_verdicts(tmp_path / "missing.csv")
    assert verdicts == {}
    assert "cannot read it" in warnings[0]
    path = tmp_path / "r.csv"
    path.write_text("sample,human_verdict\nx,pass\n")
    verdicts, warnings = read_verdicts(path)
    assert verdicts == {}
    assert "no 'id' column" in warnings[0]
