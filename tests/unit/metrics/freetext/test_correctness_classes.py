"""Offline answer_correctness on named failure classes (examples written here, not data).

Each class is a rule or an analysis step with a name; the benchmark switches each off to measure it
on grouped folds of FinanceBench dev (benchmarks/eval_answer_correctness.py).
"""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.freetext.correctness import (
    RULES,
    AnswerVerdict,
    analyse,
    answer_correctness,
    decide,
    gold_answer_part,
)


def offline(response: str, expected: str, question: str | None = None) -> AnswerVerdict:
    return answer_correctness(response, expected, question=question, judge="offline")


SALES_Q = "How did Acme's operating income change from FY2021 to FY2022?"
SALES_GOLD = "Operating income declined by about 42% year over year."


def test_a_change_implied_by_two_stated_levels_counts_as_the_gold_figure() -> None:
    levels = "Acme's operating income was $1,874 million in FY2021 and decreased to $1,093 million in FY2022."
    wrong_levels = "Acme's operating income was $1,874 million in FY2021 and decreased to $1,593 million in FY2022."
    s = analyse(levels, SALES_GOLD, SALES_Q)
    assert (s.key_matched, s.key_derived) == (1, 1)
    assert offline(levels, SALES_GOLD, SALES_Q).correct
    s_wrong = analyse(wrong_levels, SALES_GOLD, SALES_Q)
    assert (s_wrong.key_matched, s_wrong.key_derived) == (0, 0)
    assert not offline(wrong_levels, SALES_GOLD, SALES_Q).correct
    # levels in different sentences are not paired (a long answer has many figures)
    apart = "Operating income was $1,874 million in FY2021. Revenue grew. It decreased to $1,093 million in FY2022."
    assert analyse(apart, SALES_GOLD, SALES_Q).key_derived == 0
    # switched off, the derived figure is not found
    assert analyse(levels, SALES_GOLD, SALES_Q, {"derived_figures": 0.0}).key_matched == 0


def test_a_share_and_a_difference_implied_by_two_levels() -> None:
    share_gold = "87% of the total restructuring liability relates to employee costs."
    share = "The restructuring liability was $93 million, of which employee costs were $81 million."
    assert (
        analyse(
            share, share_gold, "What is the restructuring liability mostly made of?"
        ).key_derived
        == 1
    )
    diff_gold = "No. Debt decreased by $2.5 billion in FY2023."
    diff = "No. Total debt fell from $49.8 billion to $47.3 billion in FY2023."
    assert analyse(diff, diff_gold, "Did Acme increase its debt in FY2023?").key_derived == 1


def test_assumption_sentences_of_the_gold_are_not_required_facts() -> None:
    gold = (
        "Inventory turnover was 5.1 times in FY2023. The answer here assumes FY2023 refers to the "
        "12 months ended January 28, 2023."
    )
    assert gold_answer_part(gold) == "Inventory turnover was 5.1 times in FY2023."
    question = "What was Acme's inventory turnover in FY2023?"
    answer = "Acme turned over its inventory about 5.1 times in fiscal 2023."
    s = analyse(answer, gold, question)
    assert s.key_dates == 0  # the date is in the assumption
    assert offline(answer, gold, question).correct
    # a gold that is only an aside keeps everything
    assert (
        gold_answer_part("Note that revenue is defined as net sales.")
        == "Note that revenue is defined as net sales."
    )


LONG_UP = (
    "Gross margin is affected by many factors. Input costs fell in the first half, and freight was lower. "
    "Pricing was also lower in some regions, and promotional activity increased. "
    "In summary, gross margin increased from 38.1% to 39.4% year over year."
)


