"""``--llm-budget-tokens`` / ``--llm-budget-usd``: no new request once the run has spent its cap."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.history.store import History
from pytest_llmeval.models.budget import BudgetExceeded, RunBudget
from tests.fake_openai import FakeOpenAIServer, Reply, echo
from tests.plugin.test_models_plugin import model_args, report, suite

PER_CALL = 100  # tokens each fake reply reports


def fixed_usage(body: dict[str, Any]) -> Reply:
    return Reply(content=echo(body), usage={"prompt_tokens": 60, "completion_tokens": 40})


def test_budget_stops_requests_at_the_cap_and_the_rest_are_errors(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 10)
    fake_openai.reply_with(fixed_usage)
    result = pytester.runpytest(
        *model_args(
            fake_openai,
            "--llm-budget-tokens=350",
            "--llm-concurrency=1",
            "--llm-record=off",
            "--llm-report=r.json",
            "--llm-history=hist",
            "-p",
            "no:xdist",
        )
    )
    # 3 calls spend 300 < 350, the 4th reaches 400: no fifth request
    assert fake_openai.chat_requests == 4
    result.assert_outcomes(passed=4, errors=6)
    result.stdout.fnmatch_lines(
        [
            "*run budget reached (--llm-budget-tokens=350); no new model or judge requests in this run*",
            "INCOMPLETE run: run budget reached: 400 tokens used of --llm-budget-tokens=350*",
        ]
    )
    data = report(pytester, "r.json")
    assert data["metadata"]["incomplete"] is True
    errors = [s for s in data["sample_results"] if s["status"] == "error"]
    assert len(errors) == 6
    assert all("run budget reached" in s["reason"] for s in errors)
    [recorded] = History.load(pytester.path / "hist").runs
    assert recorded.complete is False
    assert recorded.meta["incomplete_reason"].startswith("run budget reached: 400 tokens")
    assert recorded.meta["budget"]["spent"]["tokens"] == 400
    assert recorded.meta["budget"]["spent"]["requests"] == 4
    [model] = recorded.results
    assert sorted(recorded.results[model]["status"]) == ["E"] * 6 + ["P"] * 4
    reasons = recorded.reasons(model)
    assert len(reasons) == 6
    assert all("run budget reached" in why for why in reasons.values())


def test_budget_is_shared_by_xdist_workers(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 12)
    fake_openai.reply_with(fixed_usage)
    result = pytester.runpytest(
        *model_args(
            fake_openai,
            "--llm-budget-tokens=350",
            "--llm-concurrency=1",
            "--llm-record=off",
            "-n",
            "2",
        )
    )
    # each worker's one request in flight may finish after the cap: 4 spent the cap, at most 1 more
    assert 4 <= fake_openai.chat_requests <= 5
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == fake_openai.chat_requests
    assert outcomes["errors"] == 12 - fake_openai.chat_requests


def test_usd_budget_needs_prices(pytester: pytest.Pytester) -> None:
    suite(pytester, 1)
    result = pytester.runpytest("--llm-budget-usd=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-budget-usd (ini llm_budget_usd) needs llm_prices*"])


def test_usd_budget(pytester: pytest.Pytester, fake_openai: FakeOpenAIServer) -> None:
    suite(pytester, 6)
    fake_openai.reply_with(fixed_usage)
    prices = json.dumps({"gpt-test": [1.0, 1.0]})  # 100 tokens = $0.10 a call
    result = pytester.runpytest(
        *model_args(
            fake_openai,
            "--llm-budget-usd=0.25",
            "-o",
            f"llm_prices={prices}",
            "--llm-concurrency=1",
            "--llm-record=off",
            "-p",
            "no:xdist",
        )
    )
    assert fake_openai.chat_requests == 3
    result.assert_outcomes(passed=3, errors=3)
    result.stdout.fnmatch_lines(
        [
            "*run budget reached (--llm-budget-usd=0.25); no new model or judge requests*",
            "INCOMPLETE run: run budget reached: $0.3000 spent of --llm-budget-usd=0.25*",
        ]
    )


def test_shared_state_file_counts_every_thread(tmp_path: Path) -> None:
    budget = RunBudget(None, 10_000, tmp_path / "budget.json")
    other = RunBudget(None, 10_000, tmp_path / "budget.json")  # another worker

    def spend(b: RunBudget) -> None:
        for _ in range(200):
            b.spend(10, None)

    threads = [threading.Thread(target=spend, args=(b,)) for b in (budget, other, budget, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.spent()["tokens"] == 8000
    assert other.spent()["requests"] == 800
    budget.spend(2000, None)
    assert other.reason() == "run budget reached: 10000 tokens used of --llm-budget-tokens=10000"
    with pytest.raises(BudgetExceeded, match=r"run budget reached \(--llm-budget-tokens=10000\)"):
        other.check()


def test_requests_in_flight_count_and_every_message_gives_the_one_total(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 10)
    fake_openai.reply_with(
        lambda body: Reply(
            content=echo(body), usage={"prompt_tokens": 60, "completion_tokens": 40}, delay=0.2
        )
    )
    result = pytester.runpytest(
        *model_args(
            fake_openai,
            "--llm-budget-tokens=350",
            "--llm-concurrency=4",
            "--llm-record=off",
            "-p",
            "no:xdist",
            "-rE",
        )
    )
    spent = PER_CALL * fake_openai.chat_requests
    assert spent > 400  # requests in flight when the cap was reached finished and counted
    output = result.stdout.str()
    assert set(re.findall(r"(\d+) tokens used", output)) == {
        str(spent)
    }  # no message gives a spend the in-flight requests outgrew
    result.stdout.fnmatch_lines(
        [
            f"INCOMPLETE run: run budget reached: {spent} tokens used of --llm-budget-tokens=350*",
            f"model calls: *tokens {spent * 6 // 10}+{spent * 4 // 10} *",
        ]
    )


def _no_usage(body: dict[str, Any]) -> Reply:
    return Reply(
        body={
            "id": "x",
            "object": "chat.completion",
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": echo(body)},
                    "finish_reason": "stop",
                }
            ],
        }
    )


def test_a_server_that_sends_no_usage_is_counted_by_an_estimate(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 20)
    fake_openai.reply_with(_no_usage)
    result = pytester.runpytest(
        *model_args(
            fake_openai,
            "--llm-budget-tokens=40",
            "--llm-concurrency=1",
            "--llm-record=off",
            "-p",
            "no:xdist",
        )
    )
    assert fake_openai.chat_requests < 20  # an estimate counts: the cap holds without usage
    result.stdout.fnmatch_lines(
        [
            "INCOMPLETE run: run budget reached: * tokens used of --llm-budget-tokens=40*",
            f"model calls: {fake_openai.chat_requests} | * | tokens *+* ({fake_openai.chat_requests} replies without usage, "
            "estimated at 4 characters a token)*",
        ]
    )


def test_usd_budget_refuses_a_model_without_a_price(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 2)
    prices = json.dumps({"gpt-other": [1.0, 1.0]})
    result = pytester.runpytest(
        *model_args(fake_openai, "--llm-budget-usd=0.25", "-o", f"llm_prices={prices}")
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--llm-budget-usd (ini llm_budget_usd): llm_prices has no price for gpt-test, *(priced: gpt-other)"
        ]
    )
    assert fake_openai.chat_requests == 0
