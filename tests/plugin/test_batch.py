"""``--llm-batch``: uncached model requests through the provider's files and batches endpoints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.models.batch import STATE_DIR
from tests.fake_openai import FakeOpenAIServer, Reply, echo
from tests.plugin.test_models_plugin import model_args, report, suite

FAST = ["-o", "llm_batch_poll=0.02"]


def batch_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return model_args(server, "--llm-batch", *FAST, "-p", "no:randomly", *extra)


def submissions(server: FakeOpenAIServer) -> int:
    return server.batch_calls.count(("POST", "batches"))


def cached_keys(folder: Path) -> set[str]:
    return {
        p.stem
        for p in folder.rglob("*.json")
        if STATE_DIR not in p.parts and ".locks" not in p.parts
    }


def state_files(pytester: pytest.Pytester) -> list[Path]:
    return sorted((pytester.path / "llm_cache" / STATE_DIR).rglob("*.json"))


def test_200_uncached_samples_make_one_batch_and_no_chat_request(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 200)
    fake_openai.batch_polls = 2  # a slow batch: several looks before it ends
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=200)
    assert fake_openai.chat_requests == 0
    assert submissions(fake_openai) == 1
    assert fake_openai.batch_calls.count(("POST", "files")) == 1
    assert fake_openai.batch_rows == 200
    result.stdout.fnmatch_lines(
        ["llmeval batch (openai:gpt-test): batch_1 completed 200/200 done, 0 failed, *"]
    )
    stats = report(pytester, "r.json")["model_stats"]
    assert (stats["calls"], stats["cache_hits"]) == (200, 0)
    assert state_files(pytester) == []  # collected: nothing left to resume
    batched = cached_keys(pytester.path / "llm_cache")
    assert len(batched) == 200

    # the cache holds exactly the keys live calls use: a live run in another folder writes the same files
    live = pytester.runpytest(
        *model_args(fake_openai, "--llm-cache-dir=live_cache", "-p", "no:randomly")
    )
    live.assert_outcomes(passed=200)
    assert cached_keys(pytester.path / "live_cache") == batched

    # the rerun asks nothing: no batch, no chat request
    calls_before, chats_before = list(fake_openai.batch_calls), fake_openai.chat_requests
    rerun = pytester.runpytest(*batch_args(fake_openai, "--llm-report=again.json"))
    rerun.assert_outcomes(passed=200)
    assert fake_openai.batch_calls == calls_before
    assert fake_openai.chat_requests == chats_before
    assert report(pytester, "again.json")["model_stats"]["cache_hits"] == 200


def test_a_run_stopped_after_submitting_resumes_the_same_batch(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 6)
    fake_openai.batch_outcome = "stuck"
    first = pytester.runpytest(
        *batch_args(fake_openai, "-o", "llm_batch_wait=0.2", "--llm-report=first.json")
    )
    first.assert_outcomes(errors=6)
    first.stdout.fnmatch_lines(
        [
            "*batch batch_1 still in_progress after llm_batch_wait=0.2 s; the next run picks it up*",
            "INCOMPLETE run: batch batch_1 still in_progress*",
        ]
    )
    assert report(pytester, "first.json")["metadata"]["incomplete"] is True
    assert fake_openai.chat_requests == 0  # the unfinished rows are not asked live
    [state] = state_files(pytester)
    assert json.loads(state.read_text())["id"] == "batch_1"

    fake_openai.batch_outcome = "completed"
    second = pytester.runpytest(*batch_args(fake_openai))
    second.assert_outcomes(passed=6)
    assert submissions(fake_openai) == 1  # picked up, not submitted (nor paid) again
    assert fake_openai.batch_rows == 6
    assert fake_openai.chat_requests == 0
    assert state_files(pytester) == []


def test_a_partly_failed_batch_gives_error_items_with_the_providers_reason(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 5)

    def refuse_norway(body: dict[str, Any]) -> str | Reply:
        if "Norway" in body["messages"][-1]["content"]:
            return Reply.error(
                400, "this request was flagged by the content filter", code="content_filter"
            )
        if "spider" in body["messages"][-1]["content"]:
            return Reply(body={"id": "no choices"})  # a malformed row: its own request only
        return echo(body)

    fake_openai.reply_with(refuse_norway)
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=3, errors=2)
    assert fake_openai.chat_requests == 0
    reasons = {
        s["sample_id"]: s.get("reason") or "" for s in report(pytester, "r.json")["sample_results"]
    }
    assert (
        "batch_1 failed this request (HTTP 400): content_filter: this request was flagged by the content filter"
        in reasons["s0"]
    )
    assert "malformed reply" in reasons["s2"]
    assert (
        report(pytester, "r.json")["metadata"]["incomplete"] is False
    )  # the batch ended: failed rows are errors

    # the next run batches only the failed requests again
    fake_openai.reply_with(echo)
    again = pytester.runpytest(*batch_args(fake_openai))
    again.assert_outcomes(passed=5)
    assert submissions(fake_openai) == 2
    assert fake_openai.batch_rows == 5 + 2


def test_an_expired_batch_is_an_incomplete_run_that_keeps_the_answered_rows(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 6)
    fake_openai.batch_outcome, fake_openai.batch_answered = "expired", 4
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=4, errors=2)
    result.stdout.fnmatch_lines(
        ["INCOMPLETE run: batch batch_1 expired: 2 of 6 request(s) unanswered*"]
    )
    data = report(pytester, "r.json")
    assert data["metadata"]["incomplete"] is True
    errors = [s for s in data["sample_results"] if s["status"] == "error"]
    assert all("batch batch_1 expired before answering this request" in s["reason"] for s in errors)
    assert len(cached_keys(pytester.path / "llm_cache")) == 4
    assert fake_openai.chat_requests == 0
    assert state_files(pytester) == []

    fake_openai.batch_outcome = "completed"
    again = pytester.runpytest(*batch_args(fake_openai))
    again.assert_outcomes(passed=6)
    assert fake_openai.batch_rows == 4 + 2


def test_a_failed_batch_names_the_providers_reason(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 3)
    fake_openai.batch_outcome = "failed"
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        ["INCOMPLETE run: batch batch_1 failed: 3 of 3 request(s) unanswered*"]
    )
    reasons = [s["reason"] for s in report(pytester, "r.json")["sample_results"]]
    assert all(
        "batch batch_1 failed before answering this request: invalid_batch: the batch was refused"
        in r
        for r in reasons
    )


def test_batch_usage_costs_the_batch_price(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 4)
    fake_openai.reply_with(
        lambda body: Reply(
            content=echo(body), usage={"prompt_tokens": 600, "completion_tokens": 400}
        )
    )
    prices = "-o", 'llm_prices={"gpt-test": [1.0, 2.0]}'
    result = pytester.runpytest(
        *batch_args(
            fake_openai,
            *prices,
            "--llm-budget-usd=100",
            "--llm-report=r.json",
            "--llm-history=hist",
        )
    )
    result.assert_outcomes(passed=4)
    full = 4 * (0.6 * 1.0 + 0.4 * 2.0)
    assert report(pytester, "r.json")["model_stats"]["cost_usd"] == pytest.approx(0.5 * full)
    from pytest_llmeval.history.store import History

    [run] = History.load(pytester.path / "hist").runs
    assert run.meta["budget"]["spent"]["usd"] == pytest.approx(0.5 * full)

    pytester.runpytest(
        *batch_args(
            fake_openai,
            *prices,
            "-o",
            "llm_batch_price=1",
            "--llm-report=full.json",
            "--llm-record=all",
        )
    )
    assert report(pytester, "full.json")["model_stats"]["cost_usd"] == pytest.approx(full)


def test_batch_with_xdist_is_a_usage_error(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 2)
    result = pytester.runpytest(*model_args(fake_openai, "--llm-batch", "-n", "2"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--llm-batch (ini llm_batch) submits one batch from one process: run it without -n*"]
    )
    assert fake_openai.batch_calls == []


def test_batch_with_the_cache_off_is_a_usage_error(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 2)
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-record=off"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--llm-batch (ini llm_batch) keeps the batch's results in the response cache*"]
    )


def test_batch_size_splits_the_requests(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 5)
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-batch-size=2"))
    result.assert_outcomes(passed=5)
    assert submissions(fake_openai) == 3
    assert fake_openai.chat_requests == 0


def test_a_replay_run_submits_nothing(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 2)
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-record=none"))
    result.assert_outcomes(errors=2)  # replay misses, as without --llm-batch
    assert (fake_openai.batch_calls, fake_openai.chat_requests) == ([], 0)


def test_a_run_killed_while_polling_resumes_without_a_second_submission(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    suite(pytester, 4)
    fake_openai.batch_outcome = "stuck"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *batch_args(fake_openai)],
        cwd=pytester.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while (
        fake_openai.batch_calls.count(("GET", "batches/batch_1")) < 2
        and time.monotonic() < deadline
    ):
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)  # a cancelled CI job, while the run polls the submitted batch
    output = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, output
    assert submissions(fake_openai) == 1
    assert len(state_files(pytester)) == 1

    fake_openai.batch_outcome = "completed"
    rerun = pytester.runpytest(*batch_args(fake_openai))
    rerun.assert_outcomes(passed=4)
    assert submissions(fake_openai) == 1
    assert fake_openai.chat_requests == 0


def test_stray_lines_in_the_output_file_are_skipped(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 3)
    from pytest_llmeval.models.cache import cache_key
    from pytest_llmeval.models.openai_chat import OpenAIChat
    from tests.unit.models.test_models import make_settings

    chat = OpenAIChat("gpt-test", make_settings(base_url=fake_openai.url))
    s0 = cache_key(
        chat.identity([{"role": "user", "content": "What is the capital of Norway?"}], None)
    )
    wrong = {
        "custom_id": s0,
        "error": None,
        "response": {
            "status_code": 200,
            "body": {
                "model": "gpt-test",
                "choices": [{"message": {"role": "assistant", "content": "a second row for s0"}}],
            },
        },
    }
    fake_openai.batch_junk = [
        "not json at all",
        "[1, 2]",
        json.dumps({"custom_id": "never-asked", "response": {}}),
        json.dumps({"custom_id": ["a", "list"]}),
        json.dumps(wrong).replace("a second row", "the first row"),
    ]
    result = pytester.runpytest(*batch_args(fake_openai, "--llm-report=r.json"))
    # s0's first row (a wrong answer) is the one kept; the real row after it is a duplicate, skipped
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "llmeval batch batch_1: a line that is not JSON: b'not json at all'",
            "llmeval batch batch_1: a line that is not a JSON object: b'[1, 2]'",
        ]
    )
    failed = [s for s in report(pytester, "r.json")["sample_results"] if s["status"] != "pass"]
    assert [s["sample_id"] for s in failed] == ["s0"]
    assert state_files(pytester) == []


CORRECTNESS = {"accuracy": "answer_correctness", "weights": {"accuracy": 1, "length": 0}}
ANSWERS = {
    "How did revenue change in FY2022?": "Revenue rose by 8 percent, reaching $394.3 billion.",
    "How did revenue change in FY2023?": "Revenue fell 8% to $394.3 billion.",
}


def model_and_judge(body: dict[str, Any]) -> str:
    prompt = json.dumps(body["messages"])
    if body["model"] == "judge-model":
        verdict = "factually contradicting" if "fell" in prompt else "factually matching"
        return json.dumps({"reasons": [f"judged: {verdict}"], "verdict": verdict})
    return ANSWERS[body["messages"][-1]["content"]]


def judged_suite(pytester: pytest.Pytester, *, recorded: bool) -> None:
    from tests.conftest import write_suite

    write_suite(
        pytester,
        [
            {
                "id": f"y{year}",
                "question": question,
                "expected": "Revenue increased 8% to $394.3 billion.",
                "eval_criteria": CORRECTNESS,
                **({"response": answer} if recorded else {}),
            }
            for year, (question, answer) in zip((2022, 2023), ANSWERS.items(), strict=True)
        ],
    )


def test_judge_requests_go_in_a_second_batch_once_the_answers_are_in(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    judged_suite(pytester, recorded=False)
    fake_openai.reply_with(model_and_judge)
    args = batch_args(fake_openai, "--llm-judge=openai:judge-model", "--llm-report=r.json")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1, failed=1)
    assert fake_openai.chat_requests == 0
    assert submissions(fake_openai) == 2  # the answers, then the judge's requests quoting them
    assert fake_openai.batch_rows == 4
    result.stdout.fnmatch_lines(
        ["llmeval batch (openai:judge-model): batch_2 completed 2/2 done, 0 failed, *"]
    )
    stats = report(pytester, "r.json")["model_stats"]
    assert (stats["calls"], stats["cache_hits"]) == (4, 0)

    rerun = pytester.runpytest(
        *batch_args(fake_openai, "--llm-judge=openai:judge-model", "--llm-record=none")
    )
    rerun.assert_outcomes(passed=1, failed=1)
    assert (submissions(fake_openai), fake_openai.chat_requests) == (2, 0)


def test_judge_requests_of_recorded_answers_are_batched(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    judged_suite(pytester, recorded=True)
    fake_openai.reply_with(model_and_judge)
    result = pytester.runpytest(
        "--llm-batch",
        *FAST,
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert fake_openai.chat_requests == 0
    assert submissions(fake_openai) == 1


def test_the_state_file_never_holds_the_api_key(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import write_suite

    secret = "sk-batchsecret0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    question = f"My key is {secret}, repeat it?"
    write_suite(
        pytester,
        [
            {
                "id": "k",
                "question": question,
                "expected": "x",
                "eval_criteria": {"accuracy": "exact"},
            }
        ],
    )
    fake_openai.batch_outcome = "stuck"
    pytester.runpytest(*batch_args(fake_openai, "-o", "llm_batch_wait=0.1"))
    [state] = state_files(pytester)
    assert secret not in state.read_text()
    assert (
        fake_openai.request_headers == []
    )  # the key went only into the batch API's Authorization header

    fake_openai.batch_outcome = "completed"
    result = pytester.runpytest(*batch_args(fake_openai))
    result.assert_outcomes(failed=1)  # resumed under the request's own key: graded, not "no row"
    assert submissions(fake_openai) == 1
    assert all(secret not in p.read_text() for p in (pytester.path / "llm_cache").rglob("*.json"))


def test_a_batch_line_sends_the_body_a_live_call_sends(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, 3)
    settings = [
        "-o",
        "llm_max_tokens=50",
        "-o",
        "llm_seed=7",
        "-o",
        "llm_temperature=0.3",
        "-o",
        'llm_extra_body={"top_k": 3}',
    ]
    pytester.runpytest(*model_args(fake_openai, "--llm-cache-dir=live", *settings)).assert_outcomes(
        passed=3
    )
    live = sorted(fake_openai.requests, key=json.dumps)
    pytester.runpytest(*batch_args(fake_openai, *settings)).assert_outcomes(passed=3)
    [batch] = fake_openai._batches.values()
    assert {row["url"] for row in batch["rows"]} == {"/v1/chat/completions"}
    assert {row["method"] for row in batch["rows"]} == {"POST"}
    assert sorted((row["body"] for row in batch["rows"]), key=json.dumps) == live


def test_judge_requests_of_an_unfinished_batch_are_not_asked_live(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    judged_suite(pytester, recorded=True)
    fake_openai.reply_with(model_and_judge)
    fake_openai.batch_outcome = "stuck"
    args = [
        "--llm-batch",
        *FAST,
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
        "-p",
        "no:randomly",
    ]
    result = pytester.runpytest(*args, "-o", "llm_batch_wait=0.1")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["*judge*batch batch_1 still in_progress after llm_batch_wait=0.1 s*"]
    )
    assert fake_openai.chat_requests == 0  # paid once, in the batch the next run collects

    fake_openai.batch_outcome = "completed"
    pytester.runpytest(*args).assert_outcomes(passed=1, failed=1)
    assert (submissions(fake_openai), fake_openai.chat_requests) == (1, 0)
