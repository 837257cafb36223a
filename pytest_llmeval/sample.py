"""The normalised gold sample every grader and provider sees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One gold record, normalised from either the flat or the gold-layer format.

    ``messages`` are the chat messages to send to a model (system + user; the gold
    assistant turn is removed and becomes ``expected``). ``criteria`` is
    ``eval_criteria`` merged over the file-level defaults.
    """

    id: str
    path: str
    line: int
    question: str
    expected: str
    messages: tuple[dict[str, str], ...]
    response: str | None = None
    contexts: tuple[str, ...] = ()
    retrieved: tuple[str, ...] | None = None
    relevant: Any = None  # list of ids or dict id -> graded relevance
    gold_claims: tuple[str, ...] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    criteria: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    expected_number: int | float | None = None  # set when the gold is a JSON number
    # Every acceptable answer when ``expected`` was a list (aliases, as in NQ-open); ``expected``
    # and ``expected_number`` then describe the first one.
    alternatives: tuple[str | int | float, ...] = ()
    expected_structured: Any = (
        None  # a JSON value the ``structured`` grader compares field by field
    )
    expected_tool_calls: list[dict[str, Any]] | None = None  # gold [{"name", "arguments"}]
    tools: list[dict[str, Any]] | None = None  # OpenAI ``tools`` sent with the request
    turns: tuple[dict[str, Any], ...] = ()  # a conversation: one entry per expected assistant turn

    @property
    def gold(self) -> str | int | float:
        """The gold as given: the JSON number itself, or the expected text."""
        return self.expected if self.expected_number is None else self.expected_number

    @property
    def golds(self) -> tuple[str | int | float, ...]:
        """Every acceptable gold answer, as given (one unless ``expected`` was a list)."""
        return self.alternatives or (self.gold,)

    @property
    def task(self) -> str:
        return str(self.metadata.get("task") or "-")

    @property
    def domain(self) -> str:
        return str(self.metadata.get("domain") or "-")

    def to_dict(self) -> dict[str, Any]:
        """Plain builtins, for callables, reports and xdist."""
        return {
            "id": self.id,
            "question": self.question,
            "expected": self.expected if not self.alternatives else list(self.alternatives),
            "messages": [dict(m) for m in self.messages],
            "response": self.response,
            "contexts": list(self.contexts),
            "retrieved": None if self.retrieved is None else list(self.retrieved),
            "metadata": dict(self.metadata),
            "eval_criteria": dict(self.criteria),
            **({"tools": self.tools} if self.tools else {}),
        }
