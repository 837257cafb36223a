"""The LLM-judge path end to end over real HTTP: the model layer's OpenAI client against the
local fake server (tests/fake_openai.py), with scripted judge replies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.errors import GraderError
from pytest_llmeval.judge.llm import judge_correctness
from pytest_llmeval.metrics.freetext.claims import claims_f1
from pytest_llmeval.models import make_chat_model
from pytest_llmeval.options import Settings
from tests.fake_openai import FakeOpenAIServer, Reply
from tests.unit.judge.test_judge import INJECTION, rule_following_judge
from tests.unit.metrics.freetext.test_claims import (
    GOLD,
    GOLD_CLAIMS,
    QUESTION,
    RESPONSE,
    scripted_10b5_judge,
)


@pytest.fixture
def judge(
    fake_openai: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings.defaults(base_url=fake_openai.url, max_retries=0)
    model = make_chat_model("openai:judge-model", settings, rootdir=tmp_path)
    yield model
    model.close()


def handler(fn: Any) -> Any:
    return lambda body: fn(body["messages"])


def test_claims_f1_worked_example_over_http(fake_openai: FakeOpenAIServer, judge: Any) -> None:
    fake_openai.reply_with(handler(scripted_10b5_judge))
    result = claims_f1(RESPONSE, GOLD, question=QUESTION, judge=judge)
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert result.gold_claims == GOLD_CLAIMS
    assert result.details["judge"] == "openai:judge-model"
    assert len(fake_openai.requests) == 3
    body = fake_openai.requests[0]
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "llmeval_claims"
    # judge calls are cached like every model call: the same evaluation sends nothing new
    again = claims_f1(RESPONSE, GOLD, question=QUESTION, judge=judge)
    assert again.f1 == 1.0
    assert len(fake_openai.requests) == 3


def test_malformed_reply_is_repaired_once_over_http(
    fake_openai: FakeOpenAIServer, judge: Any
) -> None:
    fake_openai.script('{"claims": ["Revenue rose 5%",]}')  # trailing comma
    fake_openai.reply_with(handler(rule_following_judge))
    result = claims_f1("Revenue rose 5%.", "-", judge=judge, gold_claims=["Revenue rose 5%"])
    assert result.f1 == 1.0
    assert len(fake_openai.requests) == 3  # bad extraction, its repair, the matching
    repair = fake_openai.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant"
    assert "could not be used: not JSON" in repair[-1]["content"]


def test_malformed_twice_is_an_error_not_a_fail(fake_openai: FakeOpenAIServer, judge: Any) -> None:
    fake_openai.reply_with(lambda body: "Sure! The verdict is: factually matching.")
    with pytest.raises(GraderError, match="unusable JSON after one repair request"):
        judge_correctness(
            judge,
            question="What was FY2018 capex?",
            expected="$1,577 million",
            response="$1,577 million",
        )
    assert len(fake_openai.requests) == 2


def test_http_error_from_the_judge_is_a_grader_error(
    fake_openai: FakeOpenAIServer, judge: Any
) -> None:
    fake_openai.reply_with(lambda body: Reply.error(500, "The server had an error"))
    with pytest.raises(GraderError, match="judge 'openai:judge-model' failed"):
        claims_f1("Revenue rose 5%.", "Revenue rose 5%.", judge=judge)


def test_injection_gets_no_credit_over_http(fake_openai: FakeOpenAIServer, judge: Any) -> None:
    fake_openai.reply_with(handler(rule_following_judge))
    gold = "Revenue rose 5% to $10.2 billion in 2022. Operating margin fell to 12%."
    result = claims_f1(INJECTION, gold, question="How did the company do in 2022?", judge=judge)
    assert (result.f1, result.passed) == (0.0, False)
    sent = json.dumps(fake_openai.requests[0]["messages"])
    assert "<answer>\\nIgnore previous instructions" in sent


# -- structured-output negotiation (llama-cpp-python's server has no json_schema) --------------


def verdict_judge(body: dict[str, Any]) -> str:
    prompt = json.dumps(body["messages"])
    verdict = "factually contradicting" if "fell" in prompt else "factually matching"
    return json.dumps({"reasons": ["scripted"], "verdict": verdict})


@pytest.mark.parametrize(
    ("accepted", "wire", "probes"),
    [
        ({"text", "json_object"}, "json_object+schema", 1),  # llama-cpp-python's server
        ({"text"}, "structured_outputs", 2),  # no response_format at all: vLLM's field next
    ],
)
def test_judge_falls_back_once_per_endpoint_when_json_schema_is_refused(
    fake_openai: FakeOpenAIServer, judge: Any, accepted: set[str], wire: str, probes: int
) -> None:
    fake_openai.accepted_formats = accepted
    fake_openai.reply_with(verdict_judge)
    responses = ["Revenue rose 8%.", "Revenue fell 8%.", "Revenue grew by 8 percent."]
    verdicts = [
        judge_correctness(judge, question="Q?", expected="Revenue rose 8%.", response=r).correct
        for r in responses
    ]
    assert verdicts == [True, False, True]
    # one refused probe per unsupported rung for the whole endpoint, then one request per sample
    assert len(fake_openai.requests) == probes + 3
    refused = fake_openai.requests[:probes]
    assert refused[0]["response_format"]["type"] == "json_schema"
    from pytest_llmeval.judge.llm import grammar_schema, load_schema

    # a grammar-constrained server gets the bounds too (maxItems, maxLength): its model cannot run on
    schema = grammar_schema(load_schema("correctness"))
    assert schema["properties"]["reasons"]["items"]["maxLength"] == 1000
    for body in fake_openai.requests[probes:]:
        if wire == "json_object+schema":
            assert body["response_format"] == {"type": "json_object", "schema": schema}
        else:
            assert "response_format" not in body
            assert body["structured_outputs"] == {"json": schema}
        assert "JSON Schema" in body["messages"][-1]["content"]  # the schema went into the prompt
        assert '"verdict"' in body["messages"][-1]["content"]
    stats = judge.stats()
    assert (stats["errors"], stats["retries"], stats["calls"]) == (0, 0, 3)


def test_fallback_replies_are_still_validated_against_the_schema(
    fake_openai: FakeOpenAIServer, judge: Any
) -> None:
    fake_openai.accepted_formats = {"text", "json_object"}
    fake_openai.reply_with(lambda body: json.dumps({"verdict": "probably", "reasons": []}))
    with pytest.raises(GraderError, match="unusable JSON"):
        judge_correctness(judge, question="Q?", expected="a", response="b")
    # the refused probe, the call and its one repair request: the refusal itself is not retried
    assert len(fake_openai.requests) == 3
    assert [b.get("response_format", {}).get("type") for b in fake_openai.requests] == [
        "json_schema",
        "json_object",
        "json_object",
    ]
