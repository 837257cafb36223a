"""Naming a short gold: the written forms that state it, and the answer's own words that take it away.

Examples are written here (other entities, words and positions than any dev row); the classes come
from benchmarks/openqa_error_classes.py.
"""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.freetext.correctness import (
    CONTRADICTIONS,
    RULES,
    analyse,
    answer_correctness,
)
from pytest_llmeval.metrics.freetext.naming import MAX_OPENING_CHARS, naming, opening_sentence


def named(answer: str, gold: str, question: str | None = None) -> str:
    found = naming(answer, gold, question)
    assert found is not None
    return found.how if found.named else ""


@pytest.mark.parametrize(
    ("answer", "gold", "how"),
    [
        ("It was Marie Curie.", "Marie Curie", "word for word"),
        ("marie curie", "Marie Curie", "word for word"),
        ("The Beatles' drummer", "Beatles", "word for word"),
        ("They moved to São Paulo in 1990.", "Sao Paulo", "word for word"),
        # numbers as digits or words, cardinal or ordinal, compound or not
        ("Ocean's 11", "Ocean's Eleven", "word for word"),
        ("Catch Twenty-Two", "Catch-22", "word for word"),
        ("The story is set in the 3rd Reich.", "the Third Reich", "word for word"),
        ("the twenty first amendment", "21st Amendment", "word for word"),
        ("7", "Seven", "word for word"),
        # names: initials, a middle name left out, a title before it
        ("J. R. R. Tolkien wrote it.", "John Ronald Reuel Tolkien", "initials for given names"),
        ("Franklin Delano Roosevelt", "Franklin D. Roosevelt", "initials for given names"),
        ("George Carver", "George Washington Carver", "without the middle name"),
        ("Dr. Martin Luther King Jr. gave the speech.", "Martin Luther King", "word for word"),
        # acronyms and their words, both ways; a parenthesised acronym is another name of the gold
        (
            "the National Aeronautics and Space Administration",
            "NASA",
            "the words of the acronym NASA",
        ),
        ("It is run by the WHO.", "World Health Organization", "the acronym of its words"),
        ("GDP", "gross domestic product (GDP)", "the acronym of its words"),
        ("ATP", "the energy carrier (ATP)", "its short form ATP"),
        # a country by its demonym or short form
        ("A small Italian town", "Italy", "the country by its demonym"),
        ("Dutch painters", "the Netherlands", "the country by its demonym"),
        ("She was born in the U.K.", "United Kingdom", "the country by a short form"),
    ],
)
def test_forms_that_name_the_gold(answer: str, gold: str, how: str) -> None:
    assert named(answer, gold) == how


@pytest.mark.parametrize(
    ("answer", "gold"),
    [
        ("Newton", "Isaac Newton"),  # a surname alone may be another person's
        ("Albert Newton", "Isaac Newton"),
        ("North Carolina and South Dakota", "South Carolina"),  # the words, not in the gold's order
        ("South is where Carolina lies, far from the coast and the border", "South Carolina"),
        ("Italy", "Italian"),  # a language is not its country
        ("Seventy", "Seven"),
        ("It was Marie Antoinette.", "Marie Curie"),
    ],
)
def test_forms_that_do_not_name_the_gold(answer: str, gold: str) -> None:
    assert named(answer, gold) == ""


@pytest.mark.parametrize(
    ("answer", "gold", "listed"),
    [
        ("Mercury, Venus and Mars", "Venus", "among 3 items"),
        (
            "The rivers are the Rhine, the Danube, the Elbe, and the Oder.",
            "the Elbe",
            "among 4 items",
        ),
        ("Either Mercury or Venus.", "Mercury", "alternatives"),
        ("Mercury/Venus", "Venus", "alternatives"),
    ],
)
def test_a_gold_among_other_candidates_is_listed_not_named(
    answer: str, gold: str, listed: str
) -> None:
    found = naming(answer, gold)
    assert found is not None
    assert not found.named
    assert listed in found.not_answer


@pytest.mark.parametrize(
    ("answer", "gold"),
    [
        ("Portland, Oregon", "Oregon"),  # a place and its state: no conjunction, no list
        ("Lewis and Clark", "Lewis and Clark"),
        (
            "Trillium, Array, and Therachon",
            "Trillium, Array, and Therachon",
        ),  # the gold is the list
        ("Highway 9 runs from Dover, Delaware and ends in Albany, New York.", "Dover, Delaware"),
        (
            "In 1906 the city saw the great fire, with losses in housing, trade, and transport.",
            "the great fire",
        ),
        ("It is owned by the Queen, who lives in London.", "the Queen"),
    ],
)
def test_commas_and_conjunctions_that_are_not_a_list(answer: str, gold: str) -> None:
    found = naming(answer, gold)
    assert found is not None
    assert found.named, found


@pytest.mark.parametrize(
    "answer",
    [
        "It is not Venus.",
        "Perhaps Venus.",
        "I think it might be Venus.",
        "Many people say Venus, but actually it is Mars.",
        "Venus. Actually, no: Mars.",
        "Although it is often said to be Venus, the answer is Mars.",
    ],
)
def test_the_answers_own_words_take_the_naming_away(answer: str) -> None:
    found = naming(answer, "Venus")
    assert found is not None
    assert not found.named


