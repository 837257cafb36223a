"""Gold files become items: formats, ids, bad lines, BOM, globs."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_suite

EXACT = {"accuracy": "exact", "weights": {"length": 0}}


def test_flat_and_gold_layer_formats_each_line_one_item(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "flat",
                "question": "Capital of Norway?",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            },
            {
                "messages": [
                    {"role": "system", "content": "Svar kort."},
                    {"role": "user", "content": "Hva er hovedstaden i Norge?"},
                    {"role": "assistant", "content": "Oslo"},
                ],
                "metadata": {"domain": "geo", "task": "qa", "locale": "nb-NO", "split": "test"},
                "response": "Oslo",
                "eval_criteria": EXACT,
            },
        ],
    )
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(
        ["qa_eval.jsonl::flat", "qa_eval.jsonl::line2", "2 tests collected*"]
    )
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)


def test_bad_lines_are_error_items_and_the_rest_still_runs(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    good = {"question": "q", "expected": "yes", "response": "yes", "eval_criteria": EXACT}
    write_suite(
        pytester,
        [
            {"id": "a", **good},
            '{"id": "broken", "question": ',
            {"id": "b", "question": "no expected field"},
            {
                "id": "c",
                "question": "q",
                "expected": "x",
                "eval_criteria": {"must_include": "not-a-list"},
            },
            {"id": "a", **good},
            {"id": "d", **good},
        ],
    )
    result = pytester.runpytest("-rE", *plugin_args)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == 2
    assert outcomes["errors"] == 4
    result.stdout.fnmatch_lines_random(
        [
            "*qa_eval.jsonl:2: invalid JSON at column*",
            "*qa_eval.jsonl:3: field 'expected' missing*",
            "*qa_eval.jsonl:4: field 'eval_criteria.must_include': 'not-a-list' is not of type 'array'*",
            "*qa_eval.jsonl:5: field 'id': duplicate id 'a' (first on line 1)*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_bom_and_blank_lines_are_fine_and_ids_fall_back_to_line_numbers(
    pytester: pytest.Pytester,
) -> None:
    text = "\n".join(
        [
            json.dumps({"question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT}),
            "",
            "   ",
            json.dumps({"question": "q", "expected": "b", "response": "b", "eval_criteria": EXACT}),
        ]
    )
    (pytester.path / "bom_eval.jsonl").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(["bom_eval.jsonl::line1", "bom_eval.jsonl::line4"])
    pytester.runpytest().assert_outcomes(passed=2)


def test_ini_glob_selects_gold_files(pytester: pytest.Pytester) -> None:
    record = {"question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT}
    write_suite(pytester, [record], name="default_eval.jsonl")
    write_suite(pytester, [record], name="other.llmeval.jsonl")
    write_suite(pytester, [record], name="gold/custom.jsonl")
    write_suite(pytester, [record], name="notes.jsonl")
    pytester.runpytest("--co", "-q").stdout.fnmatch_lines(["*2 tests collected*"])
    pytester.makeini("[pytest]\nllm_gold_files = custom.jsonl\n")
    result = pytester.runpytest("--co", "-q")
    result.stdout.fnmatch_lines(["gold/custom.jsonl::line1", "*1 test collected*"])


def test_collection_is_identical_across_runs_and_xdist(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": EXACT,
            }
            for i in range(30)
        ],
    )
    first = pytester.runpytest("--co", "-q").stdout.lines
    second = pytester.runpytest("--co", "-q").stdout.lines
    assert [line for line in first if "::" in line] == [line for line in second if "::" in line]
    result = pytester.runpytest("-n", "2")
    result.assert_outcomes(passed=30)


def test_file_config_line_sets_defaults_and_must_come_first(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"accuracy": "exact", "weights": {"length": 0}}},
            {"id": "ok", "question": "q", "expected": "Oslo", "response": "oslo"},
            {"llmeval_file": {"accuracy": "fuzzy"}},
        ],
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*qa_eval.jsonl:3: 'llmeval_file' must come before the first sample*"]
    )


def test_unknown_keys_are_located_errors_with_the_nearest_valid_key(
    pytester: pytest.Pytester,
) -> None:
    good = {"question": "q", "expected": "Oslo", "response": "Oslo"}
    write_suite(
        pytester,
        [
            {"id": "typo-top", **good, "eval_critera": {"must_include": ["Oslo"]}},
            {"id": "typo-inner", **good, "eval_criteria": {"must_incude": ["Oslo"]}},
            {"id": "unknown-inner", **good, "eval_criteria": {"frobnicate": 1}},
            {"id": "wrong-level", **good, "must_include": ["Oslo"]},
            {"id": "bands-typo", **good, "eval_criteria": {"length_bands": {"idael": [1, 5]}}},
            # metadata is free-form: any key is fine there.
            {
                "id": "free-metadata",
                **good,
                "metadata": {"anything": {"nested": 1}, "note": "x"},
                "eval_criteria": EXACT,
            },
        ],
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=1, errors=5)
    result.stdout.fnmatch_lines_random(
        [
            "qa_eval.jsonl:1: field 'eval_critera': unknown key; did you mean 'eval_criteria'?",
            "qa_eval.jsonl:2: field 'eval_criteria.must_incude': unknown key; did you mean 'eval_criteria.must_include'?",
            "qa_eval.jsonl:3: field 'eval_criteria.frobnicate': unknown key (valid in eval_criteria: accuracy, *must_include*",
            "qa_eval.jsonl:4: field 'must_include': unknown key; did you mean 'eval_criteria.must_include'?",
            "qa_eval.jsonl:5: field 'eval_criteria.length_bands.idael': unknown key; did you mean *ideal'?",
        ]
    )


@pytest.mark.parametrize(
    ("tiers", "problem"),
    [
        ([0.5, 0.9], "need 0 <= acceptable <= pass <= 1, got pass 0.5, acceptable 0.9"),
        ([1.5, 0.9], "need 0 <= acceptable <= pass <= 1, got pass 1.5, acceptable 0.9"),
        ([0.9, -0.1], "need 0 <= acceptable <= pass <= 1, got pass 0.9, acceptable -0.1"),
        ([0, 0], "the pass cut-off must be above 0*"),
    ],
)
def test_sample_tiers_follow_the_llm_tiers_rule(
    pytester: pytest.Pytester, tiers: list[float], problem: str
) -> None:
    good = {"question": "q", "expected": "Oslo", "response": "Oslo", "eval_criteria": EXACT}
    write_suite(
        pytester,
        [{"id": "ok", **good}, {"id": "bad", **good, "eval_criteria": {**EXACT, "tiers": tiers}}],
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=1, errors=1)
    expected = f"qa_eval.jsonl:2: field 'eval_criteria.tiers': {tiers!r}: {problem.rstrip('*')}"
    assert expected in result.stdout.str()
    # The same cut-offs on the command line are rejected by the same rule (a usage error).
    cli = pytester.runpytest("-o", f"llm_tiers={tiers[0]},{tiers[1]}")
    assert cli.ret == pytest.ExitCode.USAGE_ERROR
    assert problem.rstrip("*") in cli.stderr.str()


def test_file_header_typos_and_tiers_are_located_errors_too(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "llmeval_file": {
                    "must_incude": ["Oslo"],
                    "tiers": [0.5, 0.9],
                    "weights": {"length": 0},
                }
            },
            {
                "id": "a",
                "question": "q",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": {"accuracy": "exact"},
            },
        ],
    )
    result = pytester.runpytest("-rE")
    result.assert_outcomes(passed=1, errors=1)  # the header's good settings still apply
    out = result.stdout.str()
    assert (
        "field 'llmeval_file.must_incude': unknown key; did you mean 'llmeval_file.must_include'?"
        in out
    )
    assert "field 'llmeval_file.tiers': [0.5, 0.9]: need 0 <= acceptable <= pass <= 1" in out


JSONSCHEMA_PROBE = """
import sys


