"""Startup overhead of pytest-llmeval on an unrelated project.

Builds a plain 200-test project (no gold files) in a temporary directory and times
``python -m pytest --co -q`` with the plugin (loaded through its entry point) and with
``-p no:llmeval``, alternating the two so machine load hits both alike. Prints the
medians and their ratio (target <= 1.05) for wall time and for the child's CPU time
(steadier on a busy machine), plus the plugin's own import time.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 30] [--tests 200]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.05
TESTS_PER_FILE = 10


def build_project(root: Path, n_tests: int) -> None:
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for index in range(0, n_tests, TESTS_PER_FILE):
        count = min(TESTS_PER_FILE, n_tests - index)
        body = ["import pytest", ""]
        for j in range(count):
            body += [
                f"def test_invoice_{index + j}():",
                f"    assert {index + j} + 1 > {index + j}",
                "",
            ]
        (root / f"test_module_{index // TESTS_PER_FILE:03d}.py").write_text(
            "\n".join(body), encoding="utf-8"
        )


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LLMEVAL_"))}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(root: Path, extra: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child): CPU time is far less sensitive to a busy machine."""
    # pytest-randomly and pytest-html (dev extra) import numpy and jinja2 at start-up: time this plugin.
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--co",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "no:html",
        *extra,
    ]
    cpu0, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=_env(), capture_output=True, text=True, check=False)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return elapsed, cpu


# Time to import the plugin module into a process that already imported pytest: the part of
# the startup cost that is the plugin's own (its hooks then run only cheap checks).
PROBE = """
import sys, time
import pytest, _pytest.config, _pytest.main
start = time.process_time()  # CPU time: steadier than wall time on a busy machine
import pytest_llmeval.plugin
ms = (time.process_time() - start) * 1000
print(ms, sum(m.startswith("pytest_llmeval") for m in sys.modules))
"""


def plugin_import_ms(runs: int = 7) -> tuple[float, int]:
    """Median CPU time to import ``pytest_llmeval.plugin`` after pytest, and how many of our modules it loads."""
    times, modules = [], 0
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", PROBE], env=_env(), capture_output=True, text=True, check=True
        )
        ms, count = proc.stdout.split()
        times.append(float(ms))
        modules = int(count)
    return statistics.median(times), modules


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=30, help="runs per variant (default 30)")
    parser.add_argument(
        "--tests", type=int, default=200, help="tests in the plain project (default 200)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="llmeval-bench-") as tmp:
        root = Path(tmp)
        build_project(root, args.tests)
        # pip byte-compiles a wheel install; an editable install under PYTHONDONTWRITEBYTECODE=1
        # would recompile the plugin's sources on every run and measure the compiler, not the plugin.
        import pytest_llmeval

        compileall.compile_dir(str(Path(pytest_llmeval.__file__).parent), quiet=1)
        time_once(root, [])  # warm up: bytecode caches, page cache
        time_once(root, ["-p", "no:llmeval"])
        with_plugin: list[tuple[float, float]] = []
        without: list[tuple[float, float]] = []
        for i in range(args.repeat):
            # Alternate which variant goes first so drifting load does not favour one.
            order = [(with_plugin, []), (without, ["-p", "no:llmeval"])]
            for samples, extra in order if i % 2 == 0 else order[::-1]:
                samples.append(time_once(root, extra))
        import_ms, n_modules = plugin_import_ms()

    print(
        f"plain project: {args.tests} tests, `python -m pytest --co -q`, {args.repeat} alternating runs each"
    )
    ratios = {}
    for index, label in ((0, "wall"), (1, "CPU")):
        a = [sample[index] for sample in with_plugin]
        b = [sample[index] for sample in without]
        ratios[label] = statistics.median(a) / statistics.median(b)
        print(
            f"{label:>4} with plugin    median {statistics.median(a) * 1000:7.1f} ms   min {min(a) * 1000:7.1f} ms"
        )
        print(
            f"{label:>4} -p no:llmeval  median {statistics.median(b) * 1000:7.1f} ms   min {min(b) * 1000:7.1f} ms"
        )
        print(
            f"{label:>4} ratio (medians) {ratios[label]:.3f}   (min/min {min(a) / min(b):.3f}; target <= {TARGET:.2f})"
        )
    print(
        f"import pytest_llmeval.plugin after pytest: {import_ms:.1f} ms CPU, median "
        f"({n_modules} pytest_llmeval modules loaded), "
        f"{import_ms / 1000 / statistics.median(s[1] for s in without):.1%} of the median CPU time without the plugin"
    )
    # Wall time is what a user feels; on a busy machine the CPU-time ratio is the steadier figure.
    for label, value in ratios.items():
        print(f"verdict ({label}): {'OK' if value <= TARGET else 'OVER TARGET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
