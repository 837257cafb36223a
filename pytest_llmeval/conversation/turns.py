"""Reading a conversation from a gold sample's ``messages`` (collection time, stdlib + jsonschema)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TURN_KEYS = (
    "role",
    "content",
    "eval_criteria",
    "response",
    "expected_structured",
    "expected_tool_calls",
)
_PREAMBLE_ROLES = ("system", "developer")
MAX_TURNS = 100  # each turn is a model request: a hostile gold line must not ask thousands


def is_conversation(messages: list[dict[str, Any]]) -> bool:
    """Several expected assistant turns make a conversation (one assistant turn stays a plain sample)."""
    return sum(1 for m in messages if m.get("role") == "assistant") >= 2


def parse_turns(
    messages: list[dict[str, Any]], criteria_problem: Callable[[Any], str | None]
) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """(preamble messages, turns) or ``ValueError`` naming the message field that is wrong.

    Turns must alternate user, assistant after the system/developer preamble and end with an
    assistant turn. Each turn: ``user``, ``expected``, ``criteria``, ``response`` (pre-recorded
    reply or None), ``expected_structured``, ``expected_tool_calls``, ``index`` (its message).
    ``criteria_problem`` is the gold reader's check of an ``eval_criteria`` object (handed in, so
    this module does not import the reader back).
    """

    position = 0
    preamble: list[dict[str, str]] = []
    while position < len(messages) and messages[position]["role"] in _PREAMBLE_ROLES:
        preamble.append(
            {"role": messages[position]["role"], "content": messages[position]["content"]}
        )
        position += 1
    turns: list[dict[str, Any]] = []
    expect = "user"
    for index in range(position, len(messages)):
        message = messages[index]
        role = message["role"]
        if role != expect:
            previous = messages[index - 1]["role"] if index else "the start"
            raise ValueError(
                f"field 'messages[{index}].role': a conversation alternates user and assistant turns; "
                f"got {role!r} after {previous!r}"
            )
        unknown = sorted(set(message) - set(TURN_KEYS))
        if unknown:
            raise ValueError(
                f"field 'messages[{index}].{unknown[0]}': unknown key (valid in a turn: {', '.join(TURN_KEYS)})"
            )
        if role == "user":
            turns.append({"user": message["content"], "index": index})
            expect = "assistant"
            continue
        criteria = message.get("eval_criteria") or {}
        problem = criteria_problem(criteria)
        if problem:
            raise ValueError(f"field 'messages[{index}].eval_criteria{problem}")
        response = message.get("response")
        if response is not None and not isinstance(response, str):
            raise ValueError(f"field 'messages[{index}].response': must be a string")
        turns[-1].update(
            expected=message["content"],
            criteria=criteria,
            response=response,
            index=index,
            expected_structured=message.get("expected_structured"),
            expected_tool_calls=message.get("expected_tool_calls"),
        )
        expect = "user"
    if len(turns) > MAX_TURNS:
        raise ValueError(
            f"field 'messages': a conversation of {len(turns)} turns; at most {MAX_TURNS}"
        )
    if expect != "user" or not turns:
        raise ValueError(
            f"field 'messages[{len(messages) - 1}]': a conversation ends with an expected assistant turn"
        )
    return preamble, turns
