"""Numeric grader: number language tables and the roles of figures (cases invented for these tests)."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.numeric.candidates import extract_values
from pytest_llmeval.metrics.numeric.locale_tables import (
    LANGUAGES,
    detect_language,
    language_for_locale,
)
from pytest_llmeval.metrics.numeric.match import numeric_match
from pytest_llmeval.metrics.numeric.roles import co_asserted, figure_role


def _passes(response: str, expected: str | float, **kw: object) -> bool:
    return numeric_match(response, expected, **kw).passed  # type: ignore[arg-type]


# --------------------------------------------------------------------------- languages


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Driftsresultatet ble 4 512 mill. kroner, og det er en økning fra året før.", "nb"),
        ("Resultatet vart 4 512 mill. kroner, og det er ikkje mykje.", "nn"),
        ("Rörelseresultatet uppgick till 4 512 Mkr och var högre än året innan.", "sv"),
        ("Omsætningen udgjorde 4.512 mio. kr. og blev højere end sidste år.", "da"),
        ("Der Umsatz belief sich auf 4.512 Mio. € und lag damit über dem Vorjahr.", "de"),
        ("Le chiffre d'affaires s'est établi à 4 512 millions d'euros pour l'exercice.", "fr"),
        ("Operating income was $4,512 million for the year.", "en"),
        ("", "en"),
    ],
)
def test_language_of_the_text_is_recognised(text: str, code: str) -> None:
    assert detect_language(text).code == code


def test_locale_names_a_table() -> None:
    assert language_for_locale("nb-NO") is LANGUAGES["nb"]
    assert language_for_locale("de_DE") is LANGUAGES["de"]
    assert language_for_locale("no") is LANGUAGES["nb"]
    assert language_for_locale("xx") is None
    assert language_for_locale(None) is None


def test_every_table_has_the_same_shape() -> None:
    for table in LANGUAGES.values():
        assert table.scales, table.code
        assert table.markers, table.code
        assert all(w == w.lower() for w in table.scales), table.code
        if table.code != "en":
            assert table.decimal_comma, table.code
            assert table.percent, table.code
            assert table.negative_before, table.code


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Utbyttet utgjorde 3 418 mrd. kroner ved årsslutt.", "NOK 3,418 billion"),
        ("Porteføljen var verdt 7 215 milliarder kroner ved utgangen av året.", "7,215 billion"),
        ("Kostnadene ble 512 tusen kroner i fjor.", "512 thousand"),
        ("Die Rückstellungen beliefen sich auf 7.315 Tsd. €.", "7,315 thousand"),
        ("Der Konzernumsatz lag bei 2.871 Mio. € im Jahr.", "2,871 million"),
        ("Das Ergebnis betrug 1,25 Mrd. Euro.", "1.25 billion"),
        ("Rörelseresultatet uppgick till 4 206 Mkr.", "4,206 million"),
        ("Vinsten blev 12,5 miljarder kronor.", "12.5 billion"),
        ("Fondet var verdt 9,7 billioner kroner.", "9,700 billion"),
        ("Marginen ble 27,4 prosent i fjor.", "27.4%"),
        ("Die Eigenkapitalquote stieg auf 41,2 Prozent.", "41.2%"),
        ("Le résultat net s'est établi à 3,8 milliards d'euros.", "3.8 billion"),
        ("Egenkapitalandelen ble tjueen komma fem prosent.", "21.5%"),
        ("The portfolio held 4 215 806 shares at year end.", "4215806"),
        ("Headcount reached 12 480 (in thousands of hours).", "12480"),
    ],
)
def test_european_number_language(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Kostnadene ble 512 mill. kroner i fjor.", "512 thousand"),
        ("Die Rückstellungen beliefen sich auf 7.315 Mio. €.", "7,315 thousand"),
        ("Vinsten blev 12,5 Tkr.", "12.5 billion"),
        ("Marginen ble 27,4 basispunkter.", "27.4%"),
    ],
)
def test_european_scale_words_still_reject_other_scales(response: str, expected: str) -> None:
    assert not _passes(response, expected)


def test_locale_decides_an_ambiguous_single_separator() -> None:
    text = "Resultat: 1,250 mrd."
    assert _passes(text, "1.25 billion", locale="nb-NO")
    assert not _passes(text, "1,250 billion", locale="nb-NO")
    assert _passes("Revenue: 1,250 million.", "1,250 million", locale="en-US")


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("I fjor tapte porteføljen 212 milliarder kroner.", "-212 billion"),
        ("Im Jahr 2020 fiel der Kurs um 4,2 Prozent.", "-4.2%"),
        ("Aksjen falt med 8,5 prosent i fjor.", "-8.5%"),
        ("I 2019 falt indeksen med 3,3 prosent.", "-3.3%"),
        ("The trust lost about $1.9 billion that year.", "-1.9 billion"),
        ("The net loss per share was $0.42 for the quarter.", "-0.42"),
    ],
)
def test_worded_signs_in_every_language(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


def test_worded_decrease_does_not_match_a_rise() -> None:
    assert not _passes("Aksjen steg med 8,5 prosent i fjor.", "-8.5%")
    assert not _passes("Im Jahr 2020 stieg der Kurs um 4,2 Prozent.", "-4.2%")


# --------------------------------------------------------------------------- roles


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            "Segment revenue rose by $73 million, from $2,118 million to $2,191 million.",
            "73 million",
        ),
        ("The operating margin fell 40 basis points, from 6.2% to 5.8%.", "-0.4%"),
        ("Freight costs declined 12.5%, from $4,000 million to $3,500 million.", "-12.5%"),
        ("Dividends rose 9.1% to $1,244 million in 2022.", "9.1%"),
        ("Dividends rose 9.1% to $1,244 million in 2022.", "1,244 million"),
        (
            "Royalty income was up $6.2 million year over year ($11.0 million to $17.2 million).",
            "6.2 million",
        ),
        ("Inventory moved up by 1.5 percentage points (18.0% to 19.5%).", "1.5%"),
        (
            "Porteføljen økte med 318 milliarder kroner til 4 802 milliarder kroner.",
            "4,802 billion",
        ),
        ("Unit sales went from 4,100 to 4,510, a 10% increase.", "10%"),
        (
            "Plant A's output of 9,400 tonnes exceeded Plant B's 7,100 tonnes by 2,300 tonnes.",
            "2300",
        ),
    ],
)
def test_a_change_beside_its_endpoints_answers(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            "Segment revenue rose by $73 million, from $2,118 million to $2,191 million.",
            "2,118 million",
        ),
        (
            "Segment revenue rose by $73 million, from $2,118 million to $2,191 million.",
            "2,191 million",
        ),
        (
            "Royalty income was up $6.2 million year over year ($11.0 million to $17.2 million).",
            "17.2 million",
        ),
        ("Inventory moved up by 1.5 percentage points (18.0% to 19.5%).", "19.5%"),
    ],
)
def test_endpoints_are_inputs_not_answers(response: str, expected: str) -> None:
    assert not _passes(response, expected)


def test_the_question_decides_between_change_and_level() -> None:
    text = "Dividends rose 9.1% to $1,244 million in 2022."
    assert _passes(text, "9.1%", question="By how much did dividends increase in 2022?")
    assert not _passes(text, "1,244 million", question="By how much did dividends increase?")
    assert _passes(text, "1,244 million", question="What were dividends in 2022?")
    text = "Gross profit was $8.1 million in 2021, a 7% increase over 2020."
    assert not _passes(text, "7%", question="What was gross profit in 2021?")


def test_explanation_names_the_role() -> None:
    result = numeric_match(
        "Segment revenue rose by $73 million, from $2,118 million to $2,191 million.", "73 million"
    )
    assert result.passed
    assert "the change stated beside its endpoints" in result.explanation


def test_figure_roles_in_a_sentence() -> None:
    text = (
        "Sales rose by $5 million, from $20 million to $25 million, while costs fell to $9 million."
    )
    cands = extract_values(text)
    roles = [figure_role(text, 0, cands, i) for i in range(len(cands))]
    assert roles == ["change", "endpoint", "endpoint", "level"]
    assert [a.role for a in co_asserted(text, (0, len(text)), cands, [cands[0]], None)] == ["level"]
    assert co_asserted(text, (0, len(text)), cands, [cands[0]], True) == []


def test_total_before_its_parts() -> None:
    text = "Facilities came to $6.6 billion in all: $3.3 billion under each of the two agreements."
    result = numeric_match(text, "6.6 billion")
    assert result.passed, result.explanation
    assert not _passes("Facility A was $3.3 billion of the $6.6 billion total.", "6.6 billion")


# --------------------------------------------------------------------------- golds


def test_parenthesised_gold_with_scale_is_negative() -> None:
    assert numeric_match("Other expense was $(31) million.", "(31) million").passed
    result = numeric_match("Other income was $31 million.", "(31) million")
    assert not result.passed
    assert result.expected_value == pytest.approx(-31e6)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (2e20, "Total count: 200,000,000,000,000,000,000 units."),
        (1577, "Capex was 1,577 in the year."),
        (0.125, "The margin was 12.5%."),
        (-56.0, "The change was -56."),
    ],
)
def test_json_number_golds_are_numbers(gold: float, response: str) -> None:
    result = numeric_match(response, gold)
    assert result.expected_value == pytest.approx(float(gold))
    assert result.passed, result.explanation


def test_response_trailing_zeros_show_precision_but_gold_padding_does_not() -> None:
    assert not _passes("Volatility averaged 37.0% over the period.", "36.81%")
    assert _passes("Volatility averaged 37% over the period.", "36.81%")
    assert _passes("PP&E was $6.738 billion.", "$6.70", question="in USD billions")


# --------------------------------------------------------------------------- number words, table golds, signs, ranges


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("The board declared seventy-two cents a share.", "$0.72"),
        ("Receivables turned over roughly seven and a half times.", "7.5"),
        ("About two-thirds of sales were domestic.", "0.67"),
        ("Forty-two percent of the workforce is abroad.", "42%"),
    ],
)
def test_number_words_with_cents_halves_fractions(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


def test_vague_or_plural_fractions_do_not_invent_values() -> None:
    assert not _passes("Roughly a quarter of revenue came from Asia.", "31.5%")
    assert _passes("The average of the four quarters is 23.75", "23.75")


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Capex came to about $2.3 billion in the year.", "$2310.00"),
        ("Working capital was $4,120,000 thousand at year end.", "$4120.00"),
        ("Dividends paid were $412 million.", "$0.40"),
        ("Net loss was $1.83 billion.", "-1834.512"),
    ],
)
def test_unitless_table_golds_take_a_stated_scale(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


def test_plain_integer_gold_is_a_full_amount() -> None:
    assert not _passes("The total is $4.51 billion.", "4512345")


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("The other expense line read $(0.742) billion.", "-$742 million"),
        ("Selling costs averaged (11.2)% of revenue.", "-11.2%"),
        ("The company booked a $318 million net expense in other items.", "(318)"),
    ],
)
def test_accounting_negatives(response: str, expected: str) -> None:
    result = numeric_match(response, expected)
    assert result.passed, result.explanation


def test_a_part_before_its_whole() -> None:
    text = "$48.2 million of the $910.5 million facility was undrawn at year end."
    assert _passes(text, "48.2 million")
    assert not _passes(text, "910.5 million")
    assert _passes("The number of sites fell from 440 to 431, a decline of 2.05%.", "-2.05%")


def test_change_by_then_endpoints() -> None:
    text = "The company lifted its margin outlook by 2 percentage points, from 11% to 13%."
    assert _passes(text, "2%")
    assert not _passes(text, "13%")


@pytest.mark.parametrize(
    "response",
    [
        "The margin sat between 7% and 7.5% over the period.",
        "Avkastningen lå mellom 11 og 12 prosent.",
        "Der Umsatz lag zwischen 3 und 4 Mrd. Euro.",
    ],
)
def test_between_ranges_never_answer(response: str) -> None:
    for gold in ("7.2%", "7%", "11.5%", "3.5 billion", "3 billion"):
        assert not _passes(response, gold)


def test_percentages_round_to_whole_points() -> None:
    assert _passes("Revenue was down 4% on the prior year.", "-3.8%")
    assert not _passes("Revenue was down 4% on the prior year.", "-3.4%")


# --------------------------------------------------------------------------- categories, zero, krone, signs of table golds


def test_category_label_after_its_figure() -> None:
    text = "Segment profit was $412.0 million for Retail, $655.3 million for Wholesale and $98.1 million for Online."
    assert _passes(text, "655.3 million", category="Wholesale")
    assert not _passes(text, "98.1 million", category="Wholesale")
    # "on sales of $18 billion": the figure after the label is its own.
    assert _passes(
        "Earnings came to $3.4 billion on sales of $27 billion.", "27 billion", category="revenue"
    )


def test_category_words_when_the_phrase_is_not_written() -> None:
    text = (
        "In fiscal 2022 the group earned a 41.2% margin on hardware and a 66.9% margin on software."
    )
    assert _passes(text, "66.9%", category="software gross margin")
    assert not _passes(text, "41.2%", category="software gross margin")
    assert _passes(text, "41.2%", category="hardware gross margin")


def test_year_in_the_category_selects_the_year() -> None:
    text = (
        "Effective tax rate for FY2021 = 18.4%.\n"
        "Effective tax rate for FY2022 = 21.3%.\n"
        "Effective tax rate for FY2020 = 16.0%."
    )
    assert _passes(text, "21.3%", category="FY2022 effective tax rate")
    assert not _passes(text, "16.0%", category="FY2022 effective tax rate")


def test_zero_in_words_only_when_zero_is_expected() -> None:
    text = "The discount rate was 3.10% in both years, so there was no difference."
    assert _passes(text, "0%")
    assert _passes(text, "3.1%")
    assert not _passes("There was no change in policy; revenue was $5 million.", "0")


def test_bare_kr_takes_the_expected_krone() -> None:
    assert _passes("Årets resultat: 41,2 mia. kr.", "DKK 41,200 million", require_currency=True)
    assert not _passes("Årets resultat: USD 41,2 mia.", "DKK 41,200 million", require_currency=True)
    assert not _passes("Årets resultat: 41,2 mia. SEK", "DKK 41,200 million", require_currency=True)


def test_brackets_on_an_expense_line_match_its_size() -> None:
    assert _passes("Administrative expenses averaged (9.8)% of revenue.", "9.8%")
    # Brackets on a rate that is not a deduction keep their sign.
    assert not _passes("The effective tax rate was (2.4)% in the year.", "2.4%")


def test_positive_gold_as_size_of_a_decrease_only_without_a_question() -> None:
    text = "The subscriber base shrank by 12,406 in the year."
    assert _passes(text, "12,406")
    assert not _passes(text, "12,406", question="What was the change in subscribers?")
    assert not _passes("The fund ran a deficit of $3.1 billion.", "3.1 billion")


def test_computed_table_gold_prefers_the_amount_over_a_per_share_input() -> None:
    text = (
        "Diluted EPS in 2009 = -4.12\n"
        "Weighted shares in 2009 = 212.5 million\n\n"
        "Net income = EPS x Shares = -4.12 x 212.5 = -875.5 million"
    )
    assert _passes(text, "-875.5")


# --------------------------------------------------------------------------- cases written without reading the rules

BLIND = [
    ("Konzernumsatz 2021: 4.213 Mio. €.", "4,213 million", True, None),
    (
        "Selskapets driftsinntekter var 7 842 millioner kroner i 2022.",
        "NOK 7,842 million",
        True,
        None,
    ),
    ("Rörelseresultatet uppgick till 12,4 miljarder kronor.", "SEK 12.4 billion", True, None),
    ("Omsætningen steg til 18,6 mia. kr.", "DKK 18.6 billion", True, None),
    ("Le chiffre d'affaires atteint 2,7 milliards d'euros.", "2.7 billion", True, None),
    ("Das EBIT betrug 812 Tsd. Euro.", "812 million", False, None),
    ("Fondet tapte 2,1 prosent i første kvartal.", "-2.1%", True, None),
    ("The portfolio lost €340 million in 2020.", "-340 million", True, None),
    ("Net debt rose by $0.4 billion.", "-0.4 billion", False, None),
    ("Capex was $2,345,000 thousand.", "$2345.00", True, None),
    ("Revenue reached $12.9 million.", "12,912 million", False, None),
    ("The gross margin widened by 120 basis points to 38.4%.", "1.2%", True, None),
    ("The gross margin widened by 120 basis points to 38.4%.", "38.4%", True, None),
    ("Sales grew 0.07%.", "0.07", False, None),
    (
        "Total debt was $9.1 billion: $6.0 billion of notes and $3.1 billion of loans.",
        "9.1 billion",
        True,
        None,
    ),
    (
        "Total debt was $9.1 billion: $6.0 billion of notes and $3.1 billion of loans.",
        "3.1 billion",
        False,
        None,
    ),
    ("Headcount went from 12,400 to 13,100, an increase of 700.", "12,400", False, None),
    (
        "Q4 revenue of $3.2 billion beat Q3's $2.9 billion by $0.3 billion.",
        "0.3 billion",
        True,
        None,
    ),
    ("The average of $410 million and $450 million is $430 million.", "410 million", False, None),
    ("Net income was about $4.2 billion.", "4,287 million", False, None),
    ("Margin was 22.0%.", "22.6%", False, None),
    ("Basic EPS was $2.35 while diluted EPS came to $2.31.", "$2.35", False, "diluted EPS"),
    (
        "Capex was $1,210 million in 2021 and $1,480 million in 2022.",
        "1,480 million",
        True,
        "2022 capex",
    ),
    (
        "Capex was $1,210 million in 2021 and $1,480 million in 2022.",
        "1,210 million",
        False,
        "2022 capex",
    ),
]


@pytest.mark.parametrize(("response", "expected", "label", "category"), BLIND)
def test_cases_written_blind_after_the_fixes(
    response: str, expected: str, label: bool, category: str | None
) -> None:
    result = numeric_match(response, expected, category=category)
    assert result.passed is label, result.explanation


BLIND_2 = [
    (
        "Resultatet før skatt falt med 312 millioner kroner til 4 018 millioner kroner.",
        "NOK -312 million",
        True,
    ),
    (
        "Resultatet før skatt falt med 312 millioner kroner fra 4 330 millioner kroner.",
        "NOK 4,330 million",
        False,
    ),
    ("Avkastningen var negativ med 4,6 prosent.", "-4.6%", True),
    ("Der Nettoverlust belief sich auf 1,3 Mrd. €.", "-1.3 billion", True),
    ("Der Umsatz ging um 2,4 Prozent zurück.", "-2.4%", True),
    ("Vinsten minskade med 9 procent.", "-9%", True),
    ("The operating loss narrowed to $88 million.", "-88 million", True),
    ("Free cash flow was -$310 million.", "310 million", False),
    ("Gross margin improved 1.8 percentage points, from 40.1% to 41.9%.", "41.9%", False),
    ("Operating margin was 18.24%.", "18.3%", False),
    ("The payout ratio was 61.5.", "0.615", False),
    ("About one third of staff work remotely.", "33.3%", True),
    ("About one third of staff work remotely.", "40%", False),
    (
        "The board approved a $2.5 billion buyback, of which $1.1 billion was executed in 2023.",
        "1.1 billion",
        True,
    ),
    ("Of the $5.0 billion facility, $1.8 billion was drawn.", "1.8 billion", True),
    ("Of the $5.0 billion facility, $1.8 billion was drawn.", "5.0 billion", False),
    (
        "Net revenue of $2,118 million in 2022 compares with $1,960 million in 2021.",
        "1,960 million",
        False,
    ),
]


@pytest.mark.parametrize(("response", "expected", "label"), BLIND_2)
def test_second_blind_batch(response: str, expected: str, label: bool) -> None:
    result = numeric_match(response, expected)
    assert result.passed is label, result.explanation
