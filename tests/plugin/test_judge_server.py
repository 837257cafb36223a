"""A judge on a server of its own, over real HTTP against tests/fake_openai.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.errors import GraderError
from pytest_llmeval.judge.llm import REPAIR_ECHO_CHARS, judge_correctness
from pytest_llmeval.judge.settings import judge_settings
from pytest_llmeval.models import make_chat_model
from pytest_llmeval.models.format_memory import FILE_NAME, MAX_BYTES, FormatMemory
from pytest_llmeval.models.openai_chat import rejects_response_format
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply, small_model
from tests.plugin.test_llm_judge_plugin import CORRECTNESS, scripted_judge
from tests.unit.models.test_models import make_settings

QUESTION = "How did revenue change in FY2022?"
EXPECTED = "Revenue increased 8% to $394.3 billion."
SUITE = [
    {"id": "up", "question": QUESTION, "expected": EXPECTED, "eval_criteria": CORRECTNESS},
    {"id": "down", "question": QUESTION + " ", "expected": EXPECTED, "eval_criteria": CORRECTNESS},
]


def model_answer(body: dict[str, Any]) -> str:
    question = body["messages"][-1]["content"]
    return (
        "Revenue fell 8% to $394.3 billion."
        if question.endswith(" ")
        else "Revenue rose 8 percent to $394.3 billion."
    )


@pytest.fixture
def judge_server() -> Iterator[FakeOpenAIServer]:
    """A second fake server: the judge's."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


# -- the judge's own settings -------------------------------------------------------------------


def test_judge_settings_fall_back_to_the_model_only_where_they_should() -> None:
    settings = make_settings(
        base_url="http://model:1/v1",
        temperature=0.7,
        max_tokens=64,
        timeout=9.0,
        extra_body={"top_k": 5},
    )
    judge = judge_settings(settings)
    assert (judge.base_url, judge.api_key_env, judge.timeout) == (
        "http://model:1/v1",
        "OPENAI_API_KEY",
        9.0,
    )
    # never inherited: these tune the model under test
    assert (judge.temperature, judge.max_tokens, judge.extra_body) == (0.0, None, {})
    own = judge_settings(
        make_settings(
            base_url="http://model:1/v1",
            judge_base_url="http://judge:2/v1",
            judge_api_key_env="JUDGE_KEY",
            judge_temperature=0.2,
            judge_max_tokens=300,
            judge_timeout=30.0,
            judge_extra_body={"cache_prompt": True},
        )
    )
    assert (own.base_url, own.api_key_env, own.temperature) == (
        "http://judge:2/v1",
        "JUDGE_KEY",
        0.2,
    )
    assert (own.max_tokens, own.timeout, own.extra_body) == (300, 30.0, {"cache_prompt": True})
    assert judge_settings(own) == own  # idempotent


