"""Every example of the docs runs: a stale example, flag or output fails the suite.

The convention the pages follow is in docs/contributing.md and tests/docs_examples.py.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.docs_examples import (
    REPO,
    DocExampleError,
    check_page,
    doc_pages,
    extract_blocks,
    mask,
    needed_extras,
)
from tests.extras import EXTRA_MODULES, require

PAGES = doc_pages()


@pytest.fixture(scope="module", autouse=True)
def _package_loaded_before_pytester() -> None:
    """Import the plugin's modules before any pytester snapshot of this module.

    pytester drops the modules first imported during a test when it ends; a helper module
    imported afresh in a later in-process run would then record into another module's
    ContextVar than the plugin reads, and the shown helper counts would differ from a real run.
    """
    import importlib
    import pkgutil

    import pytest_llmeval

    for module in pkgutil.walk_packages(pytest_llmeval.__path__, "pytest_llmeval."):
        if not module.name.rsplit(".", 1)[1].startswith("_"):
            importlib.import_module(module.name)


def pytester_runner(pytester: pytest.Pytester):  # type: ignore[no-untyped-def]
    def run(args: list[str]) -> tuple[int, str]:
        result = pytester.runpytest(*args)
        return int(result.ret), "\n".join(result.outlines + result.errlines)

    return run


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_page_examples_run(page: Path, pytester: pytest.Pytester) -> None:
    for extra in needed_extras(page.read_text(encoding="utf-8")):
        require(extra)
    checked = check_page(
        page, pytester.path, pytester_runner(pytester), label=str(page.relative_to(REPO))
    )
    assert checked > 0, f"{page} opts in (<!-- doctest -->) but has no example the checker runs"


def test_core_pages_opt_in() -> None:
    """The pages of the docs site are checked; a page dropping out of the convention is a choice, seen here."""
    checked = {str(p.relative_to(REPO)) for p in PAGES}
    for name in (
        "README.md",
        "docs/getting-started.md",
        "docs/gold-files.md",
        "docs/rubric.md",
        "docs/configuration.md",
        "docs/ci.md",
        "docs/graders/numeric.md",
        "docs/regression.md",
    ):
        assert name in checked


ILLUSTRATIVE = {
    "docs/changelog.md": "the changelog",
    "docs/index.md": None,
    "docs/install.md": "install",
    "docs/limitations.md": "limitations",
    "docs/numeric_speed.md": "numeric speed",
    "docs/troubleshooting.md": "troubleshooting",
    "docs/untrusted-input.md": "untrusted input",
}


def test_every_page_opts_in_or_the_readme_names_it_illustrative() -> None:
    """The README says which pages' examples are illustrations; every other page runs its examples."""
    checked = {str(p.relative_to(REPO)) for p in PAGES}
    pages = {str(p.relative_to(REPO)) for p in sorted((REPO / "docs").rglob("*.md"))}
    assert pages - checked == set(ILLUSTRATIVE)
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    said = readme.split("The pages on ", 1)[1].split("as illustrations", 1)[0]
    for name in filter(None, ILLUSTRATIVE.values()):
        assert name in said, name


def _gen_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "gen_docs_reference", REPO / "scripts" / "gen_docs_reference.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configuration_page_matches_the_options_registry() -> None:
    from pytest_llmeval.options import OPTIONS

    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == _gen_module().render(), (
        "docs/configuration.md is stale: run python scripts/gen_docs_reference.py"
    )
    for spec in OPTIONS:  # every flag with its ini twin, on one row; every ini key listed
        row = rf"^\| `{spec.name}`.*\| `{spec.flag}`" if spec.cli else rf"^\| `{spec.name}`"
        assert re.search(row, page, flags=re.M), spec.name


def test_hooks_page_matches_the_hook_specs() -> None:
    from pytest_llmeval import hookspecs

    page = (REPO / "docs" / "hooks.md").read_text(encoding="utf-8")
    assert page == _gen_module().render_hooks(), (
        "docs/hooks.md is stale: run python scripts/gen_docs_reference.py"
    )
    for name in dir(hookspecs):
        if name.startswith("pytest_llmeval_"):
            assert f"## `{name}`" in page


