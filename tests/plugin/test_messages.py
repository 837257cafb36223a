"""What a stranger reads: each message says what is wrong and where, in the user's terms."""

from __future__ import annotations

import pytest

from tests.conftest import write_suite

pytest_plugins = ["pytester"]


def test_an_unknown_key_gets_the_nearest_key_of_any_level_or_another_tools_name(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "a",
                "question": "q",
                "expected": "x",
                "response": "x",
                "eval_criteria": {"tolerence": 0.1},
            },
            {
                "id": "b",
                "question": "q",
                "expected": "x",
                "response": "x",
                "eval_criteria": {"grader": "exact"},
            },
            {
                "id": "c",
                "question": "q",
                "expected": "x",
                "response": "x",
                "eval_criteria": {"frobnicate": 1},
            },
        ],
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "qa_eval.jsonl:1: field 'eval_criteria.tolerence': unknown key; did you mean 'eval_criteria.numeric.tolerance'?",
            "qa_eval.jsonl:2: field 'eval_criteria.grader': unknown key; did you mean 'eval_criteria.accuracy'?",
            "qa_eval.jsonl:3: field 'eval_criteria.frobnicate': unknown key (valid in eval_criteria: accuracy, *",
        ]
    )


def test_a_trailing_comma_is_called_so(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            '{"id": "a", "question": "q", "expected": "x", "response": "x",}',
            '{"id": "b", "question": "q", "expected": ["x",], "response": "x"}',
            '{"id": "c", "question": "q" "expected": "x"}',
        ],
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "qa_eval.jsonl:1: invalid JSON at column 63: a trailing comma before '}' (JSON allows none)",
            "qa_eval.jsonl:2: invalid JSON at column 47: a trailing comma before ']' (JSON allows none)",
            "qa_eval.jsonl:3: invalid JSON at column 29: Expecting ',' delimiter",
        ]
    )


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_an_unanswered_sample_is_skipped_at_its_gold_line(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {"id": "answered", "question": "q", "expected": "x", "response": "x"},
            {"id": "unanswered", "question": "q", "expected": "x"},
        ],
    )
    result = pytester.runpytest("-rs", *xdist)
    assert result.parseoutcomes()["skipped"] == 1
    result.stdout.fnmatch_lines(
        ["SKIPPED [[]1[]] qa_eval.jsonl:2: no answer for sample 'unanswered': *"]
    )
    assert "session.py" not in result.stdout.str()
