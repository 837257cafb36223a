"""Claims precision / recall / F1 with a scripted LLM judge and with the offline judge."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.errors import GraderError, LLMEvalAssertionError
from pytest_llmeval.judge.offline import split_claims, split_sentences
from pytest_llmeval.metrics.base import current_recorder
from pytest_llmeval.metrics.freetext.claims import assert_claims_f1, claims_f1, grade
from pytest_llmeval.registry import GradeContext
from pytest_llmeval.sample import Sample
from tests.extras import needs
from tests.unit.judge.test_judge import FakeJudge

QUESTION = "What is Rule 10b5-1 Trading Plans?"
GOLD = (
    "Rule 10b5-1 trading plans are written documents that preestablish the amounts, prices and dates "
    "(or a formula for determining the amounts, prices and dates) of future purchases or sales of the "
    "company's stock. The plans cover sales of shares acquired from employee and director equity plans."
)
RESPONSE = (
    "A Rule 10b5-1 trading plan is a written document. The plan sets in advance the amounts, prices and "
    "dates of trades in the company's shares, or a formula for determining them. It also covers sales of "
    "shares received through employee and director equity plans."
)
GOLD_CLAIMS = [
    "Rule 10b5-1 trading plans are written documents",
    "They preestablish the amounts of future purchases or sales",
    "They preestablish the prices of future purchases or sales",
    "They preestablish the dates of future purchases or sales",
    "They may instead set a formula for determining amounts, prices and dates",
    "They cover sales of shares from employee and director equity plans",
]
RESPONSE_CLAIMS = [
    "A Rule 10b5-1 trading plan is a written document",
    "The plan sets the amounts of trades in advance",
    "The plan sets the prices of trades in advance",
    "The plan sets the dates of trades in advance",
    "The plan can use a formula for determining them",
    "It covers sales of shares from employee and director equity plans",
]


def scripted_10b5_judge(messages: list[dict[str, str]]) -> str:
    system, user = messages[0]["content"], messages[1]["content"]  # [1]: a repair turn comes last
    if "atomic factual claims" in system:
        return json.dumps({"claims": GOLD_CLAIMS if "preestablish" in user else RESPONSE_CLAIMS})
    assert "compare the claims" in system
    pairs = [{"index": i, "match": i, "reason": f"both state claim {i}"} for i in range(1, 7)]
    return json.dumps({"response_claims": pairs, "gold_claims": pairs})


def test_worked_example_with_an_llm_judge() -> None:
    judge = FakeJudge(scripted_10b5_judge)
    result = claims_f1(RESPONSE, GOLD, question=QUESTION, judge=judge)
    assert (result.precision, result.recall, result.f1, result.passed) == (1.0, 1.0, 1.0, True)
    assert result.response_claims == RESPONSE_CLAIMS
    assert result.gold_claims == GOLD_CLAIMS
    assert next(link.reason for link in result.matching.gold) == "both state claim 1"
    assert len(judge.calls) == 3  # two extractions, one matching
    assert QUESTION in judge.calls[0][0][1]["content"]


def test_precomputed_gold_claims_save_a_judge_call() -> None:
    judge = FakeJudge(scripted_10b5_judge)
    result = claims_f1(RESPONSE, GOLD, question=QUESTION, judge=judge, gold_claims=GOLD_CLAIMS)
    assert result.f1 == 1.0
    assert len(judge.calls) == 2
    assert result.details["gold_claims_source"] == "given"


@needs("semantic")
def test_worked_example_offline() -> None:
    result = claims_f1(RESPONSE, GOLD, question=QUESTION, judge="offline")
    assert len(result.response_claims) == 6
    assert len(result.gold_claims) == 6
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)
    assert result.details["judge"] == "offline"
    # enumeration siblings are told apart: each gold claim is stated by its own counterpart
    assert [link.match for link in result.matching.gold] == [0, 1, 2, 3, 4, 5]


def test_matches_are_counted_separately_on_each_side() -> None:
    # one broad response claim states two gold claims: precision 1/1, recall 2/3
    reply = {
        "response_claims": [{"index": 1, "match": 1, "reason": "states revenue growth and level"}],
        "gold_claims": [
            {"index": 1, "match": 1, "reason": "growth stated"},
            {"index": 2, "match": 1, "reason": "level stated"},
            {"index": 3, "match": None, "reason": "margins not mentioned"},
        ],
    }
    judge = FakeJudge(
        [
            json.dumps({"claims": ["Revenue rose 5% to $10.2 billion"]}),
            json.dumps(reply),
        ]
    )
    gold = ["Revenue rose 5%", "Revenue was $10.2 billion", "Operating margin fell to 12%"]
    result = claims_f1(
        "Revenue rose 5% to $10.2 billion.", "-", judge=judge, gold_claims=gold, min_f1=0.5
    )
    assert result.precision == 1.0
    assert result.recall == pytest.approx(2 / 3)
    assert result.f1 == pytest.approx(0.8)
    assert "'Operating margin fell to 12%'" in result.explanation


def test_offline_broad_claim_states_narrow_gold_claims() -> None:
    gold = ["Revenue rose 5%", "Revenue was $10.2 billion", "Operating margin fell to 12%"]
    result = claims_f1("Revenue rose 5% to $10.2 billion.", "-", judge="offline", gold_claims=gold)
    assert [link.match for link in result.matching.gold] == [0, 0, None]
    assert result.precision == 1.0
    assert result.recall == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("response", "expected", "why"),
    [
        (
            "Revenue grew 7% to $10.2 billion in 2022.",
            "Revenue grew 5% to $10.2 billion in 2022.",
            "numbers disagree",
        ),
        ("Operating margin improved in 2022.", "Operating margin declined in 2022.", "direction"),
        (
            "The company paid a dividend in 2022.",
            "The company did not pay a dividend in 2022.",
            "negation",
        ),
    ],
)
def test_offline_vetoes_contradictions(response: str, expected: str, why: str) -> None:
    result = claims_f1(response, expected, judge="offline")
    assert result.f1 == 0.0
    assert not result.passed
    assert why in result.matching.gold[0].reason


@needs("semantic")
def test_offline_numbers_agree_across_scales() -> None:
    result = claims_f1(
        "3M spent $1.577 billion on capital expenditures in FY2018.",
        "Capital expenditure in FY2018 was $1,577 million.",
        question="What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
        judge="offline",
    )
    assert result.f1 == 1.0, result.explanation


def test_offline_bare_gold_number_and_years() -> None:
    question = "What is Best Buy's year end FY2019 total inventories (in USD millions)?"
    response = "The total inventories at the end of fiscal year 2019 were $5,409 million."
    assert claims_f1(response, "$5409.00", question=question, judge="offline").recall == 1.0
    assert claims_f1(response, "$5490.00", question=question, judge="offline").recall == 0.0
    # a year clashes only with a different year
    gold = "Adjusted EBITDA was $2,018 million in 2023."
    assert (
        claims_f1("FY2023 adjusted EBITDA was $2,018 million.", gold, judge="offline").recall == 1.0
    )
    wrong_year = claims_f1("Adjusted EBITDA was $2,018 million in 2022.", gold, judge="offline")
    assert wrong_year.recall == 0.0
    assert "years disagree" in wrong_year.matching.gold[0].reason


def test_offline_missing_and_invented_claims_lower_recall_and_precision() -> None:
    response = (
        "A Rule 10b5-1 trading plan is a written document. It also lets executives trade on material "
        "nonpublic information whenever they like."
    )
    result = claims_f1(response, GOLD, question=QUESTION, judge="offline")
    assert result.recall <= 1 / 6 + 1e-9
    assert result.precision == 0.5
    assert not result.passed
    assert "unsupported: 'It also lets executives trade" in result.explanation


@needs("semantic")
def test_assert_claims_f1_fails_with_an_explanation_and_is_recorded() -> None:
    recorded: list[Any] = []
    token = current_recorder.set(recorded)
    try:
        with pytest.raises(
            LLMEvalAssertionError,
            match=r"claims_f1 failed .*recall 0\.00.*missing: 'Operating margin",
        ) as info:
            assert_claims_f1(
                "The company is based in Ohio.",
                "Operating margin fell to 12% in 2023.",
                judge="offline",
            )
        assert_claims_f1(
            RESPONSE, GOLD, question=QUESTION, judge="offline", min_precision=1.0, min_recall=1.0
        )
    finally:
        current_recorder.reset(token)
    assert info.value.result.f1 == 0.0
    assert [r.passed for r in recorded] == [False, True]


def test_min_precision_and_min_recall_are_checked_on_their_own() -> None:
    gold = ["Revenue rose 5%", "Revenue was $10.2 billion", "Operating margin fell to 12%"]
    result = claims_f1(
        "Revenue rose 5% to $10.2 billion.",
        "-",
        judge="offline",
        gold_claims=gold,
        min_f1=0.5,
        min_recall=0.9,
    )
    assert result.f1 == pytest.approx(0.8)
    assert not result.passed
    assert "recall 0.67 < min_recall 0.90" in result.explanation
    with pytest.raises(GraderError, match="min_f1 must be in"):
        claims_f1("a", "b", min_f1=80)


def test_no_claims_on_either_side_is_vacuous_agreement_and_one_side_empty_is_zero() -> None:
    assert claims_f1("", "", judge="offline").f1 == 1.0
    result = claims_f1("", "Revenue rose 5%.", judge="offline")
    assert (result.recall, result.f1, result.passed) == (0.0, 0.0, False)


def test_rubric_grader_uses_sample_gold_claims_and_criteria() -> None:
    sample = Sample(
        id="q1",
        path="suite.jsonl",
        line=1,
        question=QUESTION,
        expected=GOLD,
        messages=(),
        gold_claims=tuple(GOLD_CLAIMS),
    )
    judge = FakeJudge(scripted_10b5_judge)
    ctx = GradeContext(
        response=RESPONSE,
        expected=GOLD,
        question=QUESTION,
        criteria={"min_f1": 0.9},
        sample=sample,
        judge=judge,
    )
    result = grade(ctx)
    assert result.metric == "claims_f1"
    assert result.passed
    assert result.details["min_f1"] == 0.9
    assert len(judge.calls) == 2  # gold claims were not extracted again
    offline = grade(
        GradeContext(
            response="The company is based in Ohio.", expected=GOLD, question=QUESTION, criteria={}
        )
    )
    assert offline.details["judge"] == "offline"
    assert not offline.passed
    with pytest.raises(GraderError, match="min_f1 must be a number"):
        grade(GradeContext(response="x", expected="y", question=None, criteria={"min_f1": "high"}))


# -- segmentation -------------------------------------------------------------------------------


def test_sentences_respect_abbreviations_decimals_and_bullets() -> None:
    text = (
        "Here are the key points:\n"
        "- U.S. revenue was $3.5 billion, up 4.2% vs. 2021.\n"
        "- Apple Inc. paid dividends. The board approved a buyback!\n"
        "2. Net income fell."
    )
    assert split_sentences(text) == [
        "Here are the key points:",
        "U.S. revenue was $3.5 billion, up 4.2% vs. 2021.",
        "Apple Inc. paid dividends.",
        "The board approved a buyback!",
        "Net income fell.",
    ]
    claims = split_claims(text)
    assert "Here are the key points" not in " ".join(claims)  # lead-ins are not claims
    assert claims[0] == "U.S. revenue was $3.5 billion, up 4.2% vs. 2021"


def test_clauses_enumerations_and_parentheticals_become_claims() -> None:
    assert split_claims(
        "Revenue increased 5% to $10 billion, and operating margin fell to 12%; cash grew."
    ) == [
        "Revenue increased 5% to $10 billion",
        "operating margin fell to 12%",
        "cash grew",
    ]
    assert split_claims(
        "The plan fixes the amounts, prices and dates of sales (subject to board approval)."
    ) == [
        "The plan fixes the amounts of sales",
        "The plan fixes the prices of sales",
        "The plan fixes the dates of sales",
        "subject to board approval",
    ]
    assert split_claims("The plan fixes the amounts, prices, and dates of sales.") == [
        "The plan fixes the amounts of sales",
        "The plan fixes the prices of sales",
        "The plan fixes the dates of sales",
    ]
    assert split_claims("Revenue was $5 billion, up 3%, and margins fell.") == [
        "Revenue was $5 billion, up 3%",
        "margins fell",
    ]
    assert split_claims(
        "Rule 10b5-1 plans are written documents that fix the dates of trades."
    ) == [
        "Rule 10b5-1 plans are written documents",
        "Rule 10b5-1 plans fix the dates of trades",
    ]
    # lists with numbers stay whole: each number belongs to its item
    assert len(split_claims("Segments grew 5%, 7% and 9% respectively.")) == 1


_WORDS = st.sampled_from(
    ["revenue", "margin", "Apple", "grew", "fell", "5%", "$3.5", "billion", "U.S.", "dividend"]
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=8), min_size=1, max_size=5))
def test_sentence_split_keeps_every_word_in_order(sentences: list[list[str]]) -> None:
    text = " ".join(" ".join(words) + "." for words in sentences)
    parts = split_sentences(text)
    assert " ".join(parts).split() == text.split()
    assert split_sentences(text) == parts  # deterministic


def test_offline_judge_without_sentence_transformers_falls_back_to_rapidfuzz(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from pytest_llmeval.metrics.freetext import semantic

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setattr(semantic, "_models", {})
    monkeypatch.setattr(semantic, "_sentence_cache", {})
    result = claims_f1("Revenue grew 5% in 2022.", "In 2022 revenue grew 5%.", judge="offline")
    assert result.f1 == 1.0
    assert "rapidfuzz" in result.details["fallback"]
    assert "fallback: rapidfuzz" in result.explanation
    wrong = claims_f1("Revenue grew 9% in 2022.", "In 2022 revenue grew 5%.", judge="offline")
    assert wrong.f1 == 0.0
