"""Answer sources (hook, skip), user graders, hand-written tests with helpers, llm_sample, Ctrl-C."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import (
    LLMEvalAssertionError,
    assert_length,
    assert_must_include,
    length_score,
    must_include,
)
from tests.conftest import EXACT, run_interrupted_at_s2, write_suite


def test_generate_hook_answers_samples_without_response(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "hooked",
                "question": "Capital of Norway?",
                "expected": "Oslo",
                "eval_criteria": EXACT,
            },
            {
                "id": "recorded",
                "question": "Capital of Sweden?",
                "expected": "Stockholm",
                "response": "Stockholm",
                "eval_criteria": EXACT,
            },
        ],
    )
    pytester.makeconftest(
        """
        calls = []
        def pytest_llmeval_generate(sample, config):
            calls.append(sample.id)
            return {"Capital of Norway?": "Oslo"}[sample.question]
        """
    )
    result = pytester.runpytest(*plugin_args)
    result.assert_outcomes(passed=2)


def test_sample_without_any_answer_is_skipped_naming_both_sources(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester, [{"id": "orphan", "question": "q", "expected": "a", "eval_criteria": EXACT}]
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*no answer for sample 'orphan': it has no 'response' field and no pytest_llmeval_generate hook returned one*"
        ]
    )


def test_user_grader_from_hook_is_selectable(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "yes",
                "question": "q",
                "expected": "Yes",
                "response": "Yes, it is.",
                "eval_criteria": {"accuracy": "starts_with", "weights": {"length": 0}},
            },
            {
                "id": "no",
                "question": "q",
                "expected": "Yes",
                "response": "No.",
                "eval_criteria": {"accuracy": "starts_with", "weights": {"length": 0}},
            },
        ],
    )
    pytester.makeconftest(
        """
        from pytest_llmeval import MetricResult

        def starts_with(ctx):
            ok = ctx.response.startswith(ctx.expected)
            return MetricResult(metric="starts_with", passed=ok, score=float(ok), explanation=f"starts with {ctx.expected!r}: {ok}")

        def pytest_llmeval_graders(config):
            return {"starts_with": starts_with}
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*accuracy*0.000*starts_with: starts with 'Yes': False*"])


def test_grader_exception_is_an_error_not_a_fail(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "boom",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": {"accuracy": "broken"},
            }
        ],
    )
    pytester.makeconftest(
        """
        from pytest_llmeval.errors import GraderError

        def broken(ctx):
            raise GraderError("judge replied with invalid JSON twice")

        def pytest_llmeval_graders(config):
            return {"broken": broken}
        """
    )
    result = pytester.runpytest("--llm-report=r.json")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*qa_eval.jsonl:1: sample 'boom': GraderError: judge replied with invalid JSON twice*"]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["sample_results"][0]["status"] == "error"
    assert "invalid JSON twice" in report["sample_results"][0]["reason"]


