"""A gold-file run grades short golds named in other written forms, and listed ones, as the function does."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.metrics.freetext.correctness import answer_correctness
from tests.conftest import write_suite

pytest_plugins = ["pytester"]

# (question, acceptable answers, answer)
CASES: list[tuple[str, list[str], str]] = [
    ("Where is the novel set?", ["Spain"], "In a Spanish fishing village."),
    ("How many moons does the planet have?", ["Seven"], "It has 7."),
    ("Who wrote the essay?", ["Ralph Waldo Emerson"], "Ralph Emerson"),
    (
        "Which agency launched it?",
        ["NASA", "the space agency"],
        "The National Aeronautics and Space Administration.",
    ),
    ("Which planet did the probe visit?", ["Venus"], "It visited Mercury, Venus and Mars."),
    ("Which planet did the probe visit?", ["Venus"], "Venus or Mars"),
]


def _outcome(passed: bool, review: bool) -> str:
    return "review" if review else ("pass" if passed else "fail")


def test_a_gold_file_run_grades_as_the_function(pytester: pytest.Pytester) -> None:
    records = [
        {"id": f"s{i}", "question": q, "expected": golds, "response": answer}
        for i, (q, golds, answer) in enumerate(CASES)
    ]
    write_suite(pytester, records)
    pytester.runpytest("--llm-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {r["sample_id"]: r for r in report["sample_results"]}
    got, want = {}, {}
    for i, (q, golds, answer) in enumerate(CASES):
        verdicts = [answer_correctness(answer, gold, question=q, judge="offline") for gold in golds]
        best = max(verdicts, key=lambda v: (v.correct, not v.needs_review))
        want[f"s{i}"] = _outcome(best.correct, best.needs_review)
        row = by_id[f"s{i}"]
        got[f"s{i}"] = _outcome(
            row["status"] in ("pass", "acceptable"), bool(row.get("needs_review"))
        )
    assert got == want
    # named forms pass, a candidate among others is never a pass
    assert [want[f"s{i}"] for i in range(4)] == ["pass"] * 4
    assert want["s4"] != "pass"
    assert want["s5"] != "pass"


def test_a_day_inside_a_coarse_alias_must_be_the_finer_alias(pytester: pytest.Pytester) -> None:
    aliases = ["March 2019", "March 8, 2019"]
    records = [
        {
            "id": "other-day",
            "question": "When did the album come out?",
            "expected": aliases,
            "response": "March 15, 2019",
        },
        {
            "id": "same-day",
            "question": "When did the album come out?",
            "expected": aliases,
            "response": "On 8 March 2019.",
        },
        {
            "id": "month",
            "question": "When did the album come out?",
            "expected": aliases,
            "response": "In March 2019.",
        },
    ]
    write_suite(pytester, records)
    pytester.runpytest("--llm-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text())
    status = {r["sample_id"]: r["status"] for r in report["sample_results"]}
    assert status == {"other-day": "fail", "same-day": "pass", "month": "pass"}
