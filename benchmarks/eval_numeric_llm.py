"""The LLM numeric extractor's comparison path, held to data nobody here wrote (no model, no network).

    python benchmarks/eval_numeric_llm.py ../shared/data/numeric_dev.jsonl [--show]
    python benchmarks/eval_numeric_llm.py ../shared/data/financebench_dev.jsonl [--show]

Three scripted judges read every row of a labelled numeric set (numeric dev rows ``gold``,
``response``, ``category``, ``tolerance``, ``require_currency``, ``expected``; FinanceBench rows
``question``, ``gold``, ``response``, ``label``, of which those whose gold looks numeric):

- ``mirror``: reports exactly the figure the heuristic selected (its number as written, unit,
  scale, and its text as the quote). The LLM path must reach the heuristic's verdict on every row
  it can render: a row that goes to review measures a difference between the two comparison paths.
- ``liar-quote``: claims the answer states the gold (value, unit and scale of the gold, the gold's
  text as the quote). Counted: rows where a wrong answer (label false) passes.
- ``liar-value``: quotes the heuristic's real words but reports the gold's number. Counted the same way.

A false pass by either liar that the heuristic alone did not make would mean a judge can talk a
wrong answer into passing (by construction it cannot: a pass needs both readings to pass).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.metrics.numeric import match as numeric  # noqa: E402
from pytest_llmeval.metrics.numeric.candidates import Candidate, extract_values  # noqa: E402
from pytest_llmeval.metrics.numeric.tokens import NUM_RE  # noqa: E402
from pytest_llmeval.models.base import Completion  # noqa: E402
from pytest_llmeval.registry import GradeContext  # noqa: E402

_SCALE_NAME = {1.0: "one", 1e3: "thousand", 1e6: "million", 1e9: "billion"}


def render(c: Candidate | None) -> dict[str, str] | None:
    """A candidate as the judge's reply; None when the reply format cannot state it."""
    if c is None:
        return {"value": "", "unit": "", "scale": "one", "category": "", "quote": ""}
    m = NUM_RE.search(c.raw)
    if m is None or c.basis_points or c.scale not in _SCALE_NAME:
        return None  # a figure in words, basis points, lakhs or trillions
    value = m.group(0)
    if c.negative:
        value = f"({value})" if c.sign_source == "parentheses" else f"-{value}"
    unit = "%" if c.percent else (c.currency or "")
    return {
        "value": value,
        "unit": unit,
        "scale": _SCALE_NAME[c.scale],
        "category": "",
        "quote": c.raw,
    }


class ScriptedJudge:
    name = "scripted"

    def __init__(self, reply: dict[str, str]) -> None:
        self.reply = reply

    def complete(self, messages: list[dict[str, str]], response_format: Any = None) -> Completion:
        return Completion(text=json.dumps(self.reply))


def grade(row: dict[str, Any], judge: ScriptedJudge | None) -> Any:
    crit: dict[str, Any] = {"tolerance": row.get("tolerance") or 0.0}
    if row.get("require_currency"):
        crit["require_currency"] = True
    if row.get("category"):
        crit["category"] = row["category"]
    crit["extractor"] = "llm" if judge is not None else "heuristic"
    ctx = GradeContext(
        response=row["response"],
        expected=row["gold"],
        question=row.get("question"),
        criteria={"numeric": crit},
        judge=judge,
    )
    return numeric.grade(ctx)


def gold_reading(row: dict[str, Any], quote: str) -> dict[str, str] | None:
    cands = [c for c in extract_values(row["gold"]) if not c.ignored]
    reply = render(cands[0]) if cands else None
    if reply is not None:
        reply["quote"] = quote
    return reply


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", type=Path)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    rows = [
        json.loads(line)
        for line in args.data.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if rows and "label" in rows[0]:  # FinanceBench: numeric golds; refusals are not correct
        rows = [
            {**r, "expected": r["label"] == "correct"}
            for r in rows
            if numeric.looks_numeric(r["gold"])
        ]
    counts: Counter[str] = Counter()
    judges: dict[str, Callable[[dict[str, Any], Any], dict[str, str] | None]] = {
        "liar-quote": lambda row, h: gold_reading(row, row["gold"]),
        "liar-value": lambda row, h: (
            gold_reading(row, h.found.raw) if h.found is not None else None
        ),
    }
    for row in rows:
        heuristic = grade(row, None)
        reply = render(heuristic.found)
        if reply is None:
            counts["mirror: not renderable"] += 1
        else:
            res = grade(row, ScriptedJudge(reply))
            counts["mirror: rows"] += 1
            same = res.passed == heuristic.passed and not res.details["needs_review"]
            counts["mirror: same verdict, decided"] += same
            if not same and args.show:
                print(f"MIRROR {row['id']}: {res.explanation[:400]}\n")
        wrong = not row["expected"]
        counts["wrong answers"] += wrong
        counts["heuristic false passes"] += wrong and heuristic.passed
        for name, make in judges.items():
            lie = make(row, heuristic)
            if lie is None:
                counts[f"{name}: not renderable"] += 1
                continue
            res = grade(row, ScriptedJudge(lie))
            counts[f"{name}: rows"] += 1
            counts[f"{name}: needs review"] += bool(res.details["needs_review"])
            if wrong:
                counts[f"{name}: wrong answers"] += 1
                counts[f"{name}: false passes"] += res.passed
                counts[f"{name}: false passes the heuristic did not make"] += (
                    res.passed and not heuristic.passed
                )
                if res.passed and args.show:
                    print(f"FALSE PASS ({name}) {row['id']}: {res.explanation[:400]}\n")
    for key in sorted(counts):
        print(f"{key:<36} {counts[key]}")


if __name__ == "__main__":
    main()
