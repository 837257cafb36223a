"""Free-text graders: answer correctness (the offline judge and its pieces), claims F1, fuzzy
fact inclusion, semantic similarity, sentence coverage, refusals, identities (dates, periods),
reference metrics and answer language.
"""

from __future__ import annotations

from pytest_llmeval.lazy import lazy_exports

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "answer_correctness": ".correctness",
    "assert_answer_correct": ".correctness",
    "AnswerVerdict": ".correctness",
    "claims_f1": "claims",
    "assert_claims_f1": "claims",
    "ClaimsResult": ".claims",
    "fact_inclusion": ".fuzzy",
    "FactInclusion": ".fuzzy",
    "semantic_similarity": ".semantic",
    "assert_semantic_similarity": ".semantic",
    "SimilarityResult": ".semantic",
    "sentence_coverage": ".coverage",
    "assert_sentence_coverage": ".coverage",
    "CoverageResult": ".coverage",
    "is_refusal": ".refusal",
    "refusal_check": ".refusal",
    "assert_not_refusal": ".refusal",
    "RefusalResult": ".refusal",
    "identity_match": ".identity",
    "identity_only": ".identity",
    "IdentityMatch": ".identity",
    "reference_metrics": ".reference",
    "language_check": ".language",
    "assert_language": ".language",
    "LanguageResult": ".language",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
