"""Calls to an LLM judge: JSON replies validated against shipped schemas, one repair retry.

A judge that keeps replying with unusable JSON raises :class:`GraderError`, which
the plugin reports as an *error* outcome (never a fail, never NaN).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import FatalModelError, GraderError, ModelError
from pytest_llmeval.judge import prompts
from pytest_llmeval.judge.matching import ClaimLink, Matching
from pytest_llmeval.models.formats import FULL_SCHEMA_KEY

if TYPE_CHECKING:
    from pytest_llmeval.models.base import ChatModel

PROMPT_VERSION = prompts.PROMPT_VERSION

# Keywords the local validator enforces but that strict structured-output modes reject.
_WIRE_DROPPED = {
    "$schema",
    "title",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "pattern",
    "format",
}


@cache
def _load_schema(name: str) -> str:
    return (
        resources.files("pytest_llmeval.judge").joinpath(f"{name}.schema.json").read_text("utf-8")
    )


def load_schema(name: str) -> dict[str, Any]:
    """A shipped reply schema (``claims``, ``matching`` or ``correctness``), as a fresh dict."""
    schema: dict[str, Any] = json.loads(_load_schema(name))
    return schema


def _wire_schema(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _wire_schema(v) for k, v in schema.items() if k not in _WIRE_DROPPED}
    if isinstance(schema, list):
        return [_wire_schema(v) for v in schema]
    return schema


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI ``response_format`` asking for ``schema`` (strict structured output)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "llmeval_reply"))[:64]
    wire = _wire_schema(schema)
    full = grammar_schema(schema)
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": wire, "strict": True},
        **({FULL_SCHEMA_KEY: full} if full != wire else {}),
    }


def grammar_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` for a server whose grammar enforces every keyword (llama.cpp, vLLM, Ollama):
    the length and pattern bounds kept, only the annotations dropped."""
    return {k: v for k, v in schema.items() if k not in ("$schema", "title")}


_FENCE_RE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)


def parse_json_object(text: str) -> Any:
    """Parse a reply that should be one JSON object, tolerating code fences and prose around it."""
    fenced = _FENCE_RE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end <= start:
            raise
        return json.loads(text[start : end + 1])


def _problems(
    text: str, schema: dict[str, Any], check: Callable[[dict[str, Any]], list[str]] | None
) -> tuple[dict[str, Any] | None, list[str]]:
    import jsonschema

    try:
        value = parse_json_object(text)
    except ValueError as exc:
        return None, [f"not JSON ({str(exc)[:200]})"]
    except RecursionError:
        return None, ["not JSON (nested too deeply)"]
    validator = jsonschema.Draft202012Validator(schema)
    errors = [
        f"{'/'.join(str(p) for p in err.absolute_path) or 'reply'}: {err.message}"
        for err in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.path)))
    ]
    if errors:
        return None, errors
    if check is not None:
        errors = check(value)
        if errors:
            return None, errors
    return value, []


# How much of an unusable reply the repair request sends back: a small model that loops until
# its context is full must not make the repair overflow the same context.
REPAIR_ECHO_CHARS = 1000
REPAIR_ERROR_CHARS = 200


def _bounded(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters cut by pytest-llmeval ...]"


def _complete(
    model: ChatModel,
    messages: list[dict[str, str]],
    fmt: dict[str, Any],
    accept: Callable[[str], bool] | None = None,
    *,
    what: str = "",
) -> Any:
    try:
        if accept is not None and getattr(model, "accepts_validator", False):
            # A reply that fails validation is never cached: a fixed judge re-grades it next run.
            return model.complete(messages, response_format=fmt, accept=accept)  # type: ignore[call-arg]
        return model.complete(messages, response_format=fmt)
    except FatalModelError:
        raise  # stops the run: no retry or other sample can fix it
    except ModelError as exc:
        raise GraderError(f"judge {getattr(model, 'name', model)!r} failed{what}: {exc}") from exc


def _structured_note(completion: Any) -> str:
    """Which structured-output forms the model layer tried, when it says (see models.formats)."""
    tried = getattr(completion, "structured", "")
    return f" (structured output: {tried})" if tried else ""


def call_json(
    model: ChatModel,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    *,
    repair: bool = True,
    check: Callable[[dict[str, Any]], list[str]] | None = None,
) -> dict[str, Any]:
    """Ask ``model`` for a JSON object matching ``schema`` and return it.

    Uses structured output where the provider has it; validates the reply with
    jsonschema (and ``check``, which returns problems such as out-of-range indexes).
    An unusable reply gets exactly one repair request; a second one raises GraderError.
    """
    fmt = response_format(schema)

    def accept(reply: str) -> bool:
        return _problems(reply, schema, check)[0] is not None

    completion = _complete(model, messages, fmt, accept)
    text = completion.text
    value, errors = _problems(text, schema, check)
    if value is not None:
        return value
    tries = "with repair disabled"
    if repair:
        first = f" (first reply unusable: {_bounded('; '.join(errors[:2]), REPAIR_ERROR_CHARS)})"
        retry = [
            *messages,
            {"role": "assistant", "content": _bounded(text, REPAIR_ECHO_CHARS)},
            prompts.repair_message([_bounded(e, REPAIR_ERROR_CHARS) for e in errors]),
        ]
        completion = _complete(model, retry, fmt, accept, what=f" on the repair request{first}")
        text = completion.text
        value, errors = _problems(text, schema, check)
        if value is not None:
            return value
        tries = "after one repair request (the repair request's reply was unusable too)"
    raise GraderError(
        f"judge {getattr(model, 'name', model)!r} returned unusable JSON {tries}"
        f"{_structured_note(completion)}: "
        f"{'; '.join(_bounded(e, REPAIR_ERROR_CHARS) for e in errors[:3])}; reply starts {text[:120]!r}"
    )


