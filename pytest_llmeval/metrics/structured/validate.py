"""Stage 2a: JSON Schema validation of the answer, each violation named by its JSON path.

A schema comes from a gold file and runs on a model's answer, so it is read from nothing but
itself: no ``$ref`` is ever retrieved (local ``#...`` refs only), a ref cycle that never reaches
into the instance is refused, and ``pattern`` / ``patternProperties`` run in RE2 (linear time).
Each schema is checked and compiled once, however many samples share it.
"""

from __future__ import annotations

import functools
import json
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.linear_regex import LinearRegexError, compile_linear
from pytest_llmeval.metrics.structured.rules import show_path

MAX_VIOLATIONS = 10
MAX_PATTERN_LENGTH = 2000
_CACHE_SIZE = 64
# Keywords whose values are data, not schemas: a "$ref" key inside them is no reference.
_DATA_KEYWORDS = frozenset({"const", "enum", "examples", "default"})
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose subschemas apply to the same instance: a ref cycle through them alone never ends.
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_SCHEMAS = ("not", "if", "then", "else")
_IN_PLACE_MAPS = ("dependentSchemas", "dependencies")


class _Prepared:
    """One schema, checked: its validator, or the problem that makes it unusable."""

    __slots__ = ("problem", "schema", "validator")

    def __init__(self, schema: Any, validator: Any, problem: str | None) -> None:
        self.schema, self.validator, self.problem = schema, validator, problem


# Keyed by id() with the schema kept alive (so the id stays its own): a file header's schema is
# one object shared by every sample; a key by content catches equal copies.
_by_identity: OrderedDict[int, _Prepared] = OrderedDict()
_by_text: OrderedDict[str, _Prepared] = OrderedDict()


def _remember(cache: OrderedDict[Any, _Prepared], key: Any, prepared: _Prepared) -> None:
    cache[key] = prepared
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def _prepared(schema: Any) -> _Prepared:
    found = _by_identity.get(id(schema))
    if found is not None and found.schema is schema:
        return found
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        return _Prepared(schema, None, f"must be JSON: {exc}")
    found = _by_text.get(text)
    if found is None:
        found = _prepare(schema)
        _remember(_by_text, text, found)
    _remember(_by_identity, id(schema), _Prepared(schema, found.validator, found.problem))
    return found


