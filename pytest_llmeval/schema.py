"""Gold-line validation (jsonschema, shipped schema) and normalisation into a ``Sample``."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.sample import Sample

SCHEMA_FILE = "gold_sample.schema.json"
# A line holding only this key configures the whole file (weights, tiers, accuracy grader,
# default eval_criteria); it must come before the samples.
FILE_CONFIG_KEY = "llmeval_file"


class SampleError(ValueError):
    """A line that cannot become a sample; the message names the field and the problem."""


@functools.lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("pytest_llmeval").joinpath(SCHEMA_FILE).read_text("utf-8")
    )
    return schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(_schema())


@functools.lru_cache(maxsize=1)
def _record_check() -> Callable[[Any], bool]:
    """Whether a record meets the schema, in microseconds; jsonschema explains the ones that do not."""
    from pytest_llmeval.schema_check import compile_check

    return compile_check(_schema()) or (lambda record: False)


def _closed_objects(
    node: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(path, allowed keys) of every object the schema closes with ``additionalProperties: false``."""
    properties = node.get("properties") or {}
    if node.get("additionalProperties") is False:
        yield path, tuple(properties)
    for name, child in properties.items():
        if isinstance(child, dict):
            yield from _closed_objects(child, (*path, name))


@functools.lru_cache(maxsize=1)
def known_keys() -> tuple[tuple[tuple[str, ...], str], ...]:
    """(path, key) of every key the schema names, closed object or not (first place wins)."""
    found: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[dict[str, Any], tuple[str, ...]]] = [(_schema(), ())]
    while stack:
        node, path = stack.pop(0)
        for name, child in (node.get("properties") or {}).items():
            found.setdefault(name, path)
            if isinstance(child, dict):
                stack.append((child, (*path, name)))
    return tuple((path, name) for name, path in found.items())


@functools.lru_cache(maxsize=1)
def closed_objects() -> dict[tuple[str, ...], tuple[str, ...]]:
    """Where unknown keys are errors (the record, ``eval_criteria``, ...) and the keys allowed there."""
    return dict(_closed_objects(_schema()))


