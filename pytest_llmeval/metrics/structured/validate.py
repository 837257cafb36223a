"""Stage 2a: JSON Schema validation of the answer, each violation named by its JSON path."""

from __future__ import annotations

import functools
import json
from typing import Any

from pytest_llmeval.metrics.structured.rules import show_path

MAX_VIOLATIONS = 10


@functools.lru_cache(maxsize=64)
def _validator(schema_text: str) -> Any:
    import jsonschema

    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema)


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is no JSON Schema (naming the path inside it), or None."""
    import jsonschema

    if not isinstance(schema, dict | bool):
        return f"must be an object, got {type(schema).__name__}"
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = show_path(tuple(exc.absolute_path)) if exc.absolute_path else "<schema>"
        return f"invalid JSON Schema at {where}: {exc.message[:160]}"
    return None


def violations(value: Any, schema: Any) -> list[str]:
    """``path: message`` for each way ``value`` breaks ``schema`` (at most ``MAX_VIOLATIONS``)."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    found = []
    for error in validator.iter_errors(value):
        found.append(f"{show_path(tuple(error.absolute_path))}: {error.message[:160]}")
        if len(found) >= MAX_VIOLATIONS:
            break
    return sorted(found)
