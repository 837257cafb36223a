"""RAG checks: retrieval ranking metrics and citations."""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "retrieval_metrics": "retrieval",
    "assert_retrieval": "retrieval",
    "RetrievalResult": "retrieval",
    "citation_check": "citation",
    "assert_citation": "citation",
    "CitationResult": "citation",
}

__all__ = sorted(_EXPORTS)

def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