def _unknown_keys(
    value: dict[str, Any], root: tuple[str, ...] = (), shown_root: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path below ``root`` ending in the unknown key, suggestion text) for each unknown key in ``value``.

    ``value`` sits at ``root`` in a record: the record itself, or a file header's settings
    (``root=("eval_criteria",)``, the same keys), shown under ``shown_root``.
    """
    allowed_at = closed_objects()
    for path, allowed in allowed_at.items():
        if path[: len(root)] != root:
            continue
        node: Any = value
        for part in path[len(root) :]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue  # absent, or the wrong type (jsonschema reports that)
        for key in node:
            if key not in allowed:
                yield (
                    (*path[len(root) :], key),
                    _suggestion(key, path, root, shown_root, allowed_at),
                )


# What other evaluation tools call a key (no spelling is near ours).
SYNONYMS = {
    "grader": "accuracy",
    "metric": "accuracy",
    "scorer": "accuracy",
    "evaluator": "accuracy",
    "keywords": "must_include",
    "contains": "must_include",
    "schema": "structured",
}


def _suggestion(
    key: str,
    path: tuple[str, ...],
    root: tuple[str, ...],
    shown_root: tuple[str, ...],
    allowed_at: dict[tuple[str, ...], tuple[str, ...]],
) -> str:
    import difflib

    def shown(where: tuple[str, ...], name: str) -> str:
        if where[: len(root)] == root:
            return ".".join((*shown_root, *where[len(root) :], name))
        return ".".join((*where, name))

    if key in SYNONYMS and SYNONYMS[key] in allowed_at[path]:
        return f"; did you mean {shown(path, SYNONYMS[key])!r}?"
    if len(key) <= 100:  # a hostile megabyte key gets no fuzzy search
        close = difflib.get_close_matches(key, allowed_at[path], n=1, cutoff=0.6)
        if close:
            return f"; did you mean {shown(path, close[0])!r}?"
        # A right key at the wrong level: 'must_include' beside 'question', 'contexts' inside eval_criteria.
        for other, names in allowed_at.items():
            if other != path and key in names:
                return f"; did you mean {shown(other, key)!r}?"
        # A misspelt key of another level ('tolerence' for eval_criteria.numeric.tolerance).
        elsewhere = {name: where for where, name in known_keys() if where != path}
        by_name = difflib.get_close_matches(key, list(elsewhere), n=1, cutoff=0.75)
        if by_name:
            return f"; did you mean {shown(elsewhere[by_name[0]], by_name[0])!r}?"
    where = ".".join(path[len(root) :]) or "here"
    return f" (valid in {where}: {', '.join(sorted(allowed_at[path]))})"


def unknown_key_problem(record: dict[str, Any]) -> str | None:
    """The first unknown key as ``field 'x.y': unknown key; did you mean 'z'?``, or None.

    Typos (``eval_critera``, ``must_incude``) would otherwise validate and the intended
    check would silently never run. ``metadata`` is free-form and never checked.
    """
    for path, suggestion in _unknown_keys(record):
        return f"field {_short('.'.join(path), 120)!r}: unknown key{suggestion}"
    return None


def tiers_error(record: dict[str, Any]) -> str | None:
    """Per-sample ``tiers`` are held to the rule ``llm_tiers`` applies."""
    from pytest_llmeval.options import tiers_problem

    criteria = record.get("eval_criteria")
    tiers = criteria.get("tiers") if isinstance(criteria, dict) else None
    if not (
        isinstance(tiers, list)
        and len(tiers) == 2
        and all(isinstance(t, int | float) and not isinstance(t, bool) for t in tiers)
    ):
        return None  # absent, or a shape jsonschema reports
    problem = tiers_problem(float(tiers[0]), float(tiers[1]))
    return (
        None
        if problem is None
        else f"field 'eval_criteria.tiers': {tiers!r}: {problem} (the rule of llm_tiers)"
    )


@functools.lru_cache(maxsize=1)
def _criteria_validator() -> Any:
    """The ``eval_criteria`` part of the schema: a file's header line holds the same settings."""
    import jsonschema

    schema = _validator().schema["properties"]["eval_criteria"]
    return jsonschema.Draft202012Validator(schema)


@functools.lru_cache(maxsize=1)
def _criteria_check() -> Callable[[Any], bool]:
    from pytest_llmeval.schema_check import compile_check

    return compile_check(_schema()["properties"]["eval_criteria"]) or (lambda criteria: False)


def criteria_problem(criteria: Any) -> str | None:
    """``.path': problem`` for the first fault of an ``eval_criteria`` object (a conversation
    turn's own criteria), or None."""
    if not isinstance(criteria, dict):
        return f"': must be an object, got {type(criteria).__name__}"
    for path, suggestion in _unknown_keys(criteria, ("eval_criteria",), ("eval_criteria",)):
        return f".{'.'.join(path)}': unknown key{suggestion}"
    if _criteria_check()(criteria):
        return None
    for error in _criteria_validator().iter_errors(criteria):
        where = "".join(f".{p}" for p in error.absolute_path)
        return f"{where}': {_short(error.message)}"
    return None


