"""Are two ``--llm-report`` JSON files the same run's report, timings masked?

    python benchmarks/report_identity.py BEFORE.json AFTER.json [--root-a DIR --root-b DIR]

Masks what differs between two runs of the same suite (timestamps, durations, latencies, run ids)
and, with ``--root-a``/``--root-b``, the checkout paths; then compares the rest byte for byte (key
order included, as written). Prints each difference with its JSON path; exit 0 when identical.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

# keys whose values are clocks, measurements of time or the checkout's commit, never verdicts
MASKED_KEYS = re.compile(
    r"(timestamp|started|finished|duration|latency|elapsed|_seconds|run_id|commit)", re.IGNORECASE
)
MASK = "<masked>"


def masked(value: Any, roots: tuple[str, str] | None = None) -> Any:
    """``value`` with its timing fields masked and ``roots[0]`` written as ``roots[1]``."""
    if isinstance(value, dict):
        return {k: MASK if MASKED_KEYS.search(k) else masked(v, roots) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, roots) for v in value]
    if isinstance(value, str) and roots:
        return value.replace(roots[0], roots[1])
    return value


def differences(a: Any, b: Any, path: str = "$", limit: int = 50) -> list[str]:
    """Up to ``limit`` differences between two JSON values, each with its path."""
    out: list[str] = []

    def walk(x: Any, y: Any, where: str) -> None:
        if len(out) >= limit:
            return
        if type(x) is not type(y):
            out.append(
                f"{where}: {type(x).__name__} {str(x)[:80]!r} != {type(y).__name__} {str(y)[:80]!r}"
            )
        elif isinstance(x, dict):
            if list(x) != list(y):
                only_a, only_b = sorted(set(x) - set(y)), sorted(set(y) - set(x))
                out.append(
                    f"{where}: keys differ (only before: {only_a}, only after: {only_b})"
                    if only_a or only_b
                    else f"{where}: same keys in another order"
                )
            for key in x:
                if key in y:
                    walk(x[key], y[key], f"{where}.{key}")
        elif isinstance(x, list):
            if len(x) != len(y):
                out.append(f"{where}: {len(x)} items != {len(y)} items")
            for i, (u, v) in enumerate(zip(x, y, strict=False)):
                walk(u, v, f"{where}[{i}]")
        elif x != y:
            out.append(f"{where}: {str(x)[:80]!r} != {str(y)[:80]!r}")

    walk(a, b, path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--root-a", help="checkout path in the first report, written as --root-b")
    parser.add_argument("--root-b", help="checkout path in the second report")
    args = parser.parse_args(argv)
    roots = (args.root_a, args.root_b) if args.root_a and args.root_b else None
    a = masked(json.loads(args.before.read_text(encoding="utf-8")), roots)
    b = masked(json.loads(args.after.read_text(encoding="utf-8")))
    text_a = json.dumps(a, indent=2, ensure_ascii=False)
    text_b = json.dumps(b, indent=2, ensure_ascii=False)
    if text_a == text_b:
        print(
            f"identical (timings masked): {args.before} == {args.after} ({len(text_a)} characters)"
        )
        return 0
    found = differences(a, b) or ["same values, different key order"]
    print(f"DIFFERENT: {args.before} != {args.after}")
    for line in found:
        print("  " + line)
    return 1


if __name__ == "__main__":
    sys.exit(main())
