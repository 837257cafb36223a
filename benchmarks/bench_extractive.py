"""Speed of extractive_match: median/p90 per case on a mixed set, and cold worker start.

Run: .venv/bin/python benchmarks/bench_extractive.py [--repeat N]

Accuracy proxy: ``--math-verify-tests DIR`` runs the gold/prediction cases of math-verify's own
test suite (DIR = an unpacked ``pip download math-verify --no-deps --no-binary :all:`` sdist)
through ``extractive_match`` with each test's settings and prints the pass count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from pytest_llmeval.metrics.extractive.match import (
    _WORKER,
    extractive_match,
    shutdown_worker,
    start_worker,
)

COT = (
    "Let's think step by step. The train covers 120 km in 2 hours, so its speed is "
    "$\\frac{120}{2} = 60$ km/h. Over 3.5 hours it therefore travels "
)

CASES: dict[str, list[tuple[str, str, dict[str, object]]]] = {
    "simple numeric (in-process)": [
        ("The answer is 42.", "42", {}),
        ("So she has 17 apples left.", "17", {}),
        ("The total cost is 1,250 dollars.", "1250", {}),
        ("The mean is 3.5", "3.5", {}),
        ("Therefore x = -3.", "-3", {}),
        ("0.333333", "0.3333333", {}),
    ],
    "numeric via worker": [
        (COT + "$60 \\times 3.5 = \\boxed{210}$ km.", "210", {}),
        ("The probability is $\\frac{1}{3}$.", "0.333333", {}),
        ("So the answer is 50%.", "0.5", {}),
        ("Each child gets 3 1/2 apples.", "7/2", {}),
    ],
    "symbolic / relations / sets": [
        ("Factoring gives $(x-1)(x+1)$.", "$x^2-1$", {}),
        ("Thus $\\boxed{a < 2}$.", "$2 > a$", {}),
        ("The solution set is $x \\in [1, 3)$.", "$[1,3)$", {}),
        ("The roots are $\\{-2, 3\\}$.", "$\\{3,-2\\}$", {}),
        (
            "$\\begin{pmatrix}1 & 2\\\\3 & 4\\end{pmatrix}$",
            "$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$",
            {},
        ),
        ("$\\frac{\\sqrt{2}}{2}$", "$\\frac{1}{\\sqrt{2}}$", {}),
    ],
    "multiple choice": [
        (
            "Option A ignores friction, so the answer is (C).",
            "C",
            {"gold_targets": ("index",), "pred_targets": ("index",)},
        ),
        ("**Answer:** B", "B", {"gold_targets": ("index",), "pred_targets": ("index",)}),
        (
            "La bonne réponse est (D).",
            "D",
            {"gold_targets": ("index",), "pred_targets": ("index",), "language": "fr"},
        ),
        (
            "答案是A。",
            "A",
            {"gold_targets": ("index",), "pred_targets": ("index",), "language": "zh"},
        ),
    ],
    "long chain of thought (6k chars)": [
        (
            "Checking the arithmetic once more. " * 180 + "Final answer: $\\boxed{\\frac{7}{12}}$",
            "7/12",
            {},
        ),
    ],
}


def worker_cpu_seconds() -> float:
    """User+system CPU the worker process used so far (Linux /proc; 0.0 elsewhere)."""
    proc = _WORKER._proc
    try:
        assert proc is not None
        with open(f"/proc/{proc.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, AssertionError, IndexError, ValueError):
        return 0.0


_COMPARE = """def compare_strings(
    gold, pred, match_types=["latex", "expr"], precision=6, strict=True, allow_set_relation_comp=False
):
    from pytest_llmeval.metrics.extractive.match import extractive_match

    return extractive_match(
        pred, gold, gold_targets=tuple(match_types), pred_targets=tuple(match_types),
        boxed_priority=0, float_rounding=precision, strict=strict,
        allow_set_relation_comparison=allow_set_relation_comp,
    ).passed


