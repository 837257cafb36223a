"""Write the held-out sign and scale variant set of the numeric grader.

    python benchmarks/make_sign_scale_variants.py > tests/data/numeric_sign_scale_variants.jsonl
    python benchmarks/eval_numeric.py tests/data/numeric_sign_scale_variants.jsonl [--show-errors]

Each template is one way real answers state a sign or a scale (a minus form, a sign word before,
after or far from the figure, a double negative, a scale word of some language, a scale stated once
for several figures, percent vs fraction vs basis points ...). Its label comes from the labelling
conventions (``../shared/data/numeric_conventions.md``, rule numbers in ``why``) and was written
with the template, before the grader ran on it; the rows are filled from a few base figures so
that no figure is tied to one phrasing. Rows use the format of ``numeric_dev.jsonl`` (``gold``,
``response``, ``expected``, ``kind``, ``convention_dependent``, ``why``) plus ``variant`` (the
phrasing class) and, where a question carries the direction or the scale, ``question``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Amount:
    """One base figure written the ways each language writes it."""

    gold_neg: str  # the gold of a loss: a signed figure
    gold_pos: str  # the same size as a positive gold
    en: str  # "$312 million"
    en_paren: str  # "$(312) million"
    bare: str  # "312" (digits of en, without scale)
    scale_en: str  # "million"
    nb: str  # "312 millioner kroner"
    sv: str
    da: str
    de: str


AMOUNTS = (
    Amount(
        "-312 million",
        "312 million",
        "$312 million",
        "$(312) million",
        "312",
        "million",
        "312 millioner kroner",
        "312 miljoner kronor",
        "312 mio. kr.",
        "312 Mio. Euro",
    ),
    Amount(
        "-1,480 million",
        "$1,480 million",
        "$1.48 billion",
        "$(1.48) billion",
        "1.48",
        "billion",
        "1,48 milliarder kroner",
        "1,48 miljarder kronor",
        "1,48 mia. kr.",
        "1,48 Mrd. Euro",
    ),
    Amount(
        "-27.5 million",
        "27.5 million",
        "€27.5 million",
        "€(27.5) million",
        "27.5",
        "million",
        "27,5 millioner kroner",
        "27,5 miljoner kronor",
        "27,5 mio. kr.",
        "27,5 Mio. Euro",
    ),
)


@dataclass(frozen=True)
class Percent:
    en: str  # "4.7"
    comma: str  # "4,7"


PERCENTS = (Percent("4.7", "4,7"), Percent("0.8", "0,8"), Percent("12.3", "12,3"))

# (variant, expected, convention_dependent, template, why). {A}: the English amount, {P}: the
# English percent digits; {Ap}: bracketed amount; {Anb}/{Asv}/{Ada}/{Ade}: other languages;
# {Pc}: the percent digits with a decimal comma.
SIGN_AMOUNT_NEG_GOLD = (
    (
        "hyphen_minus",
        True,
        False,
        "The segment's operating result for 2023 was -{A}.",
        "15: a written minus",
    ),
    ("unicode_minus", True, False, "Operating result, 2023: \u2212{A}.", "15: U+2212 is a minus"),
    (
        "en_dash_minus",
        True,
        False,
        "The segment closed 2023 with an operating result of \u2013{A}.",
        "15: an en dash before the digits is a minus",
    ),
    (
        "parentheses",
        True,
        False,
        "The segment's operating result for 2023 was {Ap}.",
        "15: parentheses are negative",
    ),
    (
        "parentheses_table",
        True,
        False,
        "Operating result (in {S}s): ({B}) for 2023.",
        "15 and 5: parentheses, scale in the label",
    ),
    (
        "trailing_minus",
        True,
        True,
        "Operating result 2023 ({S}s): {B}-",
        "15: a trailing minus (ledger style) is negative",
    ),
    (
        "negative_word",
        True,
        False,
        "The segment's operating result was negative {A} in 2023.",
        "12: 'negative' sets the sign",
    ),
    (
        "loss_of",
        True,
        False,
        "In 2023 the segment posted a loss of {A}.",
        "12: 'a loss of' sets the sign",
    ),
    ("lost", True, False, "The segment lost {A} in 2023.", "12: 'lost'"),
    ("deficit_of", True, False, "The segment ran a deficit of {A} in 2023.", "12: 'deficit'"),
    (
        "shortfall",
        True,
        False,
        "The segment reported a shortfall of {A} for 2023.",
        "12: 'shortfall'",
    ),
    ("outflow", True, False, "The segment had a net cash outflow of {A} in 2023.", "12: 'outflow'"),
    (
        "net_cash_used",
        True,
        False,
        "Net cash used in the segment's operations was {A} in 2023.",
        "12: 'net cash used' is an outflow",
    ),
    (
        "loss_after",
        True,
        False,
        "The segment recorded {A} in losses in 2023.",
        "12: the loss noun after the figure",
    ),
    ("loss_adjective", True, False, "The segment booked a {A} loss in 2023.", "12: '{A} loss'"),
    (
        "loss_other_clause",
        True,
        False,
        "The segment did not make money in 2023; the loss came to {A}.",
        "12: the loss names the figure",
    ),
    (
        "loss_subject",
        True,
        False,
        "The segment's net loss for 2023 amounted to {A}.",
        "12: a loss as the subject",
    ),
    (
        "double_negative",
        True,
        True,
        "The segment posted a loss of -{A} in 2023.",
        "12/15: loss and minus say the same sign",
    ),
    (
        "nb_underskudd",
        True,
        False,
        "Segmentet fikk et underskudd på {Anb} i 2023.",
        "12: 'underskudd'",
    ),
    ("nb_tapte", True, False, "Segmentet tapte {Anb} i 2023.", "12: 'tapte'"),
    (
        "nb_minus",
        True,
        False,
        "Driftsresultatet for segmentet ble minus {Anb} i 2023.",
        "12: 'minus'",
    ),
    (
        "nb_tap_after",
        True,
        False,
        "Segmentet endte 2023 med {Anb} i tap.",
        "12: 'i tap' after the figure",
    ),
    (
        "sv_forlust",
        True,
        False,
        "Segmentet redovisade en förlust på {Asv} för 2023.",
        "12: 'förlust'",
    ),
    ("da_underskud", True, False, "Segmentet fik et underskud på {Ada} i 2023.", "12: 'underskud'"),
    ("da_tab", True, False, "Segmentet havde et tab på {Ada} i 2023.", "12: 'tab'"),
    (
        "de_verlust",
        True,
        False,
        "Das Segment verbuchte 2023 einen Verlust von {Ade}.",
        "12: 'Verlust'",
    ),
    (
        "de_minus",
        True,
        False,
        "Das Betriebsergebnis des Segments lag 2023 bei minus {Ade}.",
        "12: 'minus'",
    ),
)
WRONG_SIGN_AMOUNT_NEG_GOLD = (
    (
        "bare_magnitude",
        False,
        True,
        "The segment's operating result for 2023 was {A}.",
        "13: magnitude without direction against a negative gold",
    ),
    (
        "profit_of",
        False,
        False,
        "In 2023 the segment posted a profit of {A}.",
        "12: 'profit' states a gain",
    ),
    ("earned", False, False, "The segment earned {A} in 2023.", "12: 'earned' states a gain"),
    ("surplus", False, False, "The segment ran a surplus of {A} in 2023.", "12: 'surplus'"),
    (
        "positive_word",
        False,
        False,
        "The segment's operating result was positive at {A} in 2023.",
        "12: 'positive'",
    ),
    (
        "profit_after",
        False,
        False,
        "The segment booked a {A} profit in 2023.",
        "12: 'profit' after the figure",
    ),
    (
        "negated_loss",
        False,
        False,
        "The segment did not post a loss in 2023; it earned {A}.",
        "12: the loss is negated; 'earned'",
    ),
    (
        "other_clause_loss",
        False,
        False,
        "After a loss in 2022, the segment earned {A} in 2023.",
        "12: the loss is 2022's; the figure is earned",
    ),
    (
        "cash_provided",
        False,
        True,
        "Net cash provided by the segment's operations was {A} in 2023.",
        "13: an inflow, no fall",
    ),
    (
        "nb_overskudd",
        False,
        False,
        "Segmentet fikk et overskudd på {Anb} i 2023.",
        "12: 'overskudd'",
    ),
    ("nb_tjente", False, False, "Segmentet tjente {Anb} i 2023.", "12: 'tjente'"),
    ("sv_vinst", False, False, "Segmentet redovisade en vinst på {Asv} för 2023.", "12: 'vinst'"),
    ("da_overskud", False, False, "Segmentet fik et overskud på {Ada} i 2023.", "12: 'overskud'"),
    (
        "de_gewinn",
        False,
        False,
        "Das Segment erzielte 2023 einen Gewinn von {Ade}.",
        "12: 'Gewinn'",
    ),
)
# A positive gold that is a level (no question asking for a loss).
SIGN_AMOUNT_POS_GOLD = (
    (
        "pos_profit",
        True,
        False,
        "In 2023 the segment posted a profit of {A}.",
        "12: a gain for a positive gold",
    ),
    (
        "pos_plain",
        True,
        False,
        "The segment's operating result for 2023 was {A}.",
        "1: the figure as stated",
    ),
)
WRONG_SIGN_AMOUNT_POS_GOLD = (
    (
        "pos_gold_loss",
        False,
        False,
        "In 2023 the segment posted a loss of {A}.",
        "12: a worded loss against a positive gold",
    ),
    (
        "pos_gold_minus",
        False,
        False,
        "The segment's operating result for 2023 was -{A}.",
        "15: a minus against a positive gold",
    ),
    (
        "pos_gold_nb_tap",
        False,
        False,
        "Segmentet tapte {Anb} i 2023.",
        "12: 'tapte' against a positive gold",
    ),
)
SIGN_PERCENT_NEG_GOLD = (
    ("fell", True, False, "Revenue fell {P}% in 2023.", "12: 'fell'"),
    ("declined_by", True, False, "Revenue declined by {P}% in 2023.", "12: 'declined'"),
    ("down", True, False, "Revenue was down {P}% year over year.", "12: 'down'"),
    ("decrease_of", True, False, "Revenue saw a decrease of {P}% in 2023.", "12: 'decrease'"),
    ("growth_minus", True, False, "Revenue growth in 2023 was -{P}%.", "15: a written minus"),
    ("growth_unicode_minus", True, False, "Revenue growth in 2023: \u2212{P}%.", "15: U+2212"),
    ("growth_parens", True, False, "Revenue growth in 2023 was ({P})%.", "15: parentheses"),
    (
        "negative_growth",
        True,
        False,
        "Revenue showed negative growth of {P}% in 2023.",
        "12: negative growth is a fall",
    ),
    (
        "lower_than",
        True,
        True,
        "Revenue in 2023 was {P}% lower than in 2022.",
        "12: 'lower' is a worded fall",
    ),
    ("slid", True, False, "Revenue slid {P}% in 2023.", "12: 'slid'"),
    (
        "drop_adjective",
        True,
        False,
        "The company recorded a {P}% drop in revenue in 2023.",
        "12: 'drop' after the figure",
    ),
    (
        "decline_after",
        True,
        False,
        "Revenue, 2023: a {P}% decline.",
        "12: 'decline' after the figure",
    ),
    (
        "double_negative",
        True,
        True,
        "Revenue decreased by -{P}% in 2023.",
        "12/15: both say a fall",
    ),
    (
        "negated_growth",
        True,
        False,
        "Revenue did not grow in 2023; it fell {P}%.",
        "12: 'fell'; the growth is negated",
    ),
    (
        "far_direction",
        True,
        False,
        "Revenue declined in 2023, by {P}% against 2022.",
        "12: the direction word three words back",
    ),
    ("nb_falt", True, False, "Omsetningen falt med {Pc} prosent i 2023.", "12: 'falt'"),
    ("nb_gikk_ned", True, False, "Omsetningen gikk ned {Pc} prosent i 2023.", "12: 'gikk ned'"),
    (
        "nb_nedgang",
        True,
        False,
        "Det var en nedgang på {Pc} prosent i omsetningen i 2023.",
        "12: 'nedgang'",
    ),
    ("nb_minus", True, False, "Omsetningsveksten var minus {Pc} prosent i 2023.", "12: 'minus'"),
    (
        "sv_minskade",
        True,
        False,
        "Nettoomsättningen minskade med {Pc} procent under 2023.",
        "12: 'minskade'",
    ),
    ("da_faldt", True, False, "Omsætningen faldt {Pc} procent i 2023.", "12: 'faldt'"),
    ("da_fald", True, False, "Omsætningen viste et fald på {Pc} procent i 2023.", "12: 'fald'"),
    ("de_sank", True, False, "Der Umsatz sank 2023 um {Pc} Prozent.", "12: 'sank'"),
    (
        "de_rueckgang",
        True,
        False,
        "Der Umsatz verzeichnete 2023 einen Rückgang von {Pc} Prozent.",
        "12: 'Rückgang'",
    ),
)
WRONG_SIGN_PERCENT_NEG_GOLD = (
    ("rose", False, False, "Revenue rose {P}% in 2023.", "12: 'rose'"),
    ("grew_by", False, False, "Revenue grew by {P}% in 2023.", "12: 'grew'"),
    ("up", False, False, "Revenue was up {P}% year over year.", "12: 'up'"),
    ("increased", False, False, "Revenue increased {P}% in 2023.", "12: 'increased'"),
    ("growth_of", False, False, "Revenue showed growth of {P}% in 2023.", "12: 'growth'"),
    (
        "changed_by",
        False,
        True,
        "Revenue changed by {P}% in 2023.",
        "13: no direction against a negative gold",
    ),
    (
        "higher_than",
        False,
        False,
        "Revenue in 2023 was {P}% higher than in 2022.",
        "12: 'higher' is a worded rise",
    ),
    (
        "negated_fall",
        False,
        False,
        "Revenue did not fall in 2023; it rose {P}%.",
        "12: 'rose'; the fall is negated",
    ),
    (
        "other_clause_fall",
        False,
        False,
        "After falling in 2022, revenue rose {P}% in 2023.",
        "12: the fall is 2022's",
    ),
    ("nb_okte", False, False, "Omsetningen økte med {Pc} prosent i 2023.", "12: 'økte'"),
    ("nb_steg", False, False, "Omsetningen steg {Pc} prosent i 2023.", "12: 'steg'"),
    (
        "sv_okade",
        False,
        False,
        "Nettoomsättningen ökade med {Pc} procent under 2023.",
        "12: 'ökade'",
    ),
    ("da_steg", False, False, "Omsætningen steg {Pc} procent i 2023.", "12: 'steg'"),
    ("de_stieg", False, False, "Der Umsatz stieg 2023 um {Pc} Prozent.", "12: 'stieg'"),
)
# (variant, expected, cd, question, gold key, template, why): the question carries the direction.
QUESTION_SIGN = (
    (
        "q_decrease_worded",
        True,
        True,
        "By how much did revenue decrease in 2023?",
        "pos_pct",
        "Revenue decreased by {P}% in 2023.",
        "14: positive size of an asked decrease",
    ),
    (
        "q_decrease_bare",
        True,
        True,
        "By how much did revenue decrease in 2023?",
        "pos_pct",
        "{P}%",
        "14: the answer states no sign; the question's applies",
    ),
    (
        "q_decrease_rose",
        False,
        False,
        "By how much did revenue decrease in 2023?",
        "pos_pct",
        "Revenue increased by {P}% in 2023.",
        "12: the answer's own 'increased' vetoes",
    ),
    (
        "q_loss_worded",
        True,
        True,
        "What was the segment's net loss in 2023?",
        "pos_amt",
        "The segment's net loss was {A}.",
        "14: positive size of an asked loss",
    ),
    (
        "q_loss_bare",
        True,
        True,
        "What was the segment's net loss in 2023?",
        "pos_amt",
        "{A}",
        "14: no sign in the answer",
    ),
    (
        "q_loss_profit",
        False,
        False,
        "What was the segment's net loss in 2023?",
        "pos_amt",
        "The segment made a net profit of {A} in 2023.",
        "12: the answer's own 'profit' vetoes",
    ),
    (
        "q_loss_nb_overskudd",
        False,
        False,
        "What was the segment's net loss in 2023?",
        "pos_amt",
        "Segmentet fikk et overskudd på {Anb} i 2023.",
        "12: 'overskudd' vetoes",
    ),
    (
        "q_change_fell",
        True,
        False,
        "What was the change in revenue in 2023?",
        "neg_pct",
        "Revenue fell {P}% in 2023.",
        "12: 'fell'",
    ),
    (
        "q_change_bare",
        False,
        True,
        "What was the change in revenue in 2023?",
        "neg_pct",
        "Revenue changed by {P}% in 2023.",
        "13: no direction",
    ),
    (
        "q_change_rose",
        False,
        False,
        "What was the change in revenue in 2023?",
        "neg_pct",
        "Revenue rose {P}% in 2023.",
        "12: 'rose'",
    ),
)
# Worded golds: the gold's own words give its sign.
WORDED_GOLD = (
    (
        "wg_lost",
        True,
        False,
        "A net loss of {A}",
        "The segment lost {A} in 2023.",
        "12: both a loss",
    ),
    (
        "wg_minus",
        True,
        False,
        "A net loss of {A}",
        "The segment's net result for 2023 was -{A}.",
        "15: a minus for a loss",
    ),
    (
        "wg_profit",
        False,
        False,
        "A net loss of {A}",
        "The segment reported a net profit of {A} in 2023.",
        "12: profit for a loss",
    ),
    (
        "wg_fell_rose",
        False,
        False,
        "Revenue fell {P}%",
        "Revenue rose {P}% in 2023.",
        "12: rose for fell",
    ),
    (
        "wg_fell_declined",
        True,
        False,
        "Revenue fell {P}%",
        "Revenue declined {P}% in 2023.",
        "12: both a fall",
    ),
)

# --------------------------------------------------------------------------- scale


@dataclass(frozen=True)
class Big:
    """A figure in the billions written every way; ``wrong`` are conflicting scales."""

    gold: str
    right: tuple[tuple[str, str, bool, str], ...]  # (variant, response, cd, why)
    wrong: tuple[tuple[str, str, bool, str], ...]


def _big(d: str, c: str, m: str, mc: str, t: str, tc: str, full: str, gold: str) -> Big:
    """d = "1.5" (billions, point), c = "1,5" (comma), m = "1,500" (millions, comma groups),
    mc = "1 500" (space groups), t = "1,500,000" (thousands), tc = "1 500 000", full = units."""
    right = (
        ("B_suffix", f"Revenue for 2023 was ${d}B.", False, "4: B = billion"),
        ("bn", f"Revenue for 2023 came to {d} bn dollars.", False, "7: bn = billion"),
        ("bn_attached", f"2023 revenue: USD {d}bn.", False, "7: bn = billion"),
        ("million_words", f"Revenue for 2023 was ${m} million.", False, "4: equivalent scale"),
        ("M_suffix", f"Revenue for 2023 was ${m}M.", False, "4: M = million"),
        ("mm", f"Revenue for 2023 was ${m}mm.", False, "7: mm = million"),
        ("billion_word", f"Revenue for 2023 was {d} billion dollars.", False, "4: billion"),
        ("thousands", f"Revenue for 2023 was ${t} thousand.", False, "4: equivalent scale"),
        ("k_suffix", f"Revenue for 2023 was ${t}k.", False, "4: k = thousand"),
        ("full_digits", f"Revenue for 2023 was ${full}.", False, "4: units"),
        (
            "in_millions_label",
            f"Revenue (in millions): ${m} for 2023.",
            False,
            "5: scale in the label",
        ),
        (
            "usd_millions_after",
            f"Revenue for 2023 was {m} (USD millions).",
            False,
            "5: scale after the figure",
        ),
        (
            "in_thousands_lead",
            f"In thousands of dollars, revenue for 2023 was {t}.",
            False,
            "5: scale stated before",
        ),
        ("nb_mill", f"Inntektene i 2023 var {mc} mill. kroner.", False, "7: mill. = million"),
        ("nb_mnok", f"Inntektene i 2023: MNOK {mc}.", False, "7: MNOK = million NOK"),
        ("nb_mrd", f"Inntektene i 2023 var NOK {c} mrd.", False, "7: mrd. = billion"),
        (
            "nb_milliarder",
            f"Inntektene i 2023 var {c} milliarder kroner.",
            False,
            "7: milliarder = billion",
        ),
        (
            "nb_millioner",
            f"Inntektene i 2023 utgjorde {mc} millioner kroner.",
            False,
            "7: millioner = million",
        ),
        ("nb_tusen", f"Inntektene i 2023 var {tc} tusen kroner.", False, "7: tusen = thousand"),
        (
            "sv_miljarder",
            f"Intäkterna 2023 uppgick till {c} miljarder kronor.",
            False,
            "7: miljarder = billion",
        ),
        ("sv_mkr", f"Intäkterna 2023 uppgick till {mc} Mkr.", False, "7: Mkr = million"),
        ("da_mia", f"Omsætningen i 2023 udgjorde {c} mia. kr.", False, "7: mia. = billion"),
        ("de_mrd", f"Der Umsatz lag 2023 bei {c} Mrd. Euro.", False, "7: Mrd. = billion"),
        (
            "de_mio",
            f"Der Umsatz belief sich 2023 auf {m.replace(',', '.')} Mio. Euro.",
            False,
            "7/19: Mio. = million, period groups",
        ),
    )
    wrong = (
        (
            "million_for_billion",
            f"Revenue for 2023 was ${d} million.",
            False,
            "4: million for billion",
        ),
        ("M_for_billion", f"Revenue for 2023 was ${d}M.", False, "4: M for billion"),
        (
            "thousand_for_million",
            f"Revenue for 2023 was ${m} thousand.",
            False,
            "4: thousand for million",
        ),
        ("k_for_million", f"Revenue for 2023 was ${m}k.", False, "4: k for million"),
        ("trillion", f"Revenue for 2023 was ${d} trillion.", False, "4: trillion for billion"),
        (
            "billion_for_million",
            f"Revenue for 2023 was ${m} billion.",
            False,
            "4: billion for million",
        ),
        (
            "in_thousands_label",
            f"Revenue (in thousands): ${m} for 2023.",
            False,
            "4: thousands label for millions",
        ),
        (
            "nb_mill_for_mrd",
            f"Inntektene i 2023 var {c} mill. kroner.",
            False,
            "7: mill. for billion",
        ),
        (
            "nb_tusen_for_mill",
            f"Inntektene i 2023 var {mc} tusen kroner.",
            False,
            "7: tusen for million",
        ),
        (
            "nb_billioner",
            f"Inntektene i 2023 var {c} billioner kroner.",
            True,
            "7: Norwegian billioner = 10^12",
        ),
        (
            "sv_miljoner_for_miljarder",
            f"Intäkterna 2023 uppgick till {c} miljoner kronor.",
            False,
            "7: miljoner for billion",
        ),
        (
            "da_mio_for_mia",
            f"Omsætningen i 2023 udgjorde {c} mio. kr.",
            False,
            "7: mio. for billion",
        ),
        ("de_mio_for_mrd", f"Der Umsatz lag 2023 bei {c} Mio. Euro.", False, "7: Mio. for billion"),
        (
            "de_tsd_for_mio",
            f"Der Umsatz lag 2023 bei {m.replace(',', '.')} Tsd. Euro.",
            False,
            "7: Tsd. for million",
        ),
    )
    return Big(gold, right, wrong)


BIGS = (
    _big("1.5", "1,5", "1,500", "1 500", "1,500,000", "1 500 000", "1,500,000,000", "$1.5 billion"),
    _big(
        "2.35", "2,35", "2,350", "2 350", "2,350,000", "2 350 000", "2,350,000,000", "2,350 million"
    ),
    _big(
        "7.2",
        "7,2",
        "7,200",
        "7 200",
        "7,200,000",
        "7 200 000",
        "7,200,000,000",
        "$7,200,000 thousand",
    ),
)

# Several figures under one scale: (variant, gold, response, category, expected, cd, why)
SHARED_SCALE = (
    (
        "scale_once_after",
        "$1.5 billion",
        "Revenue and operating profit were $1.5 and $0.3 billion respectively.",
        "revenue",
        True,
        False,
        "4: one scale word for both figures",
    ),
    (
        "scale_once_before",
        "$1.5 billion",
        "In USD millions: revenue 1,500, operating profit 300.",
        "revenue",
        True,
        False,
        "5: the scale heads the figures",
    ),
    (
        "scale_once_wrong",
        "$1.5 billion",
        "Revenue and operating profit were $1.5 and $0.3 million respectively.",
        "revenue",
        False,
        False,
        "4: million for billion",
    ),
    (
        "scale_once_label_wrong",
        "$2,350 million",
        "Figures in thousands of dollars: revenue 2,350, costs 1,900.",
        "revenue",
        False,
        False,
        "4: thousands for millions",
    ),
)

# Question carries the scale: (variant, question, gold, response, expected, cd, why)
QUESTION_SCALE = (
    (
        "q_thousands_bare",
        "What was revenue in 2023 (in thousands)?",
        "1,500,000",
        "1,500,000",
        True,
        False,
        "5: the figure in the asked unit",
    ),
    (
        "q_thousands_billion",
        "What was revenue in 2023 (in thousands)?",
        "1,500,000",
        "Revenue was $1.5 billion in 2023.",
        True,
        False,
        "4/5: 1,500,000 thousand = 1.5 billion",
    ),
    (
        "q_thousands_million_wrong",
        "What was revenue in 2023 (in thousands)?",
        "1,500,000",
        "Revenue was $1.5 million in 2023.",
        False,
        False,
        "4: 1.5 million is not 1,500,000 thousand",
    ),
    (
        "q_millions_bare",
        "What was revenue in FY2023 in USD millions?",
        "$2350.00",
        "Revenue in FY2023 was $2,350.",
        True,
        False,
        "5: the asked unit",
    ),
    (
        "q_millions_billion",
        "What was revenue in FY2023 in USD millions?",
        "$2350.00",
        "Revenue in FY2023 was $2.35 billion.",
        True,
        False,
        "4/5: equivalent",
    ),
    (
        "q_millions_thousand_wrong",
        "What was revenue in FY2023 in USD millions?",
        "$2350.00",
        "Revenue in FY2023 was $2,350 thousand.",
        False,
        False,
        "4: thousand for the asked millions",
    ),
    (
        "q_millions_answer_own_scale",
        "What was revenue in FY2023 in USD millions?",
        "$2350.00",
        "Revenue in FY2023 was $2,350 billion.",
        False,
        False,
        "4: the answer's own scale conflicts",
    ),
)

# Percent, fraction, basis points: (variant, gold, response, expected, cd, why)
PERCENT_SCALE = (
    ("pct_word", "2.5%", "The margin widened to 2.5 percent in 2023.", True, False, "1"),
    (
        "pct_fraction",
        "2.5%",
        "The margin in 2023 was 0.025.",
        True,
        True,
        "17: ratio written without percent",
    ),
    (
        "pct_bps",
        "2.5%",
        "The spread was 250 basis points in 2023.",
        True,
        False,
        "6: 250 bp = 2.5 points",
    ),
    ("pct_bps_abbrev", "2.5%", "The spread was 250 bps in 2023.", True, False, "6"),
    ("pct_nb", "2.5%", "Marginen var 2,5 prosent i 2023.", True, False, "19: decimal comma"),
    ("pct_nb_bp", "2.5%", "Spreaden var 250 basispunkter i 2023.", True, False, "6"),
    ("pct_de", "2.5%", "Die Marge lag 2023 bei 2,5 Prozent.", True, False, "19"),
    ("ratio_as_pct", "0.25", "Debt was 25% of total capital at year end.", True, False, "17"),
    (
        "ratio_as_pct_word",
        "0.25",
        "Debt was 25 percent of total capital at year end.",
        True,
        False,
        "17",
    ),
    (
        "ratio_as_pct_nb",
        "0.25",
        "Gjelden utgjorde 25 prosent av kapitalen ved årsslutt.",
        True,
        False,
        "17",
    ),
    ("bp_change", "-0.5%", "The discount rate fell 50 basis points in 2023.", True, False, "6/12"),
    (
        "bp_change_sv",
        "-0.5%",
        "Diskonteringsräntan sjönk med 50 baspunkter under 2023.",
        True,
        False,
        "6/12",
    ),
    ("points_as_bp", "1.2%", "The operating margin improved by 120 bps in 2023.", True, False, "6"),
)
WRONG_PERCENT_SCALE = (
    (
        "pct_small_bps",
        "2.5%",
        "The spread was 25 basis points in 2023.",
        False,
        False,
        "6: 25 bp = 0.25 points",
    ),
    ("pct_as_bps", "2.5%", "The spread was 2.5 basis points in 2023.", False, False, "6: 2.5 bp"),
    ("pct_tenth", "2.5%", "The margin in 2023 was 0.25%.", False, False, "1: a tenth"),
    (
        "pct_fraction_percent",
        "2.5%",
        "The margin in 2023 was 0.025%.",
        False,
        False,
        "17: percent sign on the ratio's digits",
    ),
    (
        "ratio_with_percent_sign",
        "0.25",
        "Debt was 0.25% of total capital at year end.",
        False,
        False,
        "17: a percent sign on the ratio's digits",
    ),
    ("ratio_tenfold", "0.25", "Debt was 2.5% of total capital at year end.", False, False, "17"),
    (
        "bp_change_small",
        "-0.5%",
        "The discount rate fell 5 basis points in 2023.",
        False,
        False,
        "6",
    ),
    (
        "points_as_bp_wrong",
        "1.2%",
        "The operating margin improved by 12 bps in 2023.",
        False,
        False,
        "6: 12 bp = 0.12 points",
    ),
    ("pct_nb_bp_wrong", "2.5%", "Spreaden var 25 basispunkter i 2023.", False, False, "6"),
)


# --------------------------------------------------------------------------- batch b
# Written after the grader was fixed against the rows above, labelled before it ran on them once:
# other phrasings, figures and languages of the same conventions, as an out-of-sample check.

# (size in English, Norwegian, Swedish, Danish, German; negative gold; positive gold)
B_AMOUNTS = (
    (
        "$84.6 million",
        "84,6 millioner kroner",
        "84,6 miljoner kronor",
        "84,6 mio. kr.",
        "84,6 Mio. Euro",
        "-84.6 million",
        "84.6 million",
    ),
    (
        "$2.13 million",
        "2,13 millioner kroner",
        "2,13 miljoner kronor",
        "2,13 mio. kr.",
        "2,13 Mio. Euro",
        "-2,130 thousand",
        "2,130 thousand",
    ),
    (
        "$9.1bn",
        "9,1 milliarder kroner",
        "9,1 miljarder kronor",
        "9,1 mia. kr.",
        "9,1 Mrd. Euro",
        "-9.1 billion",
        "9.1 billion",
    ),
)
# (variant, expected, cd, template, why): {E} English size, {N} {S} {D} {G} the others.
B_SIGN_AMOUNT = (
    ("b_minus_word", True, False, "Free cash flow came in at minus {E}.", "12: 'minus'"),
    (
        "b_swung_to_loss",
        True,
        False,
        "The unit's net result swung to a loss of {E}.",
        "12: 'loss of'",
    ),
    ("b_lost_after_colon", True, False, "It was a weak year: the unit lost {E}.", "12: 'lost'"),
    (
        "b_net_loss_totalling",
        True,
        False,
        "Results deteriorated, with a net loss totalling {E}.",
        "12: 'net loss'",
    ),
    ("b_loss_colon", True, False, "Net loss attributable to shareholders: {E}.", "12: loss label"),
    (
        "b_negative_earnings",
        True,
        False,
        "The unit posted negative earnings of {E}.",
        "12: negative earnings",
    ),
    (
        "b_losses_reached",
        True,
        False,
        "Losses for the unit reached {E} in 2023.",
        "12: losses as the subject",
    ),
    (
        "b_loss_widened",
        True,
        False,
        "The unit's operating loss widened to {E}.",
        "12: a loss as the subject",
    ),
    ("b_nb_underskudd", True, False, "Enheten gikk med et underskudd på {N}.", "12: 'underskudd'"),
    ("b_nb_tap", True, False, "Resultatet ble et tap på {N}.", "12: 'tap'"),
    ("b_nb_tapte", True, False, "Enheten tapte hele {N} i fjor.", "12: 'tapte'"),
    ("b_sv_forlorade", True, False, "Enheten förlorade {S} under året.", "12: 'förlorade'"),
    ("b_sv_minus", True, False, "Rörelseresultatet blev minus {S}.", "12: 'minus'"),
    ("b_da_underskud", True, False, "Resultatet blev et underskud på {D}.", "12: 'underskud'"),
    ("b_de_verlust", True, False, "Die Einheit schrieb einen Verlust von {G}.", "12: 'Verlust'"),
    ("b_de_nettoverlust", True, False, "Der Nettoverlust betrug {G}.", "12: loss as the subject"),
)
B_WRONG_SIGN_AMOUNT = (
    ("b_net_income", False, True, "The unit posted net income of {E}.", "13: no direction word"),
    (
        "b_earning",
        False,
        False,
        "The unit returned to profit, earning {E}.",
        "12: 'profit', 'earning'",
    ),
    ("b_gain_of", False, False, "The unit swung to a gain of {E}.", "12: 'gain'"),
    (
        "b_no_losses",
        False,
        False,
        "The unit had no losses; it earned {E}.",
        "12: negated loss; 'earned'",
    ),
    (
        "b_unlike_loss",
        False,
        False,
        "Unlike last year's loss, the unit made a profit of {E}.",
        "12: 'profit'",
    ),
    ("b_nb_overskudd", False, False, "Enheten gikk med overskudd på {N}.", "12: 'overskudd'"),
    ("b_sv_vinst", False, False, "Enheten gjorde en vinst på {S}.", "12: 'vinst'"),
    (
        "b_de_ueberschuss",
        False,
        False,
        "Die Einheit erzielte einen Überschuss von {G}.",
        "12: 'Überschuss'",
    ),
)
B_PERCENTS = (("3.6", "3,6"), ("0.25", "0,25"), ("18.9", "18,9"))
B_SIGN_PERCENT = (
    ("b_contracted_by", True, False, "Sales contracted by {P}% in the year.", "12: 'contracted'"),
    ("b_decreased_percent", True, False, "Sales decreased {P} percent.", "12: 'decreased'"),
    (
        "b_decrease_after",
        True,
        False,
        "The year brought a {P} percent decrease in sales.",
        "12: 'decrease' after",
    ),
    ("b_shrank", True, False, "Sales shrank {P}% year on year.", "12: 'shrank'"),
    ("b_went_down", True, False, "Sales went down {P}% over the year.", "12: 'down'"),
    ("b_negative_word", True, False, "Sales growth: negative {P}%.", "12: 'negative'"),
    ("b_unicode_minus", True, False, "Sales changed by \u2212{P}% over the year.", "15: U+2212"),
    (
        "b_decline_was",
        True,
        False,
        "Sales declined; the decline was {P}%.",
        "12: the decline as the subject",
    ),
    ("b_down_by", True, False, "Sales were down by {P} percent.", "12: 'down'"),
    ("b_nb_falt", True, False, "Salget falt {Pc} prosent i fjor.", "12: 'falt'"),
    ("b_sv_sjonk", True, False, "Försäljningen sjönk {Pc} procent.", "12: 'sjönk'"),
    ("b_da_faldt_med", True, False, "Salget faldt med {Pc} procent.", "12: 'faldt'"),
    ("b_fr_baisse", True, False, "Les ventes sont en baisse de {Pc} %.", "12: 'baisse'"),
)
B_WRONG_SIGN_PERCENT = (
    ("b_climbed", False, False, "Sales climbed {P}% in the year.", "12: 'climbed'"),
    ("b_above", False, True, "Sales were {P}% above last year.", "13: no fall stated"),
    ("b_went_up", False, False, "Sales went up {P}% over the year.", "12: 'up'"),
    ("b_not_decline", False, False, "Sales did not decline; they rose {P}%.", "12: 'rose'"),
    ("b_nb_okte", False, False, "Salget økte {Pc} prosent i fjor.", "12: 'økte'"),
    ("b_sv_steg", False, False, "Försäljningen steg {Pc} procent.", "12: 'steg'"),
    ("b_de_wuchs", False, False, "Der Absatz wuchs um {Pc} Prozent.", "12: 'wuchs'"),
)
# (variant, gold, response, expected, cd, why)
B_SCALE = (
    ("b_bn_euro", "€4.25 billion", "Group revenue reached €4.25bn.", True, False, "7: bn"),
    (
        "b_m_suffix",
        "€4.25 billion",
        "Group revenue reached EUR 4,250m.",
        True,
        False,
        "4: m = million",
    ),
    ("b_mn_spaced", "€4.25 billion", "Group revenue reached €4,250 mn.", True, False, "7: mn"),
    (
        "b_billion_euros",
        "€4.25 billion",
        "Group revenue reached 4.25 billion euros.",
        True,
        False,
        "4",
    ),
    ("b_k_suffix", "€4.25 billion", "Group revenue reached €4,250,000k.", True, False, "4: k"),
    (
        "b_meur_after",
        "€4.25 billion",
        "Group revenue reached 4 250 MEUR.",
        True,
        False,
        "7/19: MEUR",
    ),
    ("b_bln", "€4.25 billion", "Group revenue reached EUR 4.25 bln.", True, False, "7: bln"),
    (
        "b_de_mrd",
        "€4.25 billion",
        "Der Konzernumsatz erreichte 4,25 Mrd. €.",
        True,
        False,
        "7: Mrd.",
    ),
    (
        "b_de_mio_groups",
        "€4.25 billion",
        "Der Konzernumsatz erreichte 4.250 Mio. €.",
        True,
        False,
        "7/19",
    ),
    (
        "b_nb_milliarder",
        "€4.25 billion",
        "Konsernets inntekter var 4,25 milliarder euro.",
        True,
        False,
        "7",
    ),
    (
        "b_label_paren",
        "€4.25 billion",
        "Group revenue (EUR millions): 4,250.",
        True,
        False,
        "5: scale in the label",
    ),
    (
        "b_amounts_in",
        "€4.25 billion",
        "Amounts in EUR millions. Group revenue: 4,250.",
        True,
        False,
        "5: scale stated once",
    ),
    (
        "b_nok_mrd",
        "NOK 12.8 billion",
        "Driftsinntektene var 12,8 mrd. kroner.",
        True,
        False,
        "7: mrd.",
    ),
    (
        "b_nok_mnok_after",
        "NOK 12.8 billion",
        "Driftsinntektene var 12 800 MNOK.",
        True,
        False,
        "7: MNOK",
    ),
    (
        "b_nok_mill",
        "NOK 12.8 billion",
        "Driftsinntektene utgjorde 12 800 mill. kroner.",
        True,
        False,
        "7: mill.",
    ),
    (
        "b_sek_mdr",
        "SEK 12.8 billion",
        "Nettoomsättningen var 12,8 mdr kronor.",
        True,
        False,
        "7: mdr",
    ),
    ("b_dkk_mia", "DKK 640 million", "Omsætningen var 0,64 mia. kr.", True, False, "7: mia."),
    ("b_dkk_mio", "DKK 640 million", "Omsætningen var 640 mio. kr.", True, False, "7: mio."),
    ("b_thousand_word", "640 million", "Sales were 640,000 thousand dollars.", True, False, "4"),
    ("b_full", "640 million", "Sales were $640,000,000.", True, False, "4: units"),
)
B_WRONG_SCALE = (
    (
        "b_million_for_billion",
        "€4.25 billion",
        "Group revenue reached €4.25 million.",
        False,
        False,
        "4",
    ),
    ("b_m_for_billion", "€4.25 billion", "Group revenue reached €4.25m.", False, False, "4"),
    (
        "b_thousand_for_million",
        "€4.25 billion",
        "Group revenue reached EUR 4,250 thousand.",
        False,
        False,
        "4",
    ),
    (
        "b_de_mio_for_mrd",
        "€4.25 billion",
        "Der Konzernumsatz erreichte 4,25 Mio. €.",
        False,
        False,
        "7",
    ),
    (
        "b_nb_millioner",
        "€4.25 billion",
        "Konsernets inntekter var 4,25 millioner euro.",
        False,
        False,
        "7",
    ),
    ("b_trillion", "€4.25 billion", "Group revenue reached €4.25 trillion.", False, False, "4"),
    (
        "b_billion_for_million",
        "€4.25 billion",
        "Group revenue reached €4,250 billion.",
        False,
        False,
        "4",
    ),
    ("b_k_for_million", "€4.25 billion", "Group revenue reached EUR 4,250k.", False, False, "4"),
    (
        "b_nok_mill_for_mrd",
        "NOK 12.8 billion",
        "Driftsinntektene var 12,8 mill. kroner.",
        False,
        False,
        "7",
    ),
    (
        "b_nok_tkr",
        "NOK 12.8 billion",
        "Driftsinntektene var 12 800 tkr.",
        False,
        False,
        "7: Tkr = thousand",
    ),
    (
        "b_sek_mkr",
        "SEK 12.8 billion",
        "Nettoomsättningen var 12,8 Mkr.",
        False,
        False,
        "7: Mkr = million",
    ),
    ("b_dkk_mia_wrong", "DKK 640 million", "Omsætningen var 640 mia. kr.", False, False, "7"),
    ("b_label_thousands", "640 million", "Sales (in thousands): $640.", False, False, "4"),
)
B_PERCENT_SCALE = (
    ("b_bps", "3.75%", "The yield spread was 375 basis points.", True, False, "6"),
    ("b_bp_attached", "3.75%", "The yield spread was 375bp.", True, False, "6"),
    ("b_fraction", "3.75%", "The yield spread was 0.0375.", True, True, "17"),
    ("b_sv_procent", "3.75%", "Räntemarginalen var 3,75 procent.", True, False, "19"),
    ("b_ratio_pct", "0.6", "The payout ratio was 60%.", True, False, "17"),
    ("b_down_bps", "-1.25%", "The policy rate came down 125 bps.", True, False, "6/12"),
    ("b_small_bps", "3.75%", "The yield spread was 37.5 basis points.", False, False, "6"),
    ("b_tenth", "3.75%", "The yield spread was 0.375%.", False, False, "1"),
    ("b_ratio_pct_sign", "0.6", "The payout ratio was 0.6%.", False, False, "17"),
    ("b_down_small_bps", "-1.25%", "The policy rate came down 12.5 bps.", False, False, "6"),
    ("b_up_bps", "-1.25%", "The policy rate went up 125 bps.", False, False, "12"),
)
B_QUESTION_SCALE = (
    (
        "b_q_thousands_word",
        "What was the impairment charge (in EUR thousands)?",
        "850",
        "The impairment charge was €850 thousand.",
        True,
        False,
        "5",
    ),
    (
        "b_q_thousands_million",
        "What was the impairment charge (in EUR thousands)?",
        "850",
        "The impairment charge was €0.85 million.",
        True,
        False,
        "4/5",
    ),
    (
        "b_q_thousands_bare",
        "What was the impairment charge (in EUR thousands)?",
        "850",
        "The impairment charge was 850.",
        True,
        False,
        "5",
    ),
    (
        "b_q_thousands_wrong",
        "What was the impairment charge (in EUR thousands)?",
        "850",
        "The impairment charge was €850 million.",
        False,
        False,
        "4",
    ),
)


def rows_b() -> Iterator[dict[str, Any]]:
    for table, kind in ((B_SIGN_AMOUNT, "sign"), (B_WRONG_SIGN_AMOUNT, "wrong_sign")):
        for variant, exp, cd, tpl, why in table:
            for e, n, s, d, g, neg, _pos in B_AMOUNTS:
                text = tpl.format(E=e, N=n, S=s, D=d, G=g)
                yield _row(kind, variant, neg, text, exp, cd, why, batch="b")
    for table, kind in ((B_SIGN_PERCENT, "sign"), (B_WRONG_SIGN_PERCENT, "wrong_sign")):
        for variant, exp, cd, tpl, why in table:
            for en, comma in B_PERCENTS:
                text = tpl.format(P=en, Pc=comma)
                yield _row(kind, variant, f"-{en}%", text, exp, cd, why, batch="b")
    for variant, gold, response, exp, cd, why in (*B_SCALE, *B_WRONG_SCALE, *B_PERCENT_SCALE):
        kind = "scale" if exp else "wrong_scale"
        yield _row(kind, variant, gold, response, exp, cd, why, batch="b")
    for variant, question, gold, response, exp, cd, why in B_QUESTION_SCALE:
        kind = "scale" if exp else "wrong_scale"
        yield _row(kind, variant, gold, response, exp, cd, why, question=question, batch="b")


# --------------------------------------------------------------------------- batch c
# Written after the fixes for batches a and b, labelled before the grader ran on them once.

# (variant, kind, expected, cd, gold, response, question or None, why)
C_ROWS = (
    (
        "c_long_loss",
        "sign",
        True,
        False,
        "-1,204 million",
        "Based on the consolidated statement of operations, the company reported a net loss of "
        "$1,204 million for fiscal 2022, compared with net income of $310 million in fiscal 2021.",
        None,
        "12: 'net loss of'; the prior-year income is an input",
    ),
    (
        "c_long_profit_for_loss",
        "wrong_sign",
        False,
        False,
        "-1,204 million",
        "Based on the consolidated statement of operations, the company reported net income of "
        "$1,204 million for fiscal 2022, compared with a net loss of $310 million in fiscal 2021.",
        None,
        "12: the answer's figure is income; the loss is the prior year's",
    ),
    (
        "c_convfinqa_change",
        "sign",
        True,
        False,
        "-58.2",
        "The change is the 2013 value minus the 2012 value: 412.7 - 470.9 = -58.2.",
        None,
        "15: the computed result carries a minus",
    ),
    (
        "c_convfinqa_decrease_word",
        "sign",
        True,
        False,
        "-58.2",
        "From 470.9 in 2012 to 412.7 in 2013, the balance decreased by 58.2.",
        None,
        "12: 'decreased by'",
    ),
    (
        "c_convfinqa_plain_change",
        "wrong_sign",
        False,
        True,
        "-58.2",
        "The difference between 470.9 and 412.7 is 58.2.",
        None,
        "13: a size without direction",
    ),
    (
        "c_nb_nedgang_etter",
        "sign",
        True,
        False,
        "-2.4%",
        "Omsetningen viste en nedgang på 2,4 prosent fra året før.",
        None,
        "12: 'nedgang'",
    ),
    (
        "c_nb_lavere",
        "sign",
        True,
        True,
        "-2.4%",
        "Omsetningen var 2,4 prosent lavere enn året før.",
        None,
        "12: 'lavere' is a worded fall",
    ),
    (
        "c_nb_hoyere",
        "wrong_sign",
        False,
        False,
        "-2.4%",
        "Omsetningen var 2,4 prosent høyere enn året før.",
        None,
        "12: 'høyere' is a worded rise",
    ),
    (
        "c_sv_lagre",
        "sign",
        True,
        True,
        "-2.4%",
        "Omsättningen var 2,4 procent lägre än föregående år.",
        None,
        "12: 'lägre'",
    ),
    (
        "c_da_negativt_resultat",
        "sign",
        True,
        False,
        "DKK -312 million",
        "Koncernen fik et negativt resultat på 312 mio. kr.",
        None,
        "12: 'negativt resultat'",
    ),
    (
        "c_de_rueckgang_after",
        "sign",
        True,
        False,
        "-2.4%",
        "Beim Umsatz ergab sich ein Minus von 2,4 Prozent.",
        None,
        "12: 'Minus von'",
    ),
    (
        "c_fell_short",
        "sign",
        True,
        False,
        "-45 million",
        "Operating cash flow came in $45 million below zero.",
        None,
        "12: 'below zero' states a negative",
    ),
    (
        "c_swing_negative",
        "sign",
        True,
        False,
        "-45 million",
        "Free cash flow turned negative, at $45 million.",
        None,
        "12: 'turned negative'",
    ),
    (
        "c_outflow_after",
        "sign",
        True,
        False,
        "-45 million",
        "Investing activities resulted in a $45 million net outflow.",
        None,
        "12: 'outflow' after the figure",
    ),
    (
        "c_inflow",
        "wrong_sign",
        False,
        False,
        "-45 million",
        "Investing activities resulted in a $45 million net inflow.",
        None,
        "12: 'inflow'",
    ),
    (
        "c_q_loss_minus",
        "sign",
        True,
        True,
        "45 million",
        "The net loss was -$45 million.",
        "What was the net loss in 2023?",
        "14/15: a loss written with a minus for the size of an asked loss",
    ),
    (
        "c_q_decline_up",
        "wrong_sign",
        False,
        False,
        "3.1%",
        "Margins went up 3.1% in 2023.",
        "By how much did margins decline in 2023?",
        "12: the answer's 'up' vetoes the asked decline",
    ),
    (
        "c_q_decline_nb",
        "sign",
        True,
        True,
        "3.1%",
        "Marginene falt med 3,1 prosent i 2023.",
        "By how much did margins decline in 2023?",
        "14: a worded fall for the size of an asked decline",
    ),
    # scale
    (
        "c_long_billion",
        "scale",
        True,
        False,
        "$27,650 million",
        "According to the income statement, total revenue for FY2022 was approximately $27.65 billion, "
        "up from $25.1 billion in FY2021.",
        None,
        "4: equivalent scale; the prior year is an input",
    ),
    (
        "c_long_wrong_scale",
        "wrong_scale",
        False,
        False,
        "$27,650 million",
        "According to the income statement, total revenue for FY2022 was approximately $27.65 million.",
        None,
        "4: million for billion",
    ),
    (
        "c_table_header",
        "scale",
        True,
        False,
        "$27,650 million",
        "| Line item | FY2022 |\n|---|---|\n| Total revenue ($ in billions) | 27.65 |",
        None,
        "5: the scale in the row label",
    ),
    (
        "c_nb_mrd_kr",
        "scale",
        True,
        False,
        "NOK 27,650 million",
        "Driftsinntektene i 2022 var 27,65 mrd. kr.",
        None,
        "7: mrd.",
    ),
    (
        "c_nb_milliarder_wrong",
        "wrong_scale",
        False,
        False,
        "NOK 27,650 million",
        "Driftsinntektene i 2022 var 27,65 millioner kroner.",
        None,
        "7: millioner for milliarder",
    ),
    (
        "c_sv_mdkr",
        "scale",
        True,
        False,
        "SEK 27,650 million",
        "Intäkterna 2022 uppgick till 27,65 mdkr.",
        None,
        "7: mdkr = billion",
    ),
    (
        "c_sv_mkr_full",
        "scale",
        True,
        False,
        "SEK 27,650 million",
        "Intäkterna 2022 uppgick till 27 650 Mkr.",
        None,
        "7: Mkr = million",
    ),
    (
        "c_da_mio_kr",
        "scale",
        True,
        False,
        "DKK 27,650 million",
        "Omsætningen i 2022 var 27.650 mio. kr.",
        None,
        "7/19: mio., period groups",
    ),
    (
        "c_de_tsd_eur",
        "scale",
        True,
        False,
        "EUR 27,650 million",
        "Die Umsatzerlöse betrugen 27.650.000 TEUR.",
        None,
        "7: TEUR = thousand EUR",
    ),
    (
        "c_de_mio_wrong",
        "wrong_scale",
        False,
        False,
        "EUR 27,650 million",
        "Die Umsatzerlöse betrugen 27,65 Mio. EUR.",
        None,
        "7: Mio. for Mrd.",
    ),
    (
        "c_bps_words",
        "scale",
        True,
        False,
        "0.35%",
        "The net interest margin narrowed by 35 basis points.",
        None,
        "6 (no direction asked)",
    ),
    (
        "c_bps_wrong",
        "wrong_scale",
        False,
        False,
        "0.35%",
        "The net interest margin narrowed by 3.5 basis points.",
        None,
        "6",
    ),
    (
        "c_percent_points",
        "scale",
        True,
        True,
        "0.35%",
        "The net interest margin was 0.35 percentage points lower.",
        None,
        "16/14: points; a positive gold as the size of the worded fall",
    ),
    ("c_ratio_words", "scale", True, True, "0.125", "The ratio came to 12.5 per cent.", None, "17"),
    (
        "c_ratio_wrong",
        "wrong_scale",
        False,
        False,
        "0.125",
        "The ratio came to 0.125 per cent.",
        None,
        "17: percent sign on the ratio's digits",
    ),
    (
        "c_q_millions_full",
        "scale",
        True,
        False,
        "27650",
        "Total revenue was $27,650,000,000.",
        "What was total revenue in FY2022 (in millions)?",
        "5: the asked unit",
    ),
    (
        "c_q_millions_wrong",
        "wrong_scale",
        False,
        False,
        "27650",
        "Total revenue was $27,650 thousand.",
        "What was total revenue in FY2022 (in millions)?",
        "4: thousand for the asked millions",
    ),
)


def rows_c() -> Iterator[dict[str, Any]]:
    for variant, kind, exp, cd, gold, response, question, why in C_ROWS:
        extra: dict[str, Any] = {"batch": "c"}
        if question:
            extra["question"] = question
        yield _row(kind, variant, gold, response, exp, cd, why, **extra)


# --------------------------------------------------------------------------- batch d
# Written after every fix above, labelled before the grader ran on them once.
D_ROWS = (
    (
        "d_long_fell_pct",
        "sign",
        True,
        False,
        "-7.9%",
        "Looking at the income statement, gross margin dollars fell from $3.8 billion to $3.5 billion. "
        "In percentage terms gross profit declined 7.9% year over year, mainly due to lower volumes.",
        None,
        "12: 'declined'; the endpoints are inputs",
    ),
    (
        "d_long_grew_pct",
        "wrong_sign",
        False,
        False,
        "-7.9%",
        "Gross profit grew 7.9% year over year, from $3.5 billion to $3.8 billion.",
        None,
        "12: 'grew'",
    ),
    (
        "d_bullets_loss",
        "sign",
        True,
        False,
        "-418 million",
        "Key figures for 2023:\n- Revenue: $2.1 billion\n- Operating loss: $418 million\n"
        "- Cash: $0.9 billion",
        "What was the operating loss?",
        "12: the loss label; asked",
    ),
    (
        "d_bullets_income",
        "wrong_sign",
        False,
        False,
        "-418 million",
        "Key figures for 2023:\n- Revenue: $2.1 billion\n- Operating income: $418 million\n"
        "- Cash: $0.9 billion",
        "What was the operating result?",
        "13: income without direction",
    ),
    (
        "d_nb_resultat_minus",
        "sign",
        True,
        False,
        "NOK -2.3 billion",
        "Resultatet før skatt ble minus 2,3 milliarder kroner i 2023.",
        None,
        "12: 'minus'",
    ),
    (
        "d_nb_svekket",
        "sign",
        True,
        False,
        "-1.2%",
        "Kronekursen svekket seg med 1,2 prosent.",
        None,
        "12: 'svekket seg' is a fall",
    ),
    (
        "d_sv_tapp",
        "sign",
        True,
        False,
        "-1.2%",
        "Kronan tappade 1,2 procent mot euron.",
        None,
        "12: 'tappade' is a fall",
    ),
    (
        "d_de_minus_percent",
        "sign",
        True,
        False,
        "-1.2%",
        "Der Kurs gab um 1,2 Prozent nach.",
        None,
        "12: 'gab ... nach' is a fall",
    ),
    (
        "d_fr_recul",
        "sign",
        True,
        False,
        "-1.2%",
        "Le titre a reculé de 1,2 %.",
        None,
        "12: 'a reculé de'",
    ),
    (
        "d_minus_sign_space",
        "sign",
        True,
        False,
        "-1.2%",
        "The change was - 1.2%.",
        None,
        "15: a minus before the figure",
    ),
    (
        "d_negative_return",
        "sign",
        True,
        False,
        "-1.2%",
        "The portfolio delivered a negative return of 1.2%.",
        None,
        "12: 'negative return'",
    ),
    (
        "d_positive_return",
        "wrong_sign",
        False,
        False,
        "-1.2%",
        "The portfolio delivered a positive return of 1.2%.",
        None,
        "12: 'positive return'",
    ),
    (
        "d_loss_per_share",
        "sign",
        True,
        False,
        "-$0.45",
        "The company reported a loss per share of $0.45.",
        None,
        "12: 'loss per share'",
    ),
    (
        "d_eps_plain",
        "wrong_sign",
        False,
        True,
        "-$0.45",
        "The company reported earnings per share of $0.45.",
        None,
        "13: no direction",
    ),
    (
        "d_deficit_narrowed",
        "wrong_sign",
        False,
        False,
        "-120 million",
        "The budget deficit narrowed by $120 million.",
        None,
        "12: a shrinking deficit is a rise",
    ),
    (
        "d_deficit_widened",
        "sign",
        True,
        False,
        "-120 million",
        "The budget deficit widened by $120 million.",
        None,
        "12: a growing deficit is a fall",
    ),
    (
        "d_q_how_much_lost",
        "sign",
        True,
        True,
        "120 million",
        "It lost $120 million.",
        "How much did the company lose in 2023?",
        "14: a worded loss, asked",
    ),
    (
        "d_q_lost_profit",
        "wrong_sign",
        False,
        False,
        "120 million",
        "It made a profit of $120 million.",
        "How much did the company lose in 2023?",
        "12: the answer's 'profit' vetoes",
    ),
    # scale
    (
        "d_long_table_units",
        "scale",
        True,
        False,
        "$4,112 million",
        "Per the 10-K (dollars in millions), cost of sales was 4,112 in fiscal 2023 versus 3,987 in "
        "fiscal 2022.",
        None,
        "5: scale in the heading",
    ),
    (
        "d_nb_mill_kr_long",
        "scale",
        True,
        False,
        "NOK 4,112 million",
        "Varekostnaden utgjorde 4 112 millioner kroner i 2023, mot 3 987 millioner året før.",
        None,
        "7: millioner",
    ),
    (
        "d_nb_milliarder_comma",
        "scale",
        True,
        False,
        "NOK 4,112 million",
        "Varekostnaden utgjorde 4,112 milliarder kroner i 2023.",
        None,
        "7/19: 4,112 milliarder",
    ),
    (
        "d_sv_miljoner",
        "scale",
        True,
        False,
        "SEK 4,112 million",
        "Kostnaden för sålda varor var 4 112 miljoner kronor.",
        None,
        "7",
    ),
    (
        "d_de_mrd_comma",
        "scale",
        True,
        False,
        "EUR 4,112 million",
        "Die Umsatzkosten lagen bei 4,112 Mrd. Euro.",
        None,
        "7/19",
    ),
    (
        "d_usd_bn_round",
        "scale",
        True,
        False,
        "$4,112 million",
        "Cost of sales was roughly $4.1bn.",
        None,
        "8: rounds to the coarser display",
    ),
    (
        "d_k_full",
        "scale",
        True,
        False,
        "$4,112 million",
        "Cost of sales was $4,112,000k.",
        None,
        "4: k = thousand",
    ),
    (
        "d_wrong_bn",
        "wrong_scale",
        False,
        False,
        "$4,112 million",
        "Cost of sales was $4,112 billion.",
        None,
        "4",
    ),
    (
        "d_wrong_k",
        "wrong_scale",
        False,
        False,
        "$4,112 million",
        "Cost of sales was $4,112k.",
        None,
        "4",
    ),
    (
        "d_wrong_nb_tusen",
        "wrong_scale",
        False,
        False,
        "NOK 4,112 million",
        "Varekostnaden utgjorde 4 112 tusen kroner.",
        None,
        "7",
    ),
    (
        "d_wrong_de_tsd",
        "wrong_scale",
        False,
        False,
        "EUR 4,112 million",
        "Die Umsatzkosten lagen bei 4.112 Tsd. Euro.",
        None,
        "7",
    ),
    (
        "d_pct_bps_long",
        "scale",
        True,
        False,
        "0.25%",
        "The central bank raised its policy rate by 25 basis points to 4.5%.",
        None,
        "6: the change in basis points; 4.5% is the level",
    ),
    (
        "d_pct_points_word",
        "scale",
        True,
        False,
        "0.25%",
        "The policy rate went up by a quarter of a percentage point, i.e. 0.25 pp.",
        None,
        "16",
    ),
    (
        "d_pct_wrong_bps",
        "wrong_scale",
        False,
        False,
        "0.25%",
        "The central bank raised its policy rate by 2.5 basis points.",
        None,
        "6",
    ),
    (
        "d_ratio_pct",
        "scale",
        True,
        False,
        "0.375",
        "The payout ratio was 37.5 percent.",
        None,
        "17",
    ),
    (
        "d_ratio_wrong",
        "wrong_scale",
        False,
        False,
        "0.375",
        "The payout ratio was 3.75 percent.",
        None,
        "17",
    ),
    (
        "d_q_billions_bare",
        "scale",
        True,
        False,
        "4.1",
        "Cost of sales was 4.1.",
        "What was cost of sales in USD billions?",
        "5: the asked unit",
    ),
    (
        "d_q_billions_millions",
        "scale",
        True,
        False,
        "4.1",
        "Cost of sales was $4,112 million.",
        "What was cost of sales in USD billions?",
        "4/8: equivalent, rounded",
    ),
    (
        "d_q_billions_wrong",
        "wrong_scale",
        False,
        False,
        "4.1",
        "Cost of sales was $4.1 million.",
        "What was cost of sales in USD billions?",
        "4",
    ),
)


def rows_d() -> Iterator[dict[str, Any]]:
    for variant, kind, exp, cd, gold, response, question, why in D_ROWS:
        extra: dict[str, Any] = {"batch": "d"}
        if question:
            extra["question"] = question
        yield _row(kind, variant, gold, response, exp, cd, why, **extra)


def _fill(template: str, a: Amount | None, p: Percent | None) -> str:
    values: dict[str, str] = {}
    if a is not None:
        values.update(
            A=a.en, Ap=a.en_paren, B=a.bare, S=a.scale_en, Anb=a.nb, Asv=a.sv, Ada=a.da, Ade=a.de
        )
    if p is not None:
        values.update(P=p.en, Pc=p.comma)
    return template.format(**values)


def _row(
    kind: str,
    variant: str,
    gold: str,
    response: str,
    expected: bool,
    cd: bool,
    why: str,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "gold": gold,
        "response": response,
        "category": extra.pop("category", None),
        "expected": expected,
        "tolerance": 0.0,
        "kind": kind,
        "variant": variant,
        "require_currency": False,
        "convention_dependent": cd,
        "why": why,
        "source": "variants (benchmarks/make_sign_scale_variants.py)",
        **extra,
    }


def rows() -> Iterator[dict[str, Any]]:
    for table, kind in ((SIGN_AMOUNT_NEG_GOLD, "sign"), (WRONG_SIGN_AMOUNT_NEG_GOLD, "wrong_sign")):
        for variant, exp, cd, tpl, why in table:
            for a in AMOUNTS:
                yield _row(kind, variant, a.gold_neg, _fill(tpl, a, None), exp, cd, why)
    for table, kind in ((SIGN_AMOUNT_POS_GOLD, "sign"), (WRONG_SIGN_AMOUNT_POS_GOLD, "wrong_sign")):
        for variant, exp, cd, tpl, why in table:
            for a in AMOUNTS:
                yield _row(kind, variant, a.gold_pos, _fill(tpl, a, None), exp, cd, why)
    for table, kind in (
        (SIGN_PERCENT_NEG_GOLD, "sign"),
        (WRONG_SIGN_PERCENT_NEG_GOLD, "wrong_sign"),
    ):
        for variant, exp, cd, tpl, why in table:
            for p in PERCENTS:
                yield _row(kind, variant, f"-{p.en}%", _fill(tpl, None, p), exp, cd, why)
    for variant, exp, cd, question, gold_key, tpl, why in QUESTION_SIGN:
        for a, p in zip(AMOUNTS, PERCENTS, strict=True):
            gold = {"pos_pct": f"{p.en}%", "neg_pct": f"-{p.en}%", "pos_amt": a.gold_pos}[gold_key]
            kind = "sign" if exp else "wrong_sign"
            yield _row(kind, variant, gold, _fill(tpl, a, p), exp, cd, why, question=question)
    for variant, exp, cd, gold_tpl, tpl, why in WORDED_GOLD:
        for a, p in zip(AMOUNTS, PERCENTS, strict=True):
            kind = "sign" if exp else "wrong_sign"
            yield _row(kind, variant, _fill(gold_tpl, a, p), _fill(tpl, a, p), exp, cd, why)
    for big in BIGS:
        for variant, response, cd, why in big.right:
            yield _row("scale", variant, big.gold, response, True, cd, why)
        for variant, response, cd, why in big.wrong:
            yield _row("wrong_scale", variant, big.gold, response, False, cd, why)
    for variant, gold, response, category, exp, cd, why in SHARED_SCALE:
        yield _row(
            "scale" if exp else "wrong_scale",
            variant,
            gold,
            response,
            exp,
            cd,
            why,
            category=category,
        )
    for variant, question, gold, response, exp, cd, why in QUESTION_SCALE:
        yield _row(
            "scale" if exp else "wrong_scale",
            variant,
            gold,
            response,
            exp,
            cd,
            why,
            question=question,
        )
    for table in (PERCENT_SCALE, WRONG_PERCENT_SCALE):
        for variant, gold, response, exp, cd, why in table:
            yield _row("scale" if exp else "wrong_scale", variant, gold, response, exp, cd, why)


def main() -> None:
    batches = (*({**r, "batch": "a"} for r in rows()), *rows_b(), *rows_c(), *rows_d())
    for n, row in enumerate(batches, 1):
        print(json.dumps({"id": f"ssv-{n:04d}", **row}, ensure_ascii=False))


if __name__ == "__main__":
    main()
