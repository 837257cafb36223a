"""Median time per case: ``extractive_match`` against math-verify's ``verify(parse(gold), parse(pred))``
on the same cases, in one process, each case timed once per engine, interleaved.

Cases: the hold-out in ``tests/unit/metrics/extractive/test_extractive_holdout.py`` (modelled on math-verify's and
lighteval's public tests), each with its own settings; cases whose targets math-verify cannot
express (choice letters, other languages) are left out. Both engines are warmed up first.
math-verify runs in this process with its signal timeout; ours runs extraction in this process
and sympy in its bounded worker. Prints both medians, p90s and totals, and the ratio of medians.

    .venv/bin/python benchmarks/bench_extractive_vs_math_verify.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def collect_cases() -> list[dict[str, Any]]:
    """Call every hold-out test with its parameters, recording what it asks extractive_match."""
    import tests.unit.metrics.extractive.test_extractive_holdout as holdout

    seen: list[dict[str, Any]] = []

    def record(prediction: str, gold: str, **kwargs: Any) -> Any:
        seen.append({"prediction": prediction, "gold": gold, **kwargs})

        class _Passed:
            passed, timed_out, explanation = True, False, ""

        return _Passed()

    original = holdout.extractive_match
    holdout.extractive_match = record  # type: ignore[assignment]
    try:
        for name in dir(holdout):
            test = getattr(holdout, name)
            if not name.startswith("test_") or not callable(test):
                continue
            for mark in getattr(test, "pytestmark", []):
                if mark.name != "parametrize":
                    continue
                names = (
                    [n.strip() for n in mark.args[0].split(",")]
                    if isinstance(mark.args[0], str)
                    else list(mark.args[0])
                )
                for values in mark.args[1]:
                    values = getattr(values, "values", values)
                    with contextlib.suppress(AssertionError):  # the verdict is not what we time
                        test(**dict(zip(names, values, strict=True)))
    finally:
        holdout.extractive_match = original  # type: ignore[assignment]
    return [
        c
        for c in seen
        if set(c["gold_targets"]) <= {"latex", "expr"} and c.get("language", "en") == "en"
    ]


def math_verify_call(case: dict[str, Any]) -> Any:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    configs: list[Any] = []
    for target in case["gold_targets"]:
        if target == "latex":
            configs.append(
                LatexExtractionConfig(boxed_match_priority=case.get("boxed_priority", 50))
            )
        else:
            configs.append(ExprExtractionConfig())

    def run() -> bool:
        return bool(
            verify(
                parse(case["gold"], configs),
                parse(case["prediction"], configs),
                float_rounding=case.get("float_rounding", 6),
                strict=case.get("strict", True),
                allow_set_relation_comp=case.get("allow_set_relation_comparison", False),
            )
        )

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=3, help="passes over the cases (medians pool them)"
    )
    args = parser.parse_args()
    from pytest_llmeval.metrics.extractive.match import (
        extractive_match,
        shutdown_worker,
        start_worker,
    )

    cases = collect_cases()
    start_worker()
    ours: list[float] = []
    theirs: list[float] = []
    for case in cases[:20]:  # warm both engines (imports, grammar, caches of the pipeline)
        extractive_match(**case)
        math_verify_call(case)()
    for _ in range(args.rounds):
        for case in cases:
            mv = math_verify_call(case)
            t0 = time.perf_counter()
            extractive_match(**case)
            t1 = time.perf_counter()
            mv()
            t2 = time.perf_counter()
            ours.append(t1 - t0)
            theirs.append(t2 - t1)
    shutdown_worker()

    def line(name: str, values: list[float]) -> str:
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        return (
            f"{name:16s} median {statistics.median(values) * 1000:7.3f} ms  p90 {p90 * 1000:7.3f} ms  "
            f"total {sum(values):7.2f} s"
        )

    print(f"{len(cases)} cases x {args.rounds} rounds")
    print(line("extractive_match", ours))
    print(line("math-verify", theirs))
    print(
        f"ratio of medians (ours / math-verify): {statistics.median(ours) / statistics.median(theirs):.2f} (target <= 1.00)"
    )


if __name__ == "__main__":
    main()
