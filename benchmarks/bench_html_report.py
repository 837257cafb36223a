"""HTML report at scale: render time, file size, and open/filter times in headless Chromium.

    PYTHONPATH=. python benchmarks/bench_html_report.py [--samples 10000] [--keep report.html]

The report dict has the JSON report's shape with realistic text lengths (question ~200 chars,
response ~600, four components with reasons). Filter times are measured inside the page
(``performance.now()`` around the same call the filter controls make), open time from
navigation to the load event (the table's first page is rendered by then).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_llmeval.report.html import write_html
from tests.chromium import Chromium, find_chromium

WORDS = (
    "revenue",
    "operating",
    "income",
    "fiscal",
    "year",
    "growth",
    "margin",
    "cash",
    "flow",
    "segment",
    "net",
    "the",
    "of",
    "and",
    "was",
    "million",
    "compared",
    "with",
    "increase",
    "decrease",
    "quarter",
    "total",
)


def text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < chars:
        out.append(rng.choice(WORDS))
    return " ".join(out)


def make_report(n: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    samples = []
    for i in range(n):
        status = rng.choices(("pass", "acceptable", "fail", "error"), weights=(70, 12, 15, 3))[0]
        overall = None if status == "error" else round(rng.random(), 4)
        samples.append(
            {
                "sample_id": f"s{i:05d}",
                "nodeid": f"evals/fin_eval.jsonl::s{i:05d}",
                "kind": "gold",
                "file": f"evals/fin_eval_{i % 7}.jsonl",
                "question": text(rng, 200),
                "expected": text(rng, 100),
                "predicted": text(rng, 600),
                "task": f"task{i % 6}",
                "domain": f"domain{i % 4}",
                "scores": {
                    "overall": overall,
                    "accuracy": overall,
                    "citation": 1.0,
                    "length": 0.8,
                    "keywords": None,
                    "retrieval": None,
                },
                "status": status,
                "reason": text(rng, 150),
                "accuracy_grader": rng.choice(("numeric", "answer_correctness", "exact")),
                "refusal": rng.random() < 0.02,
                "needs_review": rng.random() < 0.05,
                "components": {
                    name: {
                        "score": rng.random(),
                        "weight": w,
                        "reason": text(rng, 80),
                        "metric": name,
                    }
                    for name, w in (
                        ("accuracy", 0.5),
                        ("citation", 0.25),
                        ("length", 0.15),
                        ("keywords", 0.1),
                    )
                },
            }
        )
    counts = {
        t: sum(1 for s in samples if s["status"] == t)
        for t in ("pass", "acceptable", "fail", "error")
    }
    return {
        "version": 1,
        "metadata": {
            "model": "bench-model",
            "judge": "offline",
            "timestamp": "2026-01-01T00:00:00+00:00",
            "incomplete": False,
            "total_samples": n,
        },
        "aggregate_metrics": {
            "pass_rate": counts["pass"] / n,
            **counts,
            "overall_score": 0.5,
            "min_pass_rate": 0.8,
            "gate_passed": False,
        },
        "by_task": {
            f"task{t}": {
                "total": n // 6,
                "pass": n // 10,
                "acceptable": n // 60,
                "fail": n // 30,
                "error": 0,
                "pass_rate": 0.6,
                "overall_score": 0.7,
            }
            for t in range(6)
        },
        "by_domain": {},
        "sample_results": samples,
        "model_stats": {"calls": n, "cache_hits": n // 2},
        "warnings": [],
    }


def timed(browser: Chromium, call: str) -> float:
    ms: float = browser.evaluate(
        f"(() => {{ const t = performance.now(); {call}; return performance.now() - t; }})()"
    )
    return ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="page opens to take the median of")
    parser.add_argument("--keep", type=Path, help="also keep the HTML file here")
    args = parser.parse_args()

    report = make_report(args.samples)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "report.html"
        start = time.perf_counter()
        write_html(path, report)
        render_s = time.perf_counter() - start
        size_mb = path.stat().st_size / 1e6
        print(f"samples {args.samples}: render+write {render_s:.2f}s, file {size_mb:.1f} MB")
        binary = find_chromium()
        if binary is None:
            print("no Chromium: open/filter times not measured")
            return
        opens, filters = [], {}
        calls = {
            "tier=fail": "window.llmeval.filter({tier: 'fail'})",
            "text 'revenue growth' (first, builds index)": "window.llmeval.filter({tier: '', text: 'revenue growth'})",
            "text 'margin cash'": "window.llmeval.filter({text: 'margin cash'})",
            "task=task3 + sort score desc": "window.llmeval.filter({text: '', task: 'task3', sort: 'score-desc'})",
            "clear all": "window.llmeval.filter({task: '', sort: 'file'})",
            "open a row": "document.querySelector('#rows tr.sample').click()",
        }
        for _ in range(args.repeat):
            with Chromium(binary, timeout=120) as browser:
                opens.append(browser.open(path.as_uri()))
                assert browser.evaluate("window.llmeval.total") == args.samples
                for name, call in calls.items():
                    filters.setdefault(name, []).append(timed(browser, call))
                errors = browser.console_errors()
                assert not errors, errors
                assert browser.requested_urls() == [path.as_uri()]
        print(
            f"open to load event (first page rendered): median {statistics.median(opens):.2f}s of {len(opens)}"
        )
        for name, values in filters.items():
            print(f"  {name:<45} median {statistics.median(values):7.1f} ms")


if __name__ == "__main__":
    main()
