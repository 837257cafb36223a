"""Hostile caches and judges: invalid replies are never cached, corrupt files are named, misses are cheap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_llmeval.models.cache import ResponseCache, cache_key
from pytest_llmeval.options import RecordMode
from tests.conftest import write_suite
from tests.extras import needs
from tests.fake_openai import FakeOpenAIServer, Reply
from tests.plugin.test_llm_judge_plugin import SUITE, judge_args, scripted_judge
from tests.plugin.test_models_plugin import model_args, suite


def test_a_fixed_judge_regrades_samples_its_invalid_replies_errored(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.reply_with(lambda body: "I think it is correct!")  # not JSON: fails validation
    pytester.runpytest(*judge_args(fake_openai)).assert_outcomes(errors=2)
    cached = list((pytester.path / "cache").rglob("*.json"))
    assert cached == []  # nothing invalid was written

    fake_openai.reset()
    fake_openai.reply_with(scripted_judge)  # the judge is fixed
    pytester.runpytest(*judge_args(fake_openai)).assert_outcomes(passed=1, failed=1)
    assert len(fake_openai.requests) == 2


def test_an_invalid_reply_cached_by_an_older_version_is_asked_again(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])
    fake_openai.reply_with(scripted_judge)
    pytester.runpytest(*judge_args(fake_openai)).assert_outcomes(passed=1)
    (path,) = (pytester.path / "cache").rglob("*.json")
    record = json.loads(path.read_text())
    record["response"]["text"] = "not json at all"  # as an older version would have cached it
    path.write_text(json.dumps(record))
    fake_openai.reset()
    fake_openai.reply_with(scripted_judge)
    pytester.runpytest(*judge_args(fake_openai, "--llm-record=new")).assert_outcomes(passed=1)
    assert len(fake_openai.requests) == 1
    assert json.loads(path.read_text())["response"]["text"] != "not json at all"


CORRUPTIONS = {
    "truncated": lambda text: text[: len(text) // 2],
    "deep": lambda text: (
        '{"version": 2, "response": {"text": "x"}, "request": ' + "[" * 5000 + "]" * 5000 + "}"
    ),
    "list": lambda text: "[1, 2]",
    "response-not-object": lambda text: json.dumps({**json.loads(text), "response": "oops"}),
    "junk-usage": lambda text: json.dumps(
        {
            **json.loads(text),
            "response": {**json.loads(text)["response"], "usage": {"prompt_tokens": "many"}},
        }
    ),
    "binary": lambda text: "\udcff",
}


def test_corrupt_cache_files_are_errors_naming_the_file_and_re_recorded_under_new(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=len(CORRUPTIONS) + 1)
    pytester.runpytest(*model_args(fake_openai)).assert_outcomes(passed=len(CORRUPTIONS) + 1)
    files = {
        json.loads(p.read_text())["label"]: p for p in (pytester.path / "llm_cache").rglob("*.json")
    }
    for i, corrupt in enumerate(CORRUPTIONS.values()):
        path = files[f"s{i}"]
        path.write_bytes(corrupt(path.read_text()).encode("utf-8", "surrogateescape"))

    fake_openai.reset()
    result = pytester.runpytest(*model_args(fake_openai, "--llm-record=none"), "-rE")
    outcomes = result.parseoutcomes()
    # junk usage counts as 0 tokens, the reply is fine: 2 samples pass, every other file is named.
    assert outcomes["passed"] == 2
    assert outcomes["errors"] == len(CORRUPTIONS) - 1
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "INTERNALERROR" not in output
    for i, name in enumerate(CORRUPTIONS):
        if name != "junk-usage":
            assert files[f"s{i}"].name in output, name
    result.stdout.fnmatch_lines(["*is corrupt: nested more than 64 levels deep*"])
    assert fake_openai.requests == []

    result = pytester.runpytest(*model_args(fake_openai, "--llm-record=new"))
    result.assert_outcomes(passed=len(CORRUPTIONS) + 1)
    assert len(fake_openai.requests) == len(CORRUPTIONS) - 1


def test_a_replay_miss_with_many_long_cached_prompts_is_explained_quickly(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "openai:gpt-test", RecordMode.NEW)
    boilerplate = " ".join(f"w{i}" for i in range(3000))  # a long shared system prompt
    for i in range(100):
        text = f"{boilerplate} question {i} about topic{i} in year {1900 + i}"
        identity = {
            "kind": "openai",
            "model": "gpt-test",
            "messages": [{"role": "user", "content": text}],
        }
        cache.put(cache_key(identity), identity, {"text": "x"}, label=f"s{i}")
    replay = ResponseCache(tmp_path, "openai:gpt-test", RecordMode.NONE)
    asked = {
        "kind": "openai",
        "model": "gpt-test",
        "messages": [
            {
                "role": "user",
                "content": f"{boilerplate} question 7 about topic7 in year 1907, changed",
            }
        ],
    }
    messages = [str(replay.miss_error(cache_key(asked), asked, label=f"t{i}")) for i in range(10)]
    # The shortlist still finds the rotation it was asked about (speed: benchmarks/bench_hostile_cache.py).
    assert "(label 's7')" in messages[0].split("nearest cached requests:")[1].splitlines()[1]


def test_an_unlabelled_miss_still_finds_the_nearest_by_content(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, "m", RecordMode.NEW)
    for text in [
        "What is the capital of Norway?",
        "Who painted the Mona Lisa?",
        "How many legs does a spider have?",
    ]:
        identity = {"messages": [{"role": "user", "content": text}]}
        cache.put(cache_key(identity), identity, {"text": "x"}, label=text[:8])
    asked = {"messages": [{"role": "user", "content": "Who painted the Mona Lisa??"}]}
    near = ResponseCache(tmp_path, "m", RecordMode.NONE).nearest(asked)
    assert near[0][1]["label"] == "Who pain"
    assert near[0][0] > 0.9


CANARY = "sk-canary-0123456789abcdef"


@needs("html")
def test_the_api_key_echoed_by_a_server_reaches_no_written_file(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(pytester, n=2)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    fake_openai.echo_authorization = (
        400  # "Bad request; headers: Authorization: Bearer sk-canary-..."
    )
    # A process of its own: whatever it writes to its stdout and stderr (fd level included) is read.
    result = pytester.runpytest_subprocess(
        *model_args(
            fake_openai, "-o", "llm_max_retries=0", "--llm-report=r.json", "--llm-html=r.html"
        ),
        "--junitxml=junit.xml",
        "-rE",
    )
    result.assert_outcomes(errors=2)
    assert (
        fake_openai.request_headers[0]["authorization"] == f"Bearer {CANARY}"
    )  # the server saw it
    result.stdout.fnmatch_lines(["*Authorization: Bearer [[]REDACTED[]]*"])
    written = result.stdout.str() + result.stderr.str()
    written += "".join(
        p.read_text(errors="replace") for p in pytester.path.rglob("*") if p.is_file()
    )
    assert CANARY not in written


def test_credentials_in_the_base_url_are_not_written_into_cache_files(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=2)
    url = fake_openai.url.replace("http://", "http://user:hunter2secret@")
    result = pytester.runpytest(
        "--llm-model=gpt-test", f"--llm-base-url={url}", "--llm-cache-dir=llm_cache"
    )
    result.assert_outcomes(passed=2)
    assert fake_openai.request_headers[0]["authorization"].startswith("Basic ")  # sent, as asked
    files = list((pytester.path / "llm_cache").rglob("*.json"))
    assert len(files) == 2
    for path in files:
        text = path.read_text()
        assert "hunter2secret" not in text
        assert json.loads(text)["endpoint"] == fake_openai.url
    assert "hunter2secret" not in result.stdout.str()


def test_a_junk_usage_field_is_ignored_and_counted(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=2)
    fake_openai.script(
        Reply(
            body={
                "id": "x",
                "object": "chat.completion",
                "model": "gpt-test",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": "What is the capital of Norway?",
                        },
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": "lots", "completion_tokens": -3},
            }
        ),
    )
    result = pytester.runpytest(
        *model_args(fake_openai, "--llm-report=r.json", "--llm-concurrency=1")
    )
    outcomes = result.parseoutcomes()
    assert (
        outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2
    )  # the junk reply still answers
    stats = json.loads((pytester.path / "r.json").read_text())["model_stats"]
    assert stats["junk_usage"] == 1
    assert stats["calls"] == 2
