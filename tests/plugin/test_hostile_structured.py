"""Structured answers built to cost: nested lists share one pair bound, the judge sees matched pairs only."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from pytest_llmeval.metrics.structured import structured_match
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer

pytest_plugins = ["pytester"]


def test_a_table_answer_against_a_table_gold_grades_fast() -> None:
    gold = {"rows": [[f"g{r}-{c}" for c in range(100)] for r in range(18)]}
    answer = {"rows": [[f"a{r}-{c}" for c in range(200)] for r in range(8)]}
    started = time.perf_counter()
    result = structured_match(json.dumps(answer), gold)
    assert time.perf_counter() - started < 10  # each row pair taking its own 20,000 pairs: minutes
    assert not result.passed


def test_a_table_still_matches_rows_in_any_order() -> None:
    gold = {"rows": [[r, r + 1, r + 2] for r in range(0, 30, 3)]}
    answer = {"rows": list(reversed(gold["rows"]))}
    assert structured_match(json.dumps(answer), gold).passed


def _judge(body: dict[str, Any]) -> str:
    return json.dumps({"reasons": ["same"], "verdict": "factually matching"})


def test_prose_fields_are_judged_for_matched_pairs_only(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    gold_lines = [
        {"account": 3000 + i, "text": f"Sale of {i} boxes of paper to the school"}
        for i in range(10)
    ]
    answered = [
        {"account": 3000 + i, "text": f"Sold {i} boxes of paper to the school"} for i in range(10)
    ]
    other = [
        {"account": 5000 + i, "text": f"Office rent for month {i} paid to the landlord"}
        for i in range(190)
    ]
    write_suite(
        pytester,
        [
            {
                "id": "ledger",
                "question": "Post the sales.",
                "expected_structured": {"lines": gold_lines},
                "response": json.dumps({"lines": other[:95] + answered + other[95:]}),
                "eval_criteria": {"structured": {"min_agreement": 0.0}},
            }
        ],
        "j_eval.jsonl",
    )
    fake_openai.reply_with(_judge)
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=cache",
        "--llm-report=r.json",
    )
    result.assert_outcomes(failed=1)  # 190 invented lines
    assert (
        1 <= len(fake_openai.requests) <= 20
    )  # one per matched line, not one per gold x answer pair
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    lines = sample["components"]["accuracy"]["details"]["lines"][0]
    assert (lines["gold"], lines["answer"], lines["exact"]) == (10, 200, 10)


def _paraphrase_judge(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    same = prompt.count("ividend") >= 2 or prompt.count("Europe") >= 2
    return json.dumps(
        {
            "reasons": ["compared"],
            "verdict": "factually matching" if same else "factually contradicting",
        }
    )


def test_a_paraphrase_with_few_shared_words_still_reaches_the_judge(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    gold = {
        "points": [
            "The company raised its dividend this year",
            "Revenue declined in Europe over the period",
        ]
    }
    answer = {
        "points": [
            "Sales in Europe went down",
            "Dividend was increased by the firm",
            "It rained a lot in spring",
        ]
    }
    write_suite(
        pytester,
        [
            {
                "id": "points",
                "question": "Summarise.",
                "expected_structured": gold,
                "response": json.dumps(answer),
                "eval_criteria": {"structured": {"min_agreement": 0.0}},
            }
        ],
        "p_eval.jsonl",
    )
    fake_openai.reply_with(_paraphrase_judge)
    result = pytester.runpytest(
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={fake_openai.url}",
        "--llm-record=off",
        "--llm-report=r.json",
    )
    result.stdout.fnmatch_lines(["*points[[]answer 2[]]: answer item 2 matches no gold item*"])
    assert (
        2 <= len(fake_openai.requests) <= 4
    )  # one per gold item (and a re-check where offline disagrees)
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    lines = sample["components"]["accuracy"]["details"]["lines"][0]
    assert (lines["gold"], lines["answer"], lines["exact"]) == (2, 3, 2)
