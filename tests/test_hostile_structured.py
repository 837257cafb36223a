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


def test_prose_fields_are_judged_for_matched_pairs_only(pytester: pytest.Pytester, fake_openai: FakeOpenAIServer) -> None:
    gold_lines = [{"account": 3000 + i, "text": f"Sale of {i} boxes of paper to the school"} for i in range(10)]
    answered = [{"account": 3000 + i, "text": f"Sold {i} boxes of paper to the school"} for i in range(10)]
    other = [{"account": 5000 + i, "text": f"Office rent for month {i} paid to the landlord"} for i in range(190)]
    write_suite(pytester, [{
        "id": "ledger", "question": "Post the sales.", "expected_structured": {"lines": gold_lines},
        "response": json.dumps({"lines": other[:95] + answered + other[95:]}),
        "eval_criteria": {"structured": {"min_agreement": 0.0}},
    }], "j_eval.jsonl")
    fake_openai.reply_with(_judge)
    result = pytester.runpytest("--llm-judge=openai:judge-model", f"--llm-base-url={fake_openai.url}",
                                "--llm-cache-dir=cache", "--llm-report=r.json")
    result.assert_outcomes(failed=1)  # 190 invented lines
    assert 1 <= len(fake_openai.requests) <= 20  # one per matched line, not one per gold x answer pair
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    lines = sample["components"]["accuracy"]["details"]["lines"][0]
    assert (lines["gold"], lines["answer"], lines["exact"]) == (10, 200, 10)
