"""A pass-rate gate over zero graded samples fails, with one line naming the likely causes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXACT, write_suite

NO_ANSWER = [
    {"id": f"s{i}", "question": "q", "expected": "a", "eval_criteria": EXACT} for i in range(3)
]
CAUSES = (
    "llmeval gate FAILED: no sample was graded (3 sample(s) skipped), so --llm-min-pass-rate 80.0% cannot be met; "
    "likely causes: no --llm-model, gold lines without a 'response' field, no pytest_llmeval_generate hook returning answers"
)


@pytest.mark.parametrize("gate_only", [[], ["--llm-gate-only"]], ids=["plain", "gate-only"])
def test_every_sample_skipped_fails_the_gate_with_its_causes(
    pytester: pytest.Pytester, plugin_args: list[str], gate_only: list[str]
) -> None:
    write_suite(pytester, NO_ANSWER)
    result = pytester.runpytest("--llm-min-pass-rate=0.8", *gate_only, *plugin_args)
    result.assert_outcomes(skipped=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([CAUSES])
    assert result.stdout.str().count("llmeval gate") == 1


def test_same_gate_from_the_ini_file(pytester: pytest.Pytester) -> None:
    write_suite(pytester, NO_ANSWER)
    pytester.makeini("[pytest]\nllm_min_pass_rate = 0.8\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([CAUSES])


def test_every_sample_an_error_names_the_errors(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester, ['{"id": "s0", "question": ["not text"], "expected": "a", "response": "a"}']
    )
    result = pytester.runpytest("--llm-min-pass-rate=0.8", "-o", "llm_errors=exclude")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "llmeval gate FAILED: no sample was graded (1 error(s), excluded by -o llm_errors=exclude), so "
            "--llm-min-pass-rate 80.0% cannot be met; likely causes: the errors above *",
        ]
    )


def test_no_gold_sample_at_all_fails_a_gate_asked_for_on_the_command_line(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_unit():\n    pass\n")
    result = pytester.runpytest("--llm-min-pass-rate=0.8")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["llmeval gate FAILED: no sample was graded (no gold sample was collected)*"]
    )
    assert "assertion helpers" not in result.stdout.str()


def test_ini_gate_leaves_a_run_without_gold_samples_alone(pytester: pytest.Pytester) -> None:
    """pyproject's gate must not fail ``pytest tests/unit`` in the same project."""
    pytester.makepyfile("def test_unit():\n    pass\n")
    pytester.makeini("[pytest]\nllm_min_pass_rate = 0.8\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.OK
    assert "llmeval summary" not in result.stdout.str()
    assert "llmeval gate" not in result.stdout.str()


def test_one_graded_sample_is_gated_as_before(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            *NO_ANSWER,
            {"id": "r", "question": "q", "expected": "a", "response": "a", "eval_criteria": EXACT},
        ],
    )
    result = pytester.runpytest("--llm-min-pass-rate=0.8")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["llmeval gate passed: pass rate 100.0% >= 80.0% (1 of 1)"])


def test_collect_only_applies_no_gate(pytester: pytest.Pytester) -> None:
    write_suite(pytester, NO_ANSWER)
    result = pytester.runpytest("--co", "-q", "--llm-min-pass-rate=0.8")
    assert result.ret == pytest.ExitCode.OK
    assert "llmeval gate" not in result.stdout.str()


def test_a_gate_over_nothing_collected_keeps_pytests_exit_5_as_troubleshooting_says(
    pytester: pytest.Pytester,
) -> None:
    result = pytester.runpytest("--llm-min-pass-rate=0.8")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["llmeval gate FAILED: no sample was graded (no gold sample was collected)*"]
    )
    docs = " ".join(
        (Path(__file__).parents[2] / "docs" / "troubleshooting.md")
        .read_text(encoding="utf-8")
        .split()
    )
    assert (
        'pytest\'s own exit 5 ("no tests collected", also a failed CI job) when nothing at all was collected'
        in docs
    )
