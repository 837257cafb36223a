"""Throughput of numeric_match on ~500-character financial answers (one core).

    python benchmarks/bench_numeric.py [--seconds 3]
    python benchmarks/bench_numeric.py --dev ../shared/data/numeric_dev.jsonl [--baseline-rev REV]

Prints matches per second (target >= 2,000/s) and the time for one 100 KB answer.
``--dev PATH`` also grades the answers of a labelled file (rows ``gold``, ``response``,
``category``, ``tolerance``, ``require_currency``) and prints cases per CPU-second after one
warm-up pass (target >= 10,000). ``--baseline-rev REV`` measures the same figure for the package
as it was at git revision REV (exported with ``git archive`` into a temporary folder and run in
a subprocess), alternating old and new runs, and prints the ratio. ``--stages`` also prints
where a case's time goes: microseconds per case for reading the figures (``_read_figures``),
selecting the answer (``_select_figures``) and the rest (gold, comparison, explanation).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if os.environ.get("LLMEVAL_BENCH_PKG"):
    # A baseline run: import the package exported from an older revision instead.
    sys.path.insert(0, os.environ["LLMEVAL_BENCH_PKG"])
else:
    sys.path.insert(0, str(ROOT))

from pytest_llmeval.metrics.numeric.match import numeric_match  # noqa: E402

ANSWERS = [
    (
        "To calculate the operating cash flow ratio for FY2015, we take cash from operations and divide it by "
        "total current liabilities. From the Consolidated Statements of Cash Flows, net cash provided by "
        "operating activities was $1,469,502 thousand. From the balance sheet as of November 27, 2015, total "
        "current liabilities were $2,213,556 thousand (see Note 12 and Item 7 of the 10-K). Operating cash flow "
        "ratio = $1,469,502 / $2,213,556 = 0.6637. Therefore, the FY2015 operating cash flow ratio is 0.66, "
        "compared to 0.71 in FY2014.",
        "0.66",
        "What is Adobe's FY2015 operating cash flow ratio? Round to two decimal places.",
    ),
    (
        "Net sales in fiscal 2022 were $394.3 billion, up from $365.8 billion in 2021, an increase of 8%. "
        "iPhone net sales were $205.5 billion and Services net sales were $78.1 billion. Gross margin "
        "percentage was 43.3% versus 41.8% a year earlier. Net income was $99.8 billion, or $6.11 per diluted "
        "share. The company returned over $110 billion to shareholders, including $89.4 billion of share "
        "repurchases and $14.8 billion of dividends. Therefore, total net sales were $394,328 million.",
        "394.3 billion",
        "What were Apple's total net sales in FY2022 (in USD millions)?",
    ),
    (
        "ROA = Net income / Average total assets. Net loss attributable to AES was $(546) million in FY2022. "
        "Total assets were $38,363 million at December 31, 2022 and $32,963 million a year earlier, so the "
        "average is ($38,363 + $32,963) / 2 = $35,663 million. ROA = -$546 million / $35,663 million = "
        "-0.0153, or -1.53%. Rounded to two decimal places, AES's FY2022 ROA is -0.02, reflecting the "
        "impairments recorded in Q3 2022 under ASC 360.",
        "-0.02",
        "What is AES's FY2022 return on assets (ROA)? Round to two decimal places.",
    ),
]


def dev_rate(path: Path, passes: int) -> tuple[float, int]:
    """Cases per CPU-second grading the answers of a labelled numeric file, after a warm-up pass."""
    rows = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    calls = [
        (
            (r["response"], r["gold"]),
            {
                "category": r.get("category"),
                "tolerance": float(r.get("tolerance") or 0.0),
                "require_currency": bool(r.get("require_currency")),
            },
        )
        for r in rows
    ]
    for args, kw in calls:  # warm-up: compiled patterns, language tables, gold parses
        numeric_match(*args, **kw)
    t0 = time.process_time()
    for _ in range(passes):
        for args, kw in calls:
            numeric_match(*args, **kw)
    return passes * len(calls) / (time.process_time() - t0), len(calls)


def stage_times(path: Path, passes: int) -> tuple[float, float, float]:
    """CPU microseconds per case: reading, reading + selection, and the whole grading."""
    from pytest_llmeval.metrics.numeric.gold import parse_gold, question_hints
    from pytest_llmeval.metrics.numeric.match import _read_figures, _select_figures

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    hints = question_hints(None)

    def read(r: dict) -> None:
        _read_figures(r["response"], parse_gold(r["gold"], None), None, None)

    def read_select(r: dict) -> None:
        gold = parse_gold(r["gold"], None)
        cands = _read_figures(r["response"], gold, None, None)
        _select_figures(r["response"], cands, gold, hints, r.get("category"), None, "concluding")

    def whole(r: dict) -> None:
        numeric_match(
            r["response"],
            r["gold"],
            category=r.get("category"),
            tolerance=float(r.get("tolerance") or 0.0),
            require_currency=bool(r.get("require_currency")),
        )

    out = []
    for step in (read, read_select, whole):
        for r in rows:  # warm-up
            step(r)
        t0 = time.process_time()
        for _ in range(passes):
            for r in rows:
                step(r)
        out.append((time.process_time() - t0) / passes / len(rows) * 1e6)
    return out[0], out[1], out[2]


def _rate_in_subprocess(path: Path, passes: int, pkg_dir: str | None) -> float:
    """The --dev figure measured by a fresh interpreter (the package at ``pkg_dir`` when set)."""
    env = dict(os.environ)
    env.pop("LLMEVAL_BENCH_PKG", None)
    if pkg_dir:
        env["LLMEVAL_BENCH_PKG"] = pkg_dir
    cmd = [sys.executable, __file__, "--dev", str(path), "--passes", str(passes), "--rate-only"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def _alternate(path: Path, passes: int, pkg_dir: str, rounds: int = 3) -> tuple[float, float]:
    """Best rates of the checkout and of the package at ``pkg_dir``, runs alternating."""
    new, other = [], []
    for _ in range(rounds):
        new.append(_rate_in_subprocess(path, passes, None))
        other.append(_rate_in_subprocess(path, passes, pkg_dir))
    return max(new), max(other)


def compare_with(rev: str, path: Path, passes: int, rounds: int = 3) -> None:
    """Old (``rev``) against current code on the same rows, alternating runs; best of each."""
    with tempfile.TemporaryDirectory(prefix="llmeval-bench-") as tmp:
        tar_path = Path(tmp) / "old.tar"
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", "-o", str(tar_path), rev, "pytest_llmeval"],
            check=True,
        )
        with tarfile.open(tar_path) as tf:
            tf.extractall(tmp, filter="data")
        new, old = _alternate(path, passes, tmp, rounds)
    print(
        f"  vs {rev}: {old:,.0f} cases per CPU-second before, {new:,.0f} now "
        f"(best of {rounds} alternating runs): {new / old:.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--dev", type=Path, default=None, help="labelled rows, e.g. numeric_dev.jsonl")
    ap.add_argument("--passes", type=int, default=5, help="timed passes over the --dev rows")
    ap.add_argument("--baseline-rev", default=None, help="git revision to compare with (--dev)")
    ap.add_argument("--stages", action="store_true", help="time per case by stage (--dev)")
    ap.add_argument("--rate-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rate_only:
        import pytest_llmeval

        # The figure must be of the package asked for, not of an installed copy.
        expected_dir = os.environ.get("LLMEVAL_BENCH_PKG") or str(ROOT)
        if not str(Path(pytest_llmeval.__file__).resolve()).startswith(
            str(Path(expected_dir).resolve())
        ):
            sys.exit(f"imported {pytest_llmeval.__file__}, not the package under {expected_dir}")
        print(dev_rate(args.dev, args.passes)[0])
        return
    for r, e, q in ANSWERS:  # warm caches and check the fixtures still pass
        res = numeric_match(r, e, question=q)
        assert res.passed, res.explanation
    # CPU time of this process, so a loaded machine does not distort the per-core figure.
    n = 0
    t0 = time.process_time()
    deadline = t0 + args.seconds
    while time.process_time() < deadline:
        for r, e, q in ANSWERS:
            # Vary the text so the expected-value cache is the only thing reused.
            numeric_match(r + f" Ref {n}.", e, question=q)
            n += 1
    dt = time.process_time() - t0
    avg = sum(len(a[0]) for a in ANSWERS) / len(ANSWERS)
    print(
        f"numeric_match: {n / dt:,.0f} matches per CPU-second on ~{avg:.0f}-char answers (one core)"
    )
    big = (ANSWERS[1][0] + " ") * (100_000 // (len(ANSWERS[1][0]) + 1))
    t1 = time.process_time()
    numeric_match(big, "394.3 billion")
    print(f"100 KB answer ({len(big):,} chars): {time.process_time() - t1:.3f} s CPU")
    if args.dev is not None:
        rate, n_rows = dev_rate(args.dev, args.passes)
        print(
            f"{args.dev.name}: {rate:,.0f} cases per CPU-second ({n_rows} answers, "
            f"{args.passes} passes after one warm-up; target >= 10,000)"
        )
        if args.stages:
            read, read_select, whole = stage_times(args.dev, args.passes)
            print(
                f"  per case: reading {read:.1f} us, selection {read_select - read:.1f} us, "
                f"the rest {whole - read_select:.1f} us (whole {whole:.1f} us)"
            )
        if args.baseline_rev:
            compare_with(args.baseline_rev, args.dev, args.passes)


if __name__ == "__main__":
    main()
