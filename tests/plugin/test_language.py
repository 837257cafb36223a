"""Answer language: detection over the close set, English words, æøå, the helper and the rubric component."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import LLMEvalAssertionError
from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.freetext.answer_language import (
    assert_language,
    detect_language,
    english_words,
    language_check,
    letter_usage,
)
from tests.conftest import write_suite

pytest.importorskip("lingua")

BOKMAL = (
    "Merverdiavgiften skal beregnes av vederlaget og rapporteres i mva-meldingen hver annen måned."
)
NYNORSK = (
    "Meirverdiavgifta skal reknast av vederlaget og rapporterast i mva-meldinga kvar andre månad."
)
DANISH = "Momsen skal beregnes af vederlaget og indberettes på momsangivelsen hvert kvartal."
SWEDISH = "Momsen ska beräknas på ersättningen och redovisas i momsdeklarationen varje kvartal."
ENGLISH = (
    "VAT must be calculated on the consideration and reported in the VAT return every second month."
)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (BOKMAL, "nb"),
        (NYNORSK, "nn"),
        (DANISH, "da"),
        (SWEDISH, "sv"),
        (ENGLISH, "en"),
        ("Die Mehrwertsteuer wird auf das Entgelt berechnet und monatlich gemeldet.", "de"),
    ],
)
def test_detects_each_language_of_the_close_set(text: str, code: str) -> None:
    assert detect_language(text).code == code


def test_cue_words_decide_a_short_bokmal_danish_pair() -> None:
    # One spelling apart: hva (nb) / hvad (da).
    assert detect_language("Hva koster billetten?").code == "nb"
    assert detect_language("Hvad koster billetten?").code == "da"


def test_text_without_letters_is_undetermined() -> None:
    guess = detect_language("42 %  -- 1 000,00")
    assert guess.code is None
    assert guess.name == "undetermined"


@pytest.mark.parametrize("locale", ["nb", "nb-NO", "no", "nn-NO", "NB_no"])
def test_bokmal_and_nynorsk_both_count_as_norwegian(locale: str) -> None:
    assert language_check(BOKMAL, locale).score == 1.0
    assert language_check(NYNORSK, locale).score == 1.0


@pytest.mark.parametrize(
    ("text", "name"), [(DANISH, "Danish"), (SWEDISH, "Swedish"), (ENGLISH, "English")]
)
def test_other_languages_score_zero_for_norwegian_naming_what_was_found(
    text: str, name: str
) -> None:
    result = language_check(text, "nb-NO")
    assert result.score == 0.0
    assert not result.passed
    assert result.explanation.startswith(f"answer is {name} (")
    assert "not Norwegian (nb-NO)" in result.explanation
    assert result.details["detected_name"] == name


def test_unknown_language_is_a_grader_error_listing_known_ones() -> None:
    with pytest.raises(
        GraderError,
        match="'fr-FR' is not one the language check knows; known: da, de, en, nb, nn, no, sv",
    ):
        language_check(BOKMAL, "fr-FR")


def test_english_words_outside_the_allow_list_are_listed_once() -> None:
    text = "Du må levere SAF-T-filen før deadline, og MVA skal følge NS 4102. Send the invoice og invoice-nummeret."
    assert english_words(text) == ["deadline", "the", "invoice"]
    assert english_words(text, allow=["deadline"]) == ["the", "invoice"]
    result = language_check(text, "nb")
    assert result.details["english_words"] == ["deadline", "the", "invoice"]
    assert "English words: deadline, the, invoice" in result.explanation


def test_norwegian_homographs_are_not_reported_as_english() -> None:
    # to (two), for, under, over, standard, rate, register, total are Norwegian words too.
    assert english_words("Fristen er to uker for standard rate under total register over") == []


def test_letter_usage_and_missing_aeoa_in_a_long_answer() -> None:
    assert letter_usage("Blåbær og rødgrøt; räksmörgås")["ø"] == 2
    ascii_only = " ".join(
        ["Selskapet maa levere skattemeldingen for aksjeselskap innen fristen"] * 4
    )
    result = language_check(ascii_only, "nb-NO")
    assert result.details["missing_aeoa"] is True
    assert "no æ, ø or å in 32 words" in result.explanation
    assert language_check(BOKMAL, "nb").details["missing_aeoa"] is False


def test_assert_language_passes_and_fails_with_the_detected_language() -> None:
    assert assert_language(NYNORSK, "nb").passed
    with pytest.raises(
        LLMEvalAssertionError, match=r"language failed \(score 0.000\): answer is Danish"
    ):
        assert_language(DANISH, "nb")


LOCALE_SUITE = [
    {
        "id": "bokmal",
        "question": "Hvordan beregnes mva?",
        "expected": "Av vederlaget.",
        "response": BOKMAL,
        "metadata": {"locale": "nb-NO"},
    },
    {
        "id": "nynorsk",
        "question": "Hvordan beregnes mva?",
        "expected": "Av vederlaget.",
        "response": NYNORSK,
        "metadata": {"locale": "nb-NO"},
    },
    {
        "id": "danish",
        "question": "Hvordan beregnes mva?",
        "expected": "Av vederlaget.",
        "response": DANISH,
        "metadata": {"locale": "nb-NO"},
    },
    {
        "id": "swedish",
        "question": "Hvordan beregnes mva?",
        "expected": "Av vederlaget.",
        "response": SWEDISH,
        "metadata": {"locale": "nb-NO"},
    },
    {
        "id": "english",
        "question": "Hvordan beregnes mva?",
        "expected": "Av vederlaget.",
        "response": ENGLISH,
        "metadata": {"locale": "nb-NO"},
    },
    {"id": "no-locale", "question": "q", "expected": "a", "response": ENGLISH},
]


def _by_id(pytester: pytest.Pytester, name: str = "r.json") -> dict[str, dict[str, object]]:
    report = json.loads((pytester.path / name).read_text())
    return {s["sample_id"]: s for s in report["sample_results"]}


def test_locale_samples_get_a_reported_language_component(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    suite = [
        dict(s, eval_criteria={"accuracy": "fuzzy", "weights": {"length": 0}}) for s in LOCALE_SUITE
    ]
    write_suite(pytester, suite)
    result = pytester.runpytest("--llm-report=r.json", *plugin_args)
    by_id = _by_id(pytester)
    scores = {sid: s["scores"]["language"] for sid, s in by_id.items()}  # type: ignore[index]
    assert scores == {
        "bokmal": 1.0,
        "nynorsk": 1.0,
        "danish": 0.0,
        "swedish": 0.0,
        "english": 0.0,
        "no-locale": None,
    }
    danish = by_id["danish"]["components"]["language"]  # type: ignore[index]
    assert danish["weight"] == 0  # reported, not scored, by default
    assert danish["details"]["detected"] == "da"
    assert "answer is Danish" in danish["reason"]
    assert "not Norwegian (nb-NO)" in danish["reason"]
    result.stdout.fnmatch_lines(["*| language (info) 0.400*"])


def test_a_suite_opts_in_to_scoring_language(pytester: pytest.Pytester) -> None:
    suite = [
        dict(
            s,
            eval_criteria={
                "accuracy": "fuzzy",
                "weights": {"length": 0, "accuracy": 0, "language": 1},
            },
        )
        for s in LOCALE_SUITE[:3]
    ]
    write_suite(pytester, suite)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*language    0.000    1.00  language: answer is Danish (*), not Norwegian (nb-NO)*"]
    )


def test_eval_criteria_language_overrides_the_locale_and_allow_list_extends(
    pytester: pytest.Pytester,
) -> None:
    suite = [
        {
            "id": "sv",
            "question": "q",
            "expected": "a",
            "response": SWEDISH,
            "metadata": {"locale": "nb-NO"},
            "eval_criteria": {"accuracy": "fuzzy", "language": "sv", "weights": {"length": 0}},
        },
        {
            "id": "allow",
            "question": "q",
            "expected": "a",
            "response": BOKMAL + " Husk deadline.",
            "eval_criteria": {
                "accuracy": "fuzzy",
                "language": "nb",
                "language_allow": ["deadline"],
                "weights": {"length": 0},
            },
        },
        {
            "id": "fr-locale",
            "question": "q",
            "expected": "a",
            "response": ENGLISH,
            "metadata": {"locale": "fr-FR"},
            "eval_criteria": {"accuracy": "fuzzy", "weights": {"length": 0}},
        },
    ]
    write_suite(pytester, suite)
    pytester.runpytest("--llm-report=r.json")
    by_id = _by_id(pytester)
    assert by_id["sv"]["scores"]["language"] == 1.0  # type: ignore[index]
    assert by_id["allow"]["components"]["language"]["details"]["english_words"] == []  # type: ignore[index]
    assert (
        by_id["fr-locale"]["scores"]["language"] is None
    )  # a locale outside the close set: not applied  # type: ignore[index]
