"""The house rules a maintainer walks by: no import circle, no function over 80 lines, public names kept,
no two modules of one name."""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

import pytest

import pytest_llmeval

PACKAGE = Path(pytest_llmeval.__file__).parent
MAX_FUNCTION_LINES = 80


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Imports under ``if TYPE_CHECKING:`` are annotations, not a dependency at run time."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def import_graph() -> dict[str, set[str]]:
    """Module -> package modules it imports (at top level or inside functions), TYPE_CHECKING left out."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                # "from pkg import submodule" depends on the submodule, not on the package
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            if _type_checking_only(node, parents):
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


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
