"""pytest-llmeval: LLM regression testing as a pytest plugin.

Public API is re-exported lazily (PEP 562) so that loading the plugin in an
unrelated pytest run imports nothing but this module's few lines.
"""

from __future__ import annotations

from pytest_llmeval.lazy import lazy_exports

__version__ = "0.1.0"
# The PyPI distribution (``pip install`` name). ``pytest-llmeval`` on PyPI is an unrelated plugin
# that also ships a module ``pytest_llmeval``: the two cannot be installed together.
DIST_NAME = "pytest-llmeval-gold"

# name -> module that defines it
_EXPORTS: dict[str, str] = {
    "MetricResult": "pytest_llmeval.metrics.base",
    "LLMEvalAssertionError": "pytest_llmeval.errors",
    "LLMEvalError": "pytest_llmeval.errors",
    "GraderError": "pytest_llmeval.errors",
    "ModelError": "pytest_llmeval.errors",
    "GradeContext": "pytest_llmeval.registry",
    "Sample": "pytest_llmeval.sample",
    "must_include": "pytest_llmeval.metrics.keywords",
    "assert_must_include": "pytest_llmeval.metrics.keywords",
    "length_score": "pytest_llmeval.metrics.length",
    "assert_length": "pytest_llmeval.metrics.length",
    "numeric_match": "pytest_llmeval.metrics.numeric.match",
    "assert_numeric_match": "pytest_llmeval.metrics.numeric.match",
    "NumericMatch": "pytest_llmeval.metrics.numeric.match",
    "values_agree": "pytest_llmeval.metrics.numeric.match",
    "extractive_match": "pytest_llmeval.metrics.extractive.match",
    "assert_extractive_match": "pytest_llmeval.metrics.extractive.match",
    "ExtractiveMatch": "pytest_llmeval.metrics.extractive.match",
    "retrieval_metrics": "pytest_llmeval.metrics.rag.retrieval",
    "assert_retrieval": "pytest_llmeval.metrics.rag.retrieval",
    "RetrievalResult": "pytest_llmeval.metrics.rag.retrieval",
    "citation_check": "pytest_llmeval.metrics.rag.citation",
    "assert_citation": "pytest_llmeval.metrics.rag.citation",
    "CitationResult": "pytest_llmeval.metrics.rag.citation",
    "answer_correctness": "pytest_llmeval.metrics.freetext.correctness",
    "assert_answer_correct": "pytest_llmeval.metrics.freetext.correctness",
    "AnswerVerdict": "pytest_llmeval.metrics.freetext.correctness",
    "is_refusal": "pytest_llmeval.metrics.freetext.refusal",
    "fact_inclusion": "pytest_llmeval.metrics.freetext.fuzzy",
    "FactInclusion": "pytest_llmeval.metrics.freetext.fuzzy",
    "refusal_check": "pytest_llmeval.metrics.freetext.refusal",
    "assert_not_refusal": "pytest_llmeval.metrics.freetext.refusal",
    "RefusalResult": "pytest_llmeval.metrics.freetext.refusal",
    "claims_f1": "pytest_llmeval.metrics.freetext.claims",
    "assert_claims_f1": "pytest_llmeval.metrics.freetext.claims",
    "ClaimsResult": "pytest_llmeval.metrics.freetext.claims",
    "semantic_similarity": "pytest_llmeval.metrics.freetext.semantic",
    "assert_semantic_similarity": "pytest_llmeval.metrics.freetext.semantic",
    "SimilarityResult": "pytest_llmeval.metrics.freetext.semantic",
    "sentence_coverage": "pytest_llmeval.metrics.freetext.coverage",
    "assert_sentence_coverage": "pytest_llmeval.metrics.freetext.coverage",
    "CoverageResult": "pytest_llmeval.metrics.freetext.coverage",
    "structured_match": "pytest_llmeval.metrics.structured",
    "assert_structured_match": "pytest_llmeval.metrics.structured",
    "StructuredResult": "pytest_llmeval.metrics.structured",
}

__all__ = ["DIST_NAME", "__version__", *sorted(_EXPORTS)]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
