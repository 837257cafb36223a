"""The house rules a maintainer walks by: no import circle, no function over 80 lines, public names kept,
no private name imported across the graders' modules, the numeric stages in order, no two modules of
one name."""

from __future__ import annotations

import ast
import importlib
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import pytest_llmeval

PACKAGE = Path(pytest_llmeval.__file__).parent
MAX_FUNCTION_LINES = 80


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _where(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    """Where an import runs: "type_checking" (under ``if TYPE_CHECKING:``), "function" (inside a
    function: a lazy import) or "module" (at import time)."""
    where = "module"
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return "type_checking"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            where = "function"
    return where


def imports_of(
    source: str, name: str, is_package: bool, modules: set[str]
) -> list[tuple[str, str, str]]:
    """Every import of package modules in ``source`` as (module, imported name or "", where)."""
    tree = ast.parse(source)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # "from pkg import submodule" depends on the submodule, not on the package
            targets = [
                (f"{base}.{a.name}", "") if f"{base}.{a.name}" in modules else (base, a.name)
                for a in node.names
            ]
        else:
            continue
        for target, imported in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.append((target, imported, _where(node, parents)))
    return found


def all_imports() -> dict[str, list[tuple[str, str, str]]]:
    """Module -> every package import it makes: at import time, inside functions, under TYPE_CHECKING."""
    modules = _modules()
    return {
        name: imports_of(
            path.read_text(encoding="utf-8"), name, path.name == "__init__.py", set(modules)
        )
        for name, path in modules.items()
    }


def import_graph(*, kinds: tuple[str, ...] = ("module", "function")) -> dict[str, set[str]]:
    """Module -> package modules it imports in the places ``kinds`` names (by default the imports that
    run: at import time and inside functions, TYPE_CHECKING left out)."""
    return {
        name: {t for t, _, where in found if where in kinds}
        for name, found in all_imports().items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle() -> None:
    assert circles(import_graph()) == []


def test_no_import_circle_counting_type_checking_imports() -> None:
    """Annotations are dependencies too: no circle of module-level and TYPE_CHECKING imports.

    Function-local imports are left out of this one: they are the lazy imports that keep optional
    and heavy modules off plugin load (and the grading side still reaches the session through them,
    from the collector and the conversation runner, until grading is a pipeline of its own). The
    test below holds the outputs to every import, lazy ones included.
    """
    assert circles(import_graph(kinds=("module", "type_checking"))) == []


# Read the frozen run record, never the live session (its module or the stash key that hands it out).
OUTPUT_PACKAGES = ("pytest_llmeval.report", "pytest_llmeval.history", "pytest_llmeval.regression")
RECORDS = ("pytest_llmeval.records.sample_record", "pytest_llmeval.records.run")
SESSION = "pytest_llmeval.session"


def _outputs(modules: dict[str, Any]) -> list[str]:
    return sorted(
        m
        for m in modules
        if m in RECORDS or any(m == p or m.startswith(p + ".") for p in OUTPUT_PACKAGES)
    )


def test_outputs_never_import_the_session() -> None:
    imports = all_imports()
    found = [
        f"{module} imports {target}{'.' + name if name else ''} ({where})"
        for module in _outputs(imports)
        for target, name, where in imports[module]
        if target == SESSION
        or (target == "pytest_llmeval.run_state" and name in ("get_session", "SESSION_KEY"))
    ]
    assert found == []


def test_outputs_never_reach_the_session_through_any_import() -> None:
    """Not through another module either, counting TYPE_CHECKING and function-local imports."""
    graph = import_graph(kinds=("module", "function", "type_checking"))
    reached: dict[str, str] = {m: m for m in _outputs(graph)}
    stack = list(reached)
    while stack:
        module = stack.pop()
        for target in graph[module]:
            if target not in reached:
                reached[target] = module
                stack.append(target)
    path = [SESSION]
    while path[-1] in reached and reached[path[-1]] != path[-1]:
        path.append(reached[path[-1]])
    assert SESSION not in reached, " <- ".join(path)


def test_every_kind_of_import_is_read() -> None:
    source = """
from typing import TYPE_CHECKING
from pytest_llmeval import options
if TYPE_CHECKING:
    from pytest_llmeval.session import LLMEvalSession
def lazy():
    from pytest_llmeval.run_state import get_session
    import pytest_llmeval.report.tally
"""
    modules = {
        "pytest_llmeval",
        "pytest_llmeval.options",
        "pytest_llmeval.session",
        "pytest_llmeval.run_state",
        "pytest_llmeval.report",
        "pytest_llmeval.report.tally",
        "pytest_llmeval.x",
    }
    assert imports_of(source, "pytest_llmeval.x", False, modules) == [
        ("pytest_llmeval.options", "", "module"),
        ("pytest_llmeval.session", "LLMEvalSession", "type_checking"),
        ("pytest_llmeval.run_state", "get_session", "function"),
        ("pytest_llmeval.report.tally", "", "function"),
    ]


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def long_functions() -> list[str]:
    out = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    out.append(f"{name}.{node.name} ({length} lines)")
    return out


def test_no_function_over_80_lines() -> None:
    assert long_functions() == []


@pytest.mark.parametrize("name", sorted(pytest_llmeval.__all__))
def test_every_public_name_imports(name: str) -> None:
    assert getattr(importlib.import_module("pytest_llmeval"), name) is not None


# The numeric grader's stages in the order an answer goes through them; the package docstring of
# pytest_llmeval.metrics.numeric names the same order.
NUMERIC = "pytest_llmeval.metrics.numeric"
NUMERIC_STAGES = (
    "locale_tables",
    "tokens",
    "candidates",
    "roles",
    "figure_labels",
    "selection",
    "gold",
    "explanation",
    "agreement",
    "polarity",
    "llm_reading",
    "match",
)


class Import(NamedTuple):
    module: str
    target: str  # the package module imported from (or imported)
    names: tuple[str, ...]  # names taken from it, or attributes read from it as a module
    line: int


def _module_aliases(tree: ast.AST, package: str, modules: dict[str, Path]) -> dict[str, str]:
    """Local name -> package module, for the names an import binds to a module."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in modules:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, package)
            for a in node.names:
                if f"{base}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{base}.{a.name}"
    return aliases


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*anchor, *([node.module] if node.module else [])])


def every_import(modules: dict[str, Path]) -> list[Import]:
    """Every import of one package module by another: at top level, inside functions and under
    ``TYPE_CHECKING`` alike, with the names it takes (and the attributes read from a module alias)."""
    out = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        aliases = _module_aliases(tree, package, modules)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(node, package)
                for a in node.names:
                    if f"{base}.{a.name}" in modules:
                        out.append(Import(name, f"{base}.{a.name}", (), node.lineno))
                    elif base in modules:
                        out.append(Import(name, base, (a.name,), node.lineno))
            elif isinstance(node, ast.Import):
                out += [
                    Import(name, a.name, (), node.lineno) for a in node.names if a.name in modules
                ]
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                out.append(Import(name, aliases[node.value.id], (node.attr,), node.lineno))
    return [i for i in out if i.target != i.module]


def private_imports(modules: dict[str, Path], within: str) -> list[str]:
    """``module:line target.name`` for each private name one module takes from another, where
    either of them is under ``within``."""
    return [
        f"{i.module}:{i.line} {i.target}.{n}"
        for i in every_import(modules)
        if i.module.startswith(within + ".") or i.target.startswith(within + ".")
        for n in i.names
        if n.startswith("_") and not n.startswith("__")
    ]


def stage_back_edges(modules: dict[str, Path], package: str, stages: tuple[str, ...]) -> list[str]:
    """``stage:line -> other`` for each import of a stage by a stage that does not come after it
    (the package itself counts as the last stage: its lazy names reach every stage)."""
    rank = {f"{package}.{s}": k for k, s in enumerate(stages)} | {package: len(stages)}
    return sorted(
        {
            f"{i.module}:{i.line} -> {i.target}"
            for i in every_import(modules)
            if i.module in rank
            and i.module != package
            and i.target in rank
            and rank[i.target] >= rank[i.module]
        }
    )


def test_no_private_name_is_imported_across_the_graders_modules() -> None:
    assert private_imports(_modules(), "pytest_llmeval.metrics") == []


def test_the_numeric_stages_import_only_earlier_stages() -> None:
    stages = {name.rpartition(".")[2] for name in _modules() if name.startswith(NUMERIC + ".")}
    assert stages == set(NUMERIC_STAGES)
    assert stage_back_edges(_modules(), NUMERIC, NUMERIC_STAGES) == []


def test_the_numeric_package_names_its_stages_in_the_same_order() -> None:
    doc = importlib.import_module(NUMERIC).__doc__ or ""
    assert tuple(re.findall(r":mod:`\.(\w+)`", doc)) == NUMERIC_STAGES


def test_the_import_checks_see_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "first.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.second import _Hidden\n"
        "def f():\n    from pkg import second\n    return second._late, second.public\n"
    )
    (pkg / "second.py").write_text(
        "from .first import f as _f, f\nimport pkg.first as one\nx = one._g\n"
    )
    modules = _modules(pkg)
    assert private_imports(modules, "pkg") == [
        "pkg.first:3 pkg.second._Hidden",
        "pkg.first:6 pkg.second._late",
        "pkg.second:3 pkg.first._g",
    ]  # a public name under a private alias is no private import
    assert stage_back_edges(modules, "pkg", ("first", "second")) == [
        "pkg.first:3 -> pkg.second",
        "pkg.first:5 -> pkg.second",
        "pkg.first:6 -> pkg.second",
    ]
    assert stage_back_edges(modules, "pkg", ("second", "first")) == [
        "pkg.second:1 -> pkg.first",
        "pkg.second:2 -> pkg.first",
        "pkg.second:3 -> pkg.first",
    ]


# Basenames several modules may share, each with exactly the modules that share it. Every package has an
# ``__init__`` (and the package a ``__main__``); ``base`` holds a package's base types (metric results;
# model answers and the chat protocol) and ``match`` is a grader package's last stage with its public
# entry, so there the folder says what differs. Any other shared name is a twin a reader confuses.
SHARED_BASENAMES = {
    "base": {"pytest_llmeval.metrics.base", "pytest_llmeval.models.base"},
    "match": {"pytest_llmeval.metrics.extractive.match", "pytest_llmeval.metrics.numeric.match"},
}


def shared_basenames() -> dict[str, set[str]]:
    """Basename -> the modules that have it, for names more than one module has."""
    by_name: dict[str, set[str]] = defaultdict(set)
    for name, path in _modules().items():
        if path.stem not in ("__init__", "__main__"):
            by_name[path.stem].add(name)
    return {stem: names for stem, names in by_name.items() if len(names) > 1}


def test_no_two_modules_share_a_basename() -> None:
    assert shared_basenames() == SHARED_BASENAMES