def structured_problem(record: dict[str, Any], defaults: dict[str, Any]) -> str | None:
    """An invalid JSON Schema in ``eval_criteria.structured.schema`` (or the file header's), or an
    ``expected_structured`` that fails its own schema: the gold is wrong, not the model."""
    criteria = {**defaults, **(record.get("eval_criteria") or {})}
    settings = criteria.get("structured")
    schema = settings.get("schema") if isinstance(settings, dict) else None
    if schema is None:
        return None
    from pytest_llmeval.metrics.structured.validate import schema_problem, violations

    own = "structured" in (record.get("eval_criteria") or {})
    where = "eval_criteria.structured.schema" if own else f"{FILE_CONFIG_KEY}.structured.schema"
    problem = schema_problem(schema)
    if problem:
        return f"field {where!r}: {problem}"
    if "expected_structured" in record:
        try:
            broken = violations(record["expected_structured"], schema)
        except GraderError as exc:
            return f"field {where!r}: {exc}"
        if broken:
            return f"field 'expected_structured': fails its own schema ({where}): {'; '.join(broken[:3])}"
    return None


def _field_path(error: Any) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "<record>"


def validate(record: Any) -> None:
    """Raise ``SampleError`` naming the first offending field."""
    if not isinstance(record, dict):
        raise SampleError(f"expected a JSON object, got {type(record).__name__}")
    problem = unknown_key_problem(record) or tiers_error(record)
    if problem:
        raise SampleError(problem)
    if _record_check()(record):
        return
    errors = sorted(
        _validator().iter_errors(record), key=lambda e: (len(list(e.absolute_path)), str(e.path))
    )
    if errors:
        import jsonschema.exceptions

        error = jsonschema.exceptions.best_match(errors)
        if error.validator == "anyOf" and not error.absolute_path:
            raise SampleError("field 'question' missing (give 'question' or 'messages')")
        raise SampleError(f"field {_field_path(error)!r}: {_short(error.message)}")


