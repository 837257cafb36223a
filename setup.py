"""Build script. Everything is declared in pyproject.toml; this file only adds the optional
compiled build: with ``LLMEVAL_COMPILE=1`` the numeric grader's stages listed under
``[tool.llmeval.build] compiled`` are compiled with mypyc (release wheels, ``make
wheel-compiled``). Without it the wheel is pure Python and works everywhere.

The compiled modules behave as the pure ones (``.ci/compiled_check.py`` runs the tests and the
numeric fingerprint against them); only the speed differs (docs/numeric_speed.md). mypyc is
mypy's compiler: the build backend (build_backend/llmeval_build.py) asks for mypy in an isolated
build, and ``pip wheel --no-build-isolation`` uses the environment's own.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup


def _compiled_extensions() -> list:
    if os.environ.get("LLMEVAL_COMPILE") != "1":
        return []
    import tomllib
    from mypyc.build import mypycify

    pyproject = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text("utf-8"))
    return mypycify(pyproject["tool"]["llmeval"]["build"]["compiled"], opt_level="3")


setup(ext_modules=_compiled_extensions())
