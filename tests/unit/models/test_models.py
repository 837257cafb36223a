"""Model layer against a real HTTP server on 127.0.0.1 (tests/fake_openai.py)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.errors import CacheMissError, FatalModelError, ModelError
from pytest_llmeval.models import AnswerService, make_chat_model, merge_stats, openai_chat
from pytest_llmeval.models.cache import cache_key
from pytest_llmeval.models.openai_chat import retry_after_seconds
from pytest_llmeval.options import Settings
from pytest_llmeval.sample import Sample
from tests.fake_openai import FakeOpenAIServer, Reply

QUESTIONS = [
    "What is the capital of France?",
    "Who wrote Pride and Prejudice?",
    "How many legs does a spider have?",
    "What is the boiling point of water at sea level in Celsius?",
    "Which planet is known as the Red Planet?",
    "What is the chemical symbol for gold?",
]


def make_settings(**overrides: Any) -> Settings:
    return Settings.defaults(**overrides)


def make_sample(index: int, question: str | None = None, *, response: str | None = None) -> Sample:
    question = question or f"{QUESTIONS[index % len(QUESTIONS)]} (variant {index})"
    return Sample(
        id=f"q{index:03d}",
        path="suite_eval.jsonl",
        line=index + 1,
        question=question,
        expected="-",
        messages=(
            {"role": "system", "content": "Answer in one sentence."},
            {"role": "user", "content": question},
        ),
        response=response,
    )


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_chat, "BACKOFF_BASE_S", 0.01)


@pytest.fixture
def service_for(fake_openai: FakeOpenAIServer, tmp_path: Path):  # type: ignore[no-untyped-def]
    services: list[AnswerService] = []

    def build(**overrides: Any) -> AnswerService:
        overrides.setdefault("model", "gpt-test")
        overrides.setdefault("base_url", fake_openai.url)
        service = AnswerService(make_settings(**overrides), rootdir=tmp_path)
        services.append(service)
        return service

    yield build
    for service in services:
        service.close()


# -- concurrency --------------------------------------------------------------------------


def test_concurrency_bound_is_reached_and_never_exceeded(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    fake_openai.latency = 0.1
    service = service_for(concurrency=4)
    service.answer(make_sample(99))  # warm up: importing openai is not what we measure
    fake_openai.reset()
    fake_openai.latency = 0.1
    samples = [make_sample(i) for i in range(24)]
    service.prefetch(samples)
    # 4 in flight at once is concurrency (a timed assertion would flake on a loaded machine; the
    # speed itself is benchmarks/bench_concurrency.py's)
    assert fake_openai.max_in_flight == 4
    assert len(fake_openai.requests) == 24
    answer = service.answer(samples[5])
    assert answer is not None
    assert answer.text == samples[5].question
    assert answer.source == "openai:gpt-test"
    assert len(fake_openai.requests) == 24  # answered from the prefetch


def test_prefetch_takes_only_this_workers_share(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    service = service_for()
    samples = [make_sample(i) for i in range(9)]
    service.prefetch(samples, worker_index=1, worker_count=3)
    asked = sorted(body["messages"][-1]["content"] for body in fake_openai.requests)
    assert asked == sorted(samples[i].question for i in (1, 4, 7))


def test_rpm_limit_spaces_requests(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    service = service_for(rpm=600.0, concurrency=8)  # one start every 0.1 s
    started = time.perf_counter()
    service.prefetch([make_sample(i) for i in range(5)])
    assert time.perf_counter() - started >= 0.38


# -- failures -----------------------------------------------------------------------------


def test_server_errors_are_retried_then_reported_with_status_body_and_attempts(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    fake_openai.reply_with(lambda body: Reply.error(503, "The engine is currently overloaded"))
    service = service_for(max_retries=2)
    sample = make_sample(0)
    service.prefetch([sample])
    with pytest.raises(ModelError) as info:
        service.answer(sample)
    assert len(fake_openai.requests) == 3
    assert info.value.status == 503
    assert info.value.attempts == 3
    message = str(info.value)
    assert "HTTP 503" in message
    assert "The engine is currently overloaded" in message
    assert "3 attempt" in message
    stats = service.stats()
    assert stats["retries"] == 2
    assert stats["errors"] == 1
    assert stats["calls"] == 0


@pytest.mark.parametrize(
    "raw", [b"[" * 100_000, b'{"id": ' + b"[" * 500 + b"]" * 500 + b"}", b"<html>"]
)
def test_a_batch_api_reply_that_is_not_usable_json_reads_as_none(raw: bytes) -> None:
    from pytest_llmeval.models.batch import meta_body

    assert meta_body(raw) is None
    assert meta_body(b'{"id": "batch_1"}') == {"id": "batch_1"}


def test_an_error_body_nested_too_deep_is_shown_as_text(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    body = "[" * 100_000
    fake_openai.reply_with(lambda _: Reply(status=503, body=body))
    with pytest.raises(ModelError) as info:
        service_for(max_retries=0).answer(make_sample(0))
    assert info.value.status == 503
    assert body[:100] in str(info.value)


def test_transient_failure_then_success(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.script(
        Reply.error(500, "internal"), Reply(drop=True), "Paris is the capital of France."
    )
    service = service_for(max_retries=4)
    answer = service.answer(make_sample(0))
    assert answer is not None
    assert answer.text == "Paris is the capital of France."
    assert len(fake_openai.requests) == 3
    assert service.stats()["retries"] == 2


def test_retry_after_is_honoured(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.script(
        Reply.error(429, "Rate limit reached", type="requests", headers={"Retry-After": "0.4"})
    )
    service = service_for()
    started = time.perf_counter()
    answer = service.answer(make_sample(0))
    assert time.perf_counter() - started >= 0.4
    assert answer is not None
    assert len(fake_openai.requests) == 2


def test_timeouts_are_retried_and_reported(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.reply_with(lambda body: Reply(content="too late", delay=3.0))
    service = service_for(timeout=0.3, max_retries=1)
    with pytest.raises(ModelError, match=r"timed out after 0\.3 s, 2 attempt") as info:
        service.answer(make_sample(0))
    assert info.value.attempts == 2
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(body="<html>Bad gateway</html>"), "body is not JSON"),
        (Reply(body="[" * 100_000), "body is not JSON"),
        (
            Reply(body='{"choices": ' + "[" * 500 + "]" * 500 + "}"),
            "body nested more than 64 levels deep",
        ),
        (Reply(body={"id": "chatcmpl-1", "object": "chat.completion"}), "no choices"),
        (Reply(content=""), "empty content"),
        (
            Reply(
                body={
                    "choices": [
                        {
                            "message": {"role": "assistant", "content": None},
                            "finish_reason": "length",
                        }
                    ]
                }
            ),
            "finish_reason='length'",
        ),
    ],
)
def test_malformed_replies_are_errors_not_silent_answers(
    fake_openai: FakeOpenAIServer, service_for: Any, reply: Reply, expected: str
) -> None:
    fake_openai.reply_with(lambda body: reply)
    service = service_for()
    with pytest.raises(ModelError, match="malformed reply") as info:
        service.answer(make_sample(0))
    assert expected in str(info.value)
    assert len(fake_openai.requests) == 1


def test_bad_request_is_not_retried(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.reply_with(
        lambda body: Reply.error(400, "This model's maximum context length is 8192 tokens")
    )
    service = service_for()
    with pytest.raises(ModelError, match="maximum context length") as info:
        service.answer(make_sample(0))
    assert not isinstance(info.value, FatalModelError)
    assert len(fake_openai.requests) == 1


def test_auth_failure_stops_the_prefetch_and_every_answer_raises_the_same_error(
    fake_openai: FakeOpenAIServer, service_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_openai.api_key = "sk-right"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    service = service_for(concurrency=1)
    samples = [make_sample(i) for i in range(20)]
    service.prefetch(samples)
    assert len(fake_openai.requests) == 1  # cancelled the rest instead of 20 identical 401s
    errors = []
    for sample in samples[:3]:
        with pytest.raises(FatalModelError) as info:
            service.answer(sample)
        errors.append(info.value)
    assert errors[0] is errors[1] is errors[2]
    assert errors[0].status == 401
    assert "authentication failed" in str(errors[0])
    assert "sk-wrong" not in str(errors[0])
    assert len(fake_openai.requests) == 1


def test_unknown_model_is_fatal(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.known_models = {"llama3:8b"}
    service = service_for(model="gpt-typo")
    with pytest.raises(FatalModelError, match=r"unknown model .* `gpt-typo` does not exist"):
        service.answer(make_sample(0))


def test_missing_key_for_the_openai_api_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("MY_TEAM_KEY", raising=False)
    service = AnswerService(
        make_settings(model="gpt-4o-mini", api_key_env="MY_TEAM_KEY"), rootdir=tmp_path
    )
    try:
        with pytest.raises(FatalModelError, match="set the environment variable MY_TEAM_KEY"):
            service.answer(make_sample(0))
    finally:
        service.close()


# -- cache and record modes ------------------------------------------------------------------


def test_replay_in_none_mode_makes_zero_requests(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path
) -> None:
    samples = [make_sample(i) for i in range(6)]
    recorder = service_for(record="new")
    recorder.prefetch(samples)
    first = [recorder.answer(s) for s in samples]
    assert len(fake_openai.requests) == 6

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "must not be called"))
    replayer = service_for(record="none")
    replayer.prefetch(samples)
    second = [replayer.answer(s) for s in samples]
    assert fake_openai.requests == []
    assert [a.text for a in second if a] == [a.text for a in first if a]
    assert all(a is not None and a.cached for a in second)
    stats = replayer.stats()
    assert (stats["calls"], stats["cache_hits"]) == (0, 6)


def test_replay_miss_explains_what_was_asked_and_how_to_record(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    service_for(record="new").answer(make_sample(0, "What is the capital of France?"))
    replayer = service_for(record="none")
    with pytest.raises(CacheMissError) as info:
        replayer.answer(make_sample(1, "What is the capital of Spain?"))
    message = str(info.value)
    assert "sample 'q001'" in message
    assert "[user] What is the capital of Spain?" in message
    assert "--llm-record=none replays only" in message
    assert "label 'q000'" in message  # the nearest cached request
    assert "differs in: messages" in message
    assert "--llm-record=new" in message
    assert len(fake_openai.requests) == 1


@pytest.mark.parametrize("where", ["localhost", "other port"])
def test_a_cache_recorded_at_one_host_replays_at_another_with_zero_requests(
    fake_openai: FakeOpenAIServer, service_for: Any, where: str
) -> None:
    samples = [make_sample(i) for i in range(4)]
    recorder = service_for(record="new")  # http://127.0.0.1:PORT/v1
    recorder.prefetch(samples)
    assert len(fake_openai.requests) == 4
    port = int(fake_openai.url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as probe:  # a port nobody listens on: any request would fail
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    url = f"http://localhost:{port}/v1" if where == "localhost" else f"http://127.0.0.1:{free}/v1"
    fake_openai.reset()
    replayer = service_for(record="none", base_url=url)
    replayer.prefetch(samples)
    answers = [replayer.answer(s) for s in samples]
    assert fake_openai.requests == []
    assert all(a is not None and a.cached for a in answers)
    assert (replayer.stats()["calls"], replayer.stats()["cache_hits"]) == (0, 4)


def test_format_1_cache_files_stay_readable_at_their_endpoint(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path
) -> None:
    from pytest_llmeval.models.cache import legacy_key

    sample = make_sample(0)
    service = service_for(record="none")
    chat = service.engine.chat("gpt-test")
    identity = chat.identity([dict(m) for m in sample.messages], None)
    old = {**identity, "endpoint": fake_openai.url}  # format 1 hashed and stored the endpoint
    key = legacy_key(identity, fake_openai.url)
    folder = tmp_path / ".llmeval_cache" / "openai_gpt-test"
    folder.mkdir(parents=True)
    record = {
        "version": 1,
        "key": key,
        "label": "q000",
        "request": old,
        "response": {"text": "Recorded by an older version.", "model": "gpt-test", "usage": {}},
    }
    (folder / f"{key}.json").write_text(json.dumps(record), encoding="utf-8")
    answer = service.answer(sample)
    assert answer is not None
    assert answer.text == "Recorded by an older version."
    assert fake_openai.requests == []


def test_changed_generation_settings_miss_the_cache(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    sample = make_sample(0)
    service_for(temperature=0.0).answer(sample)
    service_for(temperature=0.7).answer(sample)
    service_for(temperature=0.0, timeout=5.0).answer(sample)  # the timeout is not part of the key
    assert len(fake_openai.requests) == 2


def test_record_all_refreshes_and_off_writes_nothing(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path
) -> None:
    sample = make_sample(0)
    service_for(record="new").answer(sample)
    fake_openai.reply_with(lambda body: "A refreshed answer.")
    refreshed = service_for(record="all").answer(sample)
    assert refreshed is not None
    assert refreshed.text == "A refreshed answer."
    replay = service_for(record="none").answer(sample)
    assert replay is not None
    assert replay.text == "A refreshed answer."
    assert len(fake_openai.requests) == 2

    files_before = sorted(tmp_path.rglob("*.json"))
    service_for(record="off", model="other-model").answer(sample)
    service_for(record="off", model="other-model").answer(sample)
    assert len(fake_openai.requests) == 4
    assert sorted(tmp_path.rglob("*.json")) == files_before


def test_record_once_records_an_empty_cache_then_replays_only(
    fake_openai: FakeOpenAIServer, service_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-1")
    first = service_for(record="once")
    first.prefetch([make_sample(0), make_sample(1)])
    assert len(fake_openai.requests) == 2
    sibling = service_for(record="once")  # another xdist worker of the same run may still record
    assert sibling.answer(make_sample(3)) is not None
    assert len(fake_openai.requests) == 3

    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-2")
    second = service_for(record="once")
    assert second.answer(make_sample(1)) is not None
    with pytest.raises(CacheMissError, match="--llm-record=once replays only"):
        second.answer(make_sample(2))
    assert len(fake_openai.requests) == 3


def test_cache_file_is_readable_versioned_json_without_the_key(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret-value")
    service_for(seed=7, extra_body={"top_k": 5}).answer(
        make_sample(0, "Who painted the Mona Lisa?")
    )
    files = list((tmp_path / ".llmeval_cache" / "openai_gpt-test").glob("*.json"))
    assert len(files) == 1
    text = files[0].read_text(encoding="utf-8")
    assert "sk-very-secret-value" not in text
    assert "\n  " in text  # indented for diffs
    record = json.loads(text)
    assert list(record) == sorted(record)
    assert record["version"] == 2
    assert record["key"] == files[0].stem
    assert record["endpoint"] == fake_openai.url  # a note, not part of the key
    assert "endpoint" not in record["request"]
    assert record["label"] == "q000"
    assert record["request"]["params"]["seed"] == 7
    assert record["request"]["params"]["extra_body"] == {"top_k": 5}
    assert record["response"]["text"] == "Who painted the Mona Lisa?"
    assert fake_openai.requests[0]["top_k"] == 5  # extra body reached the server
    assert fake_openai.request_headers[0]["authorization"] == "Bearer sk-very-secret-value"
    assert not list((tmp_path / ".llmeval_cache").glob(".locks/*.lock"))


@pytest.mark.parametrize("record", ["new", "off"])
def test_workers_sharing_a_cache_call_each_request_exactly_once(
    fake_openai: FakeOpenAIServer,
    service_for: Any,
    record: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "off" keeps the project cache untouched but still shares a per-run scratch cache
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", "run-1")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    fake_openai.latency = 0.05
    samples = [make_sample(i) for i in range(12)]
    workers = [service_for(concurrency=3, record=record) for _ in range(2)]

    def run(index: int) -> None:
        workers[index].prefetch(samples, worker_index=index, worker_count=2)
        for sample in samples:  # items of the other worker's share too, as xdist may schedule them
            workers[index].answer(sample)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(fake_openai.requests) == 12
    merged = merge_stats([w.stats() for w in workers])
    assert merged["calls"] == 12
    assert (
        merged["cache_hits"] == 0
    )  # reading what the other worker fetched this run is no cache hit
    assert len(merged["latencies"]) == 12
    assert (tmp_path / ".llmeval_cache").exists() == (record == "new")
    # replies go to the per-run temp directory only with "off" (it also notes what this run fetched)
    run_dir = tmp_path / "tmp" / "pytest-llmeval-run-1"
    assert any(run_dir.glob("openai_*/*.json")) == (record == "off")


# -- providers and precedence -----------------------------------------------------------------


def test_python_provider_sync_and_async(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_app_bot.py").write_text(
        "import asyncio\n"
        "def answer(sample):\n"
        "    return {'text': 'Sync: ' + sample['question'], 'contexts': ['ctx one'], 'retrieved': ['doc-1'],\n"
        "            'usage': {'prompt_tokens': 11, 'completion_tokens': 3}}\n"
        "async def answer_async(sample):\n"
        "    await asyncio.sleep(0.01)\n"
        "    return 'Async: ' + sample['id']\n"
        "def broken(sample):\n"
        "    raise KeyError('retriever index missing')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sample = make_sample(0, "Where is the Eiffel Tower?")
    sync = AnswerService(make_settings(model="python:my_app_bot:answer"), rootdir=tmp_path)
    sync.prefetch([sample])
    answer = sync.answer(sample)
    assert answer is not None
    assert (answer.text, answer.contexts, answer.retrieved) == (
        "Sync: Where is the Eiffel Tower?",
        ["ctx one"],
        ["doc-1"],
    )
    assert answer.source == "python:my_app_bot:answer"
    assert sync.stats()["prompt_tokens"] == 11
    sync.close()

    async_service = AnswerService(
        make_settings(model="python:my_app_bot:answer_async"), rootdir=tmp_path
    )
    answer = async_service.answer(sample)
    assert answer is not None
    assert answer.text == "Async: q000"
    async_service.close()

    broken = AnswerService(make_settings(model="python:my_app_bot:broken"), rootdir=tmp_path)
    with pytest.raises(
        ModelError, match="raised for sample 'q000': KeyError: 'retriever index missing'"
    ):
        broken.answer(sample)
    broken.close()


def test_python_provider_bad_target_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(pytest.UsageError, match=r"expected python:package\.module:function"):
        AnswerService(make_settings(model="python:no_function_here"), rootdir=tmp_path)
    with pytest.raises(pytest.UsageError, match="cannot import 'no_such_module_xyz'"):
        AnswerService(make_settings(model="python:no_such_module_xyz:f"), rootdir=tmp_path)


def test_file_provider_joins_by_id_and_names_missing_ids(tmp_path: Path) -> None:
    (tmp_path / "predictions.jsonl").write_text(
        '{"id": "q000", "response": "Paris."}\n{"id": "q001", "text": "Jane Austen.", "retrieved": ["d3"]}\n',
        encoding="utf-8",
    )
    service = AnswerService(make_settings(model="file:predictions.jsonl"), rootdir=tmp_path)
    service.prefetch([make_sample(0), make_sample(1)])
    first, second = service.answer(make_sample(0)), service.answer(make_sample(1))
    assert first is not None
    assert second is not None
    assert (first.text, second.text, second.retrieved) == ("Paris.", "Jane Austen.", ["d3"])
    with pytest.raises(
        ModelError,
        match=r"has no prediction for sample 'q007' \(2 ids in the file, e.g. q000, q001\)",
    ):
        service.answer(make_sample(7))
    service.close()


def test_model_overrides_recorded_responses_and_no_model_uses_response_then_hook(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path
) -> None:
    recorded = make_sample(0, "Name a primary colour.", response="Blue.")
    with_model = service_for()
    answer = with_model.answer(recorded)
    assert answer is not None
    assert answer.text == "Name a primary colour."  # the model's echo, not the recorded "Blue."

    calls: list[str] = []

    def hook(sample: Sample) -> str | None:
        calls.append(sample.id)
        return "Generated by the app." if sample.id == "q001" else None

    without = AnswerService(make_settings(), rootdir=tmp_path, hook_generate=hook)
    by_response = without.answer(recorded)
    by_hook = without.answer(make_sample(1))
    assert by_response is not None
    assert by_hook is not None
    assert (by_response.text, by_response.source) == ("Blue.", "response")
    assert (by_hook.text, by_hook.source) == ("Generated by the app.", "hook")
    assert without.answer(make_sample(2)) is None
    assert calls == ["q001", "q002"]
    without.close()


# -- judge model and event loops ------------------------------------------------------------------


def test_chat_model_is_cached_and_shares_the_service_stats(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    fake_openai.reply_with(
        lambda body: json.dumps({"verdict": "supported", "format": body.get("response_format")})
    )
    service = service_for()
    judge = service.chat_model("openai:judge-model")
    messages = [{"role": "user", "content": "Is 'Paris' supported by the context?"}]
    schema = {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": {"type": "object"}},
    }
    first = judge.complete(messages, response_format=schema)
    second = judge.complete(messages, response_format=schema)
    assert json.loads(first.text)["format"] == schema
    assert (first.cached, second.cached) == (False, True)
    assert len(fake_openai.requests) == 1
    assert fake_openai.requests[0]["model"] == "judge-model"
    assert service.stats()["cache_hits"] == 1


@pytest.mark.asyncio
async def test_sync_calls_work_inside_a_running_event_loop(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    settings = make_settings(base_url=fake_openai.url)
    judge = make_chat_model("gpt-judge", settings, rootdir=tmp_path)
    try:
        reply = judge.complete([{"role": "user", "content": "Reply with yes."}])
    finally:
        judge.close()
    assert reply.text == "Reply with yes."
    service = AnswerService(
        make_settings(model="gpt-test", base_url=fake_openai.url), rootdir=tmp_path
    )
    try:
        service.prefetch([make_sample(0)])
        answer = service.answer(make_sample(0))
    finally:
        service.close()
    assert answer is not None
    assert asyncio.get_running_loop().is_running()


# -- small pieces ---------------------------------------------------------------------------------


def test_retry_after_parsing() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert (
        retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    )  # in the past
    assert retry_after_seconds({"retry-after": "3600"}) == openai_chat.RETRY_AFTER_CAP_S
    assert retry_after_seconds({}) is None


def test_merge_stats_sums_workers_and_recomputes_percentiles() -> None:
    first = {
        "calls": 2,
        "cache_hits": 1,
        "retries": 1,
        "errors": 0,
        "prompt_tokens": 10,
        "completion_tokens": 4,
        "latencies": [0.1, 0.3],
        "cost_usd": 0.5,
    }
    second = {
        "calls": 2,
        "cache_hits": 0,
        "retries": 0,
        "errors": 1,
        "prompt_tokens": 6,
        "completion_tokens": 2,
        "latencies": [0.2, 0.9],
        "cost_usd": None,
    }
    merged = merge_stats([first, None, second])
    assert (merged["calls"], merged["cache_hits"], merged["retries"], merged["errors"]) == (
        4,
        1,
        1,
        1,
    )
    assert (merged["prompt_tokens"], merged["completion_tokens"]) == (16, 6)
    assert merged["latency_median_s"] == pytest.approx(0.25)
    assert merged["latency_p95_s"] == 0.9
    assert merged["cost_usd"] == 0.5


def test_prices_give_a_cost(fake_openai: FakeOpenAIServer, service_for: Any) -> None:
    fake_openai.reply_with(
        lambda body: Reply(content="Four.", usage={"prompt_tokens": 1000, "completion_tokens": 500})
    )
    service = service_for(prices={"gpt-test": [0.15, 0.6]})
    service.answer(make_sample(0))
    assert service.stats()["cost_usd"] == pytest.approx(0.15 + 0.3)


class RecordingReporter:
    """Stands in for pytest's terminal reporter: records what the progress display writes."""

    def __init__(self, *, tty: bool, verbosity: int = 0) -> None:
        self.isatty = tty
        self.verbosity = verbosity
        self.rewrites: list[str] = []
        self.lines: list[str] = []

    def rewrite(self, line: str) -> None:
        self.rewrites.append(line)

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def test_progress_is_live_on_a_terminal_one_line_otherwise_and_silent_under_quiet(
    fake_openai: FakeOpenAIServer, service_for: Any
) -> None:
    fake_openai.script(*[Reply.error(400, "bad request")] * 1)
    samples = [make_sample(i) for i in range(5)]
    tty, pipe, quiet = (
        RecordingReporter(tty=True),
        RecordingReporter(tty=False),
        RecordingReporter(tty=True, verbosity=-1),
    )
    service_for(concurrency=1).prefetch(samples, reporter=tty)
    assert tty.rewrites[-1].startswith(
        "llmeval answers from openai:gpt-test: 5/5 done, 0 cached, 1 errors"
    )
    assert tty.lines == [""]  # ends the live line
    service_for().prefetch(samples, reporter=pipe)
    assert pipe.rewrites == []
    assert len(pipe.lines) == 1
    assert "5/5 done, 4 cached, 0 errors" in pipe.lines[0]  # the failed one is fetched again
    service_for().prefetch(samples, reporter=quiet)
    assert (quiet.rewrites, quiet.lines) == ([], [])


