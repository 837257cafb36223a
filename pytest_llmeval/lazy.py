"""Lazy re-exports (PEP 562): a package names its public objects without importing their modules.

The top-level package and each grader package use it, so importing them (the plugin in an
unrelated pytest run, or one stage module of a grader) loads nothing else until a name is used.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` (the package's ``__all__``) for ``package``: ``exports`` maps
    each public name to the module that defines it (absolute, or relative with a leading dot)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value  # found once: later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return list(getattr(sys.modules[package], "__all__", sorted(exports)))

    return __getattr__, __dir__
