"""Cost of a gold item: N pre-answered numeric gold samples vs a plain parametrized test making the same numeric_match call.

    python benchmarks/bench_gold_item.py [--samples 10000] [--repeat 3]

Writes N numeric samples (varied, deterministic figures) once as a gold file and once as the rows of
a plain ``@pytest.mark.parametrize`` test that calls ``pytest_llmeval.numeric_match`` per row, as the
numeric grader does. Each is run as ``python -m pytest FILE -q -p no:cacheprovider -p no:randomly``
in a fresh subprocess, alternating, ``--repeat`` times. Prints the best wall time of each, their
ratio, the peak RSS of each (best run) and the memory per sample above the plain test. Targets:
ratio <= 1.1 and <= 5 KiB per sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Runs its arguments as a child and prints the child's wall time, peak RSS (KiB on Linux) and CPU
# time (user + system); a fresh wrapper per run, so RUSAGE_CHILDREN holds that run alone.
WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)\n"
    "took = time.perf_counter() - start\n"
    "sys.stderr.write(done.stdout[-2000:])\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(took, usage.ru_maxrss, done.returncode, usage.ru_utime + usage.ru_stime)\n"
)
PLAIN_TEST = """\
import json
from pathlib import Path

import pytest

import pytest_llmeval

ROWS = [json.loads(line) for line in Path(__file__).with_name("rows.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_numeric(row):
    result = pytest_llmeval.numeric_match(row["response"], row["expected"], question=row["question"])
    assert result.passed
"""


def sample(i: int, rng: random.Random) -> dict:
    """One numeric sample whose response states the expected figure in another form."""
    kind = i % 4
    if kind == 3:
        pct = round(rng.uniform(0.5, 60.0), 1)
        expected, response = (
            f"{pct}%",
            f"The operating margin was {pct} percent in fiscal {2015 + i % 9}.",
        )
    else:
        value = round(rng.uniform(10.0, 99_999.0), 1)
        expected = [f"${value:,.1f} million", f"{value} million USD", f"{value:,.1f}"][kind]
        if value >= 1000 and i % 3 == 0:
            response = f"Revenue came to ${value / 1000:.4f} billion for the year."
        else:
            response = [
                f"Revenue was ${value:,.1f} million.",
                f"Net sales: {value:,.1f} million USD (up {i % 17}%).",
            ][i % 2]
    return {
        "id": f"num-{i:06d}",
        "question": f"What was the figure reported by segment {i % 50} in fiscal {2015 + i % 9}?",
        "expected": expected,
        "response": response,
        "eval_criteria": {"accuracy": "numeric"},
    }


def write_files(base: Path, n: int) -> tuple[Path, Path]:
    rng = random.Random(20261128)
    lines = "".join(json.dumps(sample(i, rng)) + "\n" for i in range(n))
    gold_dir, plain_dir = base / "gold", base / "plain"
    gold_dir.mkdir()
    plain_dir.mkdir()
    (gold_dir / "numeric_eval.jsonl").write_text(lines, encoding="utf-8")
    (plain_dir / "rows.jsonl").write_text(lines, encoding="utf-8")
    (plain_dir / "test_plain.py").write_text(PLAIN_TEST, encoding="utf-8")
    return gold_dir / "numeric_eval.jsonl", plain_dir / "test_plain.py"


def pytest_run(path: Path) -> tuple[list[str], dict[str, str]]:
    """(command, environment) of one pytest run of ``path`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(path),
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
    ]
    return command, env


def run(path: Path) -> tuple[float, int, int, float]:
    """(seconds, peak RSS in KiB, exit code, CPU seconds) of one pytest run in a fresh interpreter."""
    command, env = pytest_run(path)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    took, rss, code, cpu = done.stdout.split()
    if code not in ("0", "1"):
        sys.exit(f"pytest exited {code} on {path}:\n{done.stderr}")
    return float(took), int(rss), int(code), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.samples
    with tempfile.TemporaryDirectory() as tmp:
        gold, plain = write_files(Path(tmp), n)
        best: dict[str, tuple[float, int, float]] = {}
        for round_ in range(args.repeat):
            for label, path in (("gold", gold), ("plain", plain)):
                took, rss, code, cpu = run(path)
                print(
                    f"run {round_ + 1} {label:5}: {took:7.2f} s, CPU {cpu:7.2f} s, peak {rss / 1024:7.1f} MiB, exit {code}"
                )
                prev = best.get(label)
                best[label] = (
                    (min(took, prev[0]), min(rss, prev[1]), min(cpu, prev[2]))
                    if prev
                    else (took, rss, cpu)
                )
    (gold_s, gold_kib, gold_cpu), (plain_s, plain_kib, plain_cpu) = best["gold"], best["plain"]
    load = os.getloadavg()
    print(
        f"\n{n} samples, best of {args.repeat} (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    print(f"  gold file (plugin): {gold_s:7.2f} s, peak RSS {gold_kib / 1024:7.1f} MiB")
    print(f"  plain parametrize : {plain_s:7.2f} s, peak RSS {plain_kib / 1024:7.1f} MiB")
    print(f"  wall ratio gold/plain: {gold_s / plain_s:.2f}x (target <= 1.10)")
    # CPU time moves less than wall time when other processes share the cores.
    print(
        f"  CPU ratio gold/plain : {gold_cpu / plain_cpu:.2f}x ({gold_cpu:.2f} s / {plain_cpu:.2f} s)"
    )
    print(f"  memory above plain: {(gold_kib - plain_kib) / n:.1f} KiB per sample (target <= 5)")


if __name__ == "__main__":
    main()