def validate_file_config(config: Any) -> tuple[dict[str, Any], list[str]]:
    """(usable settings, problems) for a file header's ``llmeval_file`` object.

    Each problem names its field; a setting with a problem is dropped, the others apply.
    """
    if not isinstance(config, dict):
        return {}, [f"field {FILE_CONFIG_KEY!r}: must be an object, got {type(config).__name__}"]
    problems: list[str] = []
    bad: set[str] = set()
    for path_below, suggestion in _unknown_keys(config, ("eval_criteria",), (FILE_CONFIG_KEY,)):
        bad.add(path_below[0])
        problems.append(
            f"field {_short('.'.join((FILE_CONFIG_KEY, *path_below)), 120)!r}: unknown key{suggestion}"
        )
    tiers = tiers_error({"eval_criteria": config})
    if tiers:
        bad.add("tiers")
        problems.append(
            tiers.replace("field 'eval_criteria.tiers'", f"field '{FILE_CONFIG_KEY}.tiers'", 1)
        )
    for error in sorted(
        _criteria_validator().iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        if error.validator == "additionalProperties":
            continue  # reported above, with the nearest valid key
        path = [str(p) for p in error.absolute_path]
        if path:
            bad.add(path[0])
        problems.append(f"field {'.'.join([FILE_CONFIG_KEY, *path])!r}: {_short(error.message)}")
    structured = config.get("structured")
    if "structured" not in bad and isinstance(structured, dict) and "schema" in structured:
        from pytest_llmeval.metrics.structured.validate import schema_problem

        problem = schema_problem(structured["schema"])
        if problem:
            bad.add("structured")
            problems.append(f"field '{FILE_CONFIG_KEY}.structured.schema': {problem}")
    return {k: v for k, v in config.items() if k not in bad}, problems


def _short(message: str, limit: int = 200) -> str:
    """A jsonschema message quotes the bad value; a hostile value can be megabytes long."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def number_text(value: int | float) -> str:
    """A JSON number as plain text for text graders and reports: 2e20 -> "200000000000000000000"."""
    if isinstance(value, int):
        return str(value)
    import decimal

    plain = format(decimal.Decimal(repr(value)), "f")
    return plain if len(plain) <= 40 else repr(value)


def normalise(record: dict[str, Any], *, path: str, line: int, defaults: dict[str, Any]) -> Sample:
    """Turn a validated record (flat or gold-layer) into a ``Sample``."""
    messages = [dict(m) for m in record.get("messages") or []]
    problem = structured_problem(record, defaults)
    if problem:
        raise SampleError(problem)
    turns: list[dict[str, Any]] = []
    if record.get("messages") and _is_conversation(messages):
        messages, turns = _conversation(messages)
    expected: Any = record.get("expected", record.get("expected_output"))
    # Compact JSON: a structured gold is no long-form prose, so the length component does not
    # apply to it unless the suite asks (it counts the gold's whitespace tokens).
    if expected is None and record.get("expected_structured") is not None:
        expected = json.dumps(
            record["expected_structured"], ensure_ascii=False, separators=(",", ":")
        )
    if expected is None and record.get("expected_tool_calls") is not None:
        expected = json.dumps(
            record["expected_tool_calls"], ensure_ascii=False, separators=(",", ":")
        )
    # Gold layer: the trailing assistant turn is the expected answer, not part of the prompt.
    if messages and messages[-1]["role"] == "assistant":
        assistant = messages.pop()
        if expected is None:
            expected = assistant["content"]
    if expected is None:
        raise SampleError(
            "field 'expected' missing (give 'expected', 'expected_output' or a final assistant message)"
        )
    alternatives: tuple[Any, ...] = ()
    if isinstance(expected, list):  # aliases: any one of them is a right answer
        alternatives = tuple(expected)
        expected = alternatives[0]
    # A JSON number is that number: graders that compare numbers get it unchanged (not "2e+20" re-read as text).
    expected_number = (
        expected if isinstance(expected, int | float) and not isinstance(expected, bool) else None
    )
    question = record.get("question")
    if question is None:
        users = [m["content"] for m in messages if m["role"] == "user"]
        if not users:
            raise SampleError("field 'messages': no user message to ask")
        question = users[-1]
    if not messages:
        messages = [{"role": "user", "content": question}]
    metadata = dict(record.get("metadata") or {})
    criteria = {**defaults, **(record.get("eval_criteria") or {})}
    structured_gold = "expected_structured" in record or "expected_tool_calls" in record
    if structured_gold and "accuracy" not in criteria:
        criteria["accuracy"] = "structured"
    tools = record.get("tools", criteria.get("tools"))
    relevant = record.get("relevant_ids", metadata.get("source_ids"))
    retrieved = record.get("retrieved")
    sample_id = record.get("id")
    return Sample(
        id=str(sample_id) if sample_id is not None else f"line{line}",
        path=path,
        line=line,
        question=question,
        expected=_text(expected) if expected_number is None else number_text(expected_number),
        expected_number=expected_number,
        alternatives=alternatives,
        messages=tuple(messages),
        response=record.get("response"),
        contexts=tuple(record.get("contexts") or ()),
        retrieved=None if retrieved is None else tuple(str(r) for r in retrieved),
        relevant=relevant,
        gold_claims=tuple(record["gold_claims"]) if record.get("gold_claims") else None,
        metadata=metadata,
        criteria=criteria,
        raw=record,
        expected_structured=record.get("expected_structured"),
        expected_tool_calls=record.get("expected_tool_calls"),
        tools=tools,
        turns=tuple(turns),
    )


def _is_conversation(messages: list[dict[str, Any]]) -> bool:
    from pytest_llmeval.conversation.turns import is_conversation

    return is_conversation(messages)


def _conversation(
    messages: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages of the first request (preamble + first user turn, gold last turn kept for
    ``expected``) and the turns; a turn list that does not alternate is a located error."""
    from pytest_llmeval.conversation.turns import parse_turns

    try:
        preamble, turns = parse_turns(messages, criteria_problem)
    except ValueError as exc:
        raise SampleError(str(exc)) from None
    # ``expected``/``question`` of the sample are its last turn's (reports show them).
    last = turns[-1]
    return [
        *preamble,
        {"role": "user", "content": last["user"]},
        {"role": "assistant", "content": last["expected"]},
    ], turns
