"""Property tests: the numeric grader never raises and stays consistent on arbitrary text."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_llmeval.metrics.numeric.match import (
    NumericMatch,
    extract_values,
    looks_numeric,
    numeric_match,
    values_agree,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SENTENCES = [
    "Net sales in 2022 were $394.3 billion, up from $365.8 billion in 2021.",
    "Therefore, the operating cash flow ratio is 0.66 (see Note 12).",
    "The segment reported a loss of $(1,657) million in Q3 2023.",
    "Gross margin was 43.3% versus 41.8%; the spread widened 50 bps.",
    "ROA = -$546 million / $35,663 million = -0.0153 or -1.53%.",
    "Revenue came to one point five billion dollars, i.e. €1,4 Mrd.",
    "1. Capex: 1 500,5 MNOK\n2. Dividends: CHF 1'200.5 million",
    "I 2018 tapte fondet 485 milliarder kroner, mellom 6 og 7 prosent.",
    "Der Umsatz fiel um 3,5 Prozent auf 16.284 Tsd. €; Rückgang von 1.2 Mrd.",
    "Le résultat a reculé de 4,2 % à 3,8 milliards d'euros (no difference).",
    "Sales rose by $59 million, from $3,475 million to $3,534 million; $8.4 billion in all: $4.2 billion each.",
    "Avkastningen ble fjorten komma fem prosent; ninety-four cents; four-fifths; 263 400 Mkr.",
]
FIN_ALPHABET = (
    st.sampled_from(list("0123456789.,'()$€£¥%-−–+=*/ \n\u00a0kKmMbBnt:;[]~≈x")) | st.characters()
)


@st.composite
def mutated_sentence(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SENTENCES))
    for _ in range(draw(st.integers(0, 6))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "dup"]))
        if op == "insert":
            text = text[:pos] + draw(st.text(FIN_ALPHABET, max_size=4)) + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 3)) :]
        else:
            text = text[:pos] + text[pos : pos + 12] * 2 + text[pos:]
    return text


def _check(result: NumericMatch) -> None:
    score = result.score
    assert 0.0 <= score <= 1.0
    assert isinstance(result.explanation, str)
    assert result.explanation
    if result.passed:
        assert score == 1.0


@SETTINGS
@given(st.text(max_size=300), st.text(max_size=40), st.one_of(st.none(), st.text(max_size=80)))
def test_arbitrary_text_never_raises(response: str, expected: str, question: str | None) -> None:
    _check(numeric_match(response, expected, question=question))
    looks_numeric(expected)
    for c in extract_values(response, question=question):
        assert 0 <= c.span[0] <= c.span[1] <= len(response)
        assert math.isfinite(c.value) or math.isinf(c.value)


@SETTINGS
@given(
    mutated_sentence(),
    st.sampled_from(
        [
            "394.3 billion",
            "0.66",
            "(1,657) million",
            "-0.02",
            "1.5%",
            "2022",
            "$1,500 million",
            "NOK -485 billion",
            "0%",
        ]
    ),
    st.sampled_from([None, "revenue", "net income", "capex", "FY2022 gross margin"]),
    st.sampled_from(["relative", "absolute", "rounding", "exact"]),
    st.sampled_from(["ratio-or-percent", "number", "strict"]),
    st.sampled_from(["concluding", "any", "first", "last"]),
)
def test_mutated_financial_sentences_never_raise(
    response: str, expected: str, category: str | None, mode: str, percent: str, match: str
) -> None:
    _check(
        numeric_match(
            response,
            expected,
            category=category,
            tolerance_mode=mode,
            percent=percent,
            match=match,
            question="What was it (in USD millions)?",
        )
    )


@SETTINGS
@given(
    mutated_sentence(),
    st.sampled_from([None, "nb-NO", "de_DE", "sv", "da", "fr-FR", "en-US", "xx"]),
)
def test_any_locale_never_raises(response: str, locale: str | None) -> None:
    _check(numeric_match(response, "1,5 %", locale=locale))
    for c in extract_values(response, locale=locale):
        assert 0 <= c.span[0] <= c.span[1] <= len(response)


@SETTINGS
@given(
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False).filter(lambda x: abs(x) > 1e-6),
    st.sampled_from(["", "$", "USD ", "€"]),
)
def test_any_number_written_plainly_matches_itself(x: float, prefix: str) -> None:
    shown = f"{x:.2f}"
    sign = "-" if shown.startswith("-") else ""
    response = f"The reported amount was {sign}{prefix}{shown.lstrip('-')}."
    result = numeric_match(response, float(shown))
    assert result.passed, result.explanation


@SETTINGS
@given(
    st.integers(min_value=1, max_value=999_999),
    st.sampled_from([("thousand", 1e3), ("million", 1e6), ("billion", 1e9)]),
)
def test_scale_words_multiply(n: int, scale: tuple[str, float]) -> None:
    word, factor = scale
    result = numeric_match(f"Revenue for the year was ${n:,} {word}.", n * factor)
    assert result.passed, result.explanation


@SETTINGS
@given(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
)
def test_values_agree_is_symmetric(a: float, b: float) -> None:
    assert values_agree(a, b) == values_agree(b, a)
    assert values_agree(a, a)