@pytest.mark.skipif(sys.platform == "win32", reason="dead-holder detection uses POSIX signal 0")
def test_a_lock_left_by_a_dead_worker_is_taken_over(
    fake_openai: FakeOpenAIServer, service_for: Any, tmp_path: Path
) -> None:
    sample = make_sample(0)
    service = service_for()
    engine = service.engine
    chat = engine.chat("gpt-test")
    cache = engine.cache_for(chat.name)
    assert cache is not None
    key = cache_key(chat.identity([dict(m) for m in sample.messages], None))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    cache.lock_dir.mkdir(parents=True, exist_ok=True)
    cache.lock_path(key).write_text(f"{socket.gethostname()} {dead.pid}\n", encoding="utf-8")
    started = time.perf_counter()
    answer = service.answer(sample)
    assert answer is not None
    assert time.perf_counter() - started < 5
    assert len(fake_openai.requests) == 1
    assert not cache.lock_path(key).exists()


# -- adaptive concurrency (AIMD) ------------------------------------------------------------------


@pytest.mark.parametrize("adaptive", [True, False])
def test_single_slot_server_gets_fewer_requests_in_flight_instead_of_timeouts(
    fake_openai: FakeOpenAIServer,
    service_for: Any,
    monkeypatch: pytest.MonkeyPatch,
    adaptive: bool,
) -> None:
    from pytest_llmeval.models import engine, limits

    class FixedLimit(limits.AdaptiveLimit):
        """A fixed bound: always --llm-concurrency, whatever the server says."""

        def __init__(self, maximum: int) -> None:
            super().__init__(maximum)
            self.limit = float(self.maximum)

        def release(self, taken_in: int, outcome: str = limits.OTHER) -> None:
            self.in_flight -= 1
            self._wake()

    if not adaptive:  # the control: a fixed bound must fail this very setup
        monkeypatch.setattr(engine, "AdaptiveLimit", FixedLimit)
    fake_openai.one_at_a_time = True  # llama.cpp with one slot: requests wait in line
    fake_openai.latency = 0.25
    samples = [make_sample(i) for i in range(8)]
    service = service_for(concurrency=8, timeout=0.8, max_retries=2, record="off")
    service.prefetch(samples)
    stats = service.stats()
    if adaptive:
        assert stats["errors"] == 0
        assert all(service.answer(s) is not None for s in samples)
        assert service.engine.semaphore.lowest <= 2  # halved on timeouts, not once per timeout
        assert len(fake_openai.requests) <= 2 * len(samples)
    else:
        assert stats["errors"] > 0


