"""The default free-text grader: a gold file with no ``eval_criteria.accuracy`` and a textual gold.

Graded by ``answer_correctness`` (offline judge, or the ``--llm-judge`` model when one is set);
cosine similarity stays available by name or through ``min_similarity``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.rubric import choose_accuracy_grader
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer

CAPITAL_Q = "What is the capital of France?"
SALES_Q = "How did Apple's net sales change in fiscal 2022, and why?"
SALES_GOLD = "Apple's net sales rose in fiscal 2022 because iPhone and Services revenue increased."
CERT_Q = "On what date did Apple's CEO sign the certification of the FY2022 10-K?"

PLAIN_CASES: list[dict[str, Any]] = [
    {
        "id": "paris-sentence",
        "question": CAPITAL_Q,
        "expected": "Paris",
        "response": "The capital of France is Paris.",
    },
    {
        "id": "lyon",
        "question": CAPITAL_Q,
        "expected": "Paris",
        "response": "The capital of France is Lyon.",
    },
    {
        "id": "sales-paraphrase",
        "question": SALES_Q,
        "expected": SALES_GOLD,
        "response": "Net sales went up in fiscal 2022, driven by higher iPhone and Services revenue.",
    },
    {
        "id": "sales-fell",
        "question": SALES_Q,
        "expected": SALES_GOLD,
        "response": "Apple's net sales fell in fiscal 2022 because iPhone and Services revenue declined.",
    },
    {
        "id": "date-format",
        "question": CERT_Q,
        "expected": "2022-10-27",
        "response": "The certification was signed on October 27, 2022.",
    },
    {
        "id": "date-wrong",
        "question": CERT_Q,
        "expected": "2022-10-27",
        "response": "The certification was signed on October 28, 2022.",
    },
    {
        "id": "margin-in-sentence",
        "question": "What was Apple's gross margin percentage in fiscal 2022?",
        "expected": "43.3%",
        "response": "It came in at 43.3 percent for the year, up from 41.8% in 2021.",
    },
    {
        "id": "margin-wrong",
        "question": "What was Apple's gross margin percentage in fiscal 2022?",
        "expected": "43.3%",
        "response": "Apple's gross margin percentage was 41.8% in fiscal 2022.",
    },
]
EXPECTED_PASS = {"paris-sentence", "sales-paraphrase", "date-format", "margin-in-sentence"}


def passed_and_failed(result: pytest.RunResult) -> tuple[int, int]:
    """Passed tests (pass and acceptable tiers: short answers score 0.5 on length) and failed ones."""
    outcomes = result.parseoutcomes()
    return outcomes.get("passed", 0) + outcomes.get("acceptable", 0), outcomes.get("failed", 0)


def test_textual_golds_default_to_answer_correctness_and_min_similarity_asks_for_cosine() -> None:
    assert choose_accuracy_grader({}, "Paris", "answer_correctness") == "answer_correctness"
    assert (
        choose_accuracy_grader({"min_similarity": 0.8}, "Paris", "answer_correctness")
        == "semantic_similarity"
    )
    assert (
        choose_accuracy_grader({"accuracy": "fuzzy", "min_similarity": 0.8}, "Paris", "x")
        == "fuzzy"
    )
    assert choose_accuracy_grader({}, "$394,328 million", "answer_correctness") == "numeric"


def test_default_grader_gets_the_plain_cases_right(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, PLAIN_CASES)
    result = pytester.runpytest(*plugin_args, "-rA", "--llm-report=r.json")
    assert passed_and_failed(result) == (len(EXPECTED_PASS), len(PLAIN_CASES) - len(EXPECTED_PASS))
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = {r["sample_id"]: r for r in report["sample_results"]}
    for sample_id, row in outcomes.items():
        # a numeric gold goes to the numeric engine, a date to the identity grader, other text to answer_correctness
        grader = {"margin": "numeric", "date": "identity"}.get(
            sample_id.split("-")[0], "answer_correctness"
        )
        assert row["accuracy_grader"] == grader, sample_id
        assert (row["scores"]["accuracy"] == 1.0) == (sample_id in EXPECTED_PASS), (
            sample_id,
            row["reason"],
        )
    result.stdout.fnmatch_lines(["*accuracy graders: answer_correctness 4, identity 2, numeric 2*"])
    # offline: no embedding model, no network
    assert report["metadata"]["judge"] in ("offline", None)


@pytest.fixture
def embedding_model_outside() -> None:
    """Load torch and the embedding model before pytester's sys.modules snapshot.

    The in-process run then uses them; torch cannot be imported a second time in one process,
    which it would be if the inner run imported it first and pytester dropped it afterwards.
    """
    pytest.importorskip("sentence_transformers")
    from pytest_llmeval.metrics.freetext.semantic import semantic_similarity

    semantic_similarity("warm up", "warm up")


def test_cosine_stays_available_by_name(
    embedding_model_outside: None, pytester: pytest.Pytester
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "cos",
                "question": CAPITAL_Q,
                "expected": "Paris",
                "response": "Paris.",
                "eval_criteria": {"accuracy": "semantic_similarity", "min_similarity": 0.5},
            },
            {
                "id": "threshold-only",
                "question": CAPITAL_Q,
                "expected": "Paris",
                "response": "Paris.",
                "eval_criteria": {"min_similarity": 0.5},
            },
        ],
    )
    result = pytester.runpytest("--llm-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    assert {r["accuracy_grader"] for r in report["sample_results"]} == {"semantic_similarity"}
    assert passed_and_failed(result) == (2, 0)


def _scripted(body: dict[str, Any]) -> str:
    """A judge that reads the prompt: 'Lyon' or 'fell' contradicts the gold."""
    prompt = json.dumps(body["messages"])
    wrong = "Lyon" in prompt or "fell" in prompt
    verdict = "factually contradicting" if wrong else "factually matching"
    return json.dumps({"reasons": [f"scripted: {verdict}"], "verdict": verdict})


def test_llm_judge_alone_makes_the_default_grader_ask_the_judge(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    cases = [
        c
        for c in PLAIN_CASES
        if c["id"] in ("paris-sentence", "lyon", "sales-paraphrase", "sales-fell")
    ]
    cases.append(
        {
            "id": "numeric-gold",
            "question": "Apple's FY2022 net sales?",
            "expected": "$394,328 million",
            "response": "$394.3 billion",
        }
    )
    write_suite(pytester, cases)
    fake_openai.reply_with(_scripted)
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=cache",
        "--llm-report=r.json",
    )
    assert passed_and_failed(result) == (3, 2)
    # one judge call per free-text sample (the numeric gold is graded by the numeric engine), plus
    # one second verification where the judge and the fuzzy fact-inclusion check disagree
    verifications = [
        r
        for r in fake_openai.requests
        if "You verify a disputed grade" in r["messages"][0]["content"]
    ]
    assert len(fake_openai.requests) - len(verifications) == 4
    assert all(r["model"] == "judge-model" for r in fake_openai.requests)
    report = json.loads((pytester.path / "r.json").read_text())
    rows = {r["sample_id"]: r for r in report["sample_results"]}
    assert sorted(r["sample_id"] for r in report["sample_results"] if r.get("reverified")) == [
        "sales-fell"
    ]
    assert len(verifications) == report["aggregate_metrics"]["reverified"] == 1
    assert "judge: openai:judge-model" in rows["lyon"]["components"]["accuracy"]["reason"]
    assert rows["numeric-gold"]["accuracy_grader"] == "numeric"
