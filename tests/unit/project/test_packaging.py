"""The distribution's own name everywhere an install line is printed, and package data in the wheel.

The wheel itself is built, installed and run by ``.ci/wheel_smoke.py`` (``make wheel-smoke``);
these checks are the cheap part that runs with every ``make test``.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

import pytest_llmeval
from pytest_llmeval.errors import MissingExtraError, install_hint

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "pytest_llmeval"
tomllib = pytest.importorskip("tomllib")


def project() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_distribution_is_not_the_unrelated_pytest_llmeval_on_pypi() -> None:
    meta = project()
    assert meta["project"]["name"] == pytest_llmeval.DIST_NAME == "pytest-llmeval-gold"
    # the import package and the plugin name (-p no:llmeval) are pytest_llmeval and llmeval whatever the distribution's name
    assert meta["project"]["entry-points"]["pytest11"] == {"llmeval": "pytest_llmeval.plugin"}
    assert meta["project"]["optional-dependencies"]["all"] == [
        f"{pytest_llmeval.DIST_NAME}[semantic,html,language,reference]"
    ]


def test_install_hints_name_the_distribution() -> None:
    assert install_hint("semantic") == "pip install 'pytest-llmeval-gold[semantic]'"
    assert str(
        MissingExtraError("the semantic grader", "semantic", "sentence_transformers")
    ).endswith("pip install 'pytest-llmeval-gold[semantic]'")


def _install_lines(path: Path) -> list[tuple[int, str]]:
    """Python sources and the Makefile: every line; Markdown: the lines of fenced code blocks."""
    lines = list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
    if path.suffix != ".md":
        return lines
    shown, fenced = [], False
    for number, line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            shown.append((number, line))
    return shown


def test_no_install_line_uses_the_old_name() -> None:
    stale = re.compile(r"pip install\s+(-\S+\s+)*'?pytest-llmeval(?![-\w])")
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "docs").glob("*.md"), ROOT / "Makefile"]
    hits = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in _install_lines(path)
        if stale.search(line)
    ]
    assert hits == []
    assert stale.search("pip install -U 'pytest-llmeval[html]'")
    assert not stale.search("pip install 'pytest-llmeval-gold[html]'")


def test_every_data_file_of_the_package_is_declared_package_data() -> None:
    patterns = project()["tool"]["setuptools"]["package-data"]["pytest_llmeval"]
    data_files = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert data_files, "the package ships data files (schemas, template)"
    undeclared = [name for name in data_files if not any(_glob_matches(name, p) for p in patterns)]
    assert undeclared == [], "add them to [tool.setuptools.package-data] or the wheel lacks them"


def _glob_matches(name: str, pattern: str) -> bool:
    """setuptools' package-data glob: ``*`` never crosses a ``/``."""
    parts, pattern_parts = name.split("/"), pattern.split("/")
    return len(parts) == len(pattern_parts) and all(map(fnmatch.fnmatchcase, parts, pattern_parts))


def test_wheel_smoke_checks_files_that_exist() -> None:
    import runpy

    smoke = runpy.run_path(str(ROOT / ".ci" / "wheel_smoke.py"), run_name="not_main")
    for name in smoke["PACKAGE_DATA"]:
        assert (ROOT / name).is_file(), name


def test_the_build_is_setuptools_own_backend() -> None:
    build_system = project()["build-system"]
    assert build_system["build-backend"] == "setuptools.build_meta"
    assert "backend-path" not in build_system
    assert not (ROOT / "setup.py").exists()


def test_every_extra_has_a_guard_for_its_tests() -> None:
    from tests.extras import EXTRA_MODULES

    extras = set(project()["project"]["optional-dependencies"]) - {"all", "docs", "dev", "test"}
    assert set(EXTRA_MODULES) == extras


def test_a_missing_extra_skips_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.extras import EXTRA_MODULES, needs, require

    monkeypatch.setitem(EXTRA_MODULES, "html", ("jinja2", "no_such_module_of_the_extra"))
    mark = needs("html")
    assert mark.args == (True,)
    assert (
        mark.kwargs["reason"] == "needs the [html] extra: pip install 'pytest-llmeval-gold[html]'"
    )
    with pytest.raises(pytest.skip.Exception, match=r"needs the \[html\] extra"):
        require("html")


def test_the_test_extra_pulls_no_other_extra() -> None:
    # `make test-core` installs the core with the test tools: an extra there would hide a missing guard.
    optional = project()["project"]["optional-dependencies"]
    pulled = _names(optional["test"])
    extras = {
        name
        for extra in ("html", "semantic", "language", "reference")
        for name in _names(optional[extra])
    }
    assert pulled & extras == set()
    assert pytest_llmeval.DIST_NAME not in pulled


def _names(requirements: list[str]) -> set[str]:
    return {
        re.split(r"[\[<>=;\s]", requirement, maxsplit=1)[0].lower() for requirement in requirements
    }
