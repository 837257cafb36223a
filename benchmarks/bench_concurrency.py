"""Concurrency benchmark: N samples against a local OpenAI-compatible server with fixed latency.

    .venv/bin/python benchmarks/bench_concurrency.py [--samples 200] [--latency 0.1] [--concurrency 16]

The server runs in its own process (as a real endpoint would), so its threads do not
compete with the client for the GIL. Prints the wall time of the prefetch (the model layer alone, client import excluded), its
ratio to the ideal ``samples * latency / concurrency``, and the same for a whole
``pytest --llm-model=...`` run in a subprocess (pytest start-up measured apart with --co).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.models import AnswerService  # noqa: E402
from pytest_llmeval.options import Settings  # noqa: E402
from pytest_llmeval.sample import Sample  # noqa: E402


class RemoteServer:
    """``tests/fake_openai.py`` in a subprocess, read through its ``/_fake`` endpoints."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_openai", "--latency", str(latency)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def _get(self, path: str) -> dict[str, int]:
        import urllib.request

        with urllib.request.urlopen(self.url.rsplit("/v1", 1)[0] + path, timeout=10) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    def reset(self) -> None:
        self._get("/_fake/reset")

    def stats(self) -> dict[str, int]:
        return self._get("/_fake/stats")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def settings(**overrides: object) -> Settings:
    return Settings.defaults(**overrides)


def sample(i: int) -> Sample:
    question = f"Benchmark question number {i}: what is {i} times 3?"
    return Sample(
        id=f"b{i}",
        path="bench_eval.jsonl",
        line=i + 1,
        question=question,
        expected=question,
        messages=({"role": "user", "content": question},),
    )


def bench_service(server: RemoteServer, n: int, concurrency: int, tmp: Path) -> tuple[float, int]:
    import openai  # noqa: F401  - import cost is start-up, not concurrency

    service = AnswerService(
        settings(model="bench-model", base_url=server.url, concurrency=concurrency, record="off"),
        rootdir=tmp,
    )
    try:
        service.answer(sample(-1))  # open the client once
        server.reset()
        started = time.perf_counter()
        service.prefetch([sample(i) for i in range(n)])
        elapsed = time.perf_counter() - started
    finally:
        service.close()
    stats = server.stats()
    assert stats["requests"] == n, stats
    return elapsed, stats["max_in_flight"]


def bench_pytest(
    server: RemoteServer, n: int, concurrency: int, tmp: Path
) -> tuple[float, float, float]:
    suite = tmp / "bench_eval.jsonl"
    with suite.open("w", encoding="utf-8") as handle:
        for i in range(n):
            s = sample(i)
            record = {
                "id": s.id,
                "question": s.question,
                "expected": s.expected,
                "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
            }
            handle.write(json.dumps(record) + "\n")
    (tmp / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    base = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]

    started = time.perf_counter()
    subprocess.run([*base, "--co"], cwd=tmp, check=True, capture_output=True)
    startup = time.perf_counter() - started

    server.reset()
    started = time.perf_counter()
    proc = subprocess.run(
        [
            *base,
            "--llm-model=bench-model",
            f"--llm-base-url={server.url}",
            f"--llm-concurrency={concurrency}",
            "--llm-record=off",
        ],
        cwd=tmp,
        capture_output=True,
        text=True,
    )
    total = time.perf_counter() - started
    requests = server.stats()["requests"]
    if proc.returncode != 0 or requests != n:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        raise SystemExit(f"pytest run failed (rc={proc.returncode}, {requests} requests)")
    # the progress summary line: "llmeval answers from ...: 200/200 done, ..., 1.9 s"
    match = re.search(r"llmeval answers from .*?([0-9.]+) s$", proc.stdout, re.MULTILINE)
    prefetch = float(match.group(1)) if match else float("nan")
    return total, startup, prefetch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-pytest", action="store_true", help="skip the whole-run measurement")
    args = parser.parse_args()
    ideal = args.samples * args.latency / args.concurrency
    print(
        f"{args.samples} samples, {args.latency * 1000:.0f} ms latency, concurrency {args.concurrency}: "
        f"ideal {ideal:.2f} s"
    )
    server = RemoteServer(args.latency)
    try:
        run_all(server, args, ideal)
    finally:
        server.close()


def run_all(server: RemoteServer, args: argparse.Namespace, ideal: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for _ in range(args.repeat):
            elapsed, peak = bench_service(server, args.samples, args.concurrency, Path(tmp))
            runs.append(elapsed)
            print(
                f"  prefetch: {elapsed:.2f} s  ratio {elapsed / ideal:.2f}x  peak in flight {peak}"
            )
        best = min(runs)
        print(
            f"prefetch best of {args.repeat}: {best:.2f} s, {best / ideal:.2f}x ideal (target <= 1.5x)"
        )
        if not args.no_pytest:
            total, startup, prefetch = bench_pytest(
                server, args.samples, args.concurrency, Path(tmp)
            )
            print(
                f"whole pytest run: {total:.2f} s, of which start-up + collection (--co) {startup:.2f} s "
                f"and prefetch {prefetch:.2f} s ({prefetch / ideal:.2f}x ideal, includes importing openai)"
            )


if __name__ == "__main__":
    main()
