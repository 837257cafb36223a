"""The extractive grader: maths and multiple-choice answers (math-verify style).

Stages: :mod:`.patterns` (what an answer looks like in each language: boxed, "the answer is",
options), :mod:`.reader` (the in-process reader for plain numbers and choices), :mod:`.safe_expressions`
(a bounded expression parser, never ``eval``) and :mod:`.worker` (the sandboxed process that parses
LaTeX with sympy under time and memory limits). :mod:`.match` chooses the path and compares.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "extractive_match": "match",
    "assert_extractive_match": "match",
    "ExtractiveMatch": "match",
    "grade": "match",
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
