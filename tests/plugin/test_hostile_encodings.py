"""Encodings and line breaks in gold and ``file:`` predictions files.

A line that is not UTF-8 is one located error (never decoded with replacement characters into
a wrong verdict); U+2028 inside a string and a BOM are text as in gold files; deep nesting and
huge integers in a prediction are one located error; a line over the size cap is refused unread.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXACT, write_suite

GOOD = {"question": "q", "eval_criteria": EXACT}


def test_a_latin1_gold_line_is_one_located_error_and_the_rest_grades(
    pytester: pytest.Pytester,
) -> None:
    good = json.dumps(
        {"id": "ok", "expected": "bokmål", "response": "bokmål", **GOOD}, ensure_ascii=False
    ).encode()
    latin1 = json.dumps(
        {"id": "nb", "expected": "bokmål", "response": "bokmål", **GOOD}, ensure_ascii=False
    ).encode("latin-1")
    (pytester.path / "qa_eval.jsonl").write_bytes(
        good + b"\n" + latin1 + b"\n" + good.replace(b'"ok"', b'"ok2"') + b"\n"
    )
    result = pytester.runpytest("-rE", "--llm-report=r.json")
    result.assert_outcomes(passed=2, errors=1)
    column = latin1.index(b"\xe5") + 1
    result.stdout.fnmatch_lines(
        [
            f"*qa_eval.jsonl:2: not UTF-8 text: byte 0xe5 at column {column} (invalid continuation byte)*"
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert "\ufffd" not in json.dumps(report, ensure_ascii=False)


SMALL_CAP = """
from pytest_llmeval import bounded_json

def pytest_configure(config):
    cap = bounded_json.MAX_LINE_BYTES
    bounded_json.MAX_LINE_BYTES = 1000
    config.add_cleanup(lambda: setattr(bounded_json, "MAX_LINE_BYTES", cap))
"""


def test_a_gold_line_over_the_size_cap_is_refused_unread(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SMALL_CAP)
    big = {"id": "big", "expected": "x", "response": "x", "contexts": ["y" * 5000], **GOOD}
    write_suite(
        pytester,
        [
            {"id": "a", "expected": "x", "response": "x", **GOOD},
            big,
            {"id": "c", "expected": "x", "response": "x", **GOOD},
        ],
    )
    result = pytester.runpytest_subprocess(
        "-rE", "-p", "no:xdist"
    )  # a fresh process reads the conftest's cap
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*qa_eval.jsonl:2: line longer than 1000 bytes (not read)*"])


def _predictions(pytester: pytest.Pytester, lines: list[bytes], *, bom: bool = False) -> None:
    (pytester.path / "preds.jsonl").write_bytes(
        (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + b"\n"
    )


def _line(record: dict[str, object]) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def test_predictions_with_a_bom_and_u2028_inside_strings_read_like_gold_files(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, [{"id": f"s{i}", "expected": "a\u2028b", **GOOD} for i in range(3)])
    _predictions(
        pytester, [_line({"id": f"s{i}", "response": "a\u2028b"}) for i in range(3)], bom=True
    )
    result = pytester.runpytest("--llm-model=file:preds.jsonl")
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK


BAD_PREDICTIONS = {
    "latin-1": (
        '{"id": "s1", "response": "bokm\xe5l"}'.encode("latin-1"),
        "not UTF-8 text: byte 0xe5 at column 31 (invalid continuation byte)",
    ),
    "nested-100k": (
        b'{"id": "s1", "response": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "not JSON: nested more than 64 levels deep: line 1 column ",
    ),
    "nested-200": (
        b'{"id": "s1", "response": "x", "m": ' + b"[" * 200 + b"]" * 200 + b"}",
        "not JSON: nested more than 64 levels deep: line 1 column ",
    ),
    "int-5000": (
        b'{"id": "s1", "response": ' + b"9" * 5000 + b"}",
        "not JSON: integer of 5000 digits is out of range",
    ),
    "no-id": (b'{"response": "x"}', "a prediction needs an 'id' field"),
}


@pytest.mark.parametrize("name", list(BAD_PREDICTIONS))
def test_a_bad_prediction_line_is_one_located_error_and_the_others_answer(
    pytester: pytest.Pytester, name: str
) -> None:
    bad, problem = BAD_PREDICTIONS[name]
    write_suite(pytester, [{"id": f"s{i}", "expected": "ok", **GOOD} for i in range(3)])
    _predictions(
        pytester,
        [_line({"id": "s0", "response": "ok"}), bad, _line({"id": "s2", "response": "ok"})],
    )
    result = pytester.runpytest("--llm-model=file:preds.jsonl", "-rE")
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"*sample 's1': ModelError: *preds.jsonl has no prediction for sample 's1'*"
            f"1 line(s) could not be read, first *preds.jsonl:2: {problem}*"
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str()
