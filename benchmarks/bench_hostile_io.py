"""Disk and server faults, timed end to end against the fake server.

    python benchmarks/bench_hostile_io.py            # every scenario (the full disk needs root)
    /other/venv/bin/python benchmarks/bench_hostile_io.py drip big

Runs ``python -m pytest`` of the interpreter running this script in a temporary suite folder,
so another checkout's venv measures that checkout ("before") with the same scenarios. Prints
one line per scenario: seconds to finish, exit status, requests the server received, outcome.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fake_openai only
from tests.fake_openai import FakeOpenAIServer, Reply

EXACT = {"accuracy": "exact", "weights": {"length": 0}}
KILL_AFTER_S = 300


def write_suite(folder: Path, n: int) -> None:
    lines = [
        json.dumps(
            {
                "id": f"s{i}",
                "question": f"Question {i}?",
                "expected": f"Question {i}?",
                "eval_criteria": EXACT,
            }
        )
        for i in range(n)
    ]
    (folder / "qa_eval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run(folder: Path, server: FakeOpenAIServer, *args: str) -> tuple[float, int | str, str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:randomly",
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "--llm-model=gpt-test",
        f"--llm-base-url={server.url}",
        "-o",
        "llm_max_retries=0",
        *args,
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=folder, capture_output=True, text=True, timeout=KILL_AFTER_S
        )
    except subprocess.TimeoutExpired:
        return time.monotonic() - started, f"killed after {KILL_AFTER_S} s", ""
    last = [line for line in done.stdout.splitlines() if line.startswith("=")][-1:] or [""]
    return time.monotonic() - started, done.returncode, last[0].strip("= ")


@contextlib.contextmanager
def full_tmpfs(path: Path) -> Iterator[Path]:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)], check=True)
    try:
        with contextlib.suppress(OSError), (path / "filler").open("wb") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def scenario_full_disk(folder: Path, server: FakeOpenAIServer) -> str:
    if os.geteuid() != 0:
        return "skipped (needs root for a tmpfs)"
    write_suite(folder, 2)
    with full_tmpfs(folder / "disk") as disk:
        seconds, status, last = run(
            folder, server, f"--llm-cache-dir={disk}/cache", "-o", "llm_timeout=1"
        )
    return f"{seconds:6.1f} s  exit {status}  requests {server.chat_requests}  {last}"


def scenario_unwritable_cache(folder: Path, server: FakeOpenAIServer) -> str:
    write_suite(folder, 2)
    (folder / "llm_cache").mkdir()  # a file where the model's folder of the cache should be
    (folder / "llm_cache" / "openai_gpt-test").write_text("not a folder\n")
    seconds, status, last = run(folder, server, "--llm-cache-dir=llm_cache", "--llm-record=new")
    return f"{seconds:6.1f} s  exit {status}  requests {server.chat_requests}  {last}"


def scenario_drip(folder: Path, server: FakeOpenAIServer) -> str:
    write_suite(folder, 1)
    server.script(Reply(content="Question 0?", drip=0.05))
    seconds, status, last = run(folder, server, "-o", "llm_timeout=1", "--llm-record=off")
    return f"{seconds:6.1f} s  exit {status}  requests {server.chat_requests}  {last}"


def scenario_big(folder: Path, server: FakeOpenAIServer) -> str:
    write_suite(folder, 1)
    server.reply_with(lambda body: Reply(content="x" * (9 * 1024 * 1024)))
    first = run(folder, server, "--llm-cache-dir=llm_cache")
    second = run(folder, server, "--llm-cache-dir=llm_cache")
    sizes = sorted(p.stat().st_size for p in (folder / "llm_cache").rglob("*.json"))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return (
        f"run 1: {first[0]:.1f} s {first[2]} | run 2: {second[0]:.1f} s {second[2]} | requests {server.chat_requests}"
        f" | cache files {sizes} | peak child RSS {peak_mb:.0f} MB"
    )


def scenario_huge(folder: Path, server: FakeOpenAIServer) -> str:
    write_suite(folder, 1)
    server.reply_with(lambda body: Reply(content="x" * (100 * 1024 * 1024)))
    seconds, _status, last = run(folder, server, "--llm-cache-dir=llm_cache")
    sizes = sorted(p.stat().st_size for p in (folder / "llm_cache").rglob("*.json"))
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return f"{seconds:.1f} s {last} | cache files {sizes} | peak child RSS {peak_mb:.0f} MB"


SCENARIOS = {
    "full_disk": scenario_full_disk,
    "unwritable_cache": scenario_unwritable_cache,
    "drip": scenario_drip,
    "big": scenario_big,
    "huge": scenario_huge,
}


def main(names: list[str]) -> None:
    for name in names or list(SCENARIOS):
        with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
            print(f"{name:18} {SCENARIOS[name](Path(tmp), server)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
