"""End to end: ``pytest --llm-model=...`` against the fake server, with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

EXACT = {"accuracy": "exact", "weights": {"length": 0}}
QUESTIONS = [
    "What is the capital of Norway?",
    "Who wrote Pride and Prejudice?",
    "How many legs does a spider have?",
    "Which planet is known as the Red Planet?",
    "What is the chemical symbol for gold?",
    "What is the largest ocean on Earth?",
    "Who painted the Mona Lisa?",
    "What is the square root of 81?",
]


def question(index: int) -> str:
    base = QUESTIONS[index % len(QUESTIONS)]
    return base if index < len(QUESTIONS) else f"{base} (asked again, #{index})"


def suite(pytester: pytest.Pytester, n: int) -> Path:
    # the fake server echoes the question, so expected == question passes an exact grader
    records = [
        {"id": f"s{i}", "question": question(i), "expected": question(i), "eval_criteria": EXACT}
        for i in range(n)
    ]
    return write_suite(pytester, records)


def model_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-model=gpt-test",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=llm_cache",
        *extra,
    ]


def report(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def refuse_all(body: dict[str, Any]) -> Reply:
    return Reply.error(500, "the replay must not call the model")


def test_second_run_in_none_mode_makes_zero_requests_and_gives_the_same_report(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=4)
    result = pytester.runpytest(*model_args(fake_openai, "--llm-report=first.json"))
    result.assert_outcomes(passed=4)
    assert sorted(b["messages"][-1]["content"] for b in fake_openai.requests) == sorted(
        QUESTIONS[:4]
    )
    assert report(pytester, "first.json")["model_stats"]["calls"] == 4

    suite(pytester, n=5)  # one new sample: not in the cache
    fake_openai.reset()
    fake_openai.reply_with(refuse_all)
    result = pytester.runpytest(
        *model_args(fake_openai, "--llm-record=none", "--llm-report=second.json"), "-rE"
    )
    result.assert_outcomes(passed=4, errors=1)
    result.stdout.fnmatch_lines(
        ["*s4*no cached reply for sample 's4'*--llm-record=none replays only*"]
    )
    assert fake_openai.requests == []
    first, second = report(pytester, "first.json"), report(pytester, "second.json")
    assert (second["model_stats"]["calls"], second["model_stats"]["cache_hits"]) == (0, 4)
    assert second["sample_results"][:4] == first["sample_results"]


def test_xdist_workers_share_the_load_and_each_sample_is_asked_exactly_once(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=24)
    fake_openai.latency = 0.05
    result = pytester.runpytest(
        *model_args(fake_openai, "--llm-concurrency=4", "--llm-report=r.json"), "-n", "2"
    )
    result.assert_outcomes(passed=24)
    assert len(fake_openai.requests) == 24
    assert len({b["messages"][-1]["content"] for b in fake_openai.requests}) == 24
    assert fake_openai.max_in_flight <= 2 * 4  # each worker keeps its own bound
    stats = report(pytester, "r.json")["model_stats"]
    assert (stats["calls"], stats["cache_hits"]) == (24, 0)
    per_worker = stats["per_worker_calls"]
    assert len(per_worker) == 2
    assert all(calls > 0 for calls in per_worker), per_worker  # both workers fetched a share
    assert sum(per_worker) == 24


def test_failed_sample_is_an_error_item_and_the_run_goes_on(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=4)

    def reply(body: dict[str, Any]) -> str | Reply:
        asked = str(body["messages"][-1]["content"])
        if asked == QUESTIONS[2]:
            return Reply.error(503, "The server is overloaded", headers={"Retry-After": "0"})
        return asked

    fake_openai.reply_with(reply)
    result = pytester.runpytest(*model_args(fake_openai, "-o", "llm_max_retries=1"), "-rE")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*s2*HTTP 503 after 2 attempt(s): The server is overloaded*"])
    assert len(fake_openai.requests) == 5


def test_async_python_provider_beside_pytest_asyncio(pytester: pytest.Pytester) -> None:
    suite(pytester, n=3)
    pytester.makepyfile(
        my_app="""
        import asyncio

        async def answer(sample):
            await asyncio.sleep(0.01)
            return sample["question"]
        """,
        test_async_neighbour="""
        import pytest

        @pytest.mark.asyncio
        async def test_async_code_still_runs():
            await __import__("asyncio").sleep(0)
        """,
    )
    pytester.makeini(
        "[pytest]\nasyncio_mode = strict\nasyncio_default_fixture_loop_scope = function\nfilterwarnings = error\n"
    )
    result = pytester.runpytest_subprocess("--llm-model=python:my_app:answer", "-p", "asyncio")
    result.assert_outcomes(passed=4)


def test_auth_failure_stops_the_run_once(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(pytester, n=6)
    fake_openai.api_key = "sk-the-right-one"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-revoked")
    result = pytester.runpytest(*model_args(fake_openai, "--llm-concurrency=1"), "-rE")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", outcomes.get("error")) == 1
    assert "passed" not in outcomes
    result.stdout.fnmatch_lines(
        [
            "*llmeval answers from openai:gpt-test: 0/6 done*stopped by a fatal model error*",
            "*authentication failed (HTTP 401): Incorrect API key provided.*",
        ]
    )
    assert "sk-revoked" not in result.stdout.str()
    assert len(fake_openai.requests) == 1


LLM_SAMPLE_TESTS = """
import pytest


@pytest.mark.llmeval_gold("qa_eval.jsonl")
def test_answer_mentions_the_question(llm_sample):
    assert llm_sample.question in llm_sample.answer
"""


@pytest.mark.parametrize("failing", [False, True])
def test_gold_items_and_llm_sample_share_one_answer_per_sample_with_and_without_xdist(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, failing: bool
) -> None:
    suite(pytester, n=6)
    pytester.makepyfile(test_hand_written=LLM_SAMPLE_TESTS)
    if failing:
        fake_openai.reply_with(lambda body: Reply.error(500, "The server had an error"))
    runs = {}
    for name, xdist in (("plain", ["-p", "no:xdist"]), ("dist", ["-n", "2"])):
        fake_openai.requests.clear()
        args = model_args(
            fake_openai, "-o", "llm_max_retries=0", "--llm-record=off", f"--llm-report={name}.json"
        )
        result = pytester.runpytest(*args, *xdist, "-rE")
        # every sample asked once per run, by the gold items and the fixture together
        assert len(fake_openai.requests) == 6, name
        if failing:
            result.assert_outcomes(errors=12)  # 6 gold items and 6 llm_sample tests, all ERROR
            result.stdout.fnmatch_lines(
                [
                    "*ERROR at setup of test_answer_mentions_the_question[[]s0[]]*",
                    "qa_eval.jsonl:1: sample 's0': ModelError: *HTTP 500*",
                ]
            )
            assert "Traceback" not in result.stdout.str()
            assert "pytest_llmeval/" not in result.stdout.str()  # no frames of the plugin
        else:
            result.assert_outcomes(passed=12)
        runs[name] = report(pytester, f"{name}.json")["model_stats"]
    keys = ("calls", "cache_hits", "retries", "errors")
    assert [runs["plain"][k] for k in keys] == [runs["dist"][k] for k in keys]
    assert runs["plain"]["errors"] == (6 if failing else 0)
