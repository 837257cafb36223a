"""A long run where every sample fails, with the default ``--tb``: seconds per 1,000 samples.

    python benchmarks/bench_many_failures.py [--sizes 1000 4000]

Runs pytest in a subprocess on a temporary gold file of N failing samples (exact grader, recorded
responses, no model) and prints wall time and time per 1,000 samples for each N. Linear output
keeps the per-1,000 figure flat as N grows (pytest's failure summary rescans every passing
setup/teardown report left in the terminal's stats once per failure).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        lines = [
            json.dumps(
                {
                    "id": f"s{i}",
                    "question": "q",
                    "expected": "yes",
                    "response": "no",
                    "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
                }
            )
            for i in range(n)
        ]
        Path(tmp, "many_eval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:randomly",
                tmp,
            ],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    args = parser.parse_args()
    for n in args.sizes:
        took = run(n)
        print(f"{n:>7} failing samples: {took:7.1f} s ({took / n * 1000:.2f} s per 1,000)")


if __name__ == "__main__":
    main()
