"""Settings: a frozen dataclass with one typed field per option and where each value came from."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from pytest_llmeval.judge.settings import judge_settings
from pytest_llmeval.options import OPTIONS, RecordMode, Settings, Source

pytest_plugins = ["pytester"]


def test_every_option_is_a_typed_field_and_nothing_else_is_read_by_name() -> None:
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    assert {spec.name.removeprefix("llm_") for spec in OPTIONS} <= set(fields)
    hints = typing.get_type_hints(Settings)
    assert all(hints[name] is not typing.Any for name in fields)
    assert "__getattr__" not in vars(Settings)
    with pytest.raises(AttributeError):
        Settings.defaults().no_such_setting  # noqa: B018


def test_frozen_with_defaults_converted_as_ini_values() -> None:
    settings = Settings.defaults(record=RecordMode.NONE)
    assert settings.tiers == (0.9, 0.75)
    assert settings.weights["accuracy"] == 0.5
    assert settings.record is RecordMode.NONE
    assert settings.models == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.tiers = (0.5, 0.4)  # type: ignore[misc]
    with pytest.raises(TypeError, match="unknown settings: llm_retries"):
        Settings.defaults(retries=0)


def test_the_judge_takes_its_own_request_fields_and_falls_back_to_the_model() -> None:
    model = Settings.defaults(timeout=7.0, temperature=0.7, max_tokens=64, judge_max_tokens=300)
    judge = judge_settings(model)
    assert (judge.timeout, judge.temperature, judge.max_tokens, judge.role) == (
        7.0,
        0.0,
        300,
        "judge",
    )
    assert judge_settings(judge) is judge
    assert model.role == "model"


def test_each_value_knows_its_source(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nllm_tiers = 0.8,0.6\nllm_alpha = 0.1\n")
    pytester.makeconftest(
        """
        from pytest_llmeval.run_state import get_session

        def pytest_terminal_summary(config):
            s = get_session(config).settings
            for name in ("tiers", "alpha", "worst", "record", "model"):
                print(f"SOURCE {name}={getattr(s, name)!r} {s.source(name).value}")
        """
    )
    result = pytester.runpytest("-s", "--llm-alpha=0.2", "-o", "llm_worst=2", "--llm-record=none")
    result.stdout.fnmatch_lines_random(
        [
            "SOURCE tiers=(0.8, 0.6) ini",
            "SOURCE alpha=0.2 cli",
            "SOURCE worst=2 ini",
            "SOURCE record=<RecordMode.NONE: 'none'> cli",
            "SOURCE model=None default",
        ]
    )
    assert Settings.defaults().source("alpha") is Source.DEFAULT


def test_a_pass_rate_gate_from_the_ini_file_does_not_fail_a_run_without_gold_samples(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nllm_min_pass_rate = 0.9\n")
    pytester.makepyfile(test_unit="def test_ok():\n    assert True\n")
    pytester.runpytest().assert_outcomes(passed=1)
    assert pytester.runpytest().ret == pytest.ExitCode.OK
    on_cli = pytester.runpytest("--llm-min-pass-rate=0.9")
    assert (
        on_cli.ret != pytest.ExitCode.OK
    )  # asked for on the command line: nothing graded is a failed gate