def test_model_and_judge_on_two_servers(
    pytester: pytest.Pytester,
    fake_openai: FakeOpenAIServer,
    judge_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.reply_with(model_answer)
    judge_server.reply_with(scripted_judge)
    judge_server.api_key = "judge-secret"  # any other bearer token gets 401 (a fatal error)
    monkeypatch.setenv("JUDGE_KEY", "judge-secret")
    # the judge's settings from the ini file, the model's from the command line: both spellings
    pytester.makeini(
        f"""
        [pytest]
        llm_judge = openai:judge-model
        llm_judge_base_url = {judge_server.url}
        llm_judge_api_key_env = JUDGE_KEY
        llm_judge_max_tokens = 300
        llm_judge_timeout = 20
        llm_judge_extra_body = {{"cache_prompt": true}}
        """
    )
    result = pytester.runpytest(
        "--llm-model=openai:answer-model",
        f"--llm-base-url={fake_openai.url}",
        "-o",
        "llm_temperature=0.7",
        "-o",
        "llm_max_tokens=64",
        "-o",
        'llm_extra_body={"top_k": 5}',
        "--llm-cache-dir=cache",
        "-p",
        "no:xdist",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert {r["model"] for r in fake_openai.requests} == {"answer-model"}
    assert len(fake_openai.requests) == 2
    assert all(
        (r["temperature"], r["max_tokens"], r["top_k"]) == (0.7, 64, 5)
        for r in fake_openai.requests
    )
    assert {r["model"] for r in judge_server.requests} == {"judge-model"}
    assert len(judge_server.requests) == 2
    for body in judge_server.requests:
        assert (body["temperature"], body["max_tokens"], body["cache_prompt"]) == (0, 300, True)
        assert "top_k" not in body
    assert {h["authorization"] for h in judge_server.request_headers} == {"Bearer judge-secret"}


def test_judge_temperature_is_its_own_and_zero_by_default(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, judge_server: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])
    fake_openai.reply_with(model_answer)
    judge_server.reply_with(scripted_judge)
    args = [
        "--llm-model=answer-model",
        f"--llm-base-url={fake_openai.url}",
        "-o",
        "llm_temperature=0.9",
        "--llm-judge=openai:judge-model",
        "-o",
        f"llm_judge_base_url={judge_server.url}",
        "-p",
        "no:xdist",
    ]
    pytester.runpytest(*args, "--llm-record=off").assert_outcomes(passed=1)
    pytester.runpytest(
        *args, "--llm-record=off", "-o", "llm_judge_temperature=0.3"
    ).assert_outcomes(passed=1)
    assert [r["temperature"] for r in fake_openai.requests] == [0.9, 0.9]
    assert [r["temperature"] for r in judge_server.requests] == [0, 0.3]


def test_a_missing_judge_key_names_the_judge_flag(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("MY_JUDGE_KEY", raising=False)
    write_suite(pytester, [{**SUITE[0], "response": "Revenue rose 8%."}])
    result = pytester.runpytest(
        "--llm-judge=openai:gpt-judge",
        "-o",
        "llm_judge_api_key_env=MY_JUDGE_KEY",
        "--llm-record=off",
        "-p",
        "no:xdist",
    )
    result.assert_outcomes(errors=1)  # refused before any request: no network
    result.stdout.fnmatch_lines(
        [
            "*no API key: set the environment variable MY_JUDGE_KEY (or name another one with llm_judge_api_key_env)*"
        ]
    )


def test_bad_judge_option_names_both_spellings(pytester: pytest.Pytester) -> None:
    write_suite(pytester, SUITE[:1])
    result = pytester.runpytest("-o", "llm_judge_timeout=0", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini llm_judge_timeout='0': must be a number of seconds > 0*"]
    )


# -- a bounded, named repair request -------------------------------------------------------------


@pytest.fixture
def http_judge(fake_openai: FakeOpenAIServer, tmp_path: Path) -> Iterator[Any]:
    model = make_chat_model(
        "openai:judge-model",
        make_settings(base_url=fake_openai.url, max_retries=0, record="off"),
        rootdir=tmp_path,
    )
    yield model
    model.close()


LOOPING = (
    '{"reasons": ["' + "the revenue rose " * 3000
)  # a small model looping until its context is full


def test_repair_request_sends_back_a_bounded_reply(
    fake_openai: FakeOpenAIServer, http_judge: Any
) -> None:
    fake_openai.script(LOOPING)
    fake_openai.reply_with(
        lambda body: json.dumps({"reasons": ["same"], "verdict": "factually matching"})
    )
    verdict = judge_correctness(
        http_judge, question=QUESTION, expected=EXPECTED, response="Revenue rose 8%."
    )
    assert verdict.correct
    assert len(fake_openai.requests) == 2
    echoed = fake_openai.requests[1]["messages"][-2]
    assert echoed["role"] == "assistant"
    assert echoed["content"].startswith(LOOPING[:REPAIR_ECHO_CHARS])
    assert len(echoed["content"]) < REPAIR_ECHO_CHARS + 100 < len(LOOPING)
    assert (
        f"[... {len(LOOPING) - REPAIR_ECHO_CHARS} more characters cut by pytest-llmeval ...]"
        in echoed["content"]
    )
    # the whole repair request is about the size of the first one, not that plus the loop
    sizes = [len(json.dumps(r["messages"])) for r in fake_openai.requests]
    assert sizes[1] < sizes[0] + REPAIR_ECHO_CHARS + 1000


def test_a_failing_repair_request_is_named_as_the_repair(
    fake_openai: FakeOpenAIServer, http_judge: Any
) -> None:
    fake_openai.script(
        LOOPING,
        Reply.error(
            400, "This model's maximum context length is 2048 tokens", type="invalid_request_error"
        ),
    )
    with pytest.raises(GraderError) as info:
        judge_correctness(
            http_judge, question=QUESTION, expected=EXPECTED, response="Revenue rose 8%."
        )
    message = str(info.value)
    assert "failed on the repair request (first reply unusable: not JSON" in message
    assert "maximum context length is 2048 tokens" in message
    assert len(message) < 1000


def test_an_unusable_repair_reply_says_so(fake_openai: FakeOpenAIServer, http_judge: Any) -> None:
    fake_openai.reply_with(lambda body: "Sure! It matches.")
    with pytest.raises(
        GraderError,
        match=r"after one repair request \(the repair request's reply was unusable too\)",
    ):
        judge_correctness(
            http_judge, question=QUESTION, expected=EXPECTED, response="Revenue rose 8%."
        )


# -- the schema in the form each server family takes, remembered per endpoint ---------------------

JUDGED = [
    {
        "id": "up",
        "question": QUESTION,
        "expected": EXPECTED,
        "eval_criteria": CORRECTNESS,
        "response": "Revenue rose 8 percent to $394.3 billion.",
    },
    {
        "id": "down",
        "question": QUESTION,
        "expected": EXPECTED,
        "eval_criteria": CORRECTNESS,
        "response": "Revenue fell 8% to $394.3 billion.",
    },
]


def wire_forms(server: FakeOpenAIServer) -> list[str]:
    """Which form each request asked for the schema in."""
    forms = []
    for body in server.requests:
        fmt = body.get("response_format") or {}
        field = next(
            (f for f in ("structured_outputs", "guided_json", "format") if f in body), None
        )
        forms.append(
            fmt.get("type", "") + ("+schema" if "schema" in fmt else "")
            if fmt
            else field or "prompt"
        )
    return forms


def test_llama_cpp_python_judge_gets_the_schema_inside_json_object(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, JUDGED)
    fake_openai.play_llama_cpp_python(scripted_judge)
    args = [
        "--llm-judge=openai:judge-model",
        "-o",
        f"llm_judge_base_url={fake_openai.url}",
        "--llm-cache-dir=cache",
    ]
    result = pytester.runpytest(*args, "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    # one refused json_schema for the endpoint, then the schema inside json_object
    assert wire_forms(fake_openai) == ["json_schema", "json_object+schema", "json_object+schema"]
    schema = fake_openai.requests[1]["response_format"]["schema"]
    assert schema["required"] == ["reasons", "verdict"]
    memory = json.loads((pytester.path / "cache" / FILE_NAME).read_text())
    assert memory["endpoints"][fake_openai.url.rstrip("/")]["form"] == "json_object+schema"

    # the next run (re-recording every reply, with xdist) opens with the form that worked
    fake_openai.requests.clear()
    result = pytester.runpytest_subprocess(*args, "--llm-record=all", "-n", "2")
    result.assert_outcomes(passed=1, failed=1)
    assert wire_forms(fake_openai) == ["json_object+schema"] * 2


def test_without_the_schema_the_small_model_copies_it_back(fake_openai: FakeOpenAIServer) -> None:
    """Why a bare json_object fallback is not enough: the model copies the schema back, so every sample would be an error."""
    fake_openai.play_llama_cpp_python(scripted_judge)
    body = {
        "messages": [
            {"role": "user", "content": 'Q\n\nIt must match this JSON Schema:\n{"type": "object"}'}
        ],
        "response_format": {"type": "json_object"},
    }
    assert small_model(body, scripted_judge) == '{"type": "object"}'


def test_error_names_every_form_tried(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, JUDGED[:1])
    fake_openai.play_llama_cpp_python(scripted_judge)
    fake_openai.accepted_formats = {"text"}  # refuses json_object too
    fake_openai.refused_fields = {"structured_outputs", "guided_json", "format"}
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-record=off",
        "-p",
        "no:xdist",
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*unusable JSON after one repair request*(structured output: json_schema refused, json_object+schema "
            "refused, structured_outputs refused, guided_json refused, format refused, json_object refused, "
            "prompt used*",
        ]
    )
    assert wire_forms(fake_openai) == [
        "json_schema",
        "json_object+schema",
        "structured_outputs",
        "guided_json",
        "format",
        "json_object",
        "prompt",
        "prompt",  # the repair request
    ]
    assert "could not be used" in fake_openai.requests[-1]["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("refused", "expected"),
    [
        (set(), "structured_outputs"),  # vLLM >= 0.10.2
        ({"structured_outputs"}, "guided_json"),  # vLLM before
        ({"structured_outputs", "guided_json"}, "format"),  # Ollama
    ],
)
def test_vllm_and_ollama_forms_carry_the_schema(
    fake_openai: FakeOpenAIServer, tmp_path: Path, refused: set[str], expected: str
) -> None:
    fake_openai.accepted_formats = {"text"}
    fake_openai.refused_fields = refused
    fake_openai.reply_with(scripted_judge)
    model = make_chat_model(
        "judge-model", make_settings(base_url=fake_openai.url, record="off"), rootdir=tmp_path
    )
    try:
        judge_correctness(model, question=QUESTION, expected=EXPECTED, response="Revenue rose 8%.")
    finally:
        model.close()
    last = fake_openai.requests[-1]
    schema = last[expected]["json"] if expected == "structured_outputs" else last[expected]
    assert schema["properties"]["verdict"]["enum"] == [
        "factually matching",
        "factually contradicting",
    ]


def test_a_remembered_form_the_server_now_refuses_is_chosen_again(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "cache").mkdir()
    memory = tmp_path / "cache" / FILE_NAME
    memory.write_text(
        json.dumps(
            {"version": 1, "endpoints": {fake_openai.url: {"form": "guided_json", "tried": "x"}}}
        )
    )
    fake_openai.play_llama_cpp_python(scripted_judge)
    fake_openai.refused_fields = {"guided_json"}
    model = make_chat_model(
        "judge-model", make_settings(base_url=fake_openai.url, cache_dir="cache"), rootdir=tmp_path
    )
    try:
        verdict = judge_correctness(
            model, question=QUESTION, expected=EXPECTED, response="Revenue rose 8%."
        )
    finally:
        model.close()
    assert verdict.correct
    assert wire_forms(fake_openai) == ["guided_json", "json_schema", "json_object+schema"]
    assert (
        json.loads(memory.read_text())["endpoints"][fake_openai.url]["form"] == "json_object+schema"
    )


def test_the_memory_file_is_untrusted_and_keeps_no_credentials(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    for junk in (
        b"\xff not json",
        b"[1, 2]",
        b'{"version": 1, "endpoints": {"http://a/v1": {"form": "rm -rf"}}}',
        b" " * (MAX_BYTES + 1),
        b"[" * 100000,
    ):
        path.write_bytes(junk)
        assert FormatMemory(tmp_path).get("http://a/v1") is None
    FormatMemory(tmp_path).put(
        "https://user:sk-secret@host:8443/v1/?key=sk-secret", "json_schema", "json_schema used"
    )
    assert "sk-secret" not in path.read_text()
    assert FormatMemory(tmp_path).get("https://host:8443/v1") == ("json_schema", "json_schema used")


# -- latency under concurrency, each figure named for what it is ----------------------------------

SERVICE_S = 0.3
FOUR = [
    {
        "id": f"q{i}",
        "question": f"Question {i}?",
        "expected": f"Question {i}?",
        "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
    }
    for i in range(4)
]


def run_against_one_slot(
    pytester: pytest.Pytester, server: FakeOpenAIServer, *args: str
) -> dict[str, Any]:
    write_suite(pytester, FOUR)
    server.one_at_a_time = True  # llama.cpp -np 1: requests wait in the server's queue
    server.latency = SERVICE_S
    result = pytester.runpytest_subprocess(
        "--llm-model=answer-model",
        f"--llm-base-url={server.url}",
        "--llm-record=off",
        "--llm-report=r.json",
        "-p",
        "no:xdist",
        *args,
    )
    result.assert_outcomes(passed=4)
    stats: dict[str, Any] = json.loads((pytester.path / "r.json").read_text())["model_stats"]
    stats["line"] = next(line for line in result.outlines if line.startswith("model calls:"))
    return stats


def test_server_queue_and_service_time_apart_when_the_server_reports_timings(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.report_timings = True
    stats = run_against_one_slot(pytester, fake_openai, "--llm-concurrency=4")
    # several sent at once (slow start: 2, then more); the server serves one at a time
    assert fake_openai.max_in_flight >= 2
    # a round trip of 0.6 s or more holds 0.3 s of model time; the rest is the server's queue
    assert sorted(stats["latencies"])[-1] >= 1.8 * SERVICE_S
    assert len(stats["service_times"]) == 4
    assert all(0.9 * SERVICE_S <= s <= 2 * SERVICE_S for s in stats["service_times"])
    assert stats["server_queue_p95_s"] >= 0.8 * SERVICE_S
    assert "(round trip, includes waiting in the server's queue)" in stats["line"]
    assert "server time median 0.3" in stats["line"]
    assert "server queue median" in stats["line"]


def test_without_server_timings_the_figure_says_it_is_a_round_trip(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    stats = run_against_one_slot(pytester, fake_openai, "--llm-concurrency=4")
    assert sorted(stats["latencies"])[-1] >= 1.8 * SERVICE_S  # the queue is in the figure...
    assert (
        "(round trip, includes waiting in the server's queue)" in stats["line"]
    )  # ...and it says so
    assert "server time" not in stats["line"]
    assert stats["service_times"] == []
    assert stats["service_median_s"] is None


def test_one_client_slot_moves_the_queue_to_our_side(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    stats = run_against_one_slot(pytester, fake_openai, "--llm-concurrency=1")
    assert fake_openai.max_in_flight == 1
    assert all(lat < 2 * SERVICE_S for lat in stats["latencies"])  # no server queue now
    assert sorted(stats["slot_waits"])[-1] >= 2.5 * SERVICE_S  # the last waited for three others
    assert "waited for a client slot median" in stats["line"]


def test_the_memory_keeps_every_endpoint_without_a_file(tmp_path: Path) -> None:
    memory = FormatMemory(None)  # --llm-record=off: this run only
    memory.put("http://a/v1", "json_schema", "json_schema used")
    memory.put("http://b/v1", "format", "json_schema refused, format used")
    assert memory.get("http://a/v1") == ("json_schema", "json_schema used")
    memory.forget("http://a/v1")
    assert memory.get("http://a/v1") is None
    assert memory.get("http://b/v1/") == ("format", "json_schema refused, format used")


@pytest.mark.parametrize(
    ("status", "message", "refused"),
    [
        (
            500,
            'response_format type must be one of "text" or "json_object", but got: json_schema',
            True,
        ),  # llama.cpp 2024
        (400, "Unrecognized request argument supplied: guided_json", True),  # OpenAI
        (400, "Unrecognized request argument supplied: structured_outputs", True),
        (400, "Unrecognized request argument supplied: format", True),
        (500, "CUDA out of memory", False),  # retried, not a refusal of the form
        (429, "json_schema requests are rate limited", False),  # a rate limit is never a refusal
    ],
)
def test_which_error_replies_refuse_a_form(status: int, message: str, refused: bool) -> None:
    assert rejects_response_format(status, message) is refused
