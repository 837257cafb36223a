"""The schema predicate says "valid" exactly when jsonschema does, for the gold schema and others."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.schema import _schema
from pytest_llmeval.schema_check import compile_check

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).parents[3]


def agree(schema: dict[str, Any], instances: list[Any]) -> list[Any]:
    """The instances on which the predicate and jsonschema disagree."""
    check = compile_check(schema)
    assert check is not None
    validator = jsonschema.Draft202012Validator(schema)
    return [i for i in instances if check(i) != validator.is_valid(i)]


def test_the_gold_schema_and_its_criteria_part_have_predicates() -> None:
    assert compile_check(_schema()) is not None
    assert compile_check(_schema()["properties"]["eval_criteria"]) is not None


@pytest.mark.parametrize(
    ("schema", "instances"),
    [
        ({"type": "integer"}, [1, 1.0, 1.5, True, "1", None, -0.0]),
        ({"type": "number"}, [1, 1.5, True, False, "1", None]),
        ({"type": ["string", "null"]}, ["", None, 0, []]),
        ({"type": "boolean"}, [True, False, 0, 1]),
        ({"minLength": 2, "maxLength": 3}, ["a", "ab", "abcd", "é" * 3, 5, ["a"]]),
        ({"minItems": 1, "maxItems": 2}, [[], [1], [1, 2, 3], "", {}]),
        ({"minimum": 0, "maximum": 1}, [0, 1, 1.0000001, -0.1, True, "2", None]),
        ({"exclusiveMinimum": 0, "exclusiveMaximum": 1}, [0, 0.5, 1, "x"]),
        ({"enum": ["a", "b"]}, ["a", "c", 1, None, ["a"]]),
        ({"pattern": "^[a-z]{0,3}$"}, ["abc", "abcd", "ab\n", "", 5]),
        (
            {"required": ["a"], "properties": {"a": {"type": "string"}}},
            [{"a": "x"}, {"a": 1}, {}, [], "a"],
        ),
        ({"properties": {"a": {}}, "additionalProperties": False}, [{"a": 1}, {"b": 1}, {}, 3]),
        ({"additionalProperties": {"type": "number"}}, [{"a": 1}, {"a": "1"}, {}]),
        ({"propertyNames": {"pattern": "^x"}}, [{"xa": 1}, {"a": 1}, {}]),
        ({"items": {"type": "string"}}, [["a"], ["a", 1], [], "ab"]),
        ({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, [{"a": 1}, {"b": 1}, {"c": 1}]),
        # exactly one: 5 is an integer and not below 0, so it meets both
        ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, [5, -5, 0.5, -0.5, "x"]),
        ({"description": "anything"}, [1, None, {}]),
        ({"properties": {"a": True, "b": False}}, [{"a": 1}, {"b": 1}, {}]),
    ],
)
def test_each_keyword_agrees_with_jsonschema(schema: dict[str, Any], instances: list[Any]) -> None:
    assert agree(schema, instances) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/x", "$defs": {"x": {}}},
        {"patternProperties": {"^a": {}}, "additionalProperties": False},
        {"enum": [1, 2]},
        {"type": "custom"},
        {"properties": {"a": {"format": "date"}}},
        {"items": [{"type": "string"}]},
    ],
)
def test_a_keyword_it_does_not_know_leaves_the_schema_to_jsonschema(schema: dict[str, Any]) -> None:
    assert compile_check(schema) is None


def _gold_records() -> list[Any]:
    records: list[Any] = []
    for path in sorted((ROOT / "example_suites").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records


# Values each field takes in a slip or an attack: wrong types, bounds, out-of-set words.
SUBSTITUTES = [
    None,
    True,
    0,
    1,
    1.0,
    1.5,
    -1,
    1e13,
    10_000_001,
    "",
    "a",
    "nb",
    "x" * 40,
    "llm",
    "user",
    "bot",
    "9x",
    "ok\n",
    [],
    [1],
    ["a"],
    [0.5, 0.2],
    [0.5, 2],
    ["a"] * 101,
    {},
    {"a": 1},
    {"role": "user", "content": "q"},
    {"role": "bot", "content": "q"},
    {"name": ""},
    {"accuracy": -1},
    {"ideal": [1]},
    {"x": {"compare": "nope"}},
]


def _mutated(records: list[Any], count: int, seed: int) -> list[Any]:
    """Gold records with one to three fields (top level or one level down) replaced or removed."""
    rng = random.Random(seed)
    objects = [r for r in records if isinstance(r, dict)]
    out = []
    for _ in range(count):
        record = copy.deepcopy(rng.choice(objects))
        for _ in range(rng.randint(1, 3)):
            node = record
            inner = node.get("eval_criteria")
            if isinstance(inner, dict) and rng.random() < 0.5:
                node = inner
            key = rng.choice(
                [*node, "expected", "messages", "numeric", "weights", "tiers", "language"]
            )
            if rng.random() < 0.15:
                node.pop(key, None)
            else:
                node[key] = copy.deepcopy(rng.choice(SUBSTITUTES))
        out.append(record)
    return out


def test_gold_lines_valid_and_broken_agree_with_jsonschema() -> None:
    validator = jsonschema.Draft202012Validator(_schema())
    records = [r for r in _gold_records() if validator.is_valid(r)]
    assert len(records) >= 20
    instances = records + _mutated(records, 3000, seed=11)
    valid = sum(validator.is_valid(i) for i in instances)
    assert 300 < valid < len(instances) - 300  # both sides are exercised
    assert agree(_schema(), instances) == []
    criteria = [
        r.get("eval_criteria") for r in instances if isinstance(r, dict) and "eval_criteria" in r
    ]
    assert agree(_schema()["properties"]["eval_criteria"], criteria) == []
