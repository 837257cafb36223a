"""Label stage: a figure ties to the words next to it on either side, and the asked label's figure is graded."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.numeric.candidates import extract_values
from pytest_llmeval.metrics.numeric.figure_labels import tie
from pytest_llmeval.metrics.numeric.match import numeric_match


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        ("We booked 1.5B revenue, 500M profit.", [{"reven"}, {"profi"}]),
        ("Revenue was 1.5B while profit reached 500M.", [{"reven"}, {"profi"}]),
        ("- Revenue: 1.5B\n- Profit: 500M", [{"reven"}, {"profi"}]),
        ("| Revenue | 1.5B |\n| Profit | 500M |", [{"reven"}, {"profi"}]),
        (
            "It reported $3.1 billion in net income on $12.4 billion of revenue.",
            [{"net", "incom"}, {"reven"}],
        ),
    ],
)
def test_figures_tie_to_the_words_beside_them(text: str, labels: list[set[str]]) -> None:
    cands = [c for c in extract_values(text) if not c.ignored]
    tied = tie(text, cands)
    assert [set(tied.get(k, ())) for k in range(len(cands))] == labels


@pytest.mark.parametrize(
    "answer",
    [
        "- Revenue: $1.5 billion\n- Profit: $500 million",
        "| Item | Amount |\n|---|---|\n| Revenue | $1.5 billion |\n| Profit | $500 million |",
        "The company reported $500 million in profit on $1.5 billion of revenue.",
        "Profit came in at $500 million; revenue at $1.5 billion.",
    ],
)
def test_the_asked_labels_figure_is_graded(answer: str) -> None:
    assert numeric_match(answer, "$1.5 billion", question="What was revenue?").passed
    wrong = numeric_match(answer, "$500 million", question="What was revenue?")
    assert not wrong.passed
    assert "tied to" in wrong.explanation or "1.5" in wrong.explanation


def test_a_computed_answer_keeps_its_figure() -> None:
    """Words of a definition in the question ("net income / average total assets") name no figure
    of the answer's conclusion; a period ("FY2021") is no label."""
    question = "What is AES's FY2022 return on assets (ROA)? ROA is defined as: FY2022 net income / average total assets."
    answer = (
        "The total assets for FY2022 and FY2021 are $38,363 million and $32,963 million respectively. "
        "ROA = -($546 million) / $35,663 million = -0.0153 or -1.53%."
    )
    assert numeric_match(
        answer, "-0.02", question=question, tolerance=0.3
    ).found_value != pytest.approx(38363e6)


def test_a_label_restating_the_question_names_no_more_than_the_answers_own() -> None:
    """A noun-phrase question restated before a threshold ("most consecutive games with 20+ points")
    does not outweigh the label of the figure the answer gives ("126 consecutive games")."""
    answer = (
        "The record for most consecutive games with 20+ points in NBA history is held by Wilt Chamberlain, "
        "who scored 20 or more points in 126 consecutive games from 1964-1966."
    )
    assert numeric_match(
        answer, "126", question="most consecutive games with 20+ points - nba history"
    ).passed
