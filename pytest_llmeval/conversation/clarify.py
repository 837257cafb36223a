"""The ``clarify`` grader: a turn where the model should ask a question instead of answering.

A reply asks when one of its sentences ends in a question mark, or opens with a question word
of a language table (a new language is a new table).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_llmeval.metrics.base import MetricResult

if TYPE_CHECKING:
    from pytest_llmeval.registry import GradeContext

QUESTION_OPENERS: dict[str, tuple[str, ...]] = {
    "en": (
        "could you",
        "can you",
        "do you",
        "did you",
        "is it",
        "are you",
        "which",
        "what",
        "when",
        "would you",
    ),
    "nb": (
        "kan du",
        "vil du",
        "har du",
        "er det",
        "gjelder det",
        "hvilken",
        "hvilket",
        "hvilke",
        "hva",
        "når",
        "hvor",
    ),
}
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]?")
# "hva " not "hva": a question word, not the start of "hvalen"
_OPENERS_SPACED = tuple(f"{o} " for table in QUESTION_OPENERS.values() for o in table)


def asked_questions(text: str) -> list[str]:
    """The sentences of ``text`` that ask something."""
    questions = []
    for sentence in _SENTENCE_RE.findall(text or ""):
        stripped = sentence.strip()
        if stripped.endswith(("?", "\uff1f")) or (
            not stripped.endswith((".", "!")) and stripped.casefold().startswith(_OPENERS_SPACED)
        ):
            questions.append(stripped)
    return questions


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``clarify``: 1.0 when the reply asks a question, else 0.0."""
    questions = asked_questions(ctx.response)
    if questions:
        return MetricResult(
            metric="clarify",
            passed=True,
            score=1.0,
            explanation=f"asks: {questions[0][:160]!r}",
            details={"questions": questions[:5], "refusal": False},
        )
    return MetricResult(
        metric="clarify",
        passed=False,
        score=0.0,
        explanation="answers without asking the clarifying question the turn expects",
        details={"questions": [], "refusal": False},
    )
