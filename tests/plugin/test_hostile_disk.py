"""Disk faults: a full or unwritable cache folder stops the run at once, before a
reply is paid for and thrown away; an empty lock never counts as a live holder."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pytest_llmeval.models.cache import EMPTY_LOCK_STALE_S, ResponseCache
from pytest_llmeval.options import RecordMode
from tests.disk_helpers import tmpfs
from tests.fake_openai import FakeOpenAIServer
from tests.plugin.test_models_plugin import suite

FAST = ("-o", "llm_timeout=1", "-o", "llm_max_retries=0", "-p", "no:xdist")


def cache_args(server: FakeOpenAIServer, cache_dir: Path | str, *extra: str) -> list[str]:
    return [
        "--llm-model=gpt-test",
        f"--llm-base-url={server.url}",
        f"--llm-cache-dir={cache_dir}",
        *FAST,
        *extra,
    ]


def test_a_full_disk_under_the_cache_is_one_immediate_error_before_any_request(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    suite(pytester, n=3)
    with tmpfs(tmp_path / "full", full=True) as disk:
        started = time.monotonic()
        result = pytester.runpytest_subprocess(*cache_args(fake_openai, disk / "cache"), timeout=90)
        elapsed = time.monotonic() - started
    output = result.stdout.str()
    assert elapsed < 20, f"took {elapsed:.0f} s"  # not 61 s a sample waiting for a stale lock
    assert fake_openai.requests == []  # nothing bought to be thrown away
    assert "No space left on device" in output
    assert str(disk / "cache") in output
    assert "Traceback" not in output
    assert result.ret != 0
    assert (
        result.parseoutcomes().get("errors") == 1
    )  # one error and the run stops, not one per sample


def test_an_empty_lock_file_of_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "openai:m", RecordMode.NEW)
    lock = cache.lock_path("k")
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")  # created, never written (disk full, or killed in between)
    old = time.time() - EMPTY_LOCK_STALE_S - 1
    os.utime(lock, (old, old))
    assert cache.try_lock("k", stale_after=600)
    assert lock.read_text().strip()  # now holds our host and pid


def test_a_fresh_empty_lock_still_counts_as_held(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "openai:m", RecordMode.NEW)
    lock = cache.lock_path("k")
    lock.parent.mkdir(parents=True)
    lock.write_bytes(b"")  # a holder between creating and writing it
    assert not cache.try_lock("k", stale_after=600)


def test_a_lock_that_cannot_be_written_is_removed_and_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_llmeval.errors import CacheUnwritableError

    cache = ResponseCache(tmp_path, "openai:m", RecordMode.NEW)
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fd: int) -> None:
            self.handle = real_fdopen(fd, "w")

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", **kw: Full(fd))
    with pytest.raises(CacheUnwritableError, match="No space left on device"):
        cache.try_lock("k", stale_after=600)
    assert not cache.lock_path("k").exists()  # no empty lock left for others to wait on


@pytest.mark.parametrize(
    "layout", ["file-in-its-place", "parent-is-a-file", "model-folder-is-a-file"]
)
def test_an_unwritable_cache_folder_is_checked_before_the_first_request(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, layout: str
) -> None:
    suite(pytester, n=2)
    if layout == "file-in-its-place":
        (pytester.path / "llm_cache").write_text("not a folder\n")
        cache_dir = "llm_cache"
    elif layout == "parent-is-a-file":
        (pytester.path / "parent").write_text("not a folder\n")
        cache_dir = "parent/llm_cache"
    else:  # a file where the model's cache folder goes
        (pytester.path / "llm_cache").mkdir()
        (pytester.path / "llm_cache" / "openai_gpt-test").write_text("not a folder\n")
        cache_dir = "llm_cache"
    result = pytester.runpytest_subprocess(*cache_args(fake_openai, cache_dir), "-rE", timeout=90)
    output = result.stdout.str()
    assert fake_openai.requests == []  # no paid call whose reply cannot be kept
    assert "cannot be written" in output
    assert str(pytester.path / cache_dir) in output
    assert "Traceback" not in output
    assert result.parseoutcomes().get("errors") == 1


def test_a_read_only_cache_folder_is_checked_before_the_first_request(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    suite(pytester, n=2)
    with tmpfs(tmp_path / "ro", read_only=True) as disk:
        result = pytester.runpytest_subprocess(
            *cache_args(fake_openai, disk / "cache"), "-rE", timeout=90
        )
    output = result.stdout.str()
    assert fake_openai.requests == []
    assert "Read-only file system" in output
    assert "Traceback" not in output
    assert result.parseoutcomes().get("errors") == 1


def test_a_read_only_cache_still_replays(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Replay only reads: a committed cache on a read-only checkout works in none and once modes."""
    suite(pytester, n=2)
    with tmpfs(tmp_path / "ro") as disk:
        pytester.runpytest_subprocess(*cache_args(fake_openai, disk / "cache")).assert_outcomes(
            passed=2
        )
        import subprocess

        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        fake_openai.reset()
        for mode in ("none", "once"):
            result = pytester.runpytest_subprocess(
                *cache_args(fake_openai, disk / "cache", f"--llm-record={mode}")
            )
            result.assert_outcomes(passed=2)
    assert fake_openai.requests == []


def test_a_disk_that_fills_mid_run_keeps_the_paid_reply_and_buys_no_more(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    suite(pytester, n=3)
    pytester.makeconftest(
        """
        import pytest_llmeval.models.cache as cache

        def full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        cache.write_atomic = full
        """
    )
    result = pytester.runpytest_subprocess(
        *cache_args(fake_openai, "llm_cache"), "--llm-concurrency=1", "-rEA"
    )
    output = result.stdout.str()
    assert len(fake_openai.requests) == 1  # the first reply is graded; no more are bought
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1
    assert "No space left on device" in output
    assert "Traceback" not in output


def test_an_unwritable_cache_folder_under_xdist_buys_nothing(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=6)
    (pytester.path / "llm_cache").mkdir()
    (pytester.path / "llm_cache" / "openai_gpt-test").write_text("not a folder\n")
    args = [
        "--llm-model=gpt-test",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
        "-n",
        "2",
    ]
    result = pytester.runpytest_subprocess(*args, timeout=120)
    assert fake_openai.requests == []
    assert (
        1 <= result.parseoutcomes().get("errors", 0) <= 2
    )  # one per worker at most, then the run stops
    assert "is a file, not a folder" in result.stdout.str()
