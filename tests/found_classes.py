"""Hidden variants of the verdict classes an answer's own words decide, each labelled by construction.

Five classes, each written from its description, not from dev rows:

- ``polarity``: the answer's own polarity or direction words (profit/loss, rose/fell, overskudd/underskudd,
  Gewinn/Verlust, hausse/baisse, ...) before or after the figure, in several languages; the same
  figure with the opposite word is wrong, with a word of the gold's side right.
- ``period``: an explicitly different date or period (ISO and written dates, month-year, quarters,
  halves, fiscal years, "Q3 FY23", "the year ended 30 June 2023") is wrong; the same one written
  another way is right.
- ``figure``: another figure of the gold's kind stated in its place (a rate, an amount, a count) is
  wrong; the gold's figure written another way is right.
- ``label``: figures tied to labels on either side ("revenue of 1.5B", "1.5B revenue", "revenue: 1.5B",
  lists, tables); the figure of the asked label is right, the other label's wrong.
- ``explanation``: two figures a known distance apart; the explanation must give their true
  percentage difference (checked by :func:`explained_difference`, not by a verdict alone).

Every variant is a (question, expected, answer, correct) triple; :func:`variants` lists them in a
fixed order. ``benchmarks/found_classes.py`` grades them through every path and counts per class.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    cls: str
    question: str
    expected: str
    answer: str
    correct: bool
    # explanation class: the true percentage difference of the two values compared
    difference: float | None = None


# ---------------------------------------------------------------- polarity
# (up word, down word, template): the template puts the word beside {fig} on one side or the other.
_EN_NOUNS = [
    ("profit", "loss"),
    ("gain", "loss"),
    ("surplus", "deficit"),
    ("net profit", "net loss"),
]
_EN_NOUN_TEMPLATES = [
    "{co} reported a {w} of {fig} for 2023.",
    "{co} posted a {fig} {w} in 2023.",
    "{W}: {fig}",
    "For 2023 the result was a {w} of {fig}.",
    "In 2023, {co} booked {fig} of {w}.",
    "The {w} for the year came to {fig}.",
]
_EN_VERBS = [
    ("rose", "fell"),
    ("increased", "decreased"),
    ("grew", "declined"),
    ("went up", "went down"),
    ("climbed", "dropped"),
    ("was up", "was down"),
]
_EN_VERB_TEMPLATES = [
    "Revenue {w} {fig} in 2023.",
    "In 2023 revenue {w} by {fig}.",
    "Compared with 2022, revenue {w} {fig}.",
    "Revenue {w} {fig} year over year, to a record level.",
]
_EN_CHANGE_NOUNS = [
    ("increase", "decrease"),
    ("rise", "fall"),
    ("growth", "decline"),
    ("gain", "drop"),
]
_EN_CHANGE_TEMPLATES = [
    "Revenue showed a {fig} {w} in 2023.",
    "There was a {w} of {fig} in revenue.",
    "{W} in revenue: {fig}.",
]
_EN_SIGNS = [("positive", "negative")]
_EN_SIGN_TEMPLATES = ["Free cash flow was {w} at {fig}.", "Free cash flow: {fig}, {w}."]


@dataclass(frozen=True)
class _Language:
    code: str
    question_result: str
    question_change: str
    co: str
    amount: str  # the amount figure
    rate: str  # the rate figure
    nouns: list[tuple[str, str]]
    noun_templates: list[str]
    verbs: list[tuple[str, str]]
    verb_templates: list[str]


_LANGUAGES = [
    _Language(
        "nb",
        "Hva ble årsresultatet for 2023?",
        "Hvordan utviklet omsetningen seg i 2023?",
        "Selskapet",
        "12 millioner kroner",
        "5 prosent",
        [("overskudd", "underskudd"), ("gevinst", "tap")],
        ["{co} fikk et {w} på {fig}.", "Resultatet ble {fig} i {w}.", "{W}: {fig}."],
        [("økte", "falt"), ("steg", "sank"), ("gikk opp", "gikk ned")],
        ["Omsetningen {w} {fig} i 2023.", "I 2023 {w} omsetningen med {fig}."],
    ),
    _Language(
        "sv",
        "Vad blev årets resultat 2023?",
        "Hur utvecklades omsättningen 2023?",
        "Bolaget",
        "12 miljoner kronor",
        "5 procent",
        [("vinst", "förlust"), ("överskott", "underskott")],
        ["{co} redovisade en {w} på {fig}.", "{W}: {fig}."],
        [("ökade", "minskade"), ("steg", "sjönk")],
        ["Omsättningen {w} med {fig} under 2023.", "Under 2023 {w} omsättningen {fig}."],
    ),
    _Language(
        "da",
        "Hvad blev årets resultat for 2023?",
        "Hvordan udviklede omsætningen sig i 2023?",
        "Selskabet",
        "12 millioner kroner",
        "5 procent",
        [("overskud", "underskud"), ("gevinst", "tab")],
        ["{co} fik et {w} på {fig}.", "{W}: {fig}."],
        [("steg", "faldt")],
        ["Omsætningen {w} {fig} i 2023.", "I 2023 {w} omsætningen med {fig}."],
    ),
    _Language(
        "de",
        "Wie hoch war das Jahresergebnis 2023?",
        "Wie entwickelte sich der Umsatz 2023?",
        "Das Unternehmen",
        "12 Millionen Euro",
        "5 Prozent",
        [("Gewinn", "Verlust"), ("Überschuss", "Fehlbetrag")],
        [
            "{co} erzielte einen {w} von {fig}.",
            "{W}: {fig}.",
            "Im Jahr 2023 ergab sich ein {w} von {fig}.",
        ],
        [("stieg", "sank"), ("stieg", "fiel")],
        ["Der Umsatz {w} 2023 um {fig}.", "Im Jahr 2023 {w} der Umsatz um {fig}."],
    ),
    _Language(
        "fr",
        "Quel a été le résultat net en 2023 ?",
        "Comment le chiffre d'affaires a-t-il évolué en 2023 ?",
        "La société",
        "12 millions d'euros",
        "5 %",
        [("un bénéfice", "une perte"), ("un excédent", "un déficit")],
        ["{co} a enregistré {w} de {fig}.", "En 2023, le résultat est {w} de {fig}."],
        [("a augmenté", "a diminué"), ("a progressé", "a reculé")],
        [
            "Le chiffre d'affaires {w} de {fig} en 2023.",
            "En 2023, le chiffre d'affaires {w} de {fig}.",
        ],
    ),
]

_AMOUNTS = [
    ("$3.2 million", "$3.2 million"),
    ("$450 million", "$450M"),
    ("$1.8 billion", "$1.8 billion"),
    ("€75 million", "€75 million"),
]
_RATES = [("5%", "5%"), ("12.5%", "12.5 percent"), ("3.4%", "3.4%")]


def _say(template: str, word: str, fig: str, co: str = "Acme") -> str:
    text = template.format(w=word, W=word[:1].upper() + word[1:], fig=fig, co=co)
    return text[:1].upper() + text[1:]


def _pole_pairs(
    pairs: list[tuple[str, str]],
    templates: list[str],
    figures: list[tuple[str, str]],
    question: str,
    co: str,
) -> list[Variant]:
    """Gold with one pole in one template; answers with either pole in another template."""
    out = []
    for k, ((up, down), (gold_fig, said_fig)) in enumerate(itertools.product(pairs, figures)):
        for gold_pole in (0, 1):
            g_t = templates[k % len(templates)]
            a_t = templates[(k + 1 + gold_pole) % len(templates)]
            words = (up, down)
            gold = _say(g_t, words[gold_pole], gold_fig, co)
            for said_pole in (0, 1):
                answer = _say(a_t, words[said_pole], said_fig, co)
                out.append(Variant("polarity", question, gold, answer, said_pole == gold_pole))
    return out


# Sentences without a figure: (question, gold side, the other side, right restatements of the gold)
_WORDED = [
    (
        "How did the company do in 2023?",
        "The company made a loss in 2023.",
        "The company made a profit in 2023.",
        ["It made a loss in 2023.", "In 2023 the company posted a loss."],
    ),
    (
        "How did the company do in 2023?",
        "The company was profitable in 2023.",
        "The company was unprofitable in 2023.",
        ["In 2023 the company made a profit."],
    ),
    (
        "How did revenue develop?",
        "Revenue increased in 2023.",
        "Revenue decreased in 2023.",
        ["Revenue rose in 2023."],
    ),
    (
        "How did margins develop?",
        "Margins declined in 2023.",
        "Margins improved in 2023.",
        ["Margins fell in 2023."],
    ),
    (
        "Hvordan gikk det med selskapet?",
        "Selskapet gikk med underskudd i 2023.",
        "Selskapet gikk med overskudd i 2023.",
        ["I 2023 fikk selskapet et underskudd."],
    ),
    (
        "Hur gick det för bolaget?",
        "Bolaget gick med förlust 2023.",
        "Bolaget gick med vinst 2023.",
        ["Bolaget redovisade en förlust 2023."],
    ),
    (
        "Hvordan gik det for selskabet?",
        "Selskabet gav underskud i 2023.",
        "Selskabet gav overskud i 2023.",
        ["I 2023 gav selskabet underskud."],
    ),
    (
        "Wie lief das Geschäftsjahr?",
        "Das Unternehmen schrieb 2023 Verluste.",
        "Das Unternehmen schrieb 2023 Gewinne.",
        ["2023 machte das Unternehmen Verlust."],
    ),
    (
        "Comment s'est passée l'année ?",
        "La société a été déficitaire en 2023.",
        "La société a été bénéficiaire en 2023.",
        ["En 2023, la société a subi une perte."],
    ),
]


def polarity_variants() -> list[Variant]:
    out = _pole_pairs(
        _EN_NOUNS, _EN_NOUN_TEMPLATES, _AMOUNTS, "What was Acme's net result for 2023?", "Acme"
    )
    out += _pole_pairs(
        _EN_VERBS, _EN_VERB_TEMPLATES, _RATES, "How did Acme's revenue change in 2023?", "Acme"
    )
    out += _pole_pairs(
        _EN_CHANGE_NOUNS, _EN_CHANGE_TEMPLATES, _RATES, "How did revenue develop in 2023?", "Acme"
    )
    out += _pole_pairs(
        _EN_SIGNS, _EN_SIGN_TEMPLATES, _AMOUNTS[:2], "What was free cash flow in 2023?", "Acme"
    )
    # a question that names one side: the answer's own word still decides
    out += [
        Variant(
            "polarity",
            "What was Acme's net loss in 2023?",
            "A net loss of $3.2 million",
            "Acme reported a net profit of $3.2 million.",
            False,
        ),
        Variant(
            "polarity",
            "How much did revenue fall in 2023?",
            "Revenue fell 5%.",
            "Revenue rose 5% in 2023.",
            False,
        ),
        Variant(
            "polarity",
            "What was the profit for 2023?",
            "A profit of $450 million.",
            "A $450 million loss.",
            False,
        ),
        Variant(
            "polarity",
            "How much did revenue grow in 2023?",
            "It grew 12.5%.",
            "Revenue declined by 12.5%.",
            False,
        ),
    ]
    for question, gold, other, same in _WORDED:
        out.append(Variant("polarity", question, gold, other, False))
        out.append(Variant("polarity", question, other, gold, False))
        out += [Variant("polarity", question, gold, answer, True) for answer in same]
    for lang in _LANGUAGES:
        out += _pole_pairs(
            lang.nouns,
            lang.noun_templates,
            [(lang.amount, lang.amount)],
            lang.question_result,
            lang.co,
        )
        out += _pole_pairs(
            lang.verbs, lang.verb_templates, [(lang.rate, lang.rate)], lang.question_change, lang.co
        )
    return out


# ---------------------------------------------------------------- periods
# Each identity written several ways; (ways of the gold's identity, ways of a different one).
_PERIODS: list[tuple[str, list[str], list[str]]] = [
    (
        "When did fiscal 2021 end?",
        [
            "September 25, 2021",
            "25 September 2021",
            "2021-09-25",
            "Sept. 25, 2021",
            "09/25/2021",
            "the 25th of September 2021",
        ],
        [
            "September 24, 2021",
            "24 September 2021",
            "2021-09-24",
            "Sept. 26, 2021",
            "October 25, 2021",
            "September 25, 2020",
        ],
    ),
    (
        "When was the acquisition completed?",
        ["March 2023", "Mar 2023", "March, 2023"],
        ["April 2023", "Apr 2023", "March 2022", "February 2023"],
    ),
    (
        "In which quarter did the plant open?",
        ["Q3 2022", "the third quarter of 2022", "3rd quarter 2022"],
        [
            "Q2 2022",
            "the second quarter of 2022",
            "Q4 2022",
            "Q3 2021",
            "the fourth quarter of 2022",
        ],
    ),
    (
        "Which fiscal quarter had the peak?",
        ["Q3 FY23", "Q3 FY2023", "the third quarter of fiscal 2023", "fiscal Q3 2023"],
        ["Q3 FY22", "Q2 FY23", "Q3 FY2024", "the second quarter of fiscal 2023", "Q4 FY2023"],
    ),
    (
        "In which half-year was the charge booked?",
        ["H1 2022", "the first half of 2022", "1H 2022", "first half 2022"],
        ["H2 2022", "the second half of 2022", "H1 2021", "2H 2022", "the first half of 2023"],
    ),
    (
        "Which fiscal year set the record?",
        ["fiscal 2023", "FY2023", "fiscal year 2023", "FY23", "FY 2023"],
        ["fiscal 2022", "FY2022", "fiscal year 2024", "FY22", "FY 2021"],
    ),
    (
        "For which period was the impairment recorded?",
        [
            "the year ended 30 June 2023",
            "the year ended June 30, 2023",
            "the fiscal year ended 2023-06-30",
        ],
        [
            "the year ended 30 June 2022",
            "the year ended June 30, 2024",
            "the year ended 31 December 2023",
            "the fiscal year ended 2022-06-30",
        ],
    ),
]
_PERIODS += [
    (
        "Når var rekordkvartalet?",
        ["3. kvartal 2022", "tredje kvartal 2022", "Q3 2022"],
        ["2. kvartal 2022", "fjerde kvartal 2022", "3. kvartal 2021"],
    ),
    (
        "Når ble nedskrivningen bokført?",
        ["første halvår 2023", "1. halvår 2023", "H1 2023"],
        ["andre halvår 2023", "2. halvår 2023", "første halvår 2022"],
    ),
    (
        "Hvilket regnskapsår satte rekord?",
        ["regnskapsåret 2022", "FY2022"],
        ["regnskapsåret 2021", "FY2023"],
    ),
    (
        "Når avsluttet regnskapsåret?",
        ["30. juni 2023", "30.06.2023", "2023-06-30"],
        ["30. juni 2022", "31. desember 2023", "30. mai 2023"],
    ),
    (
        "När var rekordkvartalet?",
        ["tredje kvartalet 2022", "Q3 2022"],
        ["andra kvartalet 2022", "fjärde kvartalet 2022"],
    ),
    (
        "Wann wurde der Rekord erzielt?",
        ["im dritten Quartal 2022", "3. Quartal 2022", "Q3 2022"],
        ["im zweiten Quartal 2022", "4. Quartal 2022", "im dritten Quartal 2021"],
    ),
    (
        "Wann endete das Geschäftsjahr?",
        ["30. September 2023", "2023-09-30"],
        ["30. September 2022", "31. März 2023"],
    ),
    (
        "Quand le record a-t-il été atteint ?",
        ["au troisième trimestre 2022", "T3 2022 (troisième trimestre 2022)"],
        [
            "au deuxième trimestre 2022",
            "au quatrième trimestre 2022",
            "au troisième trimestre 2021",
        ],
    ),
    (
        "Quand l'exercice s'est-il clos ?",
        ["le 30 juin 2023", "2023-06-30"],
        ["le 30 juin 2022", "le 31 décembre 2023"],
    ),
]
_PERIOD_FRAMES = [
    ("{p}", "{p}"),
    ("{P}.", "It was {p}."),
    ("The record was set in {p}.", "The record came in {p}, according to the filing."),
    ("Revenue peaked in {p}.", "Based on the report, revenue peaked in {p}."),
]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def period_variants() -> list[Variant]:
    out = []
    for question, same, other in _PERIODS:
        for k, (gold_frame, answer_frame) in enumerate(_PERIOD_FRAMES):
            gold_way = same[k % len(same)]
            gold = gold_frame.format(p=gold_way, P=_cap(gold_way))
            for way in same:
                if way != gold_way or k == 0:
                    out.append(
                        Variant("period", question, gold, _cap(answer_frame.format(p=way)), True)
                    )
            for way in other:
                out.append(
                    Variant("period", question, gold, _cap(answer_frame.format(p=way)), False)
                )
    return out


# ---------------------------------------------------------------- another figure of the same kind
# (question, gold template, gold figure, the same figure written otherwise, other figures of its kind)
_FIGURES: list[tuple[str, str, str, list[str], list[str]]] = [
    (
        "What is the reduced VAT rate?",
        "reduced rate of {f}",
        "15%",
        ["15 percent", "15 %"],
        ["12%", "25%", "13 percent"],
    ),
    (
        "What was the effective tax rate in 2023?",
        "The effective tax rate was {f}.",
        "21.5%",
        ["21.5 percent"],
        ["23.1%", "19.5%"],
    ),
    (
        "How many people did Acme employ at year end?",
        "Acme had {f} employees.",
        "1,200",
        ["1200"],
        ["1,350", "980", "12,000"],
    ),
    (
        "What dividend per share was declared?",
        "A dividend of {f} per share.",
        "$0.45",
        ["45 cents", "USD 0.45"],
        ["$0.54", "$0.40"],
    ),
    (
        "What was capital expenditure in 2023?",
        "Capital expenditure of {f}.",
        "$1.2 billion",
        ["$1,200 million", "USD 1.2 billion"],
        ["$1.4 billion", "$2.1 billion", "$900 million"],
    ),
    (
        "How many stores did the chain operate?",
        "The chain operated {f} stores.",
        "1,138",
        ["1138"],
        ["1,183", "1,038"],
    ),
    (
        "What was the gross margin?",
        "Gross margin of {f}.",
        "42.3%",
        ["42.3 percent"],
        ["38.3%", "46%"],
    ),
    (
        "Hva er redusert mva-sats for matvarer?",
        "Matvarer har redusert sats, {f}.",
        "15 prosent",
        ["15 %"],
        ["12 prosent", "25 %"],
    ),
    (
        "Wie hoch ist der ermäßigte Steuersatz?",
        "Der ermäßigte Satz beträgt {f}.",
        "7 %",
        ["7 Prozent"],
        ["19 %", "5 Prozent"],
    ),
]
_FIGURES += [
    (
        "What was the interest rate on the notes?",
        "The notes carry interest at {f}.",
        "4.25%",
        ["4.25 percent"],
        ["4.5%", "3.75%"],
    ),
    (
        "How many shares were repurchased?",
        "Acme repurchased {f} shares.",
        "12.6 million",
        ["12,600,000"],
        ["16.2 million", "10 million"],
    ),
    (
        "What was the order backlog?",
        "Backlog stood at {f}.",
        "€2.4 billion",
        ["EUR 2.4 billion", "€2,400 million"],
        ["€2.9 billion", "€1.4 billion"],
    ),
    (
        "What was the payout ratio?",
        "The payout ratio was {f}.",
        "62%",
        ["62 percent"],
        ["58%", "26%"],
    ),
    (
        "Vad var rörelsemarginalen?",
        "Rörelsemarginalen var {f}.",
        "11,2 procent",
        ["11,2 %"],
        ["12,1 procent", "9,8 %"],
    ),
    (
        "Wie viele Mitarbeiter hatte die Gruppe?",
        "Die Gruppe hatte {f} Mitarbeiter.",
        "8.400",
        ["8400"],
        ["4.800", "9.100"],
    ),
]
_FIGURE_FRAMES = [
    "{g}",
    "The answer: {g}",
    "Per the filing, {g}",
    "{g} That is the figure reported.",
]


def figure_variants() -> list[Variant]:
    out = []
    for question, template, fig, same, other in _FIGURES:
        gold = template.format(f=fig)
        for k, f in enumerate([fig, *same, *other]):
            frame = _FIGURE_FRAMES[k % len(_FIGURE_FRAMES)]
            answer = frame.format(g=_cap(template.format(f=f)))
            out.append(Variant("figure", question, gold, answer, f == fig or f in same))
    return out


# ---------------------------------------------------------------- figures tied to labels
_LABELS = [
    ("revenue", "profit", "1.5B", "500M", "$1.5 billion", "$500 million"),
    ("revenue", "net income", "$12.4 billion", "$3.1 billion", "$12.4 billion", "$3.1 billion"),
    (
        "total assets",
        "total liabilities",
        "$48.2 billion",
        "$31.7 billion",
        "$48.2 billion",
        "$31.7 billion",
    ),
    (
        "capital expenditure",
        "depreciation",
        "$870 million",
        "$640 million",
        "$870 million",
        "$640 million",
    ),
    (
        "operating income",
        "net income",
        "$2.3 billion",
        "$1.6 billion",
        "$2.3 billion",
        "$1.6 billion",
    ),
]
_LABEL_TEMPLATES = [
    "We booked {v1} {l1}, {v2} {l2}.",
    "{L1} of {v1} and {l2} of {v2}.",
    "{L1}: {v1}; {l2}: {v2}.",
    "{L1} was {v1} while {l2} reached {v2}.",
    "{L2} reached {v2} while {l1} was {v1}.",
    "- {L1}: {v1}\n- {L2}: {v2}",
    "| Item | Amount |\n|---|---|\n| {L1} | {v1} |\n| {L2} | {v2} |",
    "{L2} came in at {v2}; {l1} at {v1}.",
    "The company reported {v2} in {l2} on {v1} of {l1}.",
]


# Textual golds with two labelled figures: (label 1, label 2, value 1, value 2, another value of label 2's kind)
_TEXT_LABELS = [
    ("US sales", "international sales", "3.0%", "0.6%", "9.1%"),
    ("gross margin", "operating margin", "42.1%", "18.4%", "21.3%"),
    ("Americas revenue", "Europe revenue", "$4.2 billion", "$2.7 billion", "$3.1 billion"),
    ("operating cash flow", "free cash flow", "$5.6 billion", "$2.2 billion", "$2.9 billion"),
]
_TEXT_RIGHT = [
    "{L2} came in at {v2}, while {l1} was {v1}.",
    "{L1}: {v1}. {L2}: {v2}.",
    "- {L1}: {v1}\n- {L2}: {v2}",
]
_TEXT_WRONG = [
    "{L1} was {v1}, while {l2} was {v3}.",
    "{L1}: {v1}. {L2}: {v3}.",
    "- {L1}: {v1}\n- {L2}: {v3}",
    "{L2} came in at {v3}; {l1} at {v1}.",
]


def label_variants() -> list[Variant]:
    out = []
    for l1, l2, v1, v2, v3 in _TEXT_LABELS:
        gold = f"{_cap(l1)} was {v1} and {l2} was {v2}."
        question = f"How did {l1} compare with {l2}?"
        for templates, correct in ((_TEXT_RIGHT, True), (_TEXT_WRONG, False)):
            for t in templates:
                answer = t.format(l1=l1, l2=l2, L1=_cap(l1), L2=_cap(l2), v1=v1, v2=v2, v3=v3)
                out.append(Variant("label", question, gold, answer, correct))
    for l1, l2, v1, v2, g1, g2 in _LABELS:
        for template in _LABEL_TEMPLATES:
            answer = template.format(l1=l1, l2=l2, L1=_cap(l1), L2=_cap(l2), v1=v1, v2=v2)
            for label, right, wrong in ((l1, g1, g2), (l2, g2, g1)):
                question = f"What was {label}?"
                out.append(Variant("label", question, right, answer, True))
                out.append(Variant("label", question, wrong, answer, False))
    return out


# ---------------------------------------------------------------- explanations
# (question, gold, gold value, answer template, the unit the answer's number is written in)
_EXPLAINED = [
    ("What was revenue in USD millions?", "3,600", 3600.0, "Revenue was ${v} billion.", 1000.0),
    (
        "What is the FY2018 capital expenditure (in USD millions)?",
        "$1577.00",
        1577.0,
        "Capex was ${v} billion.",
        1000.0,
    ),
    (
        "What was net income (USD thousands)?",
        "94,890",
        94890.0,
        "Net income was ${v} million.",
        1000.0,
    ),
    ("What was net income?", "$250 million", 250.0, "Net income was ${v} million.", 1.0),
    ("What was the operating margin?", "18.0%", 18.0, "The operating margin was {v}%.", 1.0),
    ("How much cash was held (in USD billions)?", "12.5", 12.5, "Cash was ${v} million.", 0.001),
    (
        "What was the net result for 2023?",
        "A net loss of $3.2 million",
        3.2,
        "Acme reported a net loss of ${v} million.",
        1.0,
    ),
    (
        "Hvor stor var omsetningen?",
        "4 200 millioner kroner",
        4200.0,
        "Omsetningen var {v} milliarder kroner.",
        1000.0,
    ),
]
_GAPS = (0.0, 0.03, -0.05, 0.12, -0.3, 0.6)  # relative distance of the answer's value from the gold


def _written(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:.0f}"


def explanation_variants() -> list[Variant]:
    out = []
    for question, gold, gold_value, template, unit in _EXPLAINED:
        for gap in _GAPS:
            said = gold_value * (1 + gap)
            number = _written(said / unit)
            value = float(number) * unit
            diff = abs(value - gold_value) / abs(gold_value) * 100
            number = number.replace(".", ",") if "kroner" in template else number
            out.append(
                Variant(
                    "explanation",
                    question,
                    gold,
                    template.format(v=number),
                    gap == 0.0,
                    difference=diff,
                )
            )
    return out


GENERATORS = {
    "polarity": polarity_variants,
    "period": period_variants,
    "figure": figure_variants,
    "label": label_variants,
    "explanation": explanation_variants,
}


def variants(cls: str | None = None) -> list[Variant]:
    """Every variant (of one class), in a fixed order."""
    return [v for name, gen in GENERATORS.items() if cls in (None, name) for v in gen()]


_DIFFERENCE_RE = re.compile(r"difference ([0-9.eE+-]+|inf)%")


def explained_difference(explanation: str) -> list[float]:
    """The percentage differences an explanation states."""
    return [float(m.group(1)) for m in _DIFFERENCE_RE.finditer(explanation)]


# ---------------------------------------------------------------- the four grading paths
PATHS = ("single", "alias", "turn", "field")


def records(v: Variant, key: str) -> dict[str, dict[str, object]]:
    """The gold-file records of one variant, one per path (ids ``<path>-<key>``)."""
    import json

    return {
        "single": {
            "id": f"single-{key}",
            "question": v.question,
            "expected": v.expected,
            "response": v.answer,
        },
        "alias": {
            "id": f"alias-{key}",
            "question": v.question,
            "expected": [v.expected],
            "response": v.answer,
        },
        "turn": {
            "id": f"turn-{key}",
            "messages": [
                {"role": "user", "content": "Hello"},
                {"role": "assistant", "content": "Hello", "response": "Hello"},
                {"role": "user", "content": v.question},
                {"role": "assistant", "content": v.expected, "response": v.answer},
            ],
        },
        "field": {
            "id": f"field-{key}",
            "question": v.question,
            "expected": v.expected,
            "expected_structured": {"answer": v.expected},
            "response": json.dumps({"answer": v.answer}, ensure_ascii=False),
            "eval_criteria": {"accuracy": "structured"},
        },
    }


@dataclass(frozen=True)
class PathVerdict:
    passed: bool  # gate view: the tier passes and the sample is decided
    explanation: str
    review: bool = False  # needs review (undecided)


def grade_paths(v: Variant, rubric: object) -> dict[str, PathVerdict]:
    """The gate verdict of each path, graded in process as a default gold-file run grades it."""
    from pytest_llmeval.conversation.runner import turn_sample
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.schema import normalise

    out = {}
    for path, record in records(v, "v").items():
        sample = normalise(record, path="variants", line=1, defaults={})
        if sample.turns:
            history: list[dict[str, object]] = []
            for index, turn in enumerate(sample.turns, start=1):
                asked = turn_sample(sample, index, history)
                graded = rubric.grade(
                    asked, Answer(text=str(turn.get("response")), source="response")
                )  # type: ignore[attr-defined]
                history += [
                    {"role": "user", "content": turn["user"]},
                    {"role": "assistant", "content": turn.get("response")},
                ]
        else:
            graded = rubric.grade(sample, Answer(text=str(sample.response), source="response"))  # type: ignore[attr-defined]
        review = bool(graded.record.get("needs_review"))
        passed = graded.tier in ("pass", "acceptable") and not review
        out[path] = PathVerdict(passed, graded.components["accuracy"].reason, review)
    return out


def right(v: Variant, verdicts: dict[str, PathVerdict]) -> dict[str, bool]:
    """Per path: is the verdict the label's (explanations: and the stated difference the true one)?"""
    out = {}
    for path, verdict in verdicts.items():
        ok = verdict.passed == v.correct
        if v.difference is not None and path in ("single", "alias"):
            stated = explained_difference(verdict.explanation)
            ok = (
                ok
                and bool(stated)
                and all(abs(s - v.difference) <= max(0.05 * v.difference, 0.06) for s in stated)
            )
        out[path] = ok
    return out


def default_rubric() -> object:
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.options import Settings
    from pytest_llmeval.registry import GraderRegistry
    from pytest_llmeval.rubric import Rubric

    return Rubric(Settings.defaults(), GraderRegistry(), judge=None, components=ComponentRegistry())
