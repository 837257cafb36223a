"""Contradictions veto, never the other way: an answer's own polarity words, an explicitly
different date or figure, figures tied to the words beside them, and one grading path."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.freetext.identity import identity_match

# ---------------------------------------------------------------- dates and fiscal periods


@pytest.mark.parametrize(
    "response",
    [
        "Fiscal 2021 ended on September 24, 2021.",
        "FY2021 closed on 24 September 2021.",
        "The fiscal year 2021 ended 2021-09-24.",
        "Apple's fiscal 2021 came to an end on Sept 24, 2021, a Friday.",
    ],
)
def test_a_different_day_beside_the_fiscal_year_fails(response: str) -> None:
    result = identity_match(response, "September 25, 2021")
    assert not result.passed
    assert not result.needs_review
    assert "names a different" in result.explanation


@pytest.mark.parametrize(
    "response",
    [
        "Fiscal 2021 ended on September 25, 2021.",
        "FY2021 closed on 25 September 2021.",
        "2021-09-25 (fiscal 2021)",
    ],
)
def test_the_same_day_beside_the_fiscal_year_passes(response: str) -> None:
    assert identity_match(response, "September 25, 2021").passed


def test_a_fiscal_year_alone_neither_names_nor_contradicts_a_day() -> None:
    result = identity_match("It was the last day of fiscal 2021.", "September 25, 2021")
    assert not result.passed
    assert "states no date" in result.explanation
    # a bare year and a fiscal year of the same number are one identity
    assert identity_match("It was fiscal 2022.", "2022").passed
    assert not identity_match("It was fiscal 2021.", "2022").passed


# ---------------------------------------------------------------- the difference an explanation gives

from pytest_llmeval.metrics.numeric import numeric_match  # noqa: E402


@pytest.mark.parametrize(
    ("question", "expected", "response", "difference"),
    [
        ("What was revenue in USD millions?", "100", "Revenue was $105 million.", 5.0),
        ("What was revenue in millions?", "100", "Revenue came to 105.", 5.0),
        (
            "Hva var driftsinntektene i millioner kroner?",
            "1 000",
            "Driftsinntektene var 950 millioner kroner.",
            5.0,
        ),
        ("What was capex in USD billions?", "$8.70", "Capital spending was $9.135 billion.", 5.0),
    ],
)
def test_a_failure_gives_the_difference_of_the_two_values_compared(
    question: str, expected: str, response: str, difference: float
) -> None:
    result = numeric_match(response, expected, question=question)
    assert not result.passed
    assert result.percentage_difference == pytest.approx(difference)
    assert f"difference {difference:.4g}%" in result.explanation


@pytest.mark.parametrize(
    ("question", "expected", "response"),
    [
        ("What was revenue in USD millions?", "100", "Revenue was $100 million."),
        (
            "What was the net loss?",
            "A net loss of $3.2 million",
            "The net result was $3.2 million.",
        ),
        (
            "What share of revenue did operating expenses take?",
            "14.7%",
            "Operating expenses averaged (14.7)% of revenue.",
        ),
    ],
)
def test_a_pass_gives_the_difference_of_the_two_values_compared(
    question: str, expected: str, response: str
) -> None:
    result = numeric_match(response, expected, question=question)
    assert result.passed, result.explanation
    assert result.percentage_difference == 0.0
    assert "(difference 0%)" in result.explanation


# ---------------------------------------------------------------- an answer's own polarity words

# (question, expected, answer): the answer's own word contradicts the expected sign -> fail
SIGN_CONTRADICTED = [
    (
        "What was Acme's net income?",
        "A net loss of $3.2 million",
        "Acme reported a net profit of $3.2 million",
    ),
    (
        "What was the result for the year?",
        "a net loss of $3.2 million",
        "The company posted $3.2 million in profit.",
    ),
    (
        "What was the result for the year?",
        "a loss of 3.2 million",
        "It booked a $3.2 million gain.",
    ),
    ("What was the net loss?", "$3.2 million", "The company turned a profit of $3.2 million."),
    (
        "What were total deficits?",
        "$5 million",
        "There was no deficit; the surplus was $5 million.",
    ),
    ("How did revenue change?", "a decrease of 5%", "Revenue went up 5%."),
    ("What was the decline in revenue?", "5%", "Revenue grew 5% over the year."),
    ("What was the operating margin?", "-2.1%", "Operating margin was a positive 2.1%."),
    (
        "Hva ble årsresultatet?",
        "Et underskudd på 12 millioner kroner",
        "Selskapet fikk et overskudd på 12 millioner kroner.",
    ),
    ("Hva ble årsresultatet?", "-12 mill. kr", "Årsresultatet ble 12 mill. kr i overskudd."),
    (
        "Hvor mye endret omsetningen seg?",
        "en nedgang på 4,5 prosent",
        "Omsetningen hadde en økning på 4,5 prosent.",
    ),
    ("Hvor stor var gevinsten?", "1 692 mill. kr", "Fondet hadde et tap på 1 692 mill. kr."),
    ("Wie hoch war der Verlust?", "3,5 Mio. EUR", "Es gab einen Gewinn von 3,5 Mio. EUR."),
    (
        "What was the bottom line for 2023?",
        "Net loss of $12.4 million",
        "For 2023 the company earned $12.4 million.",
    ),
    ("What did the fund return?", "-6.1%", "The fund returned a positive 6.1 percent."),
    (
        "Hur stor var förlusten?",
        "4,2 miljoner kronor",
        "Bolaget redovisade en vinst på 4,2 miljoner kronor.",
    ),
]
# the answer states the expected sign, or none at all: the sign from the question or gold applies
SIGN_AGREES = [
    (
        "What was Acme's net income?",
        "A net loss of $3.2 million",
        "Acme reported a net loss of $3.2 million",
    ),
    (
        "What was Acme's net income?",
        "A net loss of $3.2 million",
        "Acme's net result was $3.2 million.",
    ),
    ("What was the net loss?", "$3.2 million", "Net loss narrowed to $3.2 million."),
    ("What was the net loss?", "$3.2 million", "The net loss fell to $3.2 million."),
    ("What was the decline in revenue?", "5%", "Revenue declined 5%."),
    ("How did revenue change?", "a decrease of 5%", "Revenue was down 5%."),
    ("What was the gross margin?", "40%", "Gross margin was 40%, down from 42%."),
    ("What was the gross profit margin?", "40%", "Gross margin decreased 2 points to 40%."),
    ("What was the reduced VAT rate?", "15%", "The reduced rate is 15%."),
    (
        "Hva ble årsresultatet?",
        "Et underskudd på 12 millioner kroner",
        "Selskapet fikk et underskudd på 12 millioner kroner.",
    ),
    ("Hvor stor var gevinsten?", "1 692 mill. kr", "Gevinsten var 1 692 mill. kr."),
    ("Hva var nedgangen i omsetningen?", "5 prosent", "Omsetningen falt med 5 prosent."),
    ("Hvor mye tapte fondet?", "485 milliarder kroner", "Fondet tapte 485 milliarder kroner."),
    ("How much did the loss narrow?", "$1.2 million", "The loss narrowed by $1.2 million."),
    ("What was operating profit?", "$2.1 billion", "Operating profit was $2.1 billion, down 5%."),
    ("What was the decrease in revenue?", "5%", "Revenue was 5% lower than last year."),
    ("What was net income?", "-$450 million", "The company lost $450 million."),
]


@pytest.mark.parametrize(("question", "expected", "response"), SIGN_CONTRADICTED)
def test_the_answers_own_polarity_word_vetoes_a_match(
    question: str, expected: str, response: str
) -> None:
    assert not numeric_match(response, expected, question=question).passed


@pytest.mark.parametrize(("question", "expected", "response"), SIGN_AGREES)
def test_a_sign_from_the_question_or_gold_applies_where_the_answer_states_none(
    question: str, expected: str, response: str
) -> None:
    result = numeric_match(response, expected, question=question)
    assert result.passed, result.explanation


def test_polarity_words_live_in_a_table_per_language() -> None:
    from pytest_llmeval.metrics.numeric.polarity import TABLES

    assert {"en", "nb", "nn", "sv", "da", "de", "fr"} <= set(TABLES)
    for table in TABLES.values():
        assert table.up, table.code
        assert table.down, table.code
        assert not table.up & table.down, table.code
    assert {"overskudd", "gevinst", "økning", "opp", "positiv"} <= TABLES["nb"].up
    assert {"underskudd", "tap", "nedgang", "ned", "negativ"} <= TABLES["nb"].down


# ---------------------------------------------------------------- figures tie to the words beside them

TIED = [
    # (answer, category, question, expected)
    ("We booked 1.5B revenue, 500M profit.", "revenue", "What was revenue?", "1.5 billion"),
    ("We booked 1.5B revenue, 500M profit.", "net income", "What was the profit?", "500 million"),
    ("We booked 500M profit on 1.5B revenue.", None, "What was revenue?", "$1.5 billion"),
    ("We booked 1.5B revenue, 500M profit.", None, "What was profit?", "$500 million"),
    (
        "The year closed with $2.4 billion net sales, $310 million net income.",
        "revenue",
        None,
        "$2.4 billion",
    ),
    ("Q4: 812M turnover, 95M operating profit", "revenue", None, "812 million"),
    (
        "Vi bokførte 1,5 mrd. i omsetning og 500 mill. i overskudd.",
        None,
        "Hva var overskuddet?",
        "500 millioner",
    ),
    (
        "Vi bokførte 1,5 mrd. i omsetning og 500 mill. i overskudd.",
        None,
        "Hva var omsetningen?",
        "1,5 milliarder",
    ),
    (
        "Koncernen redovisade 3,2 miljarder i omsättning och 410 miljoner i vinst.",
        None,
        "Hur stor var vinsten?",
        "410 miljoner",
    ),
]


@pytest.mark.parametrize(("response", "category", "question", "expected"), TIED)
def test_a_figure_ties_to_the_label_right_after_it(
    response: str, category: str | None, question: str | None, expected: str
) -> None:
    result = numeric_match(response, expected, category=category, question=question)
    assert result.passed, result.explanation


def test_the_figure_after_a_label_stays_its_own() -> None:
    assert (
        numeric_match("Revenue 1.5B, profit 500M.", "500 million", category="revenue").passed
        is False
    )
    assert numeric_match(
        "Revenue was 1.5B and profit 500M.", "1.5 billion", category="revenue"
    ).passed


# ---------------------------------------------------------------- a different figure in a textual gold

from pytest_llmeval.metrics.freetext.correctness import answer_correctness  # noqa: E402

FIGURE_CONFLICTS = [
    ("What is the reduced VAT rate?", "reduced rate of 15%", "reduced rate of 12%"),
    (
        "What is the reduced VAT rate?",
        "The reduced rate is 15 percent.",
        "Food is taxed at the reduced rate of 12 percent.",
    ),
    (
        "Hva er redusert mva-sats?",
        "Matvarer har redusert sats, 15 prosent.",
        "Matvarer har redusert sats på 12 prosent.",
    ),
    (
        "What was Amcor's adjusted EBITDA?",
        "AMCOR's Adj. EBITDA was $2,018mn in FY 2023",
        "Amcor's adjusted EBITDA for FY 2023 was $1,829 million.",
    ),
    (
        "How fast did the segment shrink?",
        "The consumer segment shrunk by 0.9% organically.",
        "The consumer segment shrank 3.2% organically.",
    ),
]


@pytest.mark.parametrize(("question", "expected", "response"), FIGURE_CONFLICTS)
def test_an_explicitly_different_figure_vetoes_a_textual_gold(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert not verdict.passed
    assert "where the expected answer states" in verdict.explanation


@pytest.mark.parametrize(
    ("question", "expected", "response"),
    [
        ("What is the reduced VAT rate?", "reduced rate of 15%", "The reduced rate is 15%."),
        (
            "Which region led EBITDAR?",
            "Las Vegas resorts contributed ~90% of company level EBITDAR.",
            "Las Vegas resorts, with about 88% of EBITDAR.",
        ),
        (
            "Did Microsoft increase its debt?",
            "No. Microsoft decreased its debt by $2.5bn.",
            "No, total debt fell from $49.8 billion to $47.2 billion.",
        ),
    ],
)
def test_no_veto_for_the_same_figure_an_approximate_one_or_a_shared_yes_no(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert "where the expected answer states" not in verdict.explanation


# ---------------------------------------------------------------- polarity words in a textual gold

POLARITY_CONFLICTS = [
    (
        "How did the company do?",
        "The company made a loss in 2023.",
        "The company made a profit in 2023.",
    ),
    (
        "How did the company do?",
        "The company made a loss of $3.2 million in 2023.",
        "The company made a profit of $3.2 million in 2023.",
    ),
    (
        "Hvordan gikk det med resultatet?",
        "Selskapet gikk med underskudd i 2023.",
        "Selskapet gikk med overskudd i 2023.",
    ),
    (
        "Hvordan utviklet omsetningen seg?",
        "Omsetningen falt 5 prosent til 10 millioner kroner.",
        "Omsetningen økte 5 prosent til 10 millioner kroner.",
    ),
    ("Hvordan utviklet kursen seg?", "Kursen gikk ned 3 prosent.", "Kursen gikk opp 3 prosent."),
    (
        "Wie entwickelte sich der Umsatz?",
        "Der Umsatz sank um 5 Prozent.",
        "Der Umsatz stieg um 5 Prozent.",
    ),
    (
        "How did revenue develop?",
        "Revenue fell 5% to $10 million in 2023.",
        "Revenue rose 5% to $10 million in 2023.",
    ),
]


@pytest.mark.parametrize(("question", "expected", "response"), POLARITY_CONFLICTS)
def test_the_answers_polarity_words_veto_a_textual_gold(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert not verdict.passed, verdict.explanation


@pytest.mark.parametrize(
    ("question", "expected", "response"),
    [
        ("How did the company do?", "The company made a loss in 2023.", "It made a loss in 2023."),
        (
            "Did Microsoft increase its debt?",
            "No. Microsoft decreased its debt.",
            "No, Microsoft has not increased its debt.",
        ),
        (
            "How did the segment do?",
            "The consumer segment shrunk by 0.9% organically.",
            "Consumer had organic sales growth of (0.9)%.",
        ),
        (
            "Hvordan utviklet omsetningen seg?",
            "Omsetningen falt 5 prosent.",
            "Omsetningen gikk ned 5 prosent.",
        ),
    ],
)
def test_no_polarity_veto_for_the_same_sign_a_negated_word_or_a_written_minus(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert "where the expected answer says" not in verdict.explanation


# ---------------------------------------------------------------- another period in a textual gold

PERIOD_CONFLICTS = [
    ("When did revenue peak?", "Revenue peaked in fiscal 2022.", "Revenue peaked in fiscal 2021."),
    (
        "When did the merger close?",
        "The merger closed in Q3 2021.",
        "The merger closed in Q2 2021.",
    ),
    ("Hvilket år var tapet størst?", "Tapet var størst i 2022.", "Tapet var størst i 2020."),
    ("When was the plant opened?", "The plant opened on 4 May 2019.", "It opened on May 14, 2019."),
]


@pytest.mark.parametrize(("question", "expected", "response"), PERIOD_CONFLICTS)
def test_another_period_vetoes_a_short_textual_gold(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert not verdict.passed, verdict.explanation


@pytest.mark.parametrize(
    ("question", "expected", "response"),
    [
        (
            "When did the merger close?",
            "The merger closed in Q3 2021.",
            "The merger closed in the third quarter of 2021.",
        ),
        (
            "When did revenue peak?",
            "Revenue peaked in fiscal 2022.",
            "Revenue peaked in fiscal 2022, well above 2021.",
        ),
        (
            "How did revenue change from 2021 to 2022?",
            "Revenue grew 5% in 2022.",
            "From 2021, revenue grew 5% in 2022.",
        ),
    ],
)
def test_the_same_period_or_one_the_question_names_is_no_conflict(
    question: str, expected: str, response: str
) -> None:
    verdict = answer_correctness(response, expected, question=question, judge="offline")
    assert "names a different" not in verdict.explanation


# ---------------------------------------------------------------- another figure tied to a gold figure's label


@pytest.mark.parametrize(
    "response",
    [
        "US sales growth was 3.0%, while international sales growth was 9.1%.",
        "- US sales: up 3.0%\n- International sales: up 9.1%",
        "International sales rose 9.1%; US sales rose 3.0%.",
    ],
)
def test_another_figure_tied_to_a_key_figures_label_vetoes(response: str) -> None:
    from pytest_llmeval.metrics.freetext.correctness import answer_correctness

    verdict = answer_correctness(
        response,
        "US sales increased 3.0% vs international sales decline of 0.6%.",
        question="How did US sales growth compare to international sales growth?",
        judge="offline",
    )
    assert not verdict.passed
    assert "ties" in verdict.explanation


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (
            "US sales increased 3.0% vs international sales decline of 0.6%.",
            "US sales rose 3.0% and international sales fell 0.6%.",
        ),
        # the gold's figure at a coarser display, beside the same label of another year
        (
            "Effective tax rate in FY2022 was 0.62%, compared to -14.76% in FY2021.",
            "The effective tax rate was (0.6)% in FY2022, against 14.8% in FY2021.",
        ),
    ],
)
def test_the_gold_figure_under_its_label_is_no_label_conflict(gold: str, response: str) -> None:
    from pytest_llmeval.metrics.freetext.contradiction import label_conflict
    from pytest_llmeval.metrics.numeric.candidates import extract_values

    missing = [c for c in extract_values(gold) if not c.ignored]
    assert label_conflict(gold, response, missing, None) == ""


# ---------------------------------------------------------------- periods in other forms and languages


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("H1 2022", "the second half of 2022"),
        ("the first half of 2022", "It was 2H 2022."),
        ("Q3 2022", "3Q 2021"),
        ("3. kvartal 2022", "Det var i andre kvartal 2022."),
        ("første halvår 2023", "2. halvår 2023"),
        ("regnskapsåret 2022", "regnskapsåret 2021"),
        ("im dritten Quartal 2022", "im zweiten Quartal 2022"),
        ("au troisième trimestre 2022", "au quatrième trimestre 2022"),
        ("30. juni 2023", "31. desember 2023"),
        ("le 30 juin 2023", "le 30 juin 2022"),
    ],
)
def test_another_period_in_other_forms_and_languages_conflicts(gold: str, answer: str) -> None:
    from pytest_llmeval.metrics.freetext.periods import conflicting_identity

    assert conflicting_identity(gold, answer).startswith("names a different")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("H1 2022", "the first half of 2022"),
        ("3. kvartal 2022", "tredje kvartal 2022"),
        ("im dritten Quartal 2022", "Q3 2022"),
        ("le 30 juin 2023", "2023-06-30"),
        ("30. September 2023", "September 30, 2023"),
    ],
)
def test_the_same_period_written_otherwise_passes(gold: str, answer: str) -> None:
    from pytest_llmeval.metrics.freetext.periods import conflicting_identity, identity_only

    assert identity_only(gold)
    assert conflicting_identity(gold, answer) == ""
    assert identity_match(answer, gold).passed


def test_a_period_the_question_names_is_the_answers_setting() -> None:
    from pytest_llmeval.metrics.freetext.periods import conflicting_identity

    question = "How did revenue change in 2023?"
    assert (
        conflicting_identity(
            "Compared with 2022, revenue fell 3.4%.", "Revenue fell 3.4% in 2023.", question
        )
        == ""
    )
    assert conflicting_identity(
        "Revenue peaked in fiscal 2022.", "Revenue peaked in fiscal 2021.", question
    )
