"""Time the reading stage alone: extract_values as numeric_match calls it, on the dev answers.

    python benchmarks/bench_extract.py [--dev ../shared/data/numeric_dev.jsonl] [--passes 5]

Prints microseconds per case for match._read_figures (gold parsed once, outside the timing),
after one warm-up pass. CPU time (time.process_time), best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.metrics.numeric.gold import _parse_gold  # noqa: E402
from pytest_llmeval.metrics.numeric.match import _read_figures  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", type=Path, default=Path("/work/shared/data/numeric_dev.jsonl"))
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rows = [json.loads(x) for x in args.dev.read_text(encoding="utf-8").splitlines() if x.strip()]
    calls = [(r["response"], _parse_gold(r["gold"], None)) for r in rows]
    for resp, gold in calls:  # warm-up: compiled patterns, language tables
        _read_figures(resp, gold, None, None)
    best = float("inf")
    for _ in range(args.rounds):
        t0 = time.process_time()
        for _ in range(args.passes):
            for resp, gold in calls:
                _read_figures(resp, gold, None, None)
        best = min(best, (time.process_time() - t0) / (args.passes * len(calls)))
    print(
        f"_read_figures: {best * 1e6:.1f} us per case ({len(calls)} cases, best of {args.rounds})"
    )


if __name__ == "__main__":
    main()
