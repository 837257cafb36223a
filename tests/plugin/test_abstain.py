"""The offline judge abstains where its weighed evidence is inside the fitted band: needs review with
the reason listed, or, with --llm-judge, the judge's verdict (one request per sample, cached)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.metrics.freetext import correctness
from pytest_llmeval.metrics.freetext.correctness import answer_correctness
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

CRITERIA = {"accuracy": "answer_correctness", "weights": {"accuracy": 1, "length": 0}}
QUESTION = "What drove the change in Acme's gross margin in FY2022?"
UNSURE_ANSWER = "Freight costs came down in FY2022."
GOLD = "Gross margin improved because of lower freight costs and a richer product mix."
# One of the gold's two causes: some evidence, not enough to decide.
UNSURE: dict[str, Any] = {
    "id": "unsure",
    "question": QUESTION,
    "expected": GOLD,
    "response": UNSURE_ANSWER,
    "eval_criteria": CRITERIA,
}
CLEAR = {
    "id": "clear",
    "question": "What is the capital of France?",
    "expected": "Paris",
    "response": "The capital of France is Paris.",
    "eval_criteria": CRITERIA,
}


def test_weighed_evidence_inside_the_band_is_undecided() -> None:
    verdict = answer_correctness(UNSURE_ANSWER, GOLD, question=QUESTION, judge="offline")
    low, high = correctness.ABSTAIN_BANDS["descriptive"]
    assert low <= verdict.details["confidence"] < high, (
        "the example must sit inside the shipped band"
    )
    assert verdict.needs_review
    assert verdict.details["decided_by"] == "weighed evidence"
    assert verdict.details["review_reason"].startswith("undecided: weighed evidence 0.")
    assert f"[{low:.2f}, {high:.2f})" in verdict.details["review_reason"]


@pytest.mark.parametrize(
    ("score", "passed", "review"), [(0.3, False, False), (0.6, True, True), (0.9, True, False)]
)
def test_band_edges_fail_below_review_inside_pass_above(
    score: float, passed: bool, review: bool
) -> None:
    signals = correctness.analyse(UNSURE_ANSWER, GOLD, QUESTION)
    assert correctness.ruling(signals) is None
    bands = {"short": (0.5, 0.55), "descriptive": (0.5, 0.75)}
    judged = correctness._offline_judgement((score >= 0.5, score, ["weighed"], signals), bands)
    assert (judged.correct, bool(judged.review_notes)) == (passed, review)


def test_a_contradiction_in_the_answers_own_words_is_a_decided_fail() -> None:
    # the fuzzy check finds most of the gold's words; the answer's own direction word decides
    verdict = answer_correctness(
        "Operating income decreased, driven by weaker services sales.",
        "Operating income increased, driven by higher services sales.",
        question="How did operating income change?",
        judge="offline",
    )
    assert verdict.details["fact_inclusion"] >= correctness.PARAMS["review_inclusion"]
    assert verdict.details["decided_by"].removeprefix("rule ") in correctness.CONTRADICTIONS
    assert (verdict.correct, verdict.needs_review) == (False, False)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_undecided_sample_is_needs_review_listed_with_its_reason(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    write_suite(pytester, [UNSURE, CLEAR])
    result = pytester.runpytest("--llm-report=r.json", "--llm-min-pass-rate=0.75", *xdist)
    result.stdout.fnmatch_lines(
        [
            "needs review (offline judge (abstains)):",
            "  qa_eval.jsonl::unsure: undecided: weighed evidence 0.* inside the abstention band [0.50, 0.80) of descriptive*",
            "*gate FAILED*1 pass-tier sample(s) needing review not counted*",
        ]
    )
    assert result.ret == 1
    rows = {
        r["sample_id"]: r
        for r in json.loads((pytester.path / "r.json").read_text())["sample_results"]
    }
    assert rows["unsure"]["needs_review"] is True
    assert rows["unsure"]["review_between"] == "offline judge (abstains)"
    assert rows["unsure"]["review_reason"].startswith("undecided: weighed evidence")
    assert rows["clear"]["needs_review"] is False
    assert "review_reason" not in rows["clear"]


def judge_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=cache",
        *extra,
    ]


def matching(body: dict[str, Any]) -> str:
    return json.dumps(
        {"reasons": ["both name lower freight costs"], "verdict": "factually matching"}
    )


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_with_a_judge_the_undecided_sample_takes_its_verdict_once_and_cached(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, xdist: list[str]
) -> None:
    write_suite(pytester, [UNSURE])
    fake_openai.reply_with(matching)
    result = pytester.runpytest(
        *judge_args(fake_openai, "--llm-report=r.json", "--llm-min-pass-rate=1", *xdist)
    )
    result.assert_outcomes(passed=1)
    assert result.ret == 0  # decided by the judge: counted as a pass, nothing to review
    asked = [
        r for r in fake_openai.requests if "Freight costs came down" in json.dumps(r["messages"])
    ]
    assert len(asked) == 1
    row = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert row["needs_review"] is False
    details = row["components"]["accuracy"]["details"]
    assert details["decided_by"].startswith(
        "LLM judge (offline judge undecided: undecided: weighed evidence"
    )
    result.stdout.fnmatch_lines(["refusals: 0   needs review: 0"])

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the judge"))
    replay = pytester.runpytest(
        *judge_args(fake_openai, "--llm-record=none", "--llm-min-pass-rate=1", *xdist)
    )
    replay.assert_outcomes(passed=1)
    assert fake_openai.requests == []


def test_with_a_judge_a_decided_offline_verdict_it_contradicts_still_needs_review(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, [CLEAR])
    fake_openai.reply_with(
        lambda body: json.dumps({"reasons": ["no"], "verdict": "factually contradicting"})
    )
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(failed=1)
    row = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert row["needs_review"] is True
    assert row["review_between"].startswith("LLM judge (")


FIGURE_Q = "By how much did Acme raise its full-year sales growth outlook in Q1?"
FIGURE_GOLD = "Acme raised its full-year sales growth outlook by 2 percentage points."


@pytest.mark.parametrize(
    ("answer", "contradicted", "decided_pass"),
    [
        ("Acme raised its full-year sales growth outlook by 5 percentage points.", 1, False),
        ("Acme raised its full-year sales growth outlook by 2 percentage points.", 0, True),
    ],
)
def test_another_figure_in_place_of_the_golds_is_evidence_against(
    answer: str, contradicted: int, decided_pass: bool
) -> None:
    signals = correctness.analyse(answer, FIGURE_GOLD, FIGURE_Q)
    assert signals.key_contradicted == contradicted
    verdict = answer_correctness(answer, FIGURE_GOLD, question=FIGURE_Q, judge="offline")
    assert (verdict.correct and not verdict.needs_review) is decided_pass


@pytest.mark.parametrize(
    ("answer", "gold", "correct"),
    [
        (
            "Dr. B.R. Ambedkar is known as the father of the Indian Constitution.",
            "Bhimrao Ramji Ambedkar",
            True,
        ),
        ("J.R.R. Tolkien", "John Ronald Reuel Tolkien", True),
        ("R. Smith", "Timmy Smith", False),  # an initial that is not the gold's
        ("Emmitt Smith", "Timmy Smith", False),
    ],
)
def test_initials_stand_for_the_names_they_abbreviate(
    answer: str, gold: str, correct: bool
) -> None:
    assert answer_correctness(answer, gold, judge="offline").correct is correct