def test_sample_graded_hook_receives_the_record(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [{"id": "s", "question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT}],
    )
    pytester.makeconftest(
        """
        def pytest_llmeval_sample_graded(item, record):
            print(f"GRADED {record['sample_id']} {record['status']} {record['scores']['overall']}")
        """
    )
    pytester.runpytest("-s").stdout.fnmatch_lines(["*GRADED s pass 1.0*"])


def test_helpers_results_and_messages() -> None:
    result = must_include(
        "Merverdiavgift (MVA) er en avgift på omsetning av varer og tjenester i Norge.",
        ["mva", "OMSETNING", "tjenester", "Næring"],
    )
    assert result.found == ["mva", "OMSETNING", "tjenester"]
    assert result.missing == ["Næring"]
    assert result.score == 0.75
    assert not result.passed
    with pytest.raises(
        LLMEvalAssertionError,
        match=r"missing 1 of 2 required phrases: 'næring'; found 'MERVERDIAVGIFT'",
    ) as info:
        assert_must_include(
            result_text := "Avgiften på omsetning heter merverdiavgift.",
            ["MERVERDIAVGIFT", "næring"],
        )
    assert info.value.result.found == ["MERVERDIAVGIFT"]
    assert "merverdiavgift" in result_text
    assert must_include("ÆØÅ-regelen gjelder", ["æøå-regelen"]).passed
    assert length_score("word " * 120).score == 1.0
    assert length_score("word " * 60).score == 0.8
    assert length_score("word " * 20).score == 0.5
    assert length_score("word " * 120, max_tokens=100).score == 0.5
    with pytest.raises(LLMEvalAssertionError, match="120 tokens is over max_tokens=100"):
        assert_length("word " * 120, max_tokens=100)
    assert assert_length("two words", max_tokens=5).tokens == 2


def test_hand_written_tests_feed_the_summary_and_junit(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    pytester.makepyfile(
        """
        from pytest_llmeval import assert_must_include, assert_length

        def test_glossary():
            answer = "Merverdiavgift er en avgift på omsetning av varer og tjenester."
            assert_must_include(answer, ["merverdiavgift", "omsetning"])
            assert_length(answer, max_tokens=50)

        def test_missing_word():
            assert_must_include("Avgift på omsetning.", ["fradrag"])

        def test_plain():
            assert 1 + 1 == 2
        """
    )
    result = pytester.runpytest("--junitxml=j.xml", "--llm-report=r.json", *plugin_args)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*LLMEvalAssertionError: keywords failed (score 0.000): missing 1 of 1 required phrases: 'fradrag'*",
            "*llmeval summary*",
            "assertion helpers: 2 test(s), 1 passed, 1 failed (each on its own threshold; *",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["sample_results"] == []
    assert report["helpers"] == {"total": 2, "passed": 1, "failed": 1}
    by_id = {s["sample_id"].split("::")[-1]: s for s in report["helper_results"]}
    assert set(by_id) == {"test_glossary", "test_missing_word"}
    assert by_id["test_glossary"]["metrics"] == {"keywords": 1.0, "length": 1.0}
    assert by_id["test_missing_word"]["status"] == "failed"
    junit = (pytester.path / "j.xml").read_text()
    assert 'name="llmeval_keywords" value="1.0000"' in junit


def test_helper_results_are_shown_apart_from_graded_samples(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    # A helper passing on its own low threshold (score 0.25) must not read as a pass tier
    # beside a mean overall of 0.25: it is counted apart, and the gold tally stays its own.
    write_suite(
        pytester,
        [
            {
                "id": "oslo",
                "question": "Capital of Norway?",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            }
        ],
    )
    pytester.makepyfile(
        """
        from pytest_llmeval import assert_retrieval

        def test_low_but_enough():
            result = assert_retrieval(["x", "y", "z", "a"], ["a"], min_hit_rate=1.0)
            assert result.score < 0.5
        """
    )
    result = pytester.runpytest("--llm-report=r.json", *plugin_args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "samples: 1 graded, 0 error(s) | pass 1  acceptable 0  fail 0  error 0",
            "pass rate: 100.0% (1 of 1 in the pass tier*",
            "mean overall 1.000 | accuracy 1.000*",
            "assertion helpers: 1 test(s), 1 passed, 0 failed*",
        ]
    )
    assert "by task" not in result.stdout.str()  # no 'assertions' group mixed into the table
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["aggregate_metrics"]["overall_score"] == 1.0
    assert [s["sample_id"] for s in report["sample_results"]] == ["oslo"]
    helper = report["helper_results"][0]
    assert helper["status"] == "passed"
    assert helper["metrics"]["retrieval"] < 0.5


def test_llm_sample_fixture_parametrizes_over_a_gold_file(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "oslo",
                "question": "Capital of Norway?",
                "expected": "Oslo",
                "response": "The capital is Oslo.",
            },
            {
                "id": "bergen",
                "question": "Second city?",
                "expected": "Bergen",
                "response": "Trondheim",
            },
        ],
        name="gold/cities.jsonl",
    )
    pytester.makepyfile(
        """
        import pytest
        from pytest_llmeval import assert_must_include

        @pytest.mark.llmeval_gold("gold/cities.jsonl")
        def test_city(llm_sample):
            assert_must_include(llm_sample.answer, [llm_sample.expected])
        """
    )
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines_random(["*test_city?oslo? PASSED*", "*test_city?bergen? FAILED*"])


def test_ctrl_c_still_writes_an_incomplete_report(pytester: pytest.Pytester) -> None:
    result = run_interrupted_at_s2(pytester, "--llm-report=r.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # The terminal says so as plainly as the JSON does.
    result.stdout.fnmatch_lines(
        [
            "*llmeval summary*",
            "INCOMPLETE run: interrupted (Ctrl-C or SIGTERM); these figures cover only the 2 result(s) recorded of 4 collected test(s)",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["metadata"]["incomplete"] is True
    assert [s["sample_id"] for s in report["sample_results"]] == ["s0", "s1"]


def test_help_lists_every_option_in_the_llmeval_group(pytester: pytest.Pytester) -> None:
    from pytest_llmeval.options import OPTIONS

    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        ["LLM evaluation (pytest-llmeval):", "*--llm-min-pass-rate=LLM_MIN_PASS_RATE*"]
    )
    text = result.stdout.str()
    for spec in OPTIONS:
        assert (spec.flag in text) is spec.cli  # ini-only settings have no flag in the help
        assert spec.name in text  # the ini key
