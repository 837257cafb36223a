"""setuptools' build backend, plus mypy when the compiled wheel is asked for.

``LLMEVAL_COMPILE=1 python -m build --wheel`` (or cibuildwheel with that variable) builds the
wheel with the numeric stages compiled by mypyc (see setup.py); the isolated build environment
then needs mypy, which an ordinary build (the pure wheel, an install from the sdist) does not.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the backend's other hooks, unchanged)

# The mypy (mypyc) the compiled build uses; the dev extra pins the same floor.
COMPILER = "mypy>=1.11"


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    if os.environ.get("LLMEVAL_COMPILE") == "1":
        # setuptools' own hook runs setup.py, which imports mypyc for this build: it cannot run
        # before mypy is installed. It would add nothing (no setup_requires here).
        return [COMPILER]
    return _setuptools.get_requires_for_build_wheel(config_settings)


def _pure(hook: Any) -> Any:
    """``hook`` run as an ordinary build: an editable install runs the checkout's ``.py`` files,
    and an extension module compiled next to one would be imported instead of it."""

    def run(*args: Any, **kwargs: Any) -> Any:
        os.environ.pop("LLMEVAL_COMPILE", None)  # the backend runs in its own process
        return hook(*args, **kwargs)

    return run


get_requires_for_build_editable = _pure(_setuptools.get_requires_for_build_editable)
prepare_metadata_for_build_editable = _pure(_setuptools.prepare_metadata_for_build_editable)
build_editable = _pure(_setuptools.build_editable)
