"""Accuracy of the numeric grader.

    python benchmarks/eval_numeric.py ../shared/data/numeric_dev.jsonl [--show-errors] [--split]
    python benchmarks/eval_numeric.py                          # own labelled cases + hold-out cases
    python benchmarks/eval_numeric.py --financebench ../shared/data [--show-errors]

Own cases: tests/data/numeric_cases.jsonl (response, expected, question, category, label, options).
Hold-out cases: tests/data/numeric_cases_holdout.jsonl, same format, written independently of the engine
(TAT-QA golds with their scales, FinQA ratios, FinanceBench-style long answers, Apple FY2022 10-K figures).
Independent labelled set (positional path, e.g. ../shared/data/numeric_dev.jsonl; rows ``gold``,
``response``, ``category``, ``expected``, ``tolerance``, ``kind``, ``require_currency``,
``convention_dependent``, ``source``): overall accuracy, accuracy on rows that are not
convention-dependent, rejection accuracy (``wrong_*`` kinds), and per-kind and per-source tables.
``--split`` prints the same figures for two halves of the sources (grouped validation). The sign and
scale variant set (tests/data/numeric_sign_scale_variants.jsonl, written by
benchmarks/make_sign_scale_variants.py) has the same format and a ``batch`` column, tabled too.
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

from shared_data import data_file, read_jsonl  # noqa: E402

from pytest_llmeval.metrics.numeric.match import looks_numeric, numeric_match  # noqa: E402

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
    rows = read_jsonl(data_file(data_dir, "financebench_dev.jsonl"))
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


def _source_group(source: str) -> str:
    """The dataset a row comes from ("TAT-QA", "FinanceBench", "Apple", "NBIM", ...)."""
    return source.split(" ", 1)[0] if source else "?"


def _table(title: str, rows: list[tuple[dict[str, object], bool]]) -> None:
    counts: Counter[str] = Counter()
    good: Counter[str] = Counter()
    for row, ok in rows:
        counts[str(row.get(title, "?"))] += 1
        good[str(row.get(title, "?"))] += ok
    print(f"  by {title}:")
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"    {key:<26} {good[key]:>3}/{n:<3} {good[key] / n:.3f}")


def _summary(label: str, graded: list[tuple[dict[str, object], bool]]) -> None:
    n = len(graded)
    ok = sum(g for _, g in graded)
    strict = [(r, g) for r, g in graded if not r.get("convention_dependent")]
    reject = [(r, g) for r, g in graded if str(r.get("kind", "")).startswith("wrong_")]
    print(f"{label}: {ok}/{n} = {ok / max(1, n):.3f} overall")
    print(
        f"  not convention-dependent: {sum(g for _, g in strict)}/{len(strict)}"
        f" = {sum(g for _, g in strict) / max(1, len(strict)):.3f}"
    )
    print(
        f"  rejection (wrong_* kinds): {sum(g for _, g in reject)}/{len(reject)}"
        f" = {sum(g for _, g in reject) / max(1, len(reject)):.3f}"
    )


def eval_labelled(path: Path, show: bool, split: bool) -> tuple[int, int]:
    """Rows labelled by someone else (numeric_dev.jsonl format): ``expected`` is the label."""
    rows = read_jsonl(data_file(path, "numeric_dev.jsonl"))
    graded: list[tuple[dict[str, object], bool]] = []
    for row in rows:
        row["source_group"] = _source_group(str(row.get("source", "")))
        res = numeric_match(
            row["response"],
            row["gold"],
            category=row.get("category"),
            tolerance=float(row.get("tolerance") or 0.0),
            require_currency=bool(row.get("require_currency")),
            question=row.get("question"),
        )
        good = res.passed == bool(row["expected"])
        graded.append((row, good))
        if show and not good:
            print(
                f"WRONG {row.get('id')} kind={row.get('kind')} expected={row['expected']} "
                f"gold={row['gold']!r} category={row.get('category')!r}\n   {res.explanation}\n"
                f"   response: {row['response'][:400]!r}\n   why: {row.get('why', '')}\n"
            )
    _summary(str(path.name), graded)
    _table("kind", graded)
    _table("source_group", graded)
    if any("batch" in row for row, _ in graded):
        _table("batch", graded)
    if split:
        # Grouped validation: two halves by source dataset, each scored on its own.
        groups = sorted({str(r["source_group"]) for r, _ in graded})
        half_a = set(groups[::2])
        for name, members in (("A", half_a), ("B", set(groups) - half_a)):
            part = [(r, g) for r, g in graded if r["source_group"] in members]
            _summary(f"half {name} ({', '.join(sorted(members))})", part)
    return sum(g for _, g in graded), len(graded)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "labelled",
        type=Path,
        nargs="?",
        default=None,
        help="independently labelled rows (e.g. ../shared/data/numeric_dev.jsonl)",
    )
    ap.add_argument("--split", action="store_true", help="grouped validation by source halves")
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
    if args.labelled:
        eval_labelled(args.labelled, args.show_errors, args.split)
        return
    if args.cases.exists():
        eval_own(args.cases, args.show_errors)
    if args.holdout.exists():
        eval_own(args.holdout, args.show_errors, title="hold-out cases")
    if args.financebench:
        eval_financebench(args.financebench, args.show_errors)


if __name__ == "__main__":
    main()
