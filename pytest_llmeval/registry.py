"""Accuracy graders by name. The rubric asks this registry; plugins add to it via a hook.

Built-ins are import paths so nothing heavy is imported until a grader runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError

if TYPE_CHECKING:
    from pytest_llmeval.metrics.base import MetricResult
    from pytest_llmeval.models.base import ChatModel
    from pytest_llmeval.sample import Sample


@dataclass(frozen=True)
class GradeContext:
    """Everything an accuracy grader may use for one sample."""

    response: str
    expected: str
    question: str | None
    criteria: dict[str, Any]
    sample: Sample | None = None
    judge: ChatModel | None = None
    contexts: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    # The gold when it is a JSON number (``expected`` is then its plain text); graders that
    # compare numbers use it so 2e20 is never re-read from text.
    expected_number: int | float | None = None


Grader = Callable[[GradeContext], "MetricResult"]

BUILTIN_GRADERS: dict[str, str] = {
    "exact": "pytest_llmeval.metrics.freetext.fuzzy:grade_exact",
    "fuzzy": "pytest_llmeval.metrics.freetext.fuzzy:grade_fuzzy",
    "numeric": "pytest_llmeval.metrics.numeric.match:grade",
    "identity": "pytest_llmeval.metrics.freetext.identity:grade",
    "extractive": "pytest_llmeval.metrics.extractive.match:grade",
    "semantic_similarity": "pytest_llmeval.metrics.freetext.semantic:grade",
    "answer_correctness": "pytest_llmeval.metrics.freetext.correctness:grade",
    "claims_f1": "pytest_llmeval.metrics.freetext.claims:grade",
    "sentence_coverage": "pytest_llmeval.metrics.freetext.coverage:grade",
    "structured": "pytest_llmeval.metrics.structured:grade",
    "clarify": "pytest_llmeval.conversation.clarify:grade",
}


class GraderRegistry:
    """Name -> grader. Built-ins load lazily; user graders come from ``pytest_llmeval_graders``."""

    def __init__(self, extra: dict[str, Grader] | None = None) -> None:
        self._paths = dict(BUILTIN_GRADERS)
        self._loaded: dict[str, Grader] = dict(extra or {})

    def names(self) -> list[str]:
        return sorted(set(self._paths) | set(self._loaded))

    def register(self, name: str, grader: Grader) -> None:
        self._loaded[name] = grader

    def get(self, name: str) -> Grader:
        if name in self._loaded:
            return self._loaded[name]
        path = self._paths.get(name)
        if path is None:
            raise GraderError(
                f"unknown grader {name!r}; registered graders: {', '.join(self.names())}"
            )
        module_name, _, attr = path.partition(":")
        grader: Grader = getattr(importlib.import_module(module_name), attr)
        self._loaded[name] = grader
        return grader


def looks_numeric(expected: str | int | float) -> bool:
    from pytest_llmeval.metrics.numeric.match import looks_numeric as numeric_gold

    # numeric's looks_numeric takes JSON numbers too (finite ones are numeric golds).
    return bool(numeric_gold(expected))  # type: ignore[arg-type]


def identity_only(expected: str) -> bool:
    from pytest_llmeval.metrics.freetext.identity import identity_only as only_identities

    return only_identities(expected)


def choose_accuracy_grader(
    criteria: dict[str, Any], expected: str | int | float, default: str
) -> str:
    """Explicit ``accuracy`` > ``extractive`` settings > ``numeric`` settings > a gold that is only
    dates, years, periods or ordinals (``identity``: never within a tolerance) > numeric gold >
    ``min_similarity`` (a cosine threshold asks for ``semantic_similarity``) > default."""
    if criteria.get("accuracy"):
        return str(criteria["accuracy"])
    if criteria.get("extractive"):
        return "extractive"
    if criteria.get("numeric"):
        return "numeric"
    if criteria.get("identity") or (isinstance(expected, str) and identity_only(expected)):
        return "identity"
    if looks_numeric(expected):
        return "numeric"
    if criteria.get("min_similarity") is not None:
        return "semantic_similarity"
    return default
