"""RAG checks: retrieval ranking metrics and citations."""

from __future__ import annotations

from pytest_llmeval.lazy import lazy_exports

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "retrieval_metrics": ".retrieval",
    "assert_retrieval": ".retrieval",
    "RetrievalResult": ".retrieval",
    "citation_check": ".citation",
    "assert_citation": ".citation",
    "CitationResult": ".citation",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
