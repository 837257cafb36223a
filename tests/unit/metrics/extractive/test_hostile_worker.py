"""The maths worker never outlives pytest, and no timeout is unbounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_llmeval.metrics.extractive import match as extractive
from pytest_llmeval.metrics.extractive import worker as _math_worker

ROOT = Path(__file__).resolve().parents[4]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_timeouts_have_a_ceiling() -> None:
    assert extractive.MAX_TIMEOUT == _math_worker.MAX_TIMEOUT
    with pytest.raises(ValueError, match="<= 60"):
        extractive.extractive_match("1", "1", timeout=1e9)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_kill_9_of_pytest_leaves_no_math_worker_behind(tmp_path: Path) -> None:
    (tmp_path / "test_busy.py").write_text(
        "from pytest_llmeval.metrics.extractive.match import extractive_match\n"
        "def test_busy():\n"
        "    extractive_match('$10000000!$', '$3$', timeout=50)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Wait for the worker (child of pytest) and its busy evaluator (grandchild).
        deadline = time.monotonic() + 60
        family: list[int] = []
        while time.monotonic() < deadline:
            workers = _children(proc.pid)
            family = workers + [g for w in workers for g in _children(w)]
            if len(family) >= 2:
                break
            time.sleep(0.2)
        assert len(family) >= 2, "the maths worker never started"
        time.sleep(1.0)  # the evaluator is now spinning on 10000000!
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in family):
        time.sleep(0.1)
    assert [p for p in family if _alive(p)] == []
