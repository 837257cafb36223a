"""Time the reading stage alone: extract_values as numeric_match calls it, on the dev answers.

    python benchmarks/bench_extract.py [--dev ../shared/data/numeric_dev.jsonl] [--passes 5]
    python benchmarks/bench_extract.py --baseline /work/main [--runs 3]

Prints microseconds per case for match._read_figures (gold parsed once, outside the timing),
after one warm-up pass. CPU time (time.process_time), best of ``--rounds``.

``--baseline DIR`` times another checkout's package (DIR holds its ``pytest_llmeval``) and this
one in turns, ``--runs`` times each, each in a fresh interpreter: on a machine shared with other
work, alternating runs compare the two under the same load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _time_reading(root: Path, dev: Path, passes: int, rounds: int) -> float:
    """Best CPU seconds per case of _read_figures over the dev answers, the package from ``root``."""
    sys.path.insert(0, str(root))
    from pytest_llmeval.metrics.numeric import gold as gold_stage
    from pytest_llmeval.metrics.numeric.match import _read_figures

    # --baseline may be a checkout whose gold stage keeps its reader private
    parse_gold = getattr(gold_stage, "parse_gold", None) or gold_stage._parse_gold

    rows = [json.loads(x) for x in dev.read_text(encoding="utf-8").splitlines() if x.strip()]
    calls = [(r["response"], parse_gold(r["gold"], None)) for r in rows]
    for resp, gold in calls:  # warm-up: compiled patterns, language tables
        _read_figures(resp, gold, None, None)
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(passes):
            for resp, gold in calls:
                _read_figures(resp, gold, None, None)
        best = min(best, (time.process_time() - t0) / (passes * len(calls)))
    return best


def _alternate(args: argparse.Namespace) -> None:
    """This checkout and ``--baseline`` timed in turns, each run in a fresh interpreter."""
    best: dict[str, float] = {}
    for _ in range(args.runs):
        for name, root in (("baseline", args.baseline.resolve()), ("this", ROOT)):
            cmd = [sys.executable, __file__, "--root", str(root), "--dev", str(args.dev)]
            cmd += ["--passes", str(args.passes), "--rounds", str(args.rounds)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            us = float(out.split(":")[1].split()[0])
            best[name] = min(best.get(name, float("inf")), us)
            print(f"{name:9s}{us:7.1f} us per case ({root})", flush=True)
    print(f"best: baseline {best['baseline']:.1f} -> this {best['this']:.1f} us per case")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/data/numeric_dev.jsonl"))
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="another checkout to time in turns with this one")
    ap.add_argument("--runs", type=int, default=3, help="with --baseline: runs of each")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.baseline is not None:
        _alternate(args)
        return
    best = _time_reading(args.root, args.dev, args.passes, args.rounds)
    n = sum(1 for x in args.dev.read_text(encoding="utf-8").splitlines() if x.strip())
    print(f"_read_figures: {best * 1e6:.1f} us per case ({n} cases, best of {args.rounds})")


if __name__ == "__main__":
    main()
