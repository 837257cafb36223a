"""Schemas from gold files: nothing fetched, no endless refs, patterns in linear time, checked once."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from pytest_llmeval.metrics.structured import structured_match
from pytest_llmeval.metrics.structured.validate import schema_problem
from tests.conftest import write_suite

pytest_plugins = ["pytester"]

GOLD = {"name": "Ola", "amount": 5}


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b'{"type": "integer"}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A loopback HTTP server that must see no request: (port, paths requested)."""
    hits: list[str] = []
    handler = type("Handler", (_Counting,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


def _sample(sid: str, schema: Any) -> dict[str, Any]:
    return {
        "id": sid,
        "question": "q",
        "expected_structured": GOLD,
        "response": json.dumps(GOLD),
        "eval_criteria": {"structured": {"schema": schema}},
    }


def test_refs_are_never_fetched_and_each_bad_one_is_its_lines_error(
    pytester: pytest.Pytester, listener: tuple[int, list[str]]
) -> None:
    port, hits = listener
    secret = pytester.path / "secret.json"
    secret.write_text('{"description": "TOP-SECRET-CONTENT", "type": "string"}')
    write_suite(
        pytester,
        [
            {
                "llmeval_file": {
                    "structured": {"schema": {"$ref": f"http://127.0.0.1:{port}/header.json"}}
                }
            },
            _sample(
                "http", {"properties": {"name": {"$ref": f"http://127.0.0.1:{port}/name.json"}}}
            ),
            _sample("https", {"$ref": f"https://127.0.0.1:{port}/s.json"}),
            _sample("file", {"properties": {"amount": {"$ref": secret.as_uri()}}}),
            _sample("self", {"$ref": "#"}),
            _sample(
                "cycle",
                {"allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"anyOf": [{"$ref": "#"}]}}},
            ),
            _sample("nowhere", {"$ref": "#/$defs/missing"}),
            _sample(
                "local",
                {
                    "$defs": {"n": {"type": "integer"}},
                    "properties": {"amount": {"$ref": "#/$defs/n"}, "next": {"$ref": "#"}},
                },
            ),
            {
                "id": "plain",
                "question": "q",
                "expected_structured": GOLD,
                "response": json.dumps(GOLD),
            },
        ],
        "ref_eval.jsonl",
    )
    started = time.perf_counter()
    result = pytester.runpytest("-rE", "--llm-report=r.json")
    assert time.perf_counter() - started < 60
    result.assert_outcomes(passed=2, errors=7)
    assert hits == []
    result.stdout.fnmatch_lines_random(
        [
            f"*ref_eval.jsonl:1: file header: field 'llmeval_file.structured.schema': $ref 'http://127.0.0.1:{port}/header.json'"
            " at <schema> is not read: only local references*nothing is fetched*",
            "*ref_eval.jsonl:2: field 'eval_criteria.structured.schema': $ref 'http://*' at properties.name is not read*",
            "*ref_eval.jsonl:3: *$ref 'https://*' at <schema> is not read*",
            "*ref_eval.jsonl:4: *$ref 'file:///*",  # a long path is clipped in the message
            "*ref_eval.jsonl:5: *refers back to itself without reaching into the value*",
            "*ref_eval.jsonl:6: *refers back to itself without reaching into the value*",
            "*ref_eval.jsonl:7: *$ref '#/$defs/missing' at <schema> cannot be resolved*",
        ]
    )
    assert "TOP-SECRET-CONTENT" not in result.stdout.str()
    assert "TOP-SECRET-CONTENT" not in (pytester.path / "r.json").read_text()


def test_an_assertion_helper_with_a_remote_ref_fetches_nothing(
    listener: tuple[int, list[str]],
) -> None:
    port, hits = listener
    from pytest_llmeval.errors import GraderError

    with pytest.raises(GraderError, match="only local references"):
        structured_match(json.dumps(GOLD), GOLD, schema={"$ref": f"http://127.0.0.1:{port}/s.json"})
    assert hits == []


def test_a_pattern_that_backtracks_grades_in_linear_time(pytester: pytest.Pytester) -> None:
    evil = "a" * 33 + "!"
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": "^(a+)+$"}},
        "patternProperties": {"^(b+)+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    write_suite(
        pytester,
        [
            {"llmeval_file": {"structured": {"schema": schema}}},
            {
                "id": "value",
                "question": "q",
                "expected_structured": {"name": "aaa"},
                "response": json.dumps({"name": evil}),
            },
            {
                "id": "key",
                "question": "q",
                "expected_structured": {"name": "aaa"},
                "response": json.dumps({"name": "aaa", "b" * 33 + "!": 1}),
            },
            {
                "id": "fine",
                "question": "q",
                "expected_structured": {"name": "aaa"},
                "response": json.dumps({"name": "aaa", "bb": 2}),
            },
        ],
        "p_eval.jsonl",
    )
    started = time.perf_counter()
    result = pytester.runpytest()
    assert time.perf_counter() - started < 30  # minutes in a backtracking engine
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*schema violations: name: 'aaaaaaaaa*!' does not match '^(a+)+$'*",
            "*schema violations: <root>: 'bbbbbbbb*!' does not match any of the regexes: '^(b+)+$'*",
        ]
    )


def test_a_pattern_re2_cannot_run_is_one_located_error(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "ok",
                "question": "q",
                "expected_structured": {"a": "x"},
                "response": '{"a": "x"}',
            },
            {
                "id": "lookahead",
                "question": "q",
                "expected_structured": {"a": "x"},
                "response": '{"a": "x"}',
                "eval_criteria": {
                    "structured": {"schema": {"properties": {"a": {"pattern": "(?=x)x"}}}}
                },
            },
            {
                "id": "backref",
                "question": "q",
                "expected_structured": {"a": "x"},
                "response": '{"a": "x"}',
                "eval_criteria": {"structured": {"schema": {"patternProperties": {"(a)\\1": {}}}}},
            },
        ],
        "re_eval.jsonl",
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines_random(
        [
            "*re_eval.jsonl:2: field 'eval_criteria.structured.schema': pattern '(?=x)x' cannot run in RE2*(at properties.a.pattern)*",
            "*re_eval.jsonl:3: field 'eval_criteria.structured.schema': pattern '(a)\\\\1' cannot run in RE2*",
        ]
    )


