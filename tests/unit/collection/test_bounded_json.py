"""Untrusted JSON lines: the nesting bound holds whether or not the value has to be walked."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.bounded_json import MAX_NESTING, JSONProblem, loads, parse_line


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [MAX_NESTING, MAX_NESTING + 1, 3 * MAX_NESTING])
def test_a_line_nested_past_the_bound_is_refused_and_one_at_it_is_read(depth: int) -> None:
    line = json.dumps({"id": "a", "expected": "1"})[:-1] + f', "deep": {nested(depth - 1)}}}'
    value, problem = parse_line(line)
    if depth <= MAX_NESTING:
        assert problem is None
        assert value["id"] == "a"
    else:
        assert value is None
        assert problem is not None
        assert "nested more than" in problem
        with pytest.raises(JSONProblem, match="nested more than"):
            loads(line)


def test_brackets_inside_strings_are_text_not_nesting() -> None:
    text = "[" * (2 * MAX_NESTING) + "{" * MAX_NESTING
    line = json.dumps({"id": "a", "expected": text, "list": [[1], {"k": [2]}]})
    value, problem = parse_line(line)
    assert problem is None
    assert value["expected"] == text
    assert value["list"] == [[1], {"k": [2]}]
    assert loads(line) == value
