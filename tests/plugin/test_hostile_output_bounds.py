"""Output bounds: a judge request carries a default max_tokens, grammar servers get the full schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.judge.settings import DEFAULT_MAX_TOKENS
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer

pytest_plugins = ["pytester"]

SUITE = [
    {
        "id": "rev",
        "question": "How did revenue change?",
        "expected": "Revenue rose 8%.",
        "response": "Revenue increased by 8 percent.",
        "eval_criteria": {
            "accuracy": "answer_correctness",
            "weights": {"accuracy": 1, "length": 0},
        },
    }
]


def _judge(body: dict[str, Any]) -> str:
    return json.dumps({"reasons": ["same figure"], "verdict": "factually matching"})


def _run(pytester: pytest.Pytester, server: FakeOpenAIServer, *extra: str) -> pytest.RunResult:
    write_suite(pytester, SUITE)
    server.reply_with(_judge)
    return pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=cache",
        *extra,
    )


def test_a_judge_request_carries_a_default_output_bound(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    _run(pytester, fake_openai).assert_outcomes(passed=1)
    assert [r["max_tokens"] for r in fake_openai.requests] == [DEFAULT_MAX_TOKENS]
    # the default is not part of the cache key: a cache recorded without it still replays
    files = [p for p in (pytester.path / "cache").rglob("*.json") if p.parent.name != ".locks"]
    assert len(files) == 1
    assert json.loads(files[0].read_text())["request"]["params"]["max_tokens"] is None


def test_the_judge_bound_is_the_flag_when_given(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    _run(pytester, fake_openai, "-o", "llm_judge_max_tokens=300").assert_outcomes(passed=1)
    assert [r["max_tokens"] for r in fake_openai.requests] == [300]


def test_llama_cpp_python_gets_the_schema_with_its_bounds(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.play_llama_cpp_python(_judge)
    write_suite(pytester, SUITE)
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model", f"--llm-base-url={fake_openai.url}", "--llm-record=off"
    )
    result.assert_outcomes(passed=1)
    constrained = [
        r["response_format"]["schema"]
        for r in fake_openai.requests
        if r.get("response_format", {}).get("type") == "json_object"
    ]
    assert constrained
    reasons = constrained[-1]["properties"]["reasons"]
    assert (reasons["maxItems"], reasons["items"]["maxLength"]) == (32, 1000)
    assert all("llmeval_full_schema" not in json.dumps(r) for r in fake_openai.requests)


def test_llama_cpp_gets_the_full_schema_in_json_schema_once_it_is_known(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.report_timings = True  # llama.cpp's server: its json_schema form is a grammar
    fake_openai.reply_with(_judge)
    write_suite(
        pytester,
        [
            {**SUITE[0], "id": f"rev{i}", "response": f"Revenue increased by 8 percent ({i})."}
            for i in range(3)
        ],
    )
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-record=off",
        "-p",
        "no:xdist",
    )
    result.assert_outcomes(passed=3)
    schemas = [
        r["response_format"]["json_schema"]["schema"]["properties"]["reasons"]
        for r in fake_openai.requests
    ]
    assert "maxItems" not in schemas[0]  # before any reply: the strict form OpenAI takes
    assert all(s["maxItems"] == 32 and s["items"]["maxLength"] == 1000 for s in schemas[1:])
    assert len(schemas) == 3
