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
        if error.validator == "required":
            raise SampleError(f"field {_field_path(error)!r}: {error.message}")
        raise SampleError(f"field {_field_path(error)!r}: {error.message}")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


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
        expected=_text(expected),
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
