"""Hostile servers: ``llm_timeout`` bounds the whole request, and the reply size is
capped at what the cache records and replays alike."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pytest_llmeval.models.cache import MAX_FILE_BYTES, MAX_REPLY_BYTES
from tests.fake_openai import FakeOpenAIServer, Reply
from tests.plugin.test_models_plugin import model_args, suite

FAST = ("-o", "llm_max_retries=0", "-p", "no:xdist", "-rE")


def test_a_server_dripping_a_valid_reply_is_cut_off_at_the_timeout(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=1)
    fake_openai.script(
        Reply(content="What is the capital of Norway?", drip=0.2)
    )  # ~300 bytes: 60 s
    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        *model_args(fake_openai, "-o", "llm_timeout=1", *FAST), timeout=120
    )
    elapsed = time.monotonic() - started
    # 1 s and pytest's start-up on a loaded machine; a read timeout that each byte resets takes 60 s
    assert elapsed < 30, f"took {elapsed:.1f} s"
    result.assert_outcomes(errors=1)
    assert "timed out after 1 s" in result.stdout.str()


def test_a_reply_over_the_cap_is_an_error_and_writes_no_cache_file(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=1)
    fake_openai.script(
        Reply(content="x" * (9 * 1024 * 1024))
    )  # recorded, it would be "corrupt" on replay
    result = pytester.runpytest_subprocess(*model_args(fake_openai, *FAST), timeout=120)
    result.assert_outcomes(errors=1)
    assert f"reply larger than {MAX_REPLY_BYTES} bytes" in result.stdout.str()
    assert list((pytester.path / "llm_cache").rglob("*.json")) == []


def test_an_unframed_endless_reply_is_read_only_up_to_the_cap(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    """No Content-Length: the body runs until the connection closes; reading stops at the cap."""
    suite(pytester, n=1)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
    fake_openai.script(
        Reply(raw=head + b'{"choices": [{"message": {"content": "' + b"y" * (6 * 1024 * 1024))
    )
    result = pytester.runpytest_subprocess(*model_args(fake_openai, *FAST), timeout=120)
    result.assert_outcomes(errors=1)
    assert "more than that sent" in result.stdout.str()


def test_a_reply_just_under_the_cap_is_recorded_and_replays(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=1)
    big = "What is the capital of Norway? " + "z" * (MAX_REPLY_BYTES - 4096)
    fake_openai.script(Reply(content=big))
    pytester.runpytest_subprocess(*model_args(fake_openai, *FAST)).assert_outcomes(failed=1)
    (path,) = (pytester.path / "llm_cache").rglob("*.json")
    assert path.stat().st_size <= MAX_FILE_BYTES
    fake_openai.reset()
    replay = pytester.runpytest_subprocess(*model_args(fake_openai, "--llm-record=none", *FAST))
    replay.assert_outcomes(failed=1)  # graded from the cache: not "corrupt", not bought again
    assert fake_openai.requests == []
    assert json.loads(Path(path).read_text())["response"]["text"] == big
