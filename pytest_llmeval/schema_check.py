"""A JSON Schema turned into a plain Python predicate: is this JSON value valid?

``jsonschema`` walks the schema again for every instance (about 200 µs a gold line); the
predicate is built once per schema and answers in microseconds. It knows the keywords the gold
schema uses and applies each as Draft 2020-12 (and ``jsonschema``) does, so its answer is exact:
valid lines skip ``jsonschema`` entirely, invalid ones go to it for the located message. A schema
with any other keyword gets no predicate (``None``): every instance then goes to ``jsonschema``.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that describe and never constrain.
ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "examples", "default", "deprecated"}
)


class Unsupported(Exception):
    """The schema uses a keyword (or a form of one) the predicate does not apply."""


def compile_check(schema: Any) -> Check | None:
    """The predicate of ``schema``, or ``None`` when it uses a keyword this module does not know."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _compile(schema: Any) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):
        raise Unsupported(f"schema {schema!r}")
    checks: list[Check] = []
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        build = KEYWORDS.get(key)
        if build is None:
            raise Unsupported(key)
        checks.append(build(value, schema))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)
    return lambda value: all(one(value) for one in every)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    # Draft 2020-12: a float with no fractional part is an integer too
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "number": _is_number,
    "integer": _is_integer,
}


def _type(names: Any, schema: dict[str, Any]) -> Check:
    wanted = [names] if isinstance(names, str) else list(names)
    if not all(isinstance(name, str) and name in TYPES for name in wanted):
        raise Unsupported(f"type {names!r}")
    tests = tuple(TYPES[name] for name in wanted)
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _properties(properties: Any, schema: dict[str, Any]) -> Check:
    if not isinstance(properties, dict):
        raise Unsupported("properties")
    by_name = {name: _compile(sub) for name, sub in properties.items()}

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name, item in value.items():
            sub = by_name.get(name)
            if sub is not None and not sub(item):
                return False
        return True

    return check


def _additional_properties(additional: Any, schema: dict[str, Any]) -> Check:
    known = frozenset(schema.get("properties") or ())
    if additional is False:
        return lambda value: not isinstance(value, dict) or all(name in known for name in value)
    sub = _compile(additional)
    return lambda value: (
        not isinstance(value, dict)
        or all(sub(item) for name, item in value.items() if name not in known)
    )


def _required(names: Any, schema: dict[str, Any]) -> Check:
    required = tuple(names)
    return lambda value: not isinstance(value, dict) or all(name in value for name in required)


def _property_names(names: Any, schema: dict[str, Any]) -> Check:
    sub = _compile(names)
    return lambda value: not isinstance(value, dict) or all(sub(name) for name in value)


def _items(items: Any, schema: dict[str, Any]) -> Check:
    sub = _compile(items)
    return lambda value: not isinstance(value, list) or all(sub(item) for item in value)


def _min_items(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not isinstance(value, list) or len(value) >= limit


def _max_items(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not isinstance(value, list) or len(value) <= limit


def _min_length(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not isinstance(value, str) or len(value) >= limit


def _max_length(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not isinstance(value, str) or len(value) <= limit


def _minimum(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not _is_number(value) or not value < limit


def _maximum(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not _is_number(value) or not value > limit


def _exclusive_minimum(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not _is_number(value) or not value <= limit


def _exclusive_maximum(limit: Any, schema: dict[str, Any]) -> Check:
    return lambda value: not _is_number(value) or not value >= limit


def _enum(values: Any, schema: dict[str, Any]) -> Check:
    # Text values only: jsonschema's equality of numbers, booleans and containers has rules of its own
    if not isinstance(values, list) or not all(isinstance(each, str) for each in values):
        raise Unsupported("enum")
    allowed = frozenset(values)
    return lambda value: isinstance(value, str) and value in allowed


def _pattern(pattern: Any, schema: dict[str, Any]) -> Check:
    compiled = re.compile(pattern)
    return lambda value: not isinstance(value, str) or compiled.search(value) is not None


def _any_of(subschemas: Any, schema: dict[str, Any]) -> Check:
    subs = tuple(_compile(sub) for sub in subschemas)
    return lambda value: any(sub(value) for sub in subs)


def _one_of(subschemas: Any, schema: dict[str, Any]) -> Check:
    subs = tuple(_compile(sub) for sub in subschemas)
    return lambda value: sum(1 for sub in subs if sub(value)) == 1


# keyword -> builder(keyword value, the schema object holding it) -> predicate
KEYWORDS: dict[str, Callable[[Any, dict[str, Any]], Check]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "required": _required,
    "propertyNames": _property_names,
    "items": _items,
    "minItems": _min_items,
    "maxItems": _max_items,
    "minLength": _min_length,
    "maxLength": _max_length,
    "minimum": _minimum,
    "maximum": _maximum,
    "exclusiveMinimum": _exclusive_minimum,
    "exclusiveMaximum": _exclusive_maximum,
    "enum": _enum,
    "pattern": _pattern,
    "anyOf": _any_of,
    "oneOf": _one_of,
}
