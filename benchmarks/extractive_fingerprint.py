"""Fingerprint of extractive match: one JSON line per case, to show a change keeps every verdict.

Cases: every call the extractive tests make (``tests/test_extractive*.py``: ``extractive_match``,
and the direct ``extractive_native.evaluate`` and worker requests the agreement tests send,
hypothesis examples included), the cases of ``benchmarks/bench_extractive.py``, and the
hold-out cases that ``benchmarks/bench_extractive_vs_math_verify.py`` times (all of them, also
the ones it leaves out). Recording runs those tests once with a recorder around the three entry
points and writes the calls to a cases file; printing replays that fixed file, so the same cases
are fingerprinted before and after a change (hypothesis draws differ from run to run).

    .venv/bin/python benchmarks/extractive_fingerprint.py --record /tmp/extractive_cases.jsonl
    .venv/bin/python benchmarks/extractive_fingerprint.py --cases /tmp/extractive_cases.jsonl \\
        > /tmp/extractive_fp_before.jsonl
    # ... change the code, print again, then: diff /tmp/extractive_fp_before.jsonl after.jsonl
    # (--shuffle SEED evaluates in another order and must print the same lines;
    #  --code DIR fingerprints the pytest_llmeval of another checkout, e.g. the old commit's)

Each line holds the case number and kind and, for ``match``, passed, score, timed_out, the
extracted and parsed gold/prediction, the comparison label, the explanation and the candidates;
for ``native``/``worker``, the reply (without the worker's request id).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


class _Recorder:
    """Wraps the entry points; records only outermost calls (not the worker call of a match)."""

    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []
        self.depth = 0

    def wrap(self, kind: str, func: Any, shape: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self.depth == 0:
                self.cases.append({"kind": kind, **shape(*args, **kwargs)})
            self.depth += 1
            try:
                return func(*args, **kwargs)
            finally:
                self.depth -= 1

        return wrapper


def _record_tests(recorder: _Recorder) -> None:
    import pytest

    from pytest_llmeval.metrics.extractive import match as extractive
    from pytest_llmeval.metrics.extractive import reader as extractive_native

    original_match = extractive.extractive_match
    original_native = extractive_native.evaluate
    original_call = extractive._Worker.call
    extractive.extractive_match = recorder.wrap(
        "match",
        original_match,
        lambda prediction, gold, **kw: {"prediction": prediction, "gold": gold, "kwargs": kw},
    )
    extractive_native.evaluate = recorder.wrap(
        "native", original_native, lambda req: {"request": req}
    )
    call = recorder.wrap(
        "worker",
        original_call,
        lambda worker, request, timeout: {"request": request, "timeout": timeout},
    )
    extractive._Worker.call = call  # type: ignore[method-assign]
    try:
        files = sorted(str(p) for p in (ROOT / "tests").glob("test_extractive*.py"))
        pytest.main(
            [
                *files,
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "-W",
                "ignore::pytest.PytestAssertRewriteWarning",
            ]
        )
    finally:
        extractive.extractive_match = original_match
        extractive_native.evaluate = original_native
        extractive._Worker.call = original_call  # type: ignore[method-assign]


def _bench_cases() -> list[dict[str, Any]]:
    import bench_extractive
    import bench_extractive_vs_math_verify as vs

    out = [
        {"kind": "match", "prediction": p, "gold": g, "kwargs": kw}
        for cases in bench_extractive.CASES.values()
        for p, g, kw in cases
    ]
    # The hold-out cases the comparison bench times (the tests above recorded all of them).
    bench_cases = vs.collect_cases()
    out += [
        {
            "kind": "match",
            "prediction": c["prediction"],
            "gold": c["gold"],
            "kwargs": {k: v for k, v in c.items() if k not in ("prediction", "gold")},
        }
        for c in bench_cases
    ]
    return out


def record(path: Path) -> None:
    """Run the extractive tests under the recorder and add the bench cases; write the cases file."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    recorder = _Recorder()
    _record_tests(recorder)
    cases = recorder.cases + _bench_cases()
    unique: dict[str, dict[str, Any]] = {}
    for case in cases:
        key = json.dumps(_jsonable(case), sort_keys=True, ensure_ascii=False)
        unique.setdefault(key, case)
    with path.open("w", encoding="utf-8") as fh:
        for key in unique:
            fh.write(key + "\n")
    print(f"{len(unique)} cases ({len(cases)} calls) -> {path}", file=sys.stderr)


def _fingerprint(case: dict[str, Any]) -> dict[str, Any]:
    from pytest_llmeval.metrics.extractive import match as extractive
    from pytest_llmeval.metrics.extractive import reader as extractive_native

    if case["kind"] == "native":
        return {"reply": _jsonable(extractive_native.evaluate(case["request"]))}
    if case["kind"] == "worker":
        reply = extractive._WORKER.call(case["request"], case["timeout"])
        if isinstance(reply, dict):
            reply = {k: v for k, v in reply.items() if k != "id"}
        return {"reply": _jsonable(reply)}
    try:
        r = extractive.extractive_match(case["prediction"], case["gold"], **case["kwargs"])
    except ValueError as exc:
        return {"error": f"ValueError: {exc}"}
    return {
        "passed": r.passed,
        "score": r.score,
        "timed_out": r.timed_out,
        "gold_extracted": r.gold_extracted,
        "gold_parsed": r.gold_parsed,
        "pred_extracted": r.pred_extracted,
        "pred_parsed": r.pred_parsed,
        "comparison": r.comparison,
        "explanation": r.explanation,
        "details": _jsonable(r.details),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="write the cases file here and stop")
    parser.add_argument("--cases", type=Path, help="the cases file to fingerprint")
    parser.add_argument(
        "--shuffle",
        type=int,
        metavar="SEED",
        help="evaluate in a shuffled order (caches see other histories); print in case order",
    )
    parser.add_argument(
        "--code", type=Path, metavar="DIR", help="fingerprint the pytest_llmeval of this checkout"
    )
    args = parser.parse_args()
    if args.record:
        record(args.record)
        return
    if not args.cases:
        parser.error("give --record PATH or --cases PATH")
    if args.code:
        sys.path.insert(0, str(args.code.resolve()))
    from pytest_llmeval.metrics.extractive import match as extractive
    from pytest_llmeval.metrics.extractive.match import shutdown_worker, start_worker

    print(f"fingerprinting {extractive.__file__}", file=sys.stderr)
    start_worker()
    with args.cases.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh]
    order = list(range(len(cases)))
    if args.shuffle is not None:
        random.Random(args.shuffle).shuffle(order)
    lines: dict[int, str] = {}
    for index in order:
        case = cases[index]
        out = {"case": index + 1, "kind": case["kind"], **_fingerprint(case)}
        lines[index] = json.dumps(out, sort_keys=True, ensure_ascii=False)
    shutdown_worker()
    for index in range(len(cases)):
        print(lines[index])


if __name__ == "__main__":
    main()
