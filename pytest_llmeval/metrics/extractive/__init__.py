"""The extractive grader: maths and multiple-choice answers (math-verify style).

Stages: :mod:`.patterns` (what an answer looks like in each language: boxed, "the answer is",
options), :mod:`.reader` (the in-process reader for plain numbers and choices), :mod:`.safe_expressions`
(a bounded expression parser, never ``eval``) and :mod:`.worker` (the sandboxed process that parses
LaTeX with sympy under time and memory limits). :mod:`.match` chooses the path and compares.
"""

from __future__ import annotations

from pytest_llmeval.lazy import lazy_exports

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "extractive_match": ".match",
    "assert_extractive_match": ".match",
    "ExtractiveMatch": ".match",
    "grade": ".match",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
