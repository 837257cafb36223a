"""Gold-line validation (jsonschema, shipped schema) and normalisation into a ``Sample``."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from pytest_llmeval.sample import Sample

SCHEMA_FILE = "gold_sample.schema.json"
# A line holding only this key configures the whole file (weights, tiers, accuracy grader,
# default eval_criteria); it must come before the samples.
FILE_CONFIG_KEY = "llmeval_file"


class SampleError(ValueError):
    """A line that cannot become a sample; the message names the field and the problem."""


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    schema = json.loads(resources.files("pytest_llmeval").joinpath(SCHEMA_FILE).read_text("utf-8"))
    return jsonschema.Draft202012Validator(schema)


@functools.lru_cache(maxsize=1)
def _criteria_validator() -> Any:
    """The ``eval_criteria`` part of the schema: a file's header line holds the same settings."""
    import jsonschema

    schema = _validator().schema["properties"]["eval_criteria"]
    return jsonschema.Draft202012Validator(schema)


def _field_path(error: Any) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "<record>"


def validate(record: Any) -> None:
    """Raise ``SampleError`` naming the first offending field."""
    if not isinstance(record, dict):
        raise SampleError(f"expected a JSON object, got {type(record).__name__}")
    errors = sorted(_validator().iter_errors(record), key=lambda e: (len(list(e.absolute_path)), str(e.path)))
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
    for error in sorted(_criteria_validator().iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]):
        path = [str(p) for p in error.absolute_path]
        if path:
            bad.add(path[0])
        problems.append(f"field {'.'.join([FILE_CONFIG_KEY, *path])!r}: {_short(error.message)}")
    return {k: v for k, v in config.items() if k not in bad}, problems


def _short(message: str, limit: int = 200) -> str:
    """A jsonschema message quotes the bad value; a hostile value can be megabytes long."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _number_text(value: int | float) -> str:
    """A JSON number as plain text for text graders and reports: 2e20 -> "200000000000000000000"."""
    if isinstance(value, int):
        return str(value)
    import decimal

    plain = format(decimal.Decimal(repr(value)), "f")
    return plain if len(plain) <= 40 else repr(value)


def normalise(record: dict[str, Any], *, path: str, line: int, defaults: dict[str, Any]) -> Sample:
    """Turn a validated record (flat or gold-layer) into a ``Sample``."""
    messages = [dict(m) for m in record.get("messages") or []]
    expected: Any = record.get("expected", record.get("expected_output"))
    # Gold layer: the trailing assistant turn is the expected answer, not part of the prompt.
    if messages and messages[-1]["role"] == "assistant":
        assistant = messages.pop()
        if expected is None:
            expected = assistant["content"]
    if expected is None:
        raise SampleError("field 'expected' missing (give 'expected', 'expected_output' or a final assistant message)")
    # A JSON number is that number: graders that compare numbers get it unchanged (not "2e+20" re-read as text).
    expected_number = expected if isinstance(expected, int | float) and not isinstance(expected, bool) else None
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
    relevant = record.get("relevant_ids", metadata.get("source_ids"))
    retrieved = record.get("retrieved")
    sample_id = record.get("id")
    return Sample(
        id=str(sample_id) if sample_id is not None else f"line{line}",
        path=path,
        line=line,
        question=question,
        expected=_text(expected) if expected_number is None else _number_text(expected_number),
        expected_number=expected_number,
        messages=tuple(messages),
        response=record.get("response"),
        contexts=tuple(record.get("contexts") or ()),
        retrieved=None if retrieved is None else tuple(str(r) for r in retrieved),
        relevant=relevant,
        gold_claims=tuple(record["gold_claims"]) if record.get("gold_claims") else None,
        metadata=metadata,
        criteria=criteria,
        raw=record,
    )