# -- an endpoint that is down ---------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_endpoint_stops_being_tried_after_a_few_refusals(
    tmp_path: Path, service_for: Any
) -> None:
    service = service_for(base_url=f"http://127.0.0.1:{_closed_port()}/v1", max_retries=3)
    samples = [make_sample(i) for i in range(30)]
    service.prefetch(samples)
    messages = []
    for sample in samples:
        with pytest.raises(ModelError) as info:
            service.answer(sample)
        messages.append(str(info.value))
    unreachable = [
        m for m in messages if "is unreachable" in m and "connection failures in a row" in m
    ]
    assert len(unreachable) >= 25, messages  # each would otherwise pay 4 attempts and 3 back-offs
    assert all("ConnectError" in m for m in messages)  # the cause is named either way
    assert service.stats()["errors"] == 30
    assert service.stats()["retries"] < 10  # instead of 3 per sample


def test_the_breaker_lets_one_trial_through_per_cool_down_and_closes_on_success() -> None:
    from pytest_llmeval.models.limits import Breaker

    breaker = Breaker(threshold=3, cool_down=5.0)
    for now in (0.0, 0.1, 0.2):
        assert not breaker.blocks(now)
        breaker.record(False, now)
    assert breaker.blocks(1.0)  # open: fail at once
    assert not breaker.blocks(5.3)  # the trial after the cool-down
    assert breaker.blocks(5.4)  # only one trial per cool-down
    breaker.record(False, 5.5)
    assert breaker.blocks(6.0)
    assert not breaker.blocks(10.4)
    breaker.record(True, 10.5)  # the endpoint is back
    assert not breaker.blocks(10.6)
    assert not breaker.blocks(10.7)
