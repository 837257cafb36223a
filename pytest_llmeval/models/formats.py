"""Structured-output negotiation: the forms of asking for a JSON Schema, best first.

Servers differ in how they take a schema: OpenAI, vLLM and llama.cpp's server take
``response_format: {type: json_schema}``; llama-cpp-python's server refuses it and takes
``{type: json_object, schema}``; vLLM also takes ``structured_outputs: {json}`` (older
releases ``guided_json``); Ollama takes ``format: schema``. Then ``json_object`` alone, then no
field at all. Every form but the first also puts the schema into the prompt, and the caller (the
judge) validates every reply against the schema whatever was sent.

Decided once per endpoint (see :class:`pytest_llmeval.models.engine.Engine`), not per sample, and
remembered in the cache directory (:mod:`.format_memory`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

JSON_SCHEMA = "json_schema"
JSON_OBJECT_SCHEMA = "json_object+schema"  # llama.cpp, llama-cpp-python
STRUCTURED_OUTPUTS = "structured_outputs"  # vLLM >= 0.10.2
GUIDED_JSON = "guided_json"  # vLLM before
OLLAMA_FORMAT = "format"  # Ollama
JSON_OBJECT = "json_object"  # any JSON object; the schema only in the prompt
PROMPT = "prompt"  # no field: the schema only in the prompt
# best first; PROMPT sends no structured-output field, so it cannot be refused
LADDER = (
    JSON_SCHEMA,
    JSON_OBJECT_SCHEMA,
    STRUCTURED_OUTPUTS,
    GUIDED_JSON,
    OLLAMA_FORMAT,
    JSON_OBJECT,
    PROMPT,
)


# A response_format may carry the schema with every keyword (pattern, maxLength, ...) beside the
# one strict json_schema servers (OpenAI) accept: grammar-constrained servers (llama.cpp,
# llama-cpp-python, vLLM, Ollama) enforce those keywords, which bounds what a model can write.
# Never sent under this key, and not part of the cache key.
FULL_SCHEMA_KEY = "llmeval_full_schema"


def public(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """``response_format`` as sent and as cached: without :data:`FULL_SCHEMA_KEY`."""
    if not isinstance(response_format, dict) or FULL_SCHEMA_KEY not in response_format:
        return response_format
    return {k: v for k, v in response_format.items() if k != FULL_SCHEMA_KEY}


def _full_schema(response_format: dict[str, Any]) -> dict[str, Any]:
    full = response_format.get(FULL_SCHEMA_KEY)
    return full if isinstance(full, dict) else _schema(response_format)


def negotiable(response_format: dict[str, Any] | None) -> bool:
    return isinstance(response_format, dict) and response_format.get("type") == JSON_SCHEMA


def _schema(response_format: dict[str, Any]) -> dict[str, Any]:
    spec = response_format.get("json_schema") or {}
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return schema if isinstance(schema, dict) else {}


def schema_instruction(response_format: dict[str, Any]) -> str:
    return (
        "Reply with one JSON object and nothing else. It must match this JSON Schema:\n"
        + json.dumps(_schema(response_format), sort_keys=True)
    )


# mode -> the request body fields asking for the schema in that form
_FIELDS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    JSON_OBJECT_SCHEMA: lambda s: {"response_format": {"type": "json_object", "schema": s}},
    STRUCTURED_OUTPUTS: lambda s: {"structured_outputs": {"json": s}},
    GUIDED_JSON: lambda s: {"guided_json": s},
    OLLAMA_FORMAT: lambda s: {"format": s},
    JSON_OBJECT: lambda s: {"response_format": {"type": "json_object"}},
    PROMPT: lambda s: {},
}


def wire_request(
    mode: str,
    messages: list[dict[str, Any]],
    response_format: dict[str, Any],
    *,
    grammar: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The messages and the body fields to send for ``mode`` (from a ``json_schema`` request).
    ``grammar``: the server is known to turn ``json_schema`` into a grammar (llama.cpp)."""
    if mode == JSON_SCHEMA:
        asked = public(response_format) or {}
        if grammar and FULL_SCHEMA_KEY in response_format:
            spec = {**(asked.get("json_schema") or {}), "schema": _full_schema(response_format)}
            asked = {**asked, "json_schema": spec}
        return messages, {"response_format": asked}
    sent = [dict(m) for m in messages]
    note = schema_instruction(response_format)
    # the last user turn carries it: some chat templates refuse a second system message
    for message in reversed(sent):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            message["content"] = f"{message['content']}\n\n{note}"
            break
    else:
        sent.append({"role": "user", "content": note})
    return sent, _FIELDS[mode](_full_schema(response_format))


def describe(tried: list[tuple[str, str]]) -> str:
    """``json_schema refused, json_object+schema used`` from (mode, outcome) pairs."""
    return ", ".join(f"{mode} {outcome}" for mode, outcome in tried)
