"""Loading pytest-llmeval in an unrelated pytest run costs almost nothing.

Each test runs a real ``python -m pytest`` in a subprocess on a plain temporary project
(no gold files) where the plugin is active through its entry point. A conftest in that
project prints which heavy modules are loaded when pytest unconfigures. The same run with
``-p no:llmeval`` is the baseline for "prints nothing": any difference is the plugin's.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HEAVY = (
    "torch",
    "sentence_transformers",
    "sympy",
    "openai",
    "numpy",
    "jsonschema",
    "rapidfuzz",
    "math_verify",
    "latex2sympy2_extended",
    "httpx",
    "jinja2",
    "httpx2",
    "lingua",
    "sacrebleu",
    "rouge_score",
)

PROBE_CONFTEST = f"""
import sys

HEAVY = {set(HEAVY)!r}


def pytest_unconfigure(config):
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
    print("STARTUP-PROBE", repr(heavy), config.pluginmanager.hasplugin("llmeval"))
"""

PLAIN_TESTS = """
import pytest


def test_invoice_total_adds_up():
    assert sum([120, 80, 50]) == 250


@pytest.mark.parametrize("rate", [0.25, 0.15, 0.12])
def test_rate_is_a_fraction(rate):
    assert 0 < rate < 1
"""


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    heavy: list[str]
    plugin_active: bool


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(PROBE_CONFTEST, encoding="utf-8")
    (tmp_path / "test_plain.py").write_text(PLAIN_TESTS, encoding="utf-8")
    return tmp_path


def run_pytest(project: Path, *args: str) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LLMEVAL_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__: the project tree must stay as it was
    proc = subprocess.run(
        # pytest-randomly and pytest-html (dev extra) import numpy and jinja2 when they load:
        # measure this plugin, not those.
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:html",
            *args,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    match = re.search(r"^STARTUP-PROBE (\[.*\]) (True|False)$", proc.stdout, re.MULTILINE)
    assert match, f"probe line missing\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return Run(
        proc.returncode,
        proc.stdout,
        proc.stderr,
        ast.literal_eval(match.group(1)),
        match.group(2) == "True",
    )


def _normalise(text: str) -> str:
    text = re.sub(r"STARTUP-PROBE .*", "STARTUP-PROBE", text)
    return re.sub(r"\bin \d+(\.\d+)?s\b", "in Xs", text)


def test_collect_only_imports_nothing_heavy_prints_nothing_creates_nothing(project: Path) -> None:
    before = _files(project)
    with_plugin = run_pytest(project, "--co", "-q")
    without = run_pytest(project, "--co", "-q", "-p", "no:llmeval")
    assert with_plugin.returncode == 0, with_plugin.stdout + with_plugin.stderr
    assert with_plugin.plugin_active
    assert not without.plugin_active
    assert with_plugin.heavy == []
    assert "4 tests collected" in with_plugin.stdout
    assert _normalise(with_plugin.stdout) == _normalise(without.stdout)
    assert _normalise(with_plugin.stderr) == _normalise(without.stderr)
    assert _files(project) == before


def test_plain_run_prints_nothing_and_creates_nothing(project: Path) -> None:
    before = _files(project)
    with_plugin = run_pytest(project, "-q")
    without = run_pytest(project, "-q", "-p", "no:llmeval")
    assert with_plugin.plugin_active
    assert with_plugin.returncode == without.returncode == 0
    # No summary, no gate line, no warning: the output pytest prints without the plugin.
    assert _normalise(with_plugin.stdout) == _normalise(without.stdout)
    assert _normalise(with_plugin.stderr) == _normalise(without.stderr)
    assert "llmeval" not in with_plugin.stdout.lower()
    assert with_plugin.heavy == []
    # No report, no .llmeval_cache, nothing at all.
    assert _files(project) == before


def test_help_shows_the_option_group_without_heavy_imports(project: Path) -> None:
    run = run_pytest(project, "--help")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "LLM evaluation (pytest-llmeval):" in run.stdout
    for flag in ("--llm-min-pass-rate", "--llm-report", "--llm-model", "--llm-judge"):
        assert flag in run.stdout
    assert "llm_gold_files" in run.stdout  # the ini twin is listed too
    assert run.heavy == []


# Modules a run needs only for what it was asked to do: a model (the answers here are in the gold
# file), a baseline or a second model, the numeric grader's LLM extractor.
NOT_ASKED_FOR = (
    "pytest_llmeval.models.service",
    "pytest_llmeval.models.engine",
    "pytest_llmeval.regression.baseline",
    "pytest_llmeval.regression.run_comparison",
    "pytest_llmeval.metrics.numeric.llm_reading",
)
LOADED_PROBE = f"""
import sys


def pytest_unconfigure(config):
    print("LOADED-PROBE", repr(sorted(m for m in {NOT_ASKED_FOR!r} if m in sys.modules)))
    startup_probe(config)
"""


def test_pre_answered_numeric_run_loads_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    # the startup probe under another name, called by this one
    probe = PROBE_CONFTEST.replace("def pytest_unconfigure", "def startup_probe")
    (tmp_path / "conftest.py").write_text(probe + LOADED_PROBE, encoding="utf-8")
    (tmp_path / "figures_eval.jsonl").write_text(
        '{"id": "rev", "question": "Revenue in 2023?", "expected": "$1,200 million", '
        '"response": "Revenue was $1.2 billion.", "eval_criteria": {"accuracy": "numeric"}}\n',
        encoding="utf-8",
    )
    run = run_pytest(tmp_path, "-q")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "llmeval summary" in run.stdout
    match = re.search(r"^LOADED-PROBE (\[.*\])$", run.stdout, re.MULTILINE)
    assert match, run.stdout
    assert ast.literal_eval(match.group(1)) == []
