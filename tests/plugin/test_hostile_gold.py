"""Hostile gold files: a bad line is one located error, the rest of the file still grades."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_suite

EXACT = {"accuracy": "exact", "weights": {"length": 0}}
GOOD = {"question": "q", "expected": "yes", "response": "yes", "eval_criteria": EXACT}


BAD_LINES = {
    "nested-1000": (
        '{"id": "deep", "metadata": {"x": ' + "[" * 1000 + "]" * 1000 + "}}",
        "nested more than 64 levels deep",
    ),
    "nested-100k-unclosed": (
        '{"id": "deep", "metadata": {"x": ' + "[" * 100_000,
        "nested more than 64 levels deep",
    ),
    "int-5000-digits": (
        '{"id": "big", "question": "q", "expected": ' + "9" * 5000 + "}",
        "integer of 5000 digits is out of range (at most 300)",
    ),
    "int-400-digits": (
        '{"id": "big", "question": "q", "expected": ' + "9" * 400 + "}",
        "integer of 400 digits is out of range (at most 300)",
    ),
    "nan": ('{"id": "nan", "question": "q", "expected": NaN}', "NaN is not a JSON number"),
    "1e999": ('{"id": "inf", "question": "q", "expected": 1e999}', "number 1e999 is out of range"),
}


def test_a_line_the_json_reader_cannot_hold_is_one_located_error(pytester: pytest.Pytester) -> None:
    lines: list[dict[str, object] | str] = []
    for i, (line, _) in enumerate(BAD_LINES.values()):
        lines += [{"id": f"good{i}", **GOOD}, line]
    write_suite(pytester, [*lines, {"id": "last", **GOOD}])
    write_suite(pytester, [{"id": "c", **GOOD}], name="other_eval.jsonl")
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=len(BAD_LINES) + 2, errors=len(BAD_LINES))
    result.stdout.fnmatch_lines_random(
        [
            f"*qa_eval.jsonl:{2 * i + 2}: invalid JSON*{problem}*"
            for i, (_, problem) in enumerate(BAD_LINES.values())
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_unicode_line_separators_inside_strings_do_not_split_lines(
    pytester: pytest.Pytester,
) -> None:
    records = [
        {
            "id": "seps",
            "question": "a\u2028b\u2029c\u0085d",
            "expected": "yes",
            "response": "yes",
            "eval_criteria": EXACT,
        },
        '{"id": "broken", ',
        {"id": "last", **GOOD},
    ]
    write_suite(pytester, records)
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=2, errors=1)
    # Line numbers after the separators are still right.
    result.stdout.fnmatch_lines(["*qa_eval.jsonl:2: invalid JSON*"])
    pytester.runpytest("--co", "-q").stdout.fnmatch_lines(
        ["qa_eval.jsonl::seps", "qa_eval.jsonl::last"]
    )


BAD_HEADERS = [
    ({"weights": "bad"}, "'llmeval_file.weights': 'bad' is not of type 'object'"),
    (
        {"weights": {"accuracy": "x"}},
        "'llmeval_file.weights.accuracy': 'x' is not of type 'number'",
    ),
    (
        {"weights": {"accuracy": 1e308}},
        "'llmeval_file.weights.accuracy': 1e+308 is greater than the maximum of 1000",
    ),
    (
        {"length_bands": {"ideal": "short"}},
        "'llmeval_file.length_bands.ideal': 'short' is not of type 'array'",
    ),
    ({"length_bands": 5}, "'llmeval_file.length_bands': 5 is not of type 'object'"),
    (
        {"extractive": {"gold_targets": 5}},
        "'llmeval_file.extractive.gold_targets': 5 is not valid*",
    ),
    (
        {"extractive": {"timeout": 1e9}},
        "'llmeval_file.extractive.timeout': 1000000000.0 is greater than the maximum of 60",
    ),
]


def test_a_bad_file_header_is_one_error_naming_the_header_line_and_field(
    pytester: pytest.Pytester,
) -> None:
    samples = [
        {"id": "a", "question": "q", "expected": "yes", "response": "yes", "eval_criteria": EXACT},
        {"id": "b", "question": "q", "expected": "yes", "response": "no", "eval_criteria": EXACT},
    ]
    for i, (header, _) in enumerate(BAD_HEADERS):
        write_suite(pytester, [{"llmeval_file": header}, *samples], name=f"h{i}_eval.jsonl")
    write_suite(pytester, [{"llmeval_file": "not an object"}, *samples], name="str_eval.jsonl")
    result = pytester.runpytest("-rE")
    result.stdout.fnmatch_lines_random(
        [
            f"*h{i}_eval.jsonl:1: file header: field {field}*"
            for i, (_, field) in enumerate(BAD_HEADERS)
        ]
        + ["*str_eval.jsonl:1: file header: field 'llmeval_file': must be an object, got str*"]
    )
    # One error per file, both samples of every file graded.
    files = len(BAD_HEADERS) + 1
    outcomes = result.parseoutcomes()
    assert outcomes["errors"] == files
    assert outcomes["passed"] + outcomes["failed"] == 2 * files
    assert "Traceback" not in result.stdout.str()
    assert outcomes["passed"] == files


@pytest.mark.parametrize(
    ("expected", "right", "wrong"),
    [
        (2e20, "There are 200000000000000000000.", "There are 20."),
        (0.00005, "The rate is 0.00005.", "The rate is 5."),
        (12, "It is 12.", "It is 13."),
    ],
)
def test_a_json_number_gold_is_that_number(
    pytester: pytest.Pytester, expected: float, right: str, wrong: str
) -> None:
    common = {
        "question": "How many?",
        "expected": expected,
        "eval_criteria": {"weights": {"length": 0, "citation": 0}},
    }
    records = [
        {"id": "right", **common, "response": right},
        {"id": "wrong", **common, "response": wrong},
    ]
    # 1e308 is 1e308, not 308 (answers in scientific notation are the numeric grader's business).
    records.append({"id": "huge", **common, "expected": 1e308, "response": "It is 308."})
    write_suite(pytester, records)
    result = pytester.runpytest("-v", "--llm-report=report.json")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(["*::right PASSED*", "*::wrong FAILED*", "*::huge FAILED*"])
    report = json.loads((pytester.path / "report.json").read_text())
    graders = {s["sample_id"]: s["accuracy_grader"] for s in report["sample_results"]}
    assert graders == {"right": "numeric", "wrong": "numeric", "huge": "numeric"}
    assert "expected 1e308" in result.stdout.str()


def test_hostile_citation_patterns_and_answers_grade_without_hanging(
    pytester: pytest.Pytester,
) -> None:
    cite = {"accuracy": "exact", "weights": {"length": 0}, "citation_required": True}
    write_suite(
        pytester,
        [
            # Catastrophic backtracking under Python's re; linear under RE2.
            {
                "id": "redos",
                "question": "q",
                "expected": "yes",
                "response": "yes " + "a" * 30_000 + "b",
                "eval_criteria": {**cite, "citation_patterns": ["(a+)+$"]},
            },
            # 100,000 unclosed brackets: a backtracking bracket pattern is quadratic here (34 s per sample).
            {
                "id": "brackets",
                "question": "q",
                "expected": "yes",
                "response": "[" * 100_000,
                "eval_criteria": cite,
            },
            {
                "id": "many",
                "question": "q",
                "expected": "yes",
                "response": "yes [1][2]" * 10_000,
                "eval_criteria": cite,
                "contexts": ["a", "b"],
            },
            {
                "id": "backref",
                "question": "q",
                "expected": "yes",
                "response": "yes",
                "eval_criteria": {**cite, "citation_patterns": ["(a)\\1"]},
            },
        ],
    )
    result = pytester.runpytest("-rE", "--llm-report=report.json")
    result.assert_outcomes(failed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*qa_eval.jsonl:4: sample 'backref'*citation pattern '(a)\\\\1' is not a valid regular expression (RE2*"
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text())
    reasons = {
        s["sample_id"]: s["components"]["citation"]["reason"]
        for s in report["sample_results"]
        if "components" in s
    }
    assert "only the first 200 checked" in reasons["many"]
    assert reasons["brackets"].startswith("no citation found")


def test_a_huge_answer_is_graded_on_its_first_characters_and_says_so(
    pytester: pytest.Pytester,
) -> None:
    from pytest_llmeval.rubric import MAX_GRADED_CHARS

    answer = "Oslo. " + "x" * (MAX_GRADED_CHARS + 10)
    write_suite(
        pytester,
        [
            {
                "id": "big",
                "question": "Capital?",
                "expected": "Oslo",
                "response": answer,
                "eval_criteria": {"accuracy": "fuzzy", "weights": {"length": 0}},
            }
        ],
    )
    result = pytester.runpytest("--llm-report=report.json")
    result.assert_outcomes(failed=1)
    sample = json.loads((pytester.path / "report.json").read_text())["sample_results"][0]
    assert (
        f"answer of {len(answer)} characters truncated to its first {MAX_GRADED_CHARS} for grading"
        in sample["components"]["accuracy"]["reason"]
    )


def test_gold_items_leave_no_silent_phase_reports_for_the_failure_summary_to_rescan(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        def pytest_terminal_summary(terminalreporter):
            quiet = terminalreporter.stats.get("", [])
            print("QUIET", sum(r.nodeid.startswith("qa_eval") for r in quiet), sum(r.nodeid.startswith("test_") for r in quiet))
        """
    )
    pytester.makepyfile(test_plain="def test_x():\n    pass\n")
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "yes",
                "response": "no",
                "eval_criteria": EXACT,
            }
            for i in range(5)
        ],
    )
    result = pytester.runpytest("-s")
    result.assert_outcomes(failed=5, passed=1)
    # Ordinary tests keep their setup/teardown reports; gold items drop theirs (nothing to print).
    result.stdout.fnmatch_lines(["QUIET 0 2"])
    result.stdout.fnmatch_lines(["*qa_eval.jsonl:1::s0*", "*graded FAIL*"])
