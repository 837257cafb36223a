"""Hand-written tests with the pytest-llmeval assertion helpers.

Every ``assert_*`` helper has a twin that returns the result object instead of
raising (``must_include``, ``length_score``, ``numeric_match``, ...). The results of
the helpers a test calls land in the same llmeval summary and JSON report as the
gold samples (task ``assertions``).

The answers below are hand-written for the demo, like the ``response`` fields of
the gold files next to this one. In your own project they would come from your
application (``my_app.ask(question)``) or from ``llm_sample.answer``.
"""

from __future__ import annotations

import pytest

from pytest_llmeval import assert_length, assert_must_include, must_include
from pytest_llmeval.metrics.extractive.match import assert_extractive_match
from pytest_llmeval.metrics.numeric.match import assert_numeric_match, numeric_match
from pytest_llmeval.metrics.rag.citation import assert_citation
from pytest_llmeval.metrics.rag.retrieval import assert_retrieval

# Hand-written answers of a hypothetical assistant (not model output).
EPS_ANSWER = (
    "Apple's diluted earnings per share for fiscal 2022 were $6.11, up from $5.61 in fiscal 2021."
)
MARGIN_ANSWER = "Apple's gross margin was $170.8 billion in fiscal 2022, or 43.3% of net sales."
VAT_ANSWER = (
    "Fradragsrett betyr at en registrert næringsdrivende kan trekke fra inngående merverdiavgift på "
    "anskaffelser til bruk i den avgiftspliktige virksomheten [§ 8-1 Lov om merverdiavgift]."
)
VAT_SOURCES = {"mval-8-1": "Lov om merverdiavgift § 8-1 Hovedregel om fradragsrett"}


def test_eps_answer_states_the_reported_figure() -> None:
    # "$6.11" in the 10-K; the concluding figure of the answer is compared, not the prior-year $5.61.
    assert_numeric_match(
        EPS_ANSWER, "$6.11", category="eps", question="What was diluted EPS in fiscal 2022?"
    )


def test_rounded_billions_match_the_filing_in_millions() -> None:
    # $170.8 billion is $170,782 million rounded to the precision the answer was written with.
    assert_numeric_match(
        MARGIN_ANSWER, "$170,782 million", tolerance_mode="rounding", category="gross profit"
    )


def test_twin_returns_a_result_instead_of_raising() -> None:
    result = numeric_match("Net income was $99.8 billion.", "$119,437 million")
    assert not result.passed
    assert "119" in result.explanation  # the explanation shows what was compared


def test_vat_answer_uses_the_glossary_terms() -> None:
    # Case-insensitive and Unicode-aware: "Fradragsrett" matches "fradragsrett", æøå included.
    assert_must_include(VAT_ANSWER, ["fradragsrett", "inngående merverdiavgift", "næringsdrivende"])
    assert_length(VAT_ANSWER, max_tokens=60)


def test_vat_answer_cites_the_law_it_relies_on() -> None:
    assert_citation(VAT_ANSWER, required=True, sources=VAT_SOURCES)


def test_retriever_ranks_the_relevant_section_first() -> None:
    retrieved = ["mval-8-1", "mval-8-2", "mval-1-3", "mval-5-1"]
    assert_retrieval(retrieved, ["mval-8-1", "mval-1-3"], k=3, min_recall=1.0, min_mrr=1.0)


def test_maths_answer_is_equivalent_not_identical() -> None:
    # 0.5, 1/2 and \frac{1}{2} are the same answer.
    assert_extractive_match("Halving the interval gives $\\boxed{\\frac{1}{2}}$.", "0.5")


def test_missing_keyword_is_reported_with_what_was_found() -> None:
    result = must_include(
        "Merverdiavgift er en avgift til staten.", ["avgift til staten", "omsetning"]
    )
    assert result.missing == ["omsetning"]
    assert result.score == pytest.approx(0.5)


@pytest.mark.llmeval_gold("finance/apple_fy2022_eval.jsonl")
def test_finance_answers_fit_the_answer_card(llm_sample) -> None:  # type: ignore[no-untyped-def]
    # One test case per gold sample; llm_sample.answer is the pre-recorded response here
    # (with --llm-model it is the model's answer). The card shows at most 150 words.
    assert_length(llm_sample.answer, max_tokens=150)
