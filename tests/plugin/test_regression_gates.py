"""``--llm-gate-only``: failed samples are reported, the gates decide the exit status."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.regression_helpers import MODEL, ids, load, make_suite, run, set_wrong


def test_gate_only_lets_the_pass_rate_gate_decide(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 60)
    set_wrong(pytester, ids(60)[:6])  # 54 of 60 pass: 90%
    result = run(
        pytester,
        MODEL,
        "--llm-gate-only",
        "--llm-min-pass-rate=0.85",
        "--junitxml=j.xml",
        "--llm-report=r.json",
        *plugin_args,
    )
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 54, "failed": 6}  # still reported as failures
    result.stdout.fnmatch_lines(
        [
            "llmeval gate passed: pass rate 90.0% >= 85.0% (54 of 60)",
            "llmeval gate-only: 6 failed sample(s) reported, the gates decide the exit status",
        ]
    )
    suite = ET.parse(pytester.path / "j.xml").getroot()
    assert sum(int(s.get("failures", 0)) for s in suite.iter("testsuite")) == 6
    report = load(pytester, "r.json")
    assert len(report["failed_samples"]) == 6
    assert report["gate_only"] is True
    assert report["gates"] == [
        {
            "name": "min_pass_rate",
            "passed": True,
            "message": "llmeval gate passed: pass rate 90.0% >= 85.0% (54 of 60)",
        }
    ]

    result = run(pytester, MODEL, "--llm-min-pass-rate=0.85", *plugin_args)
    assert (
        result.ret == pytest.ExitCode.TESTS_FAILED
    )  # without gate-only each failed sample fails the run

    set_wrong(pytester, ids(60)[:12])  # 48 of 60: 80%
    result = run(pytester, MODEL, "--llm-gate-only", "--llm-min-pass-rate=0.85", *plugin_args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["llmeval gate FAILED: pass rate 80.0% is below --llm-min-pass-rate 85.0%*"]
    )


def test_gate_only_from_ini_and_without_a_gate(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 5)
    set_wrong(pytester, ["s01"])
    pytester.makeini("[pytest]\nllm_gate_only = true\n")
    assert run(pytester, MODEL).ret == pytest.ExitCode.OK  # no gate set: nothing fails the run
    pytester.makeini("[pytest]\nllm_gate_only = false\n")
    assert run(pytester, MODEL).ret == pytest.ExitCode.TESTS_FAILED
    pytester.makeini("[pytest]\nllm_gate_only = maybe\n")
    result = run(pytester, MODEL)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini llm_gate_only*must be true or false*"])


def test_gate_only_never_masks_errors_or_hand_written_tests(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    path = make_suite(pytester, 6)
    set_wrong(pytester, ["s01"])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "broken"\n')  # a bad line: an error item
    result = run(pytester, MODEL, "--llm-gate-only", "-o", "llm_errors=exclude", *plugin_args)
    assert result.parseoutcomes() == {"passed": 5, "failed": 1, "errors": 1}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["llmeval gate-only: 1 failure(s) that are not graded samples*still fail the run"]
    )

    path.write_text("\n".join(path.read_text().splitlines()[:-1]) + "\n")
    pytester.makepyfile(test_app="def test_app():\n    assert 1 == 2\n")
    result = run(pytester, MODEL, "--llm-gate-only", *plugin_args)
    assert result.parseoutcomes() == {"passed": 5, "failed": 2}
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_gate_only_keeps_collection_errors(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    set_wrong(pytester, ["s01"])
    pytester.makepyfile(test_broken="import not_a_module_anywhere\n")
    result = run(pytester, MODEL, "--llm-gate-only", "--continue-on-collection-errors")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
