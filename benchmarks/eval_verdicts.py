"""Verdicts of a default gold-file run against people's labels, the way a reviewer reads them.

Usage:  python benchmarks/eval_verdicts.py ../shared/data [--set financebench|openqa|numeric] [--errors N]

Each dev set is turned into gold samples (``schema.normalise``, as a gold file would be read) and
graded by the default rubric, exactly as ``pytest --llm-model=...`` grades them. A sample counts as
graded correct when its tier passes the default tiers and it is not flagged *needs review* (the gate
does not count needs-review samples as passes unless ``llm_review_passes``).

For every set it prints, pooled and macro-averaged by question (each question weighs the same):
- agreement with the human label;
- the false-pass rate: share of the wrong answers graded correct (in a merge gate a false pass
  hides the regression the run exists to catch; FinanceBench: wrong = label "incorrect");
- the false-fail rate: share of the right answers graded wrong;
- selective accuracy: agreement on the samples the grader decided, and the share it decided.
FinanceBench also gets refusal precision / recall / F1; numeric gets a table per kind.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_llmeval.components import ComponentRegistry
from pytest_llmeval.models.base import Answer
from pytest_llmeval.options import Settings
from pytest_llmeval.registry import GraderRegistry
from pytest_llmeval.rubric import Rubric
from pytest_llmeval.schema import normalise

Row = dict[str, Any]


@dataclass
class Graded:
    row: Row
    group: str  # the question: rows of one question are validated together
    human: bool  # the person's verdict: a right answer
    passed: bool  # the tier passes and the sample is decided
    tier_passed: bool  # the tier passes, decided or not (what llm_review_passes counts)
    review: bool  # needs review (undecided)
    refusal: bool
    explanation: str


def default_settings(**overrides: Any) -> Settings:
    return Settings.defaults(**overrides)


def read_rows(path: Path) -> list[Row]:
    if not path.is_file():
        sys.exit(
            f"eval_verdicts: {path} not found (the dev data lives in ../shared/data beside the checkout)"
        )
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def financebench(data: Path) -> Iterator[tuple[Row, dict[str, Any], str, bool]]:
    for row in read_rows(data / "financebench_dev.jsonl"):
        record = {
            "id": row["id"],
            "question": row["question"],
            "expected": row["gold"],
            "response": row["response"],
        }
        yield row, record, row["id"].split("/")[0], row["label"] == "correct"


def openqa(data: Path) -> Iterator[tuple[Row, dict[str, Any], str, bool]]:
    for row in read_rows(data / "openqa_dev.jsonl"):
        record = {
            "id": row["id"],
            "question": row["question"],
            "expected": row["golds"],
            "response": row["response"],
        }
        yield row, record, row["question"], bool(row["human"])


def numeric(data: Path) -> Iterator[tuple[Row, dict[str, Any], str, bool]]:
    for row in read_rows(data / "numeric_dev.jsonl"):
        options: dict[str, Any] = {"tolerance": float(row.get("tolerance") or 0.0)}
        if row.get("require_currency"):
            options["require_currency"] = True
        if row.get("category"):
            options["category"] = row["category"]
        record = {
            "id": row["id"],
            "question": row.get("question") or "",
            "expected": row["gold"],
            "response": row["response"],
            "eval_criteria": {"accuracy": "numeric", "numeric": options},
        }
        yield row, record, str(row["gold"]), bool(row["expected"])


SETS: dict[str, Callable[[Path], Iterator[tuple[Row, dict[str, Any], str, bool]]]] = {
    "financebench": financebench,
    "openqa": openqa,
    "numeric": numeric,
}


def grade_set(name: str, data: Path, rubric: Rubric) -> tuple[list[Graded], float]:
    graded: list[Graded] = []
    t0 = time.process_time()
    for line, (row, record, group, human) in enumerate(SETS[name](data), start=1):
        sample = normalise(record, path=name, line=line, defaults={})
        result = rubric.grade(sample, Answer(text=str(row["response"]), source="response"))
        review = bool(result.record.get("needs_review"))
        graded.append(
            Graded(
                row=row,
                group=group,
                human=human,
                passed=result.tier in ("pass", "acceptable") and not review,
                tier_passed=result.tier in ("pass", "acceptable"),
                review=review,
                refusal=bool(result.record.get("refusal")),
                explanation=result.components["accuracy"].reason,
            )
        )
    return graded, time.process_time() - t0


def rates(rows: list[Graded], wrong: Callable[[Graded], bool]) -> dict[str, float]:
    """Agreement, false-pass and false-fail rates, selective accuracy and decided share of ``rows``."""
    right = [g for g in rows if g.human]
    bad = [g for g in rows if wrong(g)]
    decided = [g for g in rows if not g.review]
    nan = float("nan")
    return {
        "agreement": sum(g.passed == g.human for g in rows) / len(rows) if rows else nan,
        "false_pass": sum(g.passed for g in bad) / len(bad) if bad else nan,
        "false_fail": sum(not g.passed for g in right) / len(right) if right else nan,
        "selective": sum(g.passed == g.human for g in decided) / len(decided) if decided else nan,
        "decided": len(decided) / len(rows) if rows else nan,
    }


def macro(rows: list[Graded], wrong: Callable[[Graded], bool]) -> dict[str, float]:
    """Each figure averaged over questions (questions without the rows a figure needs are left out)."""
    by_group: dict[str, list[Graded]] = defaultdict(list)
    for g in rows:
        by_group[g.group].append(g)
    per = [rates(members, wrong) for members in by_group.values()]
    out = {}
    for key in per[0]:
        values = [p[key] for p in per if p[key] == p[key]]
        out[key] = sum(values) / len(values) if values else float("nan")
    return out


def line(label: str, figures: dict[str, float]) -> str:
    return (
        f"  {label:<22} agreement {figures['agreement']:.3f}  false-pass {figures['false_pass']:.3f}  "
        f"false-fail {figures['false_fail']:.3f}  selective {figures['selective']:.3f}  decided {figures['decided']:.3f}"
    )


def report(name: str, graded: list[Graded], cpu: float, errors: int) -> None:
    # FinanceBench: a refusal is not a wrong answer the gate must catch (refusals are counted apart).
    wrong: Callable[[Graded], bool] = (
        (lambda g: g.row["label"] == "incorrect")
        if name == "financebench"
        else (lambda g: not g.human)
    )
    groups = len({g.group for g in graded})
    print(
        f"{name}: {len(graded)} answers, {groups} questions, {cpu:.1f}s CPU ({cpu / len(graded) * 1000:.1f} ms each)"
    )
    print(line("pooled", rates(graded, wrong)))
    print(line("macro by question", macro(graded, wrong)))
    as_if_passed = [dataclasses.replace(g, passed=g.tier_passed, review=False) for g in graded]
    print(line("review counted as tier", rates(as_if_passed, wrong)))
    if name == "financebench":
        pred = [g.refusal for g in graded]
        human = [g.row["label"] == "refusal" for g in graded]
        tp = sum(p and h for p, h in zip(pred, human, strict=True))
        prec, rec = tp / max(1, sum(pred)), tp / max(1, sum(human))
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        print(f"  refusals: precision {prec:.3f}  recall {rec:.3f}  F1 {f1:.3f}")
    if name == "numeric":
        by_kind: dict[str, list[Graded]] = defaultdict(list)
        for g in graded:
            by_kind[str(g.row.get("kind"))].append(g)
        for kind, members in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
            ok = sum(g.passed == g.human for g in members)
            print(f"    {kind:<24} {ok:>3}/{len(members):<3} {ok / len(members):.3f}")
    if errors:
        bad = [g for g in graded if g.passed != g.human]
        random.Random(0).shuffle(bad)
        for g in bad[:errors]:
            gold = g.row.get("gold", g.row.get("golds"))
            print(f"\n--- human {g.human} | passed {g.passed} | review {g.review} | {g.row['id']}")
            print("Q:", str(g.row.get("question", ""))[:200])
            print("GOLD:", str(gold)[:200])
            print("RESP:", str(g.row["response"])[:500].replace("\n", " "))
            print("WHY:", g.explanation[:400])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument(
        "--set", choices=sorted(SETS), action="append", help="one set (repeatable); default all"
    )
    ap.add_argument("--errors", type=int, default=0, help="print N disagreements per set")
    ap.add_argument(
        "--coarser-dates",
        choices=("pass", "review", "fail"),
        default=None,
        help="as llm_coarser_dates (default: the option's default)",
    )
    args = ap.parse_args()
    overrides = {}
    if args.coarser_dates:
        from pytest_llmeval.options import CoarserDates

        overrides["coarser_dates"] = CoarserDates(args.coarser_dates)
    rubric = Rubric(
        default_settings(**overrides), GraderRegistry(), judge=None, components=ComponentRegistry()
    )
    for name in args.set or list(SETS):
        graded, cpu = grade_set(name, args.data_dir, rubric)
        report(name, graded, cpu, args.errors)


if __name__ == "__main__":
    main()
