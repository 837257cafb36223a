"""FIFOs and devices where a run reads its own files (history, cache, format memory): only
regular files are read, so none of them blocks the run or fills its memory."""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.bounded_json import read_lines
from pytest_llmeval.fileio import NotRegularFileError
from pytest_llmeval.history.store import RUNS, History
from pytest_llmeval.models.cache import ResponseCache
from pytest_llmeval.models.format_memory import FILE_NAME, FormatMemory
from pytest_llmeval.options import RecordMode
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def finishes(call: Callable[[], Any], seconds: float = 20.0) -> Any:
    """``call()``'s result; fails (instead of hanging) when it blocks. A blocked read is left in a
    daemon thread: releasing it would let it go on to the next file."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as exc:  # raised again in the test's thread
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked on a file that is not a regular file"
    if isinstance(out[0], Exception):
        raise out[0]
    return out[0]


def test_a_fifo_or_device_among_history_runs_is_skipped_with_a_warning(tmp_path: Path) -> None:
    runs = tmp_path / RUNS
    runs.mkdir()
    os.mkfifo(runs / "20260101T000000000000Z-fifo.json.gz")
    (runs / "20260101T000000000001Z-zero.json.gz").symlink_to("/dev/zero")
    history = finishes(lambda: History.load(tmp_path))
    assert history.runs == []
    assert len(history.warnings) == 2
    assert all("not a regular file" in w for w in history.warnings)
    assert "FIFO" in history.warnings[0]
    assert "character device" in history.warnings[1]


def test_a_fifo_as_the_structured_output_memory_is_no_memory(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / FILE_NAME)
    assert finishes(lambda: FormatMemory(tmp_path).get("http://127.0.0.1:1/v1")) is None


def test_a_fifo_or_device_in_place_of_a_cached_reply_is_a_miss_that_says_why(
    tmp_path: Path,
) -> None:
    cache = ResponseCache(tmp_path, "openai:m", RecordMode.ONCE)
    cache.dir.mkdir(parents=True)
    os.mkfifo(cache.path_for("a" * 64))
    cache.path_for("b" * 64).symlink_to("/dev/zero")
    for key in ("a" * 64, "b" * 64):
        record, problem = finishes(functools.partial(cache.load, key))
        assert record is None
        assert "not a regular file" in str(problem)


def test_a_jsonl_reader_refuses_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "g.jsonl")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        finishes(lambda: list(read_lines(tmp_path / "g.jsonl")))


def test_a_run_with_a_fifo_as_its_structured_output_memory_finishes(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "rev",
                "question": "How did revenue change?",
                "expected": "Revenue rose 8%.",
                "response": "Revenue increased by 8 percent.",
                "eval_criteria": {"accuracy": "answer_correctness", "weights": {"length": 0}},
            }
        ],
    )
    (pytester.path / "cache").mkdir()
    os.mkfifo(pytester.path / "cache" / FILE_NAME)
    fake_openai.reply_with(
        lambda body: json.dumps({"reasons": ["same"], "verdict": "factually matching"})
    )
    result = pytester.runpytest_subprocess(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=cache",
        "-p",
        "no:xdist",
        timeout=60,
    )
    result.assert_outcomes(passed=1)