def _prepare(schema: Any) -> _Prepared:
    import jsonschema

    if not isinstance(schema, dict | bool):
        return _Prepared(schema, None, f"must be an object, got {type(schema).__name__}")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        where = show_path(tuple(exc.absolute_path)) if exc.absolute_path else "<schema>"
        return _Prepared(schema, None, f"invalid JSON Schema at {where}: {exc.message[:160]}")
    except RecursionError:
        return _Prepared(schema, None, "invalid JSON Schema: nested too deeply")
    problem = _references_problem(schema) or _patterns_problem(schema)
    if problem:
        return _Prepared(schema, None, problem)
    return _Prepared(schema, _bounded_class(cls)(schema, registry=_registry()), None)


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is no usable JSON Schema (naming the path inside it), or None."""
    return _prepared(schema).problem


def violations(value: Any, schema: Any) -> list[str]:
    """``path: message`` for each way ``value`` breaks ``schema`` (at most ``MAX_VIOLATIONS``).

    Raises :class:`GraderError` for a schema that cannot be applied (see :func:`schema_problem`).
    """
    import referencing.exceptions

    prepared = _prepared(schema)
    if prepared.problem:
        raise GraderError(f"structured schema: {prepared.problem}")
    found = []
    try:
        for error in prepared.validator.iter_errors(value):
            found.append(f"{show_path(tuple(error.absolute_path))}: {error.message[:160]}")
            if len(found) >= MAX_VIOLATIONS:
                break
    except referencing.exceptions.Unresolvable as exc:
        raise GraderError(
            f"structured schema: a $ref cannot be resolved: {str(exc)[:160]}"
        ) from None
    except RecursionError:
        raise GraderError("structured schema: its $refs recurse without end") from None
    return sorted(found)


# -- references: local only, no cycle that stays on one instance ---------------------------------


def _walk(node: Any, path: tuple[str | int, ...] = ()) -> Any:
    """Every schema object inside ``node`` with its path (data keywords skipped), iteratively."""
    stack = [(node, path)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, dict):
            yield current, where
            stack.extend((v, (*where, k)) for k, v in current.items() if k not in _DATA_KEYWORDS)
        elif isinstance(current, list):
            stack.extend((v, (*where, i)) for i, v in enumerate(current))


def _anchors(schema: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for node, _ in _walk(schema):
        anchor = node.get("$anchor") or node.get("$dynamicAnchor")
        if isinstance(anchor, str):
            found.setdefault(anchor, node)
        old_id = node.get("$id") or node.get("id")
        if isinstance(old_id, str) and old_id.startswith("#") and len(old_id) > 1:
            found.setdefault(old_id[1:], node)  # draft 7 and older: "$id": "#name"
    return found


def _target(schema: Any, ref: str, anchors: dict[str, Any]) -> Any:
    """The subschema a local ``ref`` names, or None."""
    fragment = unquote(ref[1:])
    if not fragment:
        return schema
    if not fragment.startswith("/"):
        return anchors.get(fragment)
    node = schema
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, dict | bool) else None


def _references_problem(schema: Any) -> str | None:
    anchors = _anchors(schema)
    edges: dict[int, list[Any]] = {}
    nodes: dict[int, tuple[Any, tuple[str | int, ...]]] = {}
    for node, where in _walk(schema):
        nodes[id(node)] = (node, where)
        successors = edges[id(node)] = []
        for keyword in _REF_KEYWORDS:
            ref = node.get(keyword)
            if ref is None:
                continue
            at = show_path(where) if where else "<schema>"
            if not isinstance(ref, str) or not ref.startswith("#"):
                return (
                    f"{keyword} {str(ref)[:120]!r} at {at} is not read: only local references "
                    "('#', '#/$defs/...') are followed; nothing is fetched"
                )
            target = _target(schema, ref, anchors)
            if target is None:
                return f"{keyword} {ref[:120]!r} at {at} cannot be resolved: nothing in the schema has that path"
            successors.append(target)
        successors += [s for k in _IN_PLACE_LISTS if isinstance(node.get(k), list) for s in node[k]]
        successors += [node[k] for k in _IN_PLACE_SCHEMAS if k in node]
        successors += [
            s for k in _IN_PLACE_MAPS if isinstance(node.get(k), dict) for s in node[k].values()
        ]
    cycle = _cycle(edges)
    if cycle is not None:
        at = show_path(nodes[cycle][1]) if nodes[cycle][1] else "<schema>"
        return (
            f"$ref at {at} refers back to itself without reaching into the value "
            "(a self-recursive reference such as '$ref': '#'); it would never end"
        )
    return None


def _cycle(edges: dict[int, list[Any]]) -> int | None:
    """A node on a cycle of ``edges`` (ids to subschemas), found without recursion, or None."""
    state: dict[int, int] = {}  # 1: on the path, 2: done
    for start in edges:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(edges[start]))]
        while stack:
            node, successors = stack[-1]
            step = next(successors, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            child = id(step)
            if child not in edges:
                continue  # a boolean schema: nothing below it
            if state.get(child) == 1:
                return child
            if child not in state:
                state[child] = 1
                stack.append((child, iter(edges[child])))
    return None


# -- patterns: RE2 ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4 * _CACHE_SIZE)
def _re2(pattern: str) -> Any:
    """``pattern`` compiled by RE2; :class:`GraderError` names a pattern RE2 cannot run."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise GraderError(
            f"pattern {pattern[:80]!r}… is longer than {MAX_PATTERN_LENGTH} characters"
        )
    try:
        return compile_linear(pattern)
    except LinearRegexError as exc:
        raise GraderError(
            f"pattern {pattern[:120]!r} cannot run in RE2, the linear-time engine answers are "
            f"checked with (no backreferences or lookaround): {exc}"
        ) from None


def _patterns_problem(schema: Any) -> str | None:
    for node, where in _walk(schema):
        patterns = []
        if isinstance(node.get("pattern"), str):
            patterns.append((node["pattern"], (*where, "pattern")))
        if isinstance(node.get("patternProperties"), dict):
            patterns += [(p, (*where, "patternProperties", p)) for p in node["patternProperties"]]
            if "unevaluatedProperties" in node:
                return (
                    f"unevaluatedProperties beside patternProperties at {show_path(where) or '<schema>'} "
                    "is not supported (its property names would be matched by a backtracking engine)"
                )
        for pattern, at in patterns:
            try:
                _re2(pattern)
            except GraderError as exc:
                return f"{exc} (at {show_path(at)})"
    return None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _re2(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, pattern_properties: dict[str, Any], instance: Any, schema: Any
) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        compiled = _re2(pattern)
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = [_re2(p) for p in schema.get("patternProperties", {})]
    extras = [k for k in instance if k not in properties and not any(p.search(k) for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        if patterns:
            shown = ", ".join(sorted(repr(k)[:80] for k in extras)[:10])
            verb = "does" if len(extras) == 1 else "do"
            yield ValidationError(
                f"{shown} {verb} not match any of the regexes: "
                f"{', '.join(repr(p) for p in sorted(schema['patternProperties']))}"
            )
        else:
            shown = ", ".join(repr(k)[:80] for k in extras[:10])
            was = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({shown} {was} unexpected)"
            )


_BOUNDED = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}
_classes: dict[Any, Any] = {}


def _bounded_class(cls: Any) -> Any:
    """``cls`` with the regex keywords run in RE2."""
    import jsonschema

    found = _classes.get(cls)
    if found is None:
        found = _classes[cls] = jsonschema.validators.extend(cls, _BOUNDED)
    return found


def _registry() -> Any:
    """A registry that retrieves nothing: a non-local ``$ref`` is unresolvable, never fetched."""
    import referencing
    import referencing.exceptions

    # attrs classes: typed loosely here, their keyword arguments are what mypy cannot see
    no_such: Any = referencing.exceptions.NoSuchResource
    registry: Any = referencing.Registry

    def refuse(uri: str) -> Any:
        raise no_such(ref=uri)

    return registry(retrieve=refuse)
