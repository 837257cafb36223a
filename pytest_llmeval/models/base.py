"""Types shared by providers, the judge and the plugin. Stdlib only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class Completion:
    """One chat completion (a model answer or a judge reply)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    latency_s: float = 0.0
    attempts: int = 1
    model: str = ""
    junk_usage: bool = False  # the reply's "usage" was not token counts (ignored)
    usage_missing: bool = False  # the reply gave no token counts: the run counts an estimate
    structured: str = (
        ""  # which structured-output forms were tried, when negotiated (models.formats)
    )
    # latency_s is the round trip of the request that answered: sent to reply read, so it includes
    # the time the request waited in the server's queue. wait_s: before sending, for our own
    # concurrency slot and rate limit. service_s: the server's own processing time, when it says.
    wait_s: float = 0.0
    service_s: float | None = None
    tool_calls: list[dict[str, Any]] | None = None  # the reply's tool calls, as the API sent them


@dataclass
class Answer:
    """The answer under test for one sample, whatever produced it."""

    text: str
    source: str  # "response" | "hook" | "openai:<model>" | "python:..." | "file:..."
    contexts: list[str] | None = None
    retrieved: list[str] | None = None
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    latency_s: float = 0.0
    tool_calls: list[dict[str, Any]] | None = (
        None  # [{"id", "type", "function": {"name", "arguments"}}]
    )


class ChatModel(Protocol):
    """What a judge needs from the model layer: a synchronous, cached chat call.

    ``response_format`` is an OpenAI ``response_format`` dict (e.g. a json_schema)
    that providers with structured output honour and others ignore. Raises
    :class:`pytest_llmeval.errors.ModelError` on failure.
    """

    name: str

    def complete(
        self, messages: list[dict[str, str]], *, response_format: dict[str, Any] | None = None
    ) -> Completion: ...
