"""Shared fixtures for the plugin tests."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

# In-process pytester runs restore sys.modules afterwards. numpy (pulled in by sklearn,
# torch or the embedding model inside an inner run) refuses to be imported twice per
# process, so load it in the outer process before any inner run can. It comes with the test
# tools (scipy), not with the core.
with contextlib.suppress(ImportError):
    import numpy  # noqa: F401  isort: skip


def _load_before_inner_runs() -> None:
    """Import the plugin's public modules and the light libraries its runs use, once per process.

    An in-process run (pytester.runpytest) drops every module it imported first when it ends,
    so the next run imported them again: about 0.1-0.3 s of CPU per run, hundreds of runs. Loaded
    here, they are shared by every run of the process. Nothing heavy is among them (torch,
    sympy, the HTTP clients stay lazy), and import-cost tests run in subprocesses of their own.
    """
    import importlib
    import importlib.util
    import pkgutil

    import pytest_llmeval

    for module in pkgutil.walk_packages(pytest_llmeval.__path__, "pytest_llmeval."):
        if not module.name.rsplit(".", 1)[1].startswith("_"):
            importlib.import_module(module.name)
    for name in ("statistics", "rapidfuzz", "jsonschema", "xdist.dsession"):
        if importlib.util.find_spec(name.split(".")[0]) is not None:
            importlib.import_module(name)


_load_before_inner_runs()


# Inner runs load none of the dev extra's other pytest plugins: pytest-randomly would shuffle them,
# and the rest cost a subprocess or an xdist worker of an inner run a good share of its start
# (hypothesis's alone about 0.45 s of CPU; together a quarter of what a worker spends before
# collecting). A test of the plugin beside one of them opts in with inner_addopts(name).
INNER_BLOCKED = (
    "randomly",
    "hypothesispytest",
    "asyncio",
    "anyio",
    "html",
    "metadata",
    "rerunfailures",
    "timeout",
)
INNER_ADDOPTS = " ".join(f"-p no:{name}" for name in INNER_BLOCKED)


def inner_addopts(*enabled: str) -> str:
    """The inner runs' addopts with the named dev plugins (entry-point names) left on."""
    return " ".join(f"-p no:{name}" for name in INNER_BLOCKED if name not in enabled)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester whose inner runs pin pytest-asyncio's loop scope and run without pytest-randomly.

    Pytester clears PYTEST_ADDOPTS when it starts, so set it afterwards. Overriding the fixture
    (not an autouse fixture) keeps pytester's sys.modules snapshot as late as the test asks for it:
    modules that test fixtures load first (torch, the embedding model) survive the inner runs.
    """
    monkeypatch.setenv("PYTEST_ADDOPTS", INNER_ADDOPTS)
    return pytester


@pytest.fixture(params=[pytest.param([], id="no-xdist"), pytest.param(["-n", "2"], id="xdist-2")])
def plugin_args(request: pytest.FixtureRequest) -> list[str]:
    """Run an integration test without xdist and with two workers."""
    return list(request.param)


def write_suite(
    pytester: pytest.Pytester, records: Iterable[dict[str, Any] | str], name: str = "qa_eval.jsonl"
) -> Path:
    """Write a gold file: dicts become JSON lines, strings are written verbatim."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# The usual criteria of plugin tests: exact match, length not weighed.
EXACT: dict[str, Any] = {"accuracy": "exact", "weights": {"length": 0}}


def run_interrupted_at_s2(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run four samples whose answer source raises KeyboardInterrupt at the third (s2)."""
    write_suite(
        pytester,
        [
            {"id": f"s{i}", "question": "q", "expected": "a", "eval_criteria": EXACT}
            for i in range(4)
        ],
    )
    pytester.makeconftest(
        """
        def pytest_llmeval_generate(sample, config):
            if sample.id == "s2":
                raise KeyboardInterrupt
            return "a"
        """
    )
    return pytester.runpytest_subprocess(*args, "-p", "no:xdist")