def test_schema_problems_are_found_without_running_the_schema() -> None:
    assert "is not read" in (schema_problem({"$ref": "file:///dev/zero"}) or "")
    assert schema_problem({"$ref": "#"}) is not None
    assert (
        schema_problem({"type": "object", "properties": {"child": {"$ref": "#"}}}) is None
    )  # a tree: fine
    assert (
        schema_problem(
            {"oneOf": [{"$ref": "#/$defs/x"}], "$defs": {"x": {"not": {"$ref": "#/oneOf/0"}}}}
        )
        is not None
    )


def test_a_header_schema_is_checked_once_per_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uuid

    import jsonschema

    checked: list[Any] = []
    original = jsonschema.Draft202012Validator.check_schema.__func__  # type: ignore[attr-defined]

    def counting(cls: Any, schema: Any, *args: Any, **kwargs: Any) -> None:
        checked.append(schema)
        original(cls, schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", classmethod(counting))
    # a fresh schema (the description), so no earlier test has it checked already
    schema = {
        "description": uuid.uuid4().hex,
        "type": "object",
        "properties": {f"f{i}": {"type": "string", "pattern": f"^x{i}"} for i in range(50)},
    }
    samples = [
        {
            "id": f"s{i}",
            "question": "q",
            "expected_structured": {"f1": "x1"},
            "response": '{"f1": "x1"}',
        }
        for i in range(40)
    ]
    write_suite(
        pytester, [{"llmeval_file": {"structured": {"schema": schema}}}, *samples], "h_eval.jsonl"
    )
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=40)
    assert sum(1 for s in checked if s == schema) == 1
