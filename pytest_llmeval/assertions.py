"""All ``assert_*`` helpers and their result-returning twins, in one place.

Each helper is a thin wrapper over a metric (see ``pytest_llmeval.metrics``): it
builds the result object with the twin, records it in the running test's tally,
and raises ``LLMEvalAssertionError`` with a self-explaining message on failure.
Imported lazily from ``pytest_llmeval`` so plugin load stays cheap.
"""

from __future__ import annotations

from pytest_llmeval.metrics.keywords import assert_must_include, must_include
from pytest_llmeval.metrics.length import assert_length, length_score

__all__ = ["assert_length", "assert_must_include", "length_score", "must_include"]
