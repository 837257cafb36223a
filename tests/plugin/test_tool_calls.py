"""Tool calls: sent with the request, recorded, cached, graded by the structured grader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.metrics.structured import tool_calls_match
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

pytest_plugins = ["pytester"]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "post_voucher",
            "description": "Bokfør et bilag",
            "parameters": {
                "type": "object",
                "properties": {"account": {"type": "integer"}, "amount": {"type": "number"}},
            },
        },
    }
]
EXPECTED = [
    {"name": "lookup_vat_code", "arguments": {"code": "3"}},
    {"name": "post_voucher", "arguments": {"account": 3000, "amount": 1000.0}},
]


def _calls(*pairs: tuple[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(pairs)
    ]


def test_tool_calls_are_matched_order_free_name_exact_arguments_by_field() -> None:
    swapped = _calls(
        ("post_voucher", {"account": 3000, "amount": 1000}), ("lookup_vat_code", {"code": "3"})
    )
    assert tool_calls_match(swapped, EXPECTED).passed
    assert not tool_calls_match(swapped, EXPECTED, ordered=True).passed
    wrong = _calls(
        ("lookup_vat_code", {"code": "3"}), ("post_voucher", {"account": 3001, "amount": 1000})
    )
    result = tool_calls_match(wrong, EXPECTED)
    assert result.failed_fields == ["[1].arguments.account"]
    renamed = _calls(
        ("lookup_vat_code", {"code": "3"}), ("book_voucher", {"account": 3000, "amount": 1000})
    )
    assert "[1].name" in tool_calls_match(renamed, EXPECTED).failed_fields
    assert tool_calls_match(None, EXPECTED).explanation == "no tool call in the answer"


def _suite(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"tools": TOOLS}},
            {
                "id": "book-sale",
                "question": "Bokfør salg 1000 kr eks. mva, kode 3.",
                "expected_tool_calls": EXPECTED,
                "eval_criteria": {"weights": {"length": 0}},
            },
            {
                "id": "plain",
                "question": "Hva er konto 1920?",
                "expected_structured": {"account": 1920},
                "tools": [],
                "eval_criteria": {"weights": {"length": 0}},
            },
        ],
        "tools_eval.jsonl",
    )


def _answer(body: dict[str, Any]) -> Reply:
    if body.get("tools"):
        return Reply(
            tool_calls=[
                ("post_voucher", {"account": 3000, "amount": 1000}),
                ("lookup_vat_code", {"code": "3"}),
            ]
        )
    return Reply(content='Kontoen: {"account": 1920}')


def test_tool_calls_round_trip_through_the_fake_server_and_the_cache(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    _suite(pytester)
    fake_openai.reply_with(_answer)
    args = [
        "--llm-model=gpt-test",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
    ]
    result = pytester.runpytest(*args, "--llm-report=r.json")
    result.assert_outcomes(passed=2)
    sent = {b["messages"][-1]["content"][:8]: b for b in fake_openai.requests}
    assert sent["Bokfør s"]["tools"] == TOOLS
    assert "tools" not in sent["Hva er k"]
    cached = [json.loads(p.read_text()) for p in (pytester.path / "llm_cache").rglob("*.json")]
    with_tools = [c for c in cached if c["request"]["params"].get("tools")]
    assert len(with_tools) == 1
    assert with_tools[0]["response"]["tool_calls"][0]["function"]["name"] == "post_voucher"

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the model"))
    replay = pytester.runpytest(*args, "--llm-record=none")
    replay.assert_outcomes(passed=2)
    assert fake_openai.chat_requests == 0


def test_wrong_tool_argument_fails_naming_it_with_xdist(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    _suite(pytester)
    fake_openai.reply_with(
        lambda body: (
            Reply(
                tool_calls=[
                    ("lookup_vat_code", {"code": "3"}),
                    ("post_voucher", {"account": 3001, "amount": 1000}),
                ]
            )
            if body.get("tools")
            else 'Kontoen: {"account": 1920}'
        )
    )
    result = pytester.runpytest(
        "--llm-model=gpt-test", f"--llm-base-url={fake_openai.url}", "-n", "2"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*wrong: [[]1].arguments.account: expected 3000, got 3001 (exact)*"]
    )


def test_cache_key_covers_tools_and_response_format_and_keeps_old_keys() -> None:
    from types import SimpleNamespace

    from pytest_llmeval.models.cache import cache_key
    from pytest_llmeval.models.openai_chat import OpenAIChat

    settings = SimpleNamespace(
        base_url="http://127.0.0.1:1/v1",
        api_key_env=None,
        temperature=0.0,
        max_tokens=None,
        seed=None,
        timeout=5,
        extra_body=None,
        max_retries=0,
    )
    chat = OpenAIChat("gpt-test", settings)
    messages = [{"role": "user", "content": "Bokfør salget."}]
    plain = chat.identity(messages, None)
    assert "tools" not in plain["params"]  # caches recorded before tools existed keep their keys
    keys = {
        cache_key(plain),
        cache_key(chat.identity(messages, None, TOOLS)),
        cache_key(chat.identity(messages, {"type": "json_object"})),
        cache_key(chat.identity(messages, None, [])),
    }
    assert len(keys) == 3  # no tools and an empty tools list are the same request


def test_structured_answer_read_from_a_tool_call_when_the_text_has_no_json() -> None:
    from pytest_llmeval.metrics.structured import structured_match

    calls = _calls(("post_voucher", {"account": 3000, "amount": 1000}))
    result = structured_match("", {"account": 3000, "amount": 1000.0}, tool_calls=calls)
    assert result.passed
    assert result.source == "tool call post_voucher"


def test_reply_with_only_tool_calls_is_no_malformed_reply() -> None:
    from pytest_llmeval.models.openai_chat import parse_completion

    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": _calls(("f", {"a": 1})),
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    parsed = parse_completion(json.dumps(body), status=200, model="m")
    assert parsed["text"] == ""
    assert parsed["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"a": 1}'}


def test_a_lone_surrogate_in_a_tool_call_is_replaced_so_the_paid_reply_is_cached_and_replays(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "s0",
                "question": "Bokfør salg",
                "expected_tool_calls": [{"name": "post_voucher", "arguments": {}}],
                "tools": TOOLS,
                "eval_criteria": {"weights": {"length": 0}},
            }
        ],
    )
    fake_openai.reply_with(lambda body: Reply(tool_calls=[("post_voucher\ud800", {})]))
    args = [
        "--llm-model=gpt-test",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
        "-p",
        "no:xdist",
    ]
    pytester.runpytest(*args).assert_outcomes(
        failed=1
    )  # the name differs: a fail, not an error item
    (cached,) = (pytester.path / "llm_cache").rglob("*.json")
    [call] = json.loads(cached.read_text(encoding="utf-8"))["response"]["tool_calls"]
    assert call["function"]["name"] == "post_voucher\ufffd"
    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the model"))
    pytester.runpytest(*args, "--llm-record=none").assert_outcomes(failed=1)
    assert fake_openai.chat_requests == 0


def test_an_answer_that_only_calls_tools_shows_its_calls_in_the_failure(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "s0",
                "question": "Bokfør salg",
                "expected_tool_calls": EXPECTED,
                "tools": TOOLS,
                "eval_criteria": {"weights": {"length": 0}},
            }
        ],
    )
    fake_openai.reply_with(
        lambda body: Reply(tool_calls=[("post_voucher", {"account": 3001, "amount": 1000})])
    )
    result = pytester.runpytest(
        "--llm-model=gpt-test", f"--llm-base-url={fake_openai.url}", "--llm-cache-dir=llm_cache"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "  response: (no text: the answer only calls tools)",  # not an empty "response:"
            '  tool calls: post_voucher({"account": 3001, "amount": 1000})',
        ]
    )