def test_configuration_page_follows_a_new_option(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_llmeval import options

    extra = options.OptionSpec("llm_docs_probe", "A probe option", "x", options._str)
    monkeypatch.setattr(options, "OPTIONS", (*options.OPTIONS, extra))
    assert (
        "| `llm_docs_probe` | `--llm-docs-probe` | `'x'` | A probe option |"
        in _gen_module().render()
    )


# --- the checker itself: a broken example fails, with its page and line ---------------------

BROKEN = {
    "python": (
        "```python\nfrom pytest_llmeval.metrics.numeric.match import numeric_match\n"
        "assert numeric_match('$1.2B', '1.5 billion').passed\n```\n",
        "broken.md:6",
    ),
    "jsonl": (
        '```jsonl\n{"id": "a", "question": "q", "expected": "x", "response": "x"}\n'
        '{"id": "b", "questoin": "q", "expected": "x"}\n```\n',
        "broken.md:6",
    ),
    "console": (
        "```console\n$ pytest -o llm_tiers=0.9,0.75\n"
        "=== no tests ran in 0.01s ===\n"
        "$ pytest -o llm_tiers=0.5,0.9\nERROR: something else\n```\n",
        "broken.md:7",
    ),
    "json": ('```json\n{"messages": [...]}\n```\n', "broken.md:5"),
    "toml": ("```toml\n[tool.pytest.ini_options\n```\n", "broken.md:5"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_example_fails_with_its_location(kind: str, pytester: pytest.Pytester) -> None:
    body, where = BROKEN[kind]
    page = pytester.path / "broken.md"
    page.write_text(f"# Broken\n<!-- doctest -->\n\n{body}", encoding="utf-8")
    with pytest.raises(DocExampleError) as excinfo:
        check_page(page, pytester.path, pytester_runner(pytester), label="broken.md")
    assert str(excinfo.value).startswith(where), str(excinfo.value)


def test_a_working_page_passes_and_skip_and_file_directives_apply(
    pytester: pytest.Pytester,
) -> None:
    page = pytester.path / "fine.md"
    page.write_text(
        "# Fine\n<!-- doctest -->\n\n"
        "<!-- doctest: skip needs a model server -->\n```python\nraise SystemExit('not run')\n```\n\n"
        "<!-- doctest: file evals/qa_eval.jsonl -->\n```jsonl\n"
        '{"id": "capital", "question": "Capital of Norway?", "expected": "Oslo", "response": "Oslo",'
        ' "eval_criteria": {"accuracy": "exact"}}\n```\n\n'
        "```console\n$ pytest evals --llm-min-pass-rate=1\n...\nevals/qa_eval.jsonl .  [100%]\n...\n"
        "llmeval gate passed: pass rate 100.0% >= 100.0% (1 of 1)\n=== 1 passed in 9.99s ===\n```\n\n"
        "```python\nfrom pathlib import Path\nassert Path('evals/qa_eval.jsonl').exists()\n```\n",
        encoding="utf-8",
    )
    assert check_page(page, pytester.path, pytester_runner(pytester), label="fine.md") == 2


def test_pages_without_the_mark_are_not_read(pytester: pytest.Pytester) -> None:
    page = pytester.path / "other.md"
    page.write_text(
        "# Someone's page\n\n```python\nraise SystemExit('not run')\n```\n", encoding="utf-8"
    )
    assert check_page(page, pytester.path, pytester_runner(pytester)) == 0


def test_a_page_names_the_extras_its_examples_need() -> None:
    page = "# P\n\n<!-- doctest -->\n<!-- doctest: needs html -->\n\n<!-- doctest: needs language -->\n"
    assert needed_extras(page) == ["html", "language"]
    assert needed_extras("<!-- doctest -->\n<!-- doctest: skip html -->\n```python\n```\n") == []
    named = {extra for page in PAGES for extra in needed_extras(page.read_text(encoding="utf-8"))}
    assert named <= set(EXTRA_MODULES), "an unknown extra in a `doctest: needs` line"


def test_blocks_and_masking() -> None:
    blocks = extract_blocks(
        "x\n<!-- doctest: file a.py -->\n```python\nprint(1)\n```\n  ```console\n  $ pytest\n  ```\n"
    )
    assert [(b.lang, b.line, b.directive("file"), b.text) for b in blocks] == [
        ("python", 4, "a.py", "print(1)\n"),
        ("console", 7, None, "$ pytest\n"),
    ]
    assert (
        mask("==== 5 failed, 37 passed in 39.10s ====  ") == "=== 5 failed, 37 passed in N.NNs ==="
    )
    assert (
        mask("a_eval.jsonl ..A    [100%]\nmedian 12 ms") == "a_eval.jsonl ..A [100%]\nmedian N.NNs"
    )


def test_install_lines_name_the_distribution_of_pyproject() -> None:
    """One sed renames them (docs/contributing.md); this says when one was missed."""
    import tomllib

    name = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    others = {"torch"}  # installs of other packages the pages show
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found = 0
    for page in pages:
        for line_no, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for target in re.findall(r"pip install (?:-\S+ )*['\"]?([A-Za-z](?:[\w.-]*\w)?)", line):
                if target.endswith(
                    ".whl"
                ):  # a wheel file: its name is the normalised distribution name
                    target = target.split("-")[0].replace("_", "-")
                if target not in others:
                    found += 1
                    assert target == name, (
                        f"{page.relative_to(REPO)}:{line_no}: installs {target!r}, pyproject names {name!r}"
                    )
    assert found >= 8
