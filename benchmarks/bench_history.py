"""History at scale: size on disk and the time of ``python -m pytest_llmeval history``.

    .venv/bin/python benchmarks/bench_history.py [--runs 1000] [--samples 10000] [--dir DIR]

Writes a synthetic history with the plugin's own writer (``store.write_run``): per run and sample a
status, a score, a grader, tokens, a latency and a cost, as ``--llm-history`` records them. The
samples: 85% always pass, 8% always fail, 4% flaky (pass half the time), 3% start failing at run
``runs * 0.7``; at mid-history 1% of the golds change (a second sample table). Prints the size of
the directory (runs and tables apart), the mean size of a run file, and the wall time of the
``history`` command (text and ``--json``) in a fresh subprocess, best of three.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.history.store import RUNS, TABLES, write_run  # noqa: E402

MODEL = "openai:gpt-4o-mini"


def sample_kinds(n: int, rng: random.Random) -> list[str]:
    kinds = ["pass"] * int(n * 0.85) + ["fail"] * int(n * 0.08) + ["flaky"] * int(n * 0.04)
    kinds += ["late"] * (n - len(kinds))
    rng.shuffle(kinds)
    return kinds


def columns(
    kinds: list[str], run: int, runs: int, rng: random.Random, tokens: list[int]
) -> dict[str, str]:
    status, score, latency, cost = [], [], [], []
    for kind, tok in zip(kinds, tokens, strict=True):
        passed = (
            kind == "pass"
            or (kind == "flaky" and rng.random() < 0.5)
            or (kind == "late" and run < runs * 0.7)
        )
        status.append("P" if passed else "F")
        value = rng.uniform(0.9, 1.0) if passed else rng.uniform(0.0, 0.7)
        score.append(f"{value:.3f}".rstrip("0").rstrip("."))
        latency.append(f"{rng.uniform(0.2, 3.0):.2f}")
        cost.append(f"{tok * 0.15e-6:.6f}".rstrip("0"))
    return {
        "status": "".join(status),
        "score": " ".join(score),
        "grader": " ".join("0" for _ in kinds),
        "tokens": " ".join(map(str, tokens)),
        "latency_s": " ".join(latency),
        "cost_usd": " ".join(cost),
    }


def build(root: Path, runs: int, samples: int) -> float:
    rng = random.Random(20261125)
    kinds = sample_kinds(samples, rng)
    tokens = [rng.randint(80, 900) for _ in range(samples)]
    rows = [
        ["suite/qa_eval.jsonl", f"q-{i:05d}", i + 1, f"{rng.getrandbits(48):012x}"]
        for i in range(samples)
    ]
    changed = [list(r) for r in rows]
    for row in rng.sample(changed, samples // 100):
        row[3] = f"{rng.getrandbits(48):012x}"
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    began = time.perf_counter()
    for run in range(runs):
        finished = start + dt.timedelta(hours=6 * run)
        meta = {
            "run_id": f"{run:016x}",
            "started": (finished - dt.timedelta(minutes=20)).isoformat(timespec="microseconds"),
            "finished": finished.isoformat(timespec="microseconds"),
            "git": {"commit": f"{rng.getrandbits(160):040x}", "branch": "main"},
            "complete": True,
            "incomplete_reason": None,
            "plugin_version": "bench",
            "exitstatus": 0,
            "gates": [],
            "identity": {
                "model": MODEL,
                "judge": "offline",
                "judge_prompt_version": None,
                "rubric": {},
            },
            "models": [MODEL],
            "settings": {"errors": "fail", "repeat": 1},
            "totals": {},
            "graders": ["answer_correctness"],
            "results": {MODEL: columns(kinds, run, runs, rng, tokens)},
        }
        write_run(
            root, meta, rows if run < runs // 2 else changed, seq=run + 1
        )  # not next_seq: n reads per write
    return time.perf_counter() - began


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def timed(*args: str) -> float:
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pytest_llmeval", "history", *args],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument(
        "--dir", type=Path, help="Keep the history here (default: a temp dir, removed)"
    )
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-history-"))
    try:
        if not (root / RUNS).is_dir():
            print(f"writing {args.runs} runs x {args.samples} samples ...", flush=True)
            print(f"  written in {build(root, args.runs, args.samples):.1f} s")
        total, runs, tables = size(root), size(root / RUNS), size(root / TABLES)
        count = len(list((root / RUNS).iterdir()))
        print(
            f"history size: {total / 1e6:.1f} MB ({runs / 1e6:.1f} MB in {count} run files, "
            f"{runs / count / 1e3:.1f} kB each; {tables / 1e3:.0f} kB of sample tables)"
        )
        print(f"history command (text): {timed(str(root)):.2f} s  (best of 3, fresh process)")
        print(f"history command (--json): {timed(str(root), '--json'):.2f} s")
        print(f"history --sample q-00007: {timed(str(root), '--sample', 'q-00007'):.2f} s")
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
