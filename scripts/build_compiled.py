"""Build the compiled wheel: the numeric grader's stages compiled with mypyc.

Usage (from the checkout, with the dev venv, which has mypy):
``.venv/bin/python scripts/build_compiled.py [--dist DIR]`` (``make wheel-compiled``): the
platform wheel lands in ``DIR`` (default ``dist/``). ``benchmarks/bench_numeric.py --compiled``
and ``.ci/compiled_check.py`` call :func:`build` and use the package unpacked from the wheel.

The build runs on a copy of the working tree in a temporary folder, so the checkout never holds a
compiled module (an extension module next to its ``.py`` would shadow the source you edit) nor a
``build/`` folder a later pure-Python build could pick up. mypy's cache stays in the checkout's
``.mypy_cache`` (a cold build type-checks the package's imports: minutes; a warm one: ~25 s).
Needs a C compiler and the Python headers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
# What the build reads: the package, its metadata, and the files pyproject.toml names.
_SOURCES = (
    "pytest_llmeval",
    "build_backend",
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
)


def compiled_modules() -> list[str]:
    """The module paths the compiled build compiles (``[tool.llmeval.build] compiled``)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return list(pyproject["tool"]["llmeval"]["build"]["compiled"])


def compiler() -> str | None:
    """The C compiler Python's build would call, or None when it is not installed."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def build_wheel(dist: Path) -> Path:
    """Build the compiled wheel of the working tree into ``dist``; return its path."""
    dist.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llmeval-compiled-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for name in _SOURCES:
            path = ROOT / name
            if path.is_dir():
                shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(path, src / name)
        out = Path(tmp) / "dist"
        env = {
            **os.environ,
            "LLMEVAL_COMPILE": "1",
            "MYPY_CACHE_DIR": str(ROOT / ".mypy_cache"),
        }
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q"]
        subprocess.run([*cmd, "-w", str(out), str(src)], env=env, check=True)
        (wheel,) = out.glob("*.whl")
        target = dist / wheel.name
        shutil.copy2(wheel, target)
    return target


def build(dest: Path) -> Path:
    """Build the compiled wheel and unpack it under ``dest``: the folder to put on ``sys.path``."""
    wheel = build_wheel(dest / "dist")
    site = dest / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    args = ap.parse_args()
    if compiler() is None:
        sys.exit("build_compiled: no C compiler found (mypyc needs one)")
    print(build_wheel(args.dist))


if __name__ == "__main__":
    main()
