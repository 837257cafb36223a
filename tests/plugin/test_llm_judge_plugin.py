"""--llm-judge end to end: a gold suite graded by answer_correctness with an LLM judge over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

CORRECTNESS = {"accuracy": "answer_correctness", "weights": {"accuracy": 1, "length": 0}}
SUITE = [
    {
        "id": "rev-up",
        "question": "How did revenue change in FY2022?",
        "expected": "Revenue increased 8% to $394.3 billion.",
        "response": "Revenue rose by 8 percent, reaching $394.3 billion.",
        "eval_criteria": CORRECTNESS,
    },
    {
        "id": "rev-down",
        "question": "How did revenue change in FY2022?",
        "expected": "Revenue increased 8% to $394.3 billion.",
        "response": "Revenue fell 8% to $394.3 billion.",
        "eval_criteria": CORRECTNESS,
    },
]


def scripted_judge(body: dict[str, Any]) -> str:
    """A judge that follows the prompt: 'fell' contradicts an increase."""
    prompt = json.dumps(body["messages"])
    verdict = "factually contradicting" if "fell" in prompt else "factually matching"
    return json.dumps({"reasons": [f"judged: {verdict}"], "verdict": verdict})


def judge_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=cache",
        *extra,
    ]


def test_llm_judge_decides_and_is_cached_and_recorded(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.reply_with(scripted_judge)
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=1, failed=1)
    assert len(fake_openai.requests) == 2
    assert all(
        r["model"] == "judge-model" and r.get("temperature", 0) == 0 for r in fake_openai.requests
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["metadata"]["judge"] == "openai:judge-model"
    assert report["metadata"]["judge_prompt_version"]
    assert report["model_stats"]["calls"] == 2

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the judge"))
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-record=none"))
    result.assert_outcomes(passed=1, failed=1)
    assert fake_openai.requests == []


def test_malformed_judge_reply_is_an_error_item_not_a_fail(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])
    fake_openai.reply_with(
        lambda body: "I think it is correct!"
    )  # not JSON, twice (repair retry too)
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(errors=1)
    assert len(fake_openai.requests) == 2  # the call and exactly one repair retry
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["sample_results"][0]["status"] == "error"


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_judge_against_a_server_without_json_schema_grades_with_json_object(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, xdist: list[str]
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.accepted_formats = {"text", "json_object"}  # llama-cpp-python's server
    fake_openai.reply_with(scripted_judge)
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json", *xdist))
    result.assert_outcomes(passed=1, failed=1)
    kinds = [(r.get("response_format") or {}).get("type") for r in fake_openai.requests]
    assert kinds.count("json_object") == 2  # one graded call per sample
    # one refused probe per process (an xdist worker that got no sample sends none)
    assert 1 <= kinds.count("json_schema") <= (2 if xdist else 1)
    report = json.loads((pytester.path / "r.json").read_text())
    assert (report["model_stats"]["errors"], report["model_stats"]["retries"]) == (0, 0)


def test_needs_review_names_the_llm_judge_when_it_disagreed(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])  # the offline verdict says "matching"
    fake_openai.reply_with(
        lambda body: json.dumps({"reasons": ["no"], "verdict": "factually contradicting"})
    )
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "needs review (LLM judge (*judge-model*) and offline verdict disagree):",
            "  qa_eval.jsonl::rev-up: LLM judge (incorrect) and offline verdict (correct: *",
        ]
    )
    assert "offline judge and fuzzy check" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["sample_results"][0]["review_between"].startswith("LLM judge (")


def test_replay_of_a_judge_reply_unusable_when_recorded_says_so(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])
    fake_openai.reply_with(lambda body: "Sure! The verdict is: factually matching.")
    first = pytester.runpytest(*judge_args(fake_openai, "-p", "no:xdist"))
    first.assert_outcomes(errors=1)
    first.stdout.fnmatch_lines(["*returned unusable JSON after one repair request*"])
    assert fake_openai.chat_requests == 2
    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the judge"))
    replay = pytester.runpytest(*judge_args(fake_openai, "--llm-record=none", "-p", "no:xdist"))
    replay.assert_outcomes(errors=1)
    replay.stdout.fnmatch_lines(
        [
            "*judge 'openai:judge-model' failed: the reply to this request was unusable when it was recorded "
            "(it starts 'Sure! The verdict is: factually matching.'), so it was not kept; recording again sends "
            "the same request to openai:judge-model and would likely buy the same reply*",
        ]
    )
    assert "To record it" not in replay.stdout.str()  # re-recording would buy the same reply
    assert fake_openai.chat_requests == 0


def test_the_prompts_placeholder_is_no_reason(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE[:1])
    placeholder = json.dumps(
        {"reasons": ["one reason per criterion"], "verdict": "factually matching"}
    )
    fake_openai.reply_with(lambda body: placeholder)
    result = pytester.runpytest(*judge_args(fake_openai, "-p", "no:xdist"))
    result.assert_outcomes(errors=1)  # the placeholder is no reason to pass on
    result.stdout.fnmatch_lines(
        [
            "*unusable JSON after one repair request*'one reason per criterion' is the template's placeholder*"
        ]
    )
    repair = fake_openai.requests[1]["messages"][-1]["content"]
    assert "template's placeholder" in repair