def extract_claims(model: ChatModel, text: str, *, question: str | None = None) -> list[str]:
    """The atomic factual claims of ``text`` (with respect to ``question``), per the judge."""
    reply = call_json(
        model, prompts.extract_claims_messages(text, question=question), load_schema("claims")
    )
    claims = [" ".join(str(c).split()) for c in reply["claims"]]
    return [c for c in claims if c]


def match_claims(
    model: ChatModel,
    response_claims: Sequence[str],
    gold_claims: Sequence[str],
    *,
    question: str | None = None,
) -> Matching:
    """Match claims both ways with the judge; each side is counted on its own."""
    n_resp, n_gold = len(response_claims), len(gold_claims)
    if n_resp == 0 or n_gold == 0:
        return Matching(
            response=[ClaimLink(i, None, "no gold claims to match") for i in range(n_resp)],
            gold=[ClaimLink(j, None, "the response has no claims") for j in range(n_gold)],
        )

    def check(value: dict[str, Any]) -> list[str]:
        problems: list[str] = []
        for side, own, other in (
            ("response_claims", n_resp, n_gold),
            ("gold_claims", n_gold, n_resp),
        ):
            indexes = sorted(item["index"] for item in value[side])
            if indexes != list(range(1, own + 1)):
                problems.append(f"{side} must list indexes 1..{own} once each, got {indexes}")
            bad = [
                item["match"]
                for item in value[side]
                if item["match"] is not None and not 1 <= item["match"] <= other
            ]
            if bad:
                problems.append(f"{side}: match must be null or 1..{other}, got {bad}")
        return problems

    messages = prompts.match_claims_messages(response_claims, gold_claims, question=question)
    reply = call_json(model, messages, load_schema("matching"), check=check)

    def side(items: list[dict[str, Any]]) -> list[ClaimLink]:
        links = sorted(items, key=lambda item: item["index"])
        return [
            ClaimLink(
                item["index"] - 1,
                None if item["match"] is None else item["match"] - 1,
                str(item["reason"]),
            )
            for item in links
        ]

    return Matching(response=side(reply["response_claims"]), gold=side(reply["gold_claims"]))


@dataclass
class CorrectnessJudgement:
    """An LLM judge's binary verdict."""

    correct: bool
    reasons: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)


def _real_reasons(value: dict[str, Any]) -> list[str]:
    """A reason that only repeats the reply template's placeholder is no reason (a small model's echo)."""
    copied = [
        r
        for r in value.get("reasons") or []
        if " ".join(str(r).split()).strip(" .").casefold() == prompts.REASON_PLACEHOLDER
    ]
    if copied:
        return [
            f"reasons: {prompts.REASON_PLACEHOLDER!r} is the template's placeholder; write each reason about this answer"
        ]
    return []


def judge_correctness(
    model: ChatModel, *, question: str | None, expected: str, response: str
) -> CorrectnessJudgement:
    """'factually matching' vs 'factually contradicting', with the judge's reasons."""
    messages = prompts.correctness_messages(question=question, expected=expected, response=response)
    reply = call_json(model, messages, load_schema("correctness"), check=_real_reasons)
    return CorrectnessJudgement(
        correct=reply["verdict"] == "factually matching",
        reasons=[str(r) for r in reply["reasons"]],
        raw=copy.deepcopy(reply),
    )


def verify_correctness(
    model: ChatModel,
    *,
    question: str | None,
    expected: str,
    response: str,
    first: CorrectnessJudgement,
    fuzzy_correct: bool,
    fuzzy_evidence: str,
) -> CorrectnessJudgement:
    """Ask the judge once more when its verdict and the fuzzy fact-inclusion check disagree."""
    messages = prompts.verification_messages(
        question=question,
        expected=expected,
        response=response,
        judge_correct=first.correct,
        judge_reasons=first.reasons,
        fuzzy_correct=fuzzy_correct,
        fuzzy_evidence=fuzzy_evidence,
    )
    reply = call_json(model, messages, load_schema("correctness"), check=_real_reasons)
    return CorrectnessJudgement(
        correct=reply["verdict"] == "factually matching",
        reasons=[str(r) for r in reply["reasons"]],
        raw=copy.deepcopy(reply),
    )