@pytest.mark.parametrize(
    ("answer", "gold", "question", "is_named"),
    [
        ("northern Utah", "northern Arizona", "Where is the canyon in Arizona?", False),
        ("in northern Arizona", "northern Arizona", "Where is the canyon in Arizona?", True),
        ("Hudson County", "Hudson River", "Which river runs past the city?", False),
        ("Hudson", "Hudson River", "Which river runs past the city?", True),
        ("the Chicago Cubs", "Boston Red Sox", "Which Boston team won?", False),
        ("the Red Sox", "Boston Red Sox", "Which Boston team won?", True),
        ("The Harbour Board", "city boards", "Which city body runs the port?", False),
        ("the city harbour board", "city boards", "Which city body runs the port?", True),
    ],
)
def test_a_word_the_question_states_may_be_left_out_not_replaced(
    answer: str, gold: str, question: str, is_named: bool
) -> None:
    assert bool(named(answer, gold, question)) is is_named
    found = naming(answer, gold, question)
    assert found is not None
    assert ("where the expected answer has" in found.not_answer) is (
        not is_named and "Chicago" not in answer
    )


@pytest.mark.parametrize(
    ("answer", "gold", "question"),
    [
        (
            "Revenue rose by 5 percent in 2023.",
            "In 2023 revenue rose 5 percent",
            "How did revenue develop in 2023?",
        ),
        (
            "The river Hudson flows past the city, the Hudson River.",
            "Hudson River",
            "Which river runs past the city?",
        ),
        (
            "Omsättningen steg med 5 procent under 2023.",
            "Under 2023 steg omsättningen 5 procent.",
            "Hur utvecklades omsättningen 2023?",
        ),
    ],
)
def test_a_word_the_answer_states_elsewhere_is_not_replaced(
    answer: str, gold: str, question: str
) -> None:
    found = naming(answer, gold, question)
    assert found is None or "where the expected answer has" not in found.not_answer


@pytest.mark.parametrize(
    "answer",
    [
        "Mars, not Venus.",
        "It was Mars rather than Venus.",
        "The probe went to Mars. It never went to Venus.",
    ],
)
def test_a_gold_named_only_to_be_rejected_is_not_the_answer(answer: str) -> None:
    found = naming(answer, "Venus")
    assert found is not None
    assert not found.named
    assert "reject" in found.not_answer
    verdict = answer_correctness(answer, "Venus", question=QUESTION, judge="offline")
    assert not (verdict.correct and not verdict.needs_review)


def test_a_gold_named_and_also_rejected_elsewhere_is_still_named() -> None:
    found = naming("Venus. Not Mars, not Venus's moon: Venus.", "Venus")
    assert found is not None
    assert found.named


def test_a_gold_the_question_states_is_no_evidence() -> None:
    assert naming("Venus", "Venus", "Which planet is Venus?") is None


def test_the_opening_sentence_keeps_initials_and_titles() -> None:
    assert opening_sentence("Dr. J. R. R. Tolkien. He wrote books.") == "Dr. J. R. R. Tolkien."
    assert opening_sentence("Based on the text, Marie Curie. Then more.") == "Marie Curie."


def test_long_answers_are_read_within_a_bound() -> None:
    answer = "word, " * 50_000 + "Venus"
    found = naming(answer, "Venus")
    assert found is not None
    assert not found.named
    assert len(opening_sentence(answer)) <= MAX_OPENING_CHARS


# ----------------------------------------------------------- the offline judge's verdicts
QUESTION = "Which planet did the probe visit?"


@pytest.mark.parametrize(
    ("answer", "gold", "question"),
    [
        ("The probe visited Venus.", "Venus", QUESTION),
        ("A French village", "France", "Where is the story set?"),
        ("7", "Seven", "How many dwarfs are there?"),
        ("J. R. R. Tolkien", "John Ronald Reuel Tolkien", "Who wrote the book?"),
        ("the National Aeronautics and Space Administration", "NASA", "Who launched the probe?"),
    ],
)
def test_a_named_short_gold_is_a_decided_pass(answer: str, gold: str, question: str) -> None:
    verdict = answer_correctness(answer, gold, question=question, judge="offline")
    assert verdict.correct
    assert not verdict.needs_review
    assert verdict.details["decided_by"] == "rule named"
    assert "names the expected answer" in verdict.explanation


@pytest.mark.parametrize(
    "answer",
    ["Mercury, Venus and Mars.", "Venus or Mars", "The probe visited Mercury, Venus, and Jupiter."],
)
def test_a_listed_short_gold_is_not_a_pass(answer: str) -> None:
    verdict = answer_correctness(answer, "Venus", question=QUESTION, judge="offline")
    assert not (verdict.correct and not verdict.needs_review)
    assert "not as the answer" in verdict.explanation


def test_vetoes_come_before_the_naming() -> None:
    # an answer's contradiction (another yes/no, direction, option, figure, date or period) decides first
    order = list(RULES)
    assert all(
        order.index(rule) < order.index("named") for rule in CONTRADICTIONS - {"name_mismatch"}
    )
    assert order.index("not_the_answer") < order.index("named")


def test_switched_off_the_naming_leaves_the_weighing() -> None:
    from pytest_llmeval.metrics.freetext.correctness import decide

    s = analyse("A French village", "France", "Where is the story set?")
    assert decide(s)[0] is True
    assert (
        decide(s, disabled=frozenset({"named"}))[0] is False
    )  # no shared word: the short-gold rule fails it