def pytest_unconfigure(config):
    print("JSONSCHEMA-LOADED", "jsonschema" in sys.modules)
"""


@pytest.mark.parametrize("bad_line", [False, True], ids=["valid-lines", "one-bad-line"])
def test_valid_lines_are_checked_without_jsonschema_and_a_bad_one_still_names_its_field(
    pytester: pytest.Pytester, bad_line: bool
) -> None:
    # A valid line is checked by a predicate built once from the schema (microseconds); only a
    # bad line goes to jsonschema, for the located message.
    records: list[dict[str, object]] = [
        {
            "id": f"s{i}",
            "question": "q",
            "expected": "yes",
            "response": "yes",
            "eval_criteria": EXACT,
        }
        for i in range(3)
    ]
    if bad_line:
        records.append(
            {
                "id": "c",
                "question": "q",
                "expected": "x",
                "eval_criteria": {"must_include": "not-a-list"},
            }
        )
    write_suite(pytester, records)
    pytester.makeconftest(JSONSCHEMA_PROBE)
    result = pytester.runpytest_subprocess("-rE", "-p", "no:xdist")
    result.assert_outcomes(passed=3, errors=int(bad_line))
    result.stdout.fnmatch_lines([f"JSONSCHEMA-LOADED {bad_line}"])
    if bad_line:
        result.stdout.fnmatch_lines(
            [
                "*qa_eval.jsonl:4: field 'eval_criteria.must_include': 'not-a-list' is not of type 'array'*"
            ]
        )
