"""Cost of an error item against a graded item.

Builds a 200-sample gold suite in a temporary directory and runs pytest on it twice per round,
alternating so machine load hits both alike:

- graded: every sample carries its ``response`` and is graded (exact match);
- errors: ``--llm-model`` points at a closed port on 127.0.0.1 with ``-o llm_max_retries=0``, so
  every model call fails at once (connection refused) and every sample is an error item.

Prints the median session time (collection, answers, items and summary; a conftest in the
project measures it, so interpreter start-up is left out), the whole wall time and the child's
CPU time (steadier on a busy machine) of each, and the ratios errors / graded (target <= 1.5).

    .venv/bin/python benchmarks/bench_error_items.py [--samples 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.5
CONFTEST = """
import time

_started = {}


def pytest_sessionstart(session):
    _started["t"] = time.perf_counter()


def pytest_unconfigure(config):
    print(f"SESSION_SECONDS={time.perf_counter() - _started['t']:.4f}")
"""


def build(root: Path, samples: int) -> None:
    lines = [
        json.dumps(
            {
                "id": f"s{i:04d}",
                "question": f"What is {i} plus one?",
                "expected": str(i + 1),
                "response": str(i + 1),
                "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
            }
        )
        for i in range(samples)
    ]
    (root / "suite_eval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(root: Path, extra: list[str], expect: str) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LLMEVAL_"))}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")]
    )
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-s",
    ]
    cpu0, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(
        [*cmd, *extra], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    tail = proc.stdout.strip().splitlines()
    if expect not in proc.stdout:
        raise SystemExit(f"unexpected outcome (wanted {expect!r}):\n" + "\n".join(tail[-15:]))
    session = next(
        float(line.split("=")[1]) for line in tail if line.startswith("SESSION_SECONDS=")
    )
    return session, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, args.samples)
        failing = [
            "--llm-model=openai:bench-model",
            f"--llm-base-url=http://127.0.0.1:{closed_port()}/v1",
            "-o",
            "llm_max_retries=0",
            "--llm-record=off",
        ]
        graded: list[tuple[float, float, float]] = []
        errors: list[tuple[float, float, float]] = []
        for _ in range(args.repeat):
            graded.append(run(root, [], f"{args.samples} passed"))
            errors.append(run(root, failing, f"{args.samples} errors"))

    def med(runs: list[tuple[float, float, float]], index: int) -> float:
        return statistics.median(run[index] for run in runs)

    for name, runs in (("graded items", graded), ("error items ", errors)):
        print(
            f"{args.samples} {name}: session {med(runs, 0):.3f} s, wall {med(runs, 1):.3f} s, "
            f"CPU {med(runs, 2):.3f} s (medians of {args.repeat})"
        )
    for index, what in ((0, "session"), (1, "wall"), (2, "CPU")):
        ratio = med(errors, index) / med(graded, index)
        verdict = "ok" if ratio <= TARGET else "TOO SLOW"
        print(f"ratio errors/graded ({what}): {ratio:.2f} (target <= {TARGET}) {verdict}")


if __name__ == "__main__":
    main()
