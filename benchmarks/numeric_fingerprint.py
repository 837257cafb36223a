"""Verdict fingerprint of the numeric grader: one JSON line per graded case.

    python benchmarks/numeric_fingerprint.py [--data ../shared/data] > /tmp/numeric_fp.jsonl

Grades every row of ``numeric_dev.jsonl`` (gold, response, category, tolerance,
require_currency), every FinanceBench dev row whose gold ``looks_numeric`` (with its question),
and every row of ``tests/data/numeric_cases*.jsonl``, and prints passed, score, found_value,
expected_value, percentage_difference, unit_match, explanation, details and the candidates read.
Then, since the text graders read figures too, the candidates ``extract_values`` reads (with and
without ``count_words``) from every answer and gold of ``financebench_dev.jsonl`` and
``openqa_dev.jsonl``. Run it before and after a change to the grader: ``diff`` of the two
outputs is empty when no verdict and no reading changed. With ``LLMEVAL_BENCH_PKG=DIR`` it
grades with the package under ``DIR`` (an older revision, say).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# LLMEVAL_BENCH_PKG: grade with the package under that folder instead of the checkout (an
# older revision exported with git archive).
sys.path.insert(0, os.environ.get("LLMEVAL_BENCH_PKG") or str(ROOT))

from pytest_llmeval.metrics.numeric.match import (  # noqa: E402
    extract_values,
    looks_numeric,
    numeric_match,
)

_OPTION_KEYS = ("tolerance", "tolerance_mode", "require_currency", "percent", "match")


def _rows(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, blank lines skipped."""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def default_data_dir() -> Path:
    """``../shared/data`` beside the checkout, or beside the main checkout for a worktree."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def cases(data_dir: Path) -> Iterator[tuple[str, tuple[str, Any], dict[str, Any]]]:
    """Every case as (id, (response, expected), keyword options of numeric_match)."""
    for row in _rows(data_dir / "numeric_dev.jsonl"):
        opts = {
            "category": row.get("category"),
            "tolerance": float(row.get("tolerance") or 0.0),
            "require_currency": bool(row.get("require_currency")),
            "question": row.get("question"),
        }
        yield str(row.get("id")), (row["response"], row["gold"]), opts
    for row in _rows(data_dir / "financebench_dev.jsonl"):
        if looks_numeric(row["gold"]):
            yield str(row.get("id")), (row["response"], row["gold"]), {"question": row["question"]}
    for path in sorted((ROOT / "tests" / "data").glob("numeric_cases*.jsonl")):
        for row in _rows(path):
            opts = {k: row[k] for k in _OPTION_KEYS if k in row}
            opts.update(question=row.get("question"), category=row.get("category"))
            yield f"{path.name}:{row.get('id')}", (row["response"], row["expected"]), opts


def fingerprint(case_id: str, args: tuple[str, Any], opts: dict[str, Any]) -> str:
    """One sorted-key JSON line describing the verdict on one case."""
    res = numeric_match(*args, **opts)
    return json.dumps(
        {
            "id": case_id,
            "passed": res.passed,
            "score": res.score,
            "found_value": res.found_value,
            "expected_value": res.expected_value,
            "percentage_difference": res.percentage_difference,
            "unit_match": res.unit_match,
            "explanation": res.explanation,
            "details": res.details,
            "found": repr(res.found),
            "candidates": [repr(c) for c in res.candidates],
        },
        sort_keys=True,
        default=repr,
    )


def texts(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Every answer and gold text of the FinanceBench and NQ-open dev sets, with an id."""
    for name in ("financebench_dev.jsonl", "openqa_dev.jsonl"):
        for row in _rows(data_dir / name):
            golds = row.get("golds") or [row.get("gold")]
            for i, text in enumerate([row.get("response"), *golds]):
                if isinstance(text, str):
                    yield f"{name}:{row.get('id')}:{i}", text


def reading(text_id: str, text: str) -> str:
    """One JSON line with the figures read from ``text`` (plain, then counting number words)."""
    return json.dumps(
        {
            "id": text_id,
            "plain": [repr(c) for c in extract_values(text)],
            "counting": [repr(c) for c in extract_values(text, count_words=True, padding=False)],
        },
        sort_keys=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="folder of numeric_dev.jsonl etc.")
    args = ap.parse_args()
    data_dir = args.data or default_data_dir()
    for case_id, call, opts in cases(data_dir):
        print(fingerprint(case_id, call, opts))
    for text_id, text in texts(data_dir):
        print(reading(text_id, text))


if __name__ == "__main__":
    main()
