"""Structured-output negotiation: ask for strict ``json_schema`` where the endpoint has it,
else ``json_object``, else no ``response_format`` at all. In both fallbacks the schema goes into
the prompt. The caller (the judge) validates every reply against the schema whatever was sent.

Decided once per endpoint (see :class:`pytest_llmeval.models.engine.Engine`), not per sample.
"""

from __future__ import annotations

import json
from typing import Any

JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"
PROMPT = "prompt"
LADDER = (JSON_SCHEMA, JSON_OBJECT, PROMPT)  # best first; PROMPT sends no response_format


def negotiable(response_format: dict[str, Any] | None) -> bool:
    return isinstance(response_format, dict) and response_format.get("type") == JSON_SCHEMA


def schema_instruction(response_format: dict[str, Any]) -> str:
    spec = response_format.get("json_schema") or {}
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return (
        "Reply with one JSON object and nothing else. It must match this JSON Schema:\n"
        + json.dumps(schema or {}, sort_keys=True)
    )


def wire_request(
    mode: str, messages: list[dict[str, Any]], response_format: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The messages and ``response_format`` to send for ``mode`` (a ``json_schema`` request)."""
    if mode == JSON_SCHEMA:
        return messages, response_format
    sent = [dict(m) for m in messages]
    note = schema_instruction(response_format)
    # the last user turn carries it: some chat templates refuse a second system message
    for message in reversed(sent):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            message["content"] = f"{message['content']}\n\n{note}"
            break
    else:
        sent.append({"role": "user", "content": note})
    return sent, ({"type": JSON_OBJECT} if mode == JSON_OBJECT else None)
