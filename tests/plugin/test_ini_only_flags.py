"""Flags are for what changes per invocation; suite policy is ini-only, and its old flag is one usage error."""

from __future__ import annotations

import re

import pytest

from pytest_llmeval.options import OPTIONS, OPTIONS_BY_NAME

pytest_plugins = ["pytester"]

GOLD = '{"id": "a", "question": "2+2?", "expected": "4", "response": "4", "eval_criteria": {"accuracy": "exact"}}\n'

# Ini-only settings: their ini keys set them; the flag on the command line is a usage error.
INI_ONLY = [
    "gold_files",
    "errors",
    "weights",
    "tiers",
    "length_bands",
    "accuracy",
    "coarser_dates",
    "review_passes",
    "citation_patterns",
    "worst",
    "review_fraction",
    "review_seed",
    "api_key_env",
    "temperature",
    "max_tokens",
    "seed",
    "timeout",
    "extra_body",
    "rpm",
    "max_retries",
    "prices",
    "numeric_extractor",
    "judge_base_url",
    "judge_api_key_env",
    "judge_temperature",
    "judge_max_tokens",
    "judge_timeout",
    "judge_extra_body",
    "reference_metrics",
    "embedding_model",
    "history_keep",
    # never flags: batch details of a suite (a flag given anyway gets the same message)
    "batch_price",
    "batch_poll",
    "batch_wait",
]


def test_at_most_30_llm_flags(pytester: pytest.Pytester) -> None:
    help_text = pytester.runpytest("--help").stdout.str()
    shown = set(re.findall(r"^  (--llm-[a-z-]+)", help_text, flags=re.M))
    assert shown == {spec.flag for spec in OPTIONS if spec.cli}
    assert len(shown) <= 30
    assert {spec.name for spec in OPTIONS if not spec.cli} == {"llm_" + name for name in INI_ONLY}


@pytest.mark.parametrize("name", INI_ONLY)
def test_a_removed_flag_is_one_usage_error_naming_its_ini_key(
    pytester: pytest.Pytester, name: str
) -> None:
    spec = OPTIONS_BY_NAME["llm_" + name]
    pytester.makefile(".jsonl", qa_eval=GOLD)
    is_switch = spec.default is False
    result = pytester.runpytest(spec.flag) if is_switch else pytester.runpytest(f"{spec.flag}=3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    value = "true" if is_switch else "3"
    assert result.stderr.lines[0] == (
        f"ERROR: {spec.flag} is not a command-line flag: set llm_{name} in the ini file "
        f"(pytest.ini or [tool.pytest.ini_options]), or for one run: -o llm_{name}={value}"
    )
    assert [line for line in result.stderr.lines if line.strip()] == result.stderr.lines[:1]
    assert "passed" not in result.stdout.str()


@pytest.mark.parametrize("extra", [(), ("-n", "2")], ids=["plain", "xdist"])
def test_the_error_holds_in_addopts_under_xdist(
    pytester: pytest.Pytester, extra: tuple[str, ...]
) -> None:
    pytest.importorskip("xdist")
    pytester.makefile(".jsonl", qa_eval=GOLD)
    pytester.makeini("[pytest]\naddopts = --llm-worst 3\n")
    result = pytester.runpytest_subprocess(*extra)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --llm-worst is not a command-line flag: *-o llm_worst=3"])


def test_the_ini_key_and_dash_o_still_set_a_removed_flag(pytester: pytest.Pytester) -> None:
    pytester.makefile(".jsonl", qa_eval=GOLD.replace('"response": "4"', '"response": "5"'))
    pytester.makeini("[pytest]\nllm_tiers = 0.9,0.75\n")
    pytester.runpytest("--llm-report=r.json", "-o", "llm_weights=accuracy=1").assert_outcomes(
        failed=1
    )
    bad = pytester.runpytest("-o", "llm_tiers=0.5,0.9")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: ini llm_tiers='0.5,0.9': need 0 <= acceptable <= pass <= 1*"])
