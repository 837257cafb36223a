"""Collection cost per gold sample: wall time and peak memory of ``pytest --co``, and where the memory goes.

    python benchmarks/bench_collect.py [--sizes 10000 40000] [--run] [--where 20000] [--where-run 5000]

For each N, writes a temporary gold file of N samples (a 300-character question, a short expected
answer and response, metadata, exact grader) and runs pytest in a fresh subprocess, printing wall
time, peak RSS, and both per sample after subtracting an empty run. ``--run`` also times a full
``-q --tb=no`` run (every sample graded). Linear collection keeps the per-sample figures flat as N
grows. ``--where N`` collects N samples in this process under tracemalloc and prints the source
lines holding the most memory once collection is done (what each sample costs, by owner).
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
# Runs pytest in-process in a child and prints its own peak RSS (KiB on Linux) last.
CHILD = (
    "import resource, sys, pytest\n"
    "code = pytest.main(sys.argv[1:])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def write_gold(directory: Path, n: int) -> Path:
    path = directory / "scale_eval.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(
                json.dumps(
                    {
                        "id": f"sample-{i:07d}",
                        "question": f"What was the reported operating margin of segment {i} in fiscal 2023? "
                        + "Context. " * 25,
                        "expected": f"{i % 97}.5%",
                        "response": f"The operating margin was {i % 97}.5%.",
                        "metadata": {"task": "numeric" if i % 2 else "qa", "company": f"C{i % 50}"},
                        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
                    }
                )
                + "\n"
            )
    return path


def measure(directory: Path, *args: str) -> tuple[float, int]:
    """(seconds, peak RSS in bytes) of one pytest run in a fresh interpreter."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:xdist",
            *args,
            str(directory),
        ],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
    )
    took = time.perf_counter() - start
    line = next(
        (ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("MAXRSS")), "MAXRSS 0"
    )
    return took, int(line.split()[1]) * 1024


def sweep(sizes: list[int], args: list[str], label: str) -> None:
    with tempfile.TemporaryDirectory() as empty:
        base_time, base_rss = measure(Path(empty), *args)
    print(f"{label}: empty run {base_time:.2f} s, {base_rss / 2**20:.0f} MiB")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            size = write_gold(Path(tmp), n).stat().st_size
            took, rss = measure(Path(tmp), *args)
        print(
            f"{label}: {n:>8} samples ({size / 2**20:6.1f} MiB file): {took:7.2f} s, peak {rss / 2**20:7.0f} MiB | "
            f"per sample {(took - base_time) / n * 1e6:6.0f} us, {(rss - base_rss) / n / 1024:5.2f} KiB"
        )


def where(n: int, *, run: bool = False, extra: tuple[str, ...] = (), top: int = 15) -> None:
    """Top allocation sites still alive after collecting ``n`` samples in this process (with
    ``run``: after running them, at session finish, before the reports are written)."""
    import tracemalloc

    import pytest

    snapshot: list[tracemalloc.Snapshot] = []
    count: list[int] = []

    class Snap:
        @pytest.hookimpl(tryfirst=True)
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            count.append(len(session.items))
            if not run:
                snapshot.append(tracemalloc.take_snapshot())

        @pytest.hookimpl(tryfirst=True)
        def pytest_sessionfinish(self, session: pytest.Session) -> None:
            if run:
                snapshot.append(tracemalloc.take_snapshot())

    with tempfile.TemporaryDirectory() as tmp:
        write_gold(Path(tmp), n)
        tracemalloc.start(1)
        args = ["-qq", "--tb=no"] if run else ["--co", "-qq"]
        pytest.main(
            [*args, "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", *extra, tmp],
            plugins=[Snap()],
        )
        tracemalloc.stop()
    items = count[0] if count else 0
    stats = (
        snapshot[0]
        .filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        .statistics("lineno")
    )
    total = sum(s.size for s in stats)
    what = "running" if run else "collecting"
    print(
        f"alive after {what} {items} items: {total / 2**20:.1f} MiB traced, {total / max(1, items):.0f} B per item"
    )
    for stat in stats[:top]:
        frame = stat.traceback[0]
        shown = frame.filename.replace(str(ROOT) + "/", "").split("site-packages/")[-1]
        print(
            f"  {stat.size / max(1, items):7.0f} B/item  {stat.size / 2**20:7.1f} MiB  {shown}:{frame.lineno}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 40_000])
    parser.add_argument("--run", action="store_true", help="also time a full -q --tb=no run")
    parser.add_argument(
        "--where",
        type=int,
        default=0,
        help="collect N samples under tracemalloc and show the top sites",
    )
    parser.add_argument("--where-run", type=int, default=0, help="the same after running N samples")
    parser.add_argument(
        "--pytest-args", default="", help="more pytest arguments, e.g. '-p no:rerunfailures'"
    )
    args = parser.parse_args()
    extra = tuple(args.pytest_args.split())
    if args.sizes:
        sweep(args.sizes, ["--co", "-q", *extra], "--co")
    if args.run and args.sizes:
        sweep(args.sizes, ["-q", "--tb=no", *extra], "run")
    if args.where:
        where(args.where, extra=extra)
    if args.where_run:
        where(args.where_run, run=True, extra=extra)


if __name__ == "__main__":
    main()
