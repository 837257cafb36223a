"""pytest-llmeval: LLM regression testing as a pytest plugin.

Public API is re-exported lazily (PEP 562) so that loading the plugin in an
unrelated pytest run imports nothing but this module's few lines.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

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
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_llmeval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