"""


def run_math_verify_tests(sdist: str) -> None:
    """Copy math-verify's gold/pred tests, route them through extractive_match, run pytest."""
    import re
    import shutil
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    src = Path(sdist) / "tests"
    files = ["test_all.py", "test_boxed.py", "test_numina_cases.py", "test_open_thoughts.py",
             "test_strict.py", "test_yujianll.py"]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "tests"
        dst.mkdir()
        (dst / "__init__.py").write_text("")
        for name in files:
            shutil.copy(src / name, dst / name)
        test_all = (dst / "test_all.py").read_text()
        start = test_all.index("def compare_strings(")
        end = test_all.index("@pytest.mark.parametrize", start)
        (dst / "test_all.py").write_text(test_all[:start] + _COMPARE + test_all[end:])
        yujianll = (dst / "test_yujianll.py").read_text()
        yujianll = re.sub(
            r"assert int\(verify\(parse\(gold\), parse\(pred\)\)\) == result",
            "from pytest_llmeval.metrics.extractive.match import extractive_match\n"
            "    assert int(extractive_match(pred, gold).passed) == result",
            yujianll,
        )
        (dst / "test_yujianll.py").write_text(yujianll)
        out = subprocess.run(
            [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider", "-p", "no:llmeval",
             "-p", "no:randomly", "-o", "addopts=", "-o", "filterwarnings=", "-rf"],
            cwd=tmp, capture_output=True, text=True,
        )  # fmt: skip
        lines = out.stdout.strip().splitlines()
        print(
            "math-verify test cases through extractive_match:", lines[-1] if lines else out.stderr
        )
        for line in lines:
            if line.startswith("FAILED"):
                print("  ", line[:160])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20, help="timed repetitions per case")
    parser.add_argument("--cold", type=int, default=5, help="cold worker starts to time")
    parser.add_argument("--math-verify-tests", metavar="DIR", help="unpacked math-verify sdist")
    args = parser.parse_args()
    if args.math_verify_tests:
        run_math_verify_tests(args.math_verify_tests)

    colds, cpus, firsts, restarts = [], [], [], []
    for _ in range(args.cold):
        shutdown_worker()
        colds.append(start_worker())
        cpus.append(worker_cpu_seconds())
        t0 = time.perf_counter()
        extractive_match("so $\\frac{1}{2}$", "0.5")
        firsts.append(time.perf_counter() - t0)
        extractive_match("$2^{2^{30}}$", "1", timeout=0.2)  # evaluator killed, re-forked
        t0 = time.perf_counter()
        extractive_match("so $\\frac{1}{3}$", "1/3")
        restarts.append(time.perf_counter() - t0)
    if not colds:  # --cold 0: no cold-start figures, just warm the worker for the timings
        start_worker()
    else:
        print(
            f"cold worker start (spawn -> ready), {args.cold} runs: wall median "
            f"{statistics.median(colds) * 1000:.0f} ms (max {max(colds) * 1000:.0f} ms); "
            f"worker CPU up to ready: median {statistics.median(cpus) * 1000:.0f} ms; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
        print(
            "first LaTeX call after a cold start (waits for the one-off warm-up): "
            f"median {statistics.median(firsts) * 1000:.0f} ms"
        )
        print(
            "first LaTeX call after a timeout (fresh forked evaluator): "
            f"median {statistics.median(restarts) * 1000:.1f} ms"
        )

    everything: list[float] = []
    for name, cases in CASES.items():
        times: list[float] = []
        for prediction, gold, kwargs in cases:
            result = extractive_match(prediction, gold, **kwargs)  # type: ignore[arg-type]
            assert result.passed, result.explanation
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                extractive_match(prediction, gold, **kwargs)  # type: ignore[arg-type]
                times.append(time.perf_counter() - t0)
        everything += times
        print(
            f"{name:34s} n={len(times):4d}  median {statistics.median(times) * 1000:7.3f} ms  p90 {percentile(times, 0.9) * 1000:7.3f} ms"
        )
    print(
        f"{'all cases':34s} n={len(everything):4d}  median {statistics.median(everything) * 1000:7.3f} ms  p90 {percentile(everything, 0.9) * 1000:7.3f} ms"
    )
    shutdown_worker()


if __name__ == "__main__":
    main()