def test_direction_is_read_from_the_conclusion_of_a_long_answer() -> None:
    gold = "Gross margin increased in FY2022."
    question = "Did Acme's gross margin improve in FY2022?"
    s = analyse(LONG_UP, gold, question)
    assert (s.resp_direction, s.concl_direction) == ("down", "up")
    assert offline(LONG_UP, gold, question).correct
    long_down = LONG_UP.replace(
        "In summary, gross margin increased", "In summary, gross margin decreased"
    )
    verdict = offline(long_down, gold, question)
    assert not verdict.correct
    assert "moves up" in verdict.explanation


def test_a_negated_answer_that_carries_the_gold_figure_is_incorrect() -> None:
    question = "Did Acme pay a dividend in Q3 FY2023?"
    gold = "Yes, $0.01 per share."
    negated = "Based on the filing, Acme did not pay dividends in Q3 FY2023; the $0.01 quarterly dividend was suspended."
    verdict = offline(negated, gold, question)
    assert not verdict.correct
    assert "negated" in verdict.explanation
    assert offline(
        "Yes. Acme paid a dividend of $0.01 per share in Q3 FY2023.", gold, question
    ).correct


def test_a_hedged_non_answer_is_incorrect() -> None:
    question = "What was Acme's free cash flow in FY2023?"
    gold = "Acme's free cash flow in FY2023 was $812 million, driven by working capital release."
    hedged = (
        "There is no specific mention of free cash flow for FY2023 in the filing. However, earlier years show "
        "that Acme generated strong operating cash flow, for example $640 million in FY2021."
    )
    s = analyse(hedged, gold, question)
    assert s.hedged
    assert not s.refusal
    assert not offline(hedged, gold, question).correct
    # the same opening followed by the gold's figure is an answer
    answered = hedged.replace(
        "for example $640 million in FY2021", "and FY2023 free cash flow was $812 million"
    )
    assert offline(answered, gold, question).correct


METRIC_Q = (
    "What is Acme Bank's FY2022 inventory turnover ratio? If inventory turnover is not a useful metric "
    "for this company, say so and explain why."
)


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (
            "Inventory turnover is not a useful metric for a bank, which holds no inventory.",
            "Inventory turnover is not a meaningful metric for Acme Bank: banks carry no inventory.",
            True,
        ),
        (
            "Inventory turnover is not a useful metric for a bank, which holds no inventory.",
            "Acme Bank's inventory turnover was 4.2 times in FY2022.",
            False,
        ),
        ("4.2", "Inventory turnover is not relevant for a bank, so it is not computed.", False),
        ("4.2", "Inventory turnover was 4.2 (cost of sales / average inventory).", True),
    ],
)
def test_if_the_metric_is_not_useful_say_so(gold: str, response: str, correct: bool) -> None:
    verdict = offline(response, gold, METRIC_Q)
    assert verdict.correct is correct, verdict.explanation
    assert not verdict.refusal


def test_every_rule_is_named_and_can_be_switched_off() -> None:
    s = analyse("The capital of France is Lyon.", "Paris", "What is the capital of France?")
    assert decide(s)[0] is False
    assert "short_gold" in RULES
    # without the rule the logistic evidence decides (question coverage outweighs the missing word)
    assert decide(s, disabled=frozenset({"short_gold"}))[0] is True


def test_method_sentences_do_not_set_the_direction() -> None:
    question = "Did Acme's revenue increase in FY2022?"
    gold = "No. Revenue decreased by 10% in FY2022."
    answer = (
        "To determine whether revenue increased, we need to compare the two years. "
        "Revenue fell from $10 billion in FY2021 to $9 billion in FY2022, a 10% decline."
    )
    s = analyse(answer, gold, question)
    assert s.resp_direction == "down"
    assert offline(answer, gold, question).correct


@pytest.mark.parametrize(
    ("response", "correct"),
    [
        ("The jurisdiction is Thailand.", True),
        ("Thailand", True),
        ("The governing law is that of Singapore.", False),
    ],
)
def test_the_articles_thailand_example(response: str, correct: bool) -> None:
    question = "Under which country's law is the agreement governed?"
    assert offline(response, "Thailand", question).correct is correct
