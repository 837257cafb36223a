"""Runs against the installed wheel in a fresh venv (see .ci/wheel_smoke.py), never the checkout."""

from __future__ import annotations

import sysconfig
from importlib import metadata, resources
from pathlib import Path

import pytest

import pytest_llmeval

pytest_plugins = ["pytester"]


def test_imported_from_the_installed_wheel() -> None:
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert Path(pytest_llmeval.__file__).resolve().is_relative_to(site_packages)


def test_distribution_name_and_plugin_entry_point() -> None:
    dist = metadata.distribution(pytest_llmeval.DIST_NAME)
    assert dist.version == pytest_llmeval.__version__
    entry_points = [ep for ep in dist.entry_points if ep.group == "pytest11"]
    assert [(ep.name, ep.value) for ep in entry_points] == [("llmeval", "pytest_llmeval.plugin")]


def test_package_data_is_shipped() -> None:
    root = resources.files("pytest_llmeval")
    for part in ("gold_sample.schema.json", "py.typed", "judge/correctness.schema.json", "report/templates/report.html.j2"):
        assert root.joinpath(part).is_file(), part


def test_gold_schema_locates_a_bad_line(pytester: pytest.Pytester) -> None:
    """The shipped JSON schema is what validates gold lines in the installed plugin."""
    pytester.makefile(".jsonl", bad_eval='{"id": "bad", "question": ["q"], "expected": "a", "response": "a"}')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["bad_eval.jsonl:1: field 'question': ['q'] is not of type 'string'"])


def test_plugin_is_active(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("llmeval")
