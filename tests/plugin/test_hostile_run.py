"""Runs that end badly still leave a valid, honest report; bad options stop the run up front."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer
from tests.plugin.test_models_plugin import model_args, suite

ROOT = Path(__file__).resolve().parents[2]
EXACT = {"accuracy": "exact", "weights": {"length": 0}}


@pytest.mark.skipif(
    not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals"
)
def test_sigterm_leaves_a_valid_incomplete_report(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pathlib, time

        def pytest_llmeval_generate(sample, config):
            if sample.id == "slow":
                pathlib.Path("started").touch()
                time.sleep(60)
            return sample.question
        """
    )
    write_suite(
        pytester,
        [
            {"id": "fast", "question": "yes", "expected": "yes", "eval_criteria": EXACT},
            {"id": "slow", "question": "yes", "expected": "yes", "eval_criteria": EXACT},
            {"id": "never", "question": "yes", "expected": "yes", "eval_criteria": EXACT},
        ],
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--llm-report=r.json",
        ],
        cwd=pytester.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while (
        not (pytester.path / "started").exists()
        and time.monotonic() < deadline
        and proc.poll() is None
    ):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, output
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["metadata"]["incomplete"] is True
    assert [s["sample_id"] for s in report["sample_results"]] == ["fast"]


def test_a_run_that_did_not_finish_normally_is_marked_incomplete(pytester: pytest.Pytester) -> None:
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
            for i in range(3)
        ],
    )
    pytester.runpytest("-x", "--llm-report=maxfail.json").assert_outcomes(failed=1)
    assert (
        json.loads((pytester.path / "maxfail.json").read_text())["metadata"]["incomplete"] is True
    )

    result = pytester.runpytest("no_such_dir", "--llm-report=usage.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert json.loads((pytester.path / "usage.json").read_text())["metadata"]["incomplete"] is True

    pytester.makeconftest(
        "def pytest_collection_finish(session):\n    raise RuntimeError('boom')\n"
    )
    result = pytester.runpytest("--llm-report=internal.json")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    assert (
        json.loads((pytester.path / "internal.json").read_text())["metadata"]["incomplete"] is True
    )

    pytester.makeconftest("")
    pytester.runpytest("--llm-report=full.json").assert_outcomes(failed=3)
    assert json.loads((pytester.path / "full.json").read_text())["metadata"]["incomplete"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-o", "llm_timeout=nan"), "must be a number of seconds > 0"),
        (("-o", "llm_timeout=0"), "must be a number of seconds > 0"),
        (("-o", "llm_timeout=-1"), "must be a number of seconds > 0"),
        (("--llm-report=adir",), "is a directory"),
        (("-o", "llm_rpm=nan"), "must be a finite number > 0"),
    ],
)
def test_bad_options_are_usage_errors_up_front(
    pytester: pytest.Pytester, args: tuple[str, ...], message: str
) -> None:
    (pytester.path / "adir").mkdir()
    write_suite(
        pytester,
        [
            {
                "id": "a",
                "question": "q",
                "expected": "yes",
                "response": "yes",
                "eval_criteria": EXACT,
            }
        ],
    )
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{args[-1].split('=')[0]}*{message}*"])


def test_xdist_record_off_leaves_no_scratch_folder(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    suite(pytester, n=4)
    run_id = uuid.uuid4().hex  # other runs on this machine use the temp directory too
    result = pytester.runpytest_subprocess(
        *model_args(fake_openai, "--llm-record=off"), "-n", "2", f"--testrunuid={run_id}"
    )
    result.assert_outcomes(passed=4)
    assert len(fake_openai.requests) == 4  # the workers did share the scratch cache
    assert not (Path(tempfile.gettempdir()) / f"pytest-llmeval-{run_id}").exists()


@pytest.mark.parametrize(
    "weights", ["accuracy=inf", "accuracy=nan", "length=1e308", '{"accuracy": -1}']
)
def test_non_finite_or_absurd_ini_weights_are_usage_errors(
    pytester: pytest.Pytester, weights: str
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "a",
                "question": "q",
                "expected": "yes",
                "response": "yes",
                "eval_criteria": EXACT,
            }
        ],
    )
    result = pytester.runpytest("-o", f"llm_weights={weights}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*llm_weights*must be a number from 0 to 1000*"])


def test_the_json_report_is_valid_json_whatever_the_weights(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {"llmeval_file": {"weights": {"accuracy": 1e308, "length": 0}}},
            {
                "id": "a",
                "question": "q",
                "expected": "yes",
                "response": "yes",
                "eval_criteria": {"accuracy": "exact", "weights": {"length": 0}},
            },
            '{"id": "b", "question": "q", "expected": "yes", "response": "no", "eval_criteria": {"weights": {"accuracy": Infinity}}}',
        ],
    )
    result = pytester.runpytest("-rE", "--llm-report=r.json")
    result.assert_outcomes(passed=1, errors=2)
    text = (pytester.path / "r.json").read_text()
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the report"))
    result.stdout.fnmatch_lines_random(
        [
            "*qa_eval.jsonl:1: file header: field 'llmeval_file.weights.accuracy': 1e+308 is greater than the maximum of 1000*",
            "*qa_eval.jsonl:3: invalid JSON: Infinity is not a JSON number*",
        ]
    )
