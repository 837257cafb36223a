"""Second verification: an LLM judge verdict that the fuzzy fact-inclusion check contradicts is asked once more."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

CORRECTNESS = {"accuracy": "answer_correctness", "weights": {"accuracy": 1, "length": 0}}
GOLD = "Revenue increased 8% to $394.3 billion."
QUESTION = "How did revenue change in FY2022?"
SUITE = [
    # The judge (below) calls this matching; the gold figure is nowhere in it: they disagree.
    {
        "id": "vague",
        "question": QUESTION,
        "expected": GOLD,
        "response": "Revenue went up nicely that year.",
        "eval_criteria": CORRECTNESS,
    },
    # Judge and fuzzy check agree: no second request.
    {
        "id": "exact",
        "question": QUESTION,
        "expected": GOLD,
        "response": "Revenue rose by 8 percent, reaching $394.3 billion.",
        "eval_criteria": CORRECTNESS,
    },
]


def lenient_then_strict(body: dict[str, Any]) -> str:
    """First grading: always 'matching'. Verification prompt: matching only if 394.3 is stated."""
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if "You verify a disputed grade" in system:
        answer = user.split("<answer>")[1].split("</answer>")[0]
        verdict = "factually matching" if "394.3" in answer else "factually contradicting"
        return json.dumps({"reasons": [f"verified: {verdict}"], "verdict": verdict})
    return json.dumps({"reasons": ["looks fine"], "verdict": "factually matching"})


def judge_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=cache",
        *extra,
    ]


def test_disagreement_makes_exactly_one_verification_request_recorded_and_counted(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.reply_with(lenient_then_strict)
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=1, failed=1)  # the verification overturned 'vague'
    systems = [r["messages"][0]["content"] for r in fake_openai.requests]
    assert len(systems) == 3  # one grading per sample + one verification
    assert sum("You verify a disputed grade" in s for s in systems) == 1
    verify = next(
        r
        for r in fake_openai.requests
        if "You verify a disputed grade" in r["messages"][0]["content"]
    )
    user = verify["messages"][-1]["content"]
    assert "First grading: factually matching. Its reasons: looks fine" in user
    assert (
        "Fuzzy fact-inclusion check: factually contradicting. Its evidence: gold figure not found anywhere in the response"
        in user
    )
    assert (
        "statistics, data points and percentages are represented accurately"
        in verify["messages"][0]["content"]
    )
    result.stdout.fnmatch_lines(
        [
            "second verification: 1 sample(s) re-asked (LLM judge and fuzzy check disagreed), 1 verdict(s) changed"
        ]
    )

    report = json.loads((pytester.path / "r.json").read_text())
    assert report["aggregate_metrics"]["reverified"] == 1
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert by_id["vague"]["reverified"] is True
    assert "reverified" not in by_id["exact"]
    details = by_id["vague"]["components"]["accuracy"]["details"]
    assert details["verification"] == {
        "first": {"correct": True, "reasons": ["looks fine"]},
        "fuzzy": {"correct": False, "evidence": "gold figure not found anywhere in the response"},
        "second": {"correct": False, "reasons": ["verified: factually contradicting"]},
        "final": False,
        "changed": True,
    }
    assert (
        "SECOND VERIFICATION (judge correct, fuzzy check incorrect"
        in by_id["vague"]["components"]["accuracy"]["reason"]
    )

    # Replay: both judge calls come from the cache, nothing reaches the server.
    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the judge"))
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-record=none"))
    result.assert_outcomes(passed=1, failed=1)
    assert fake_openai.requests == []
    result.stdout.fnmatch_lines(["second verification: 1 sample(s) re-asked*"])


def test_offline_judge_never_reverifies(pytester: pytest.Pytester) -> None:
    write_suite(pytester, SUITE[:1])
    result = pytester.runpytest("--llm-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["aggregate_metrics"]["reverified"] == 0
    assert "second verification" not in result.stdout.str()
