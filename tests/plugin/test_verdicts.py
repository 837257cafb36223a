"""Verdicts a reviewer would sign: wrong and right years, half and full answers, scales, names and aliases, graded in a gold-file run with default options."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.metrics.freetext.correctness import answer_correctness
from pytest_llmeval.metrics.freetext.identity import identities, identity_match, identity_only
from tests.conftest import write_suite

VAT_Q = "What is Norwegian VAT (merverdiavgift)?"
VAT_GOLD = (
    "Norwegian VAT is charged at a standard rate of 25%, a reduced rate of 15% on food and beverages, "
    "a low rate of 12% on passenger transport, cinema tickets and hotel rooms, and 0% on exports. "
    "A business must register once its taxable turnover exceeds NOK 50,000 over 12 months, and it "
    "reports VAT in a return every two months."
)

# (id, question, expected, response, graded as a passed test?)
CASES: list[tuple[str, str, Any, str, bool]] = [
    (
        "lebron-2012",
        "When was LeBron's first NBA Finals?",
        "2007",
        "LeBron's first Finals was in 2012.",
        False,
    ),
    (
        "lebron-2007",
        "When was LeBron's first NBA Finals?",
        "2007",
        "His first Finals came in June 2007.",
        True,
    ),
    (
        "fiscal-2021",
        "Which fiscal year had the record revenue?",
        "fiscal 2022",
        "It was fiscal 2021.",
        False,
    ),
    (
        "vat-half",
        VAT_Q,
        VAT_GOLD,
        "Norwegian VAT is a tax on goods and services, charged at 25% on most sales.",
        False,
    ),
    (
        "vat-full",
        VAT_Q,
        VAT_GOLD,
        "Merverdiavgift is charged at 25% as the standard rate, 15% for food and drink, 12% for passenger "
        "transport, cinemas and hotels, and 0% for exports. Registration is required when taxable turnover "
        "passes NOK 50,000 within a 12-month period, and returns are filed every two months.",
        True,
    ),
    ("eps-6.15", "What was diluted EPS?", "6.11", "Diluted EPS was $6.15.", False),
    ("scale-64m", "What was the fine?", "$64,000", "$64 million", False),
    ("dain", "Who killed Azog at the Battle of Azanulbizar?", "Dáin", "Dáin Ironfoot.", True),
    (
        "timmy-smith",
        "Who was the MVP of Super Bowl XXII's running game?",
        "Timmy Smith",
        "Emmitt Smith",
        False,
    ),
    (
        "season-3",
        "In which season did the character first appear?",
        "season two",
        "Season 3",
        False,
    ),
    (
        "season-2",
        "In which season did the character first appear?",
        "season two",
        "She first appears in the second season.",
        True,
    ),
    (
        "loss-per-share",
        "What was basic EPS for the year?",
        "$(0.28)",
        "The basic net loss per share was $0.28",
        True,
    ),
    (
        "aliases",
        "Which baseball teams did Deion Sanders play for?",
        ["Atlanta Braves", "San Francisco Giants"],
        "He played for the San Francisco Giants.",
        True,
    ),
    (
        "aliases-wrong",
        "Which baseball teams did Deion Sanders play for?",
        ["Atlanta Braves", "San Francisco Giants"],
        "The Atlanta Falcons.",
        False,
    ),
]


def _records() -> list[dict[str, Any]]:
    return [{"id": i, "question": q, "expected": e, "response": r} for i, q, e, r, _ in CASES]


def test_issue_cases_graded_right_in_a_default_gold_file_run(pytester: pytest.Pytester) -> None:
    write_suite(pytester, _records())
    result = pytester.runpytest("--llm-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {r["sample_id"]: r for r in report["sample_results"]}
    wrong = {
        sample_id: (by_id[sample_id]["status"], by_id[sample_id]["reason"][:300])
        for sample_id, _, _, _, should_pass in CASES
        if (by_id[sample_id]["status"] in ("pass", "acceptable")) != should_pass
    }
    assert not wrong
    outcomes = result.parseoutcomes()
    expected_passes = sum(1 for *_, ok in CASES if ok)
    assert outcomes.get("passed", 0) + outcomes.get("acceptable", 0) == expected_passes
    assert outcomes.get("failed", 0) == len(CASES) - expected_passes


def test_the_report_names_the_alias_that_matched(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [r for r in _records() if r["id"].startswith("aliases")])
    pytester.runpytest("--llm-report=r.json")
    by_id = {
        r["sample_id"]: r
        for r in json.loads((pytester.path / "r.json").read_text())["sample_results"]
    }
    assert by_id["aliases"]["matched_expected"] == "San Francisco Giants"
    assert "matched_expected" not in by_id["aliases-wrong"]
    assert by_id["aliases"]["expected"] == ["Atlanta Braves", "San Francisco Giants"]
    assert "best of 2 acceptable answers" in by_id["aliases"]["reason"]


def test_out_of_tolerance_figure_fails_and_reports_the_difference(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "eps",
                "question": "Diluted EPS?",
                "expected": "6.11",
                "response": "Diluted EPS was $6.15.",
                "eval_criteria": {"numeric": {"tolerance": 0}},
            }
        ],
    )
    result = pytester.runpytest("--llm-report=r.json")
    row = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert row["status"] == "fail"
    assert row["scores"]["accuracy"] == 0.0
    assert "0.6547%" in row["reason"]
    result.assert_outcomes(failed=1)


def test_partial_credit_is_opt_in_per_gold(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "eps",
                "question": "Diluted EPS?",
                "expected": "6.11",
                "response": "Diluted EPS was $6.12.",
                "eval_criteria": {"numeric": {"partial_credit": True}},
            }
        ],
    )
    pytester.runpytest("--llm-report=r.json")
    row = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert 0.75 < row["scores"]["accuracy"] < 0.9  # near miss: credit because the gold asks for it


def test_needs_review_pass_is_not_counted_by_the_gate_unless_asked(
    pytester: pytest.Pytester,
) -> None:
    # A descriptive gold; the answer shares none of its figures or words: thin evidence for a pass.
    thin = {
        "id": "thin",
        "question": "Which of the three cash-flow sections brought in the most cash for Nike in FY2023?",
        "expected": "Among the three, operations was the highest.",
        "response": "In FY2023 the cash Nike generated from running its business came out on top of the three sections.",
    }
    clear = {
        "id": "clear",
        "question": "What is the capital of France?",
        "expected": "Paris",
        "response": "The capital of France is Paris.",
    }
    write_suite(pytester, [thin, clear])
    verdict = answer_correctness(
        thin["response"], thin["expected"], question=thin["question"], judge="offline"
    )
    assert verdict.correct
    assert verdict.needs_review
    strict = pytester.runpytest("--llm-min-pass-rate=0.75", "-o", "llm_tiers=0.5,0.4")
    strict.stdout.fnmatch_lines(
        [
            "*needs review (offline judge (*))*",
            "*::thin*",
            "*gate FAILED*1 pass-tier sample(s) needing review not counted*",
        ]
    )
    assert strict.ret == 1
    lenient = pytester.runpytest(
        "--llm-min-pass-rate=0.75", "-o", "llm_tiers=0.5,0.4", "-o", "llm_review_passes=true"
    )
    lenient.stdout.fnmatch_lines(["*gate passed*"])
    assert lenient.ret == 0


@pytest.mark.parametrize(
    ("gold", "answer", "passed"),
    [
        ("November 8, 1968", "It was released on 8 November 1968.", True),
        ("2022-10-27", "Signed on October 27, 2022.", True),
        ("2022-10-27", "Signed on October 28, 2022.", False),
        ("1984", "It first appeared in May 1984.", True),  # a finer date inside the gold's year
        ("Q3 2021", "In the third quarter of 2021.", True),
        ("Q3 2021", "In the fourth quarter of 2021.", False),
        ("the late 6th century BCE", "In the 19th century.", False),
        ("FY2022", "fiscal 2022", True),
        ("the 5th", "He finished fifth.", True),
    ],
)
def test_identities_are_equal_contained_or_different(gold: str, answer: str, passed: bool) -> None:
    assert identity_only(gold)
    assert identity_match(answer, gold).passed is passed


def test_a_coarser_period_follows_the_policy() -> None:
    assert identity_match("1968", "November 8, 1968", coarser="review").needs_review
    assert not identity_match("1968", "November 8, 1968", coarser="review").passed
    assert identity_match("1968", "November 8, 1968", coarser="pass").passed
    assert not identity_match("1968", "November 8, 1968", coarser="fail").passed


def test_amounts_are_not_identities() -> None:
    assert not identity_only("$1,500 million")
    assert not identity_only("Revenue grew in 2022 because of iPhone sales")
    found, _ = identities("$2,007 million in 2019 and 15% in 2020")
    assert [i.value for i in found] == [(2019, 0, 0), (2020, 0, 0)]


def test_a_coarser_period_is_escalated_to_the_judge(pytester: pytest.Pytester) -> None:
    from tests.fake_openai import FakeOpenAIServer

    records = [
        {
            "id": "coarse",
            "question": "When did the flag code become law?",
            "expected": "June 22, 1942",
            "response": "In 1942.",
        },
        {
            "id": "exact",
            "question": "When did the flag code become law?",
            "expected": "June 22, 1942",
            "response": "On 22 June 1942.",
        },
    ]
    write_suite(pytester, records)
    offline = pytester.runpytest("--llm-report=r.json")
    rows = {
        r["sample_id"]: r
        for r in json.loads((pytester.path / "r.json").read_text())["sample_results"]
    }
    assert rows["coarse"]["needs_review"]
    assert rows["coarse"]["status"] == "fail"
    assert offline.ret == 1
    with FakeOpenAIServer() as server:
        server.reply_with(
            lambda body: json.dumps(
                {"reasons": ["1942 is the year asked about"], "verdict": "factually matching"}
            )
        )
        judged = pytester.runpytest(
            "--llm-judge=openai:judge",
            f"--llm-base-url={server.url}",
            "--llm-cache-dir=c",
            "--llm-report=j.json",
        )
        # only the coarser answer goes to the judge (a call, and its second verification against the fuzzy check)
        assert server.requests
        assert all("In 1942." in json.dumps(r["messages"]) for r in server.requests)
    rows = {
        r["sample_id"]: r
        for r in json.loads((pytester.path / "j.json").read_text())["sample_results"]
    }
    assert rows["coarse"]["status"] == "pass"
    assert not rows["coarse"]["needs_review"]
    assert "escalated to the judge" in rows["coarse"]["reason"]
    judged.assert_outcomes(passed=2)
