"""Review export and import under hostile ids and mistaken files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.conftest import EXACT, write_suite

FORMULA_IDS = ['=HYPERLINK("http://evil.example","click")', "@SUM(1)", "+1", "-2", "\tTAB", "plain"]


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_formula_ids_are_defused_in_the_export_and_still_match_on_import(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": sid,
                "question": "q",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            }
            for sid in FORMULA_IDS
        ],
    )
    pytester.runpytest(
        "--llm-review-export=review.csv", "-o", "llm_review_fraction=1", "-p", "no:xdist"
    )
    rows = read_csv(pytester.path / "review.csv")
    assert len(rows) == len(FORMULA_IDS)
    for row in rows:
        for column in ("id", "file", "sample_id"):
            assert not row[column].startswith(("=", "+", "-", "@", "\t", "\r")), (
                column,
                row[column],
            )
    assert {row["sample_id"] for row in rows} == {"'" + s for s in FORMULA_IDS[:-1]} | {"plain"}
    for row in rows:
        row["human_verdict"] = "pass"
    with (pytester.path / "review.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = pytester.runpytest(
        "--llm-review-import=review.csv", "--llm-report=r.json", "-p", "no:xdist"
    )
    assert "matches no sample" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["human_agreement"]["overall"]["n"] == len(FORMULA_IDS)
    # a file edited by hand without the apostrophes matches too, by id or by file + sample_id
    (pytester.path / "by_hand.jsonl").write_text(
        json.dumps({"file": "qa_eval.jsonl", "sample_id": "@SUM(1)", "human_verdict": "fail"})
        + "\n",
        encoding="utf-8",
    )
    pytester.runpytest("--llm-review-import=by_hand.jsonl", "--llm-report=r.json", "-p", "no:xdist")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["human_agreement"]["overall"]["n"] == 1


def test_many_unknown_ids_are_summarised_not_one_line_each(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": EXACT,
            }
            for i in range(3)
        ],
    )
    lines = [
        json.dumps({"id": f"other.jsonl::x{i}", "human_verdict": "pass"}) for i in range(100_000)
    ]
    lines.append(json.dumps({"id": "qa_eval.jsonl::s1", "human_verdict": "pass"}))
    (pytester.path / "review.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = pytester.runpytest(
        "--llm-review-import=review.jsonl", "--llm-report=r.json", "-p", "no:xdist"
    )
    unknown = [
        line
        for line in result.stdout.lines
        if "match no sample" in line or "matches no sample" in line
    ]
    assert len(unknown) == 6, unknown[:10]
    result.stdout.fnmatch_lines(
        [
            "*review import review.jsonl: 99995 more ids match no sample of this run (100000 in all, 1 matched); skipped*",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["human_agreement"]["overall"]["n"] == 1
    assert len(report["warnings"]) < 10


@pytest.mark.parametrize("name", ["review.csv", "review.jsonl"])
def test_a_verdict_column_under_another_name_is_named_with_the_expected_columns(
    pytester: pytest.Pytester, name: str
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": EXACT,
            }
            for i in range(2)
        ],
    )
    path = pytester.path / name
    if name.endswith(".csv"):
        path.write_text(
            "id,verdict\nqa_eval.jsonl::s0,pass\nqa_eval.jsonl::s1,fail\n", encoding="utf-8"
        )
    else:
        path.write_text(
            json.dumps({"id": "qa_eval.jsonl::s0", "verdict": "pass"}) + "\n", encoding="utf-8"
        )
    result = pytester.runpytest(f"--llm-review-import={name}", "-p", "no:xdist")
    result.stdout.fnmatch_lines(
        [
            f"*review import *{name}: no 'human_verdict' column, so no verdict was read (columns: 'id', 'verdict'); "
            "expected 'id' (or 'file' and 'sample_id'), 'human_verdict' (pass/fail) and optionally 'human_note'*",
        ]
    )


def test_a_review_line_the_json_reader_cannot_hold_is_one_warning_and_the_others_count(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": EXACT,
            }
            for i in range(3)
        ],
    )
    lines = [
        json.dumps({"id": "qa_eval.jsonl::s0", "human_verdict": "pass"}),
        "[" * 100_000,
        # U+2028 inside a string is text: JSONL lines end at "\n" only
        json.dumps(
            {"id": "qa_eval.jsonl::s1", "human_verdict": "fail", "human_note": "a\u2028b"},
            ensure_ascii=False,
        ),
        '{"id": "qa_eval.jsonl::s2", "human_verdict": "pass", "weight": NaN}',
    ]
    (pytester.path / "review.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = pytester.runpytest(
        "--llm-review-import=review.jsonl", "--llm-report=r.json", *plugin_args
    )
    result.stdout.fnmatch_lines_random(
        [
            "*review import *review.jsonl line 2: not JSON: invalid JSON: nested more than 64 levels deep; skipped*",
            "*review import *review.jsonl line 4: not JSON: invalid JSON: NaN is not a JSON number; skipped*",
        ]
    )
    assert result.ret == pytest.ExitCode.OK
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["human_agreement"]["overall"]["n"] == 2
