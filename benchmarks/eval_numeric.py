"""Accuracy of the numeric grader.

    python benchmarks/eval_numeric.py                          # own labelled cases + hold-out cases
    python benchmarks/eval_numeric.py --financebench ../shared/data [--show-errors]

Own cases: tests/data/numeric_cases.jsonl (response, expected, question, category, label, options).
Hold-out cases: tests/data/numeric_cases_holdout.jsonl, same format, written independently of the engine
(TAT-QA golds with their scales, FinQA ratios, FinanceBench-style long answers, Apple FY2022 10-K figures).
FinanceBench dev: questions whose gold is a number/amount/percentage (``looks_numeric``); agreement of
``numeric_match(...).passed`` with the human label == "correct" (refusals count as not correct).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.metrics.numeric import looks_numeric, numeric_match  # noqa: E402

_OPTION_KEYS = ("tolerance", "tolerance_mode", "require_currency", "percent", "match")


def eval_own(path: Path, show: bool, title: str = "own labelled cases") -> tuple[int, int]:
    rows = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    ok = 0
    by_cat: Counter[str] = Counter()
    wrong_cat: Counter[str] = Counter()
    for row in rows:
        opts = {k: row[k] for k in _OPTION_KEYS if k in row}
        res = numeric_match(
            row["response"],
            row["expected"],
            question=row.get("question"),
            category=row.get("category"),
            **opts,
        )
        good = res.passed == bool(row["label"])
        ok += good
        tag = row.get("kind", "misc")
        by_cat[tag] += 1
        if not good:
            wrong_cat[tag] += 1
            if show:
                print(
                    f"WRONG label={row['label']} {row.get('id', '')}: {res.explanation}\n   response: {row['response'][:300]!r}\n"
                )
    print(f"{title}: {ok}/{len(rows)} = {ok / max(1, len(rows)):.1%}")
    for tag, n in sorted(by_cat.items()):
        print(f"  {tag:<14} {n - wrong_cat[tag]}/{n}")
    return ok, len(rows)


def eval_financebench(data_dir: Path, show: bool) -> tuple[int, int]:
    rows = [
        json.loads(line)
        for line in (data_dir / "financebench_dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    numeric = [r for r in rows if looks_numeric(r["gold"])]
    questions = sorted({r["question"] for r in numeric})
    agree = 0
    conf: Counter[tuple[str, bool]] = Counter()
    for r in numeric:
        res = numeric_match(r["response"], r["gold"], question=r["question"])
        truth = r["label"] == "correct"
        agree += res.passed == truth
        conf[(r["label"], res.passed)] += 1
        if show and res.passed != truth:
            print(
                f"DISAGREE label={r['label']} gold={r['gold']!r} id={r['id']}\n  Q: {r['question'][:160]}\n  {res.explanation}\n  R: {r['response'][:600]!r}\n"
            )
    n = len(numeric)
    print(f"FinanceBench dev numeric questions: {len(questions)} questions, {n} answers")
    print(f"agreement with label=='correct': {agree}/{n} = {agree / max(1, n):.1%}")
    print(
        "  (label, passed) counts: "
        + ", ".join(f"{k[0]}/{k[1]}={v}" for k, v in sorted(conf.items()))
    )
    always_false = sum(r["label"] != "correct" for r in numeric)
    print(f"  baseline always-fail: {always_false / max(1, n):.1%}")
    return agree, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=ROOT / "tests" / "data" / "numeric_cases.jsonl")
    ap.add_argument(
        "--financebench", type=Path, default=None, help="directory with financebench_dev.jsonl"
    )
    ap.add_argument(
        "--holdout",
        type=Path,
        default=ROOT / "tests" / "data" / "numeric_cases_holdout.jsonl",
        help="independently written hold-out cases (same format)",
    )
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args()
    if args.cases.exists():
        eval_own(args.cases, args.show_errors)
    if args.holdout.exists():
        eval_own(args.holdout, args.show_errors, title="hold-out cases")
    if args.financebench:
        eval_financebench(args.financebench, args.show_errors)


if __name__ == "__main__":
    main()
