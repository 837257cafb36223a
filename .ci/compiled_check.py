"""The compiled wheel grades exactly as the pure-Python package does.

Usage (from the checkout, with the dev venv): ``.venv/bin/python .ci/compiled_check.py``
(``make compiled-check``; ``.ci/run`` calls it after the wheel smoke test).

Builds the wheel with the numeric stages compiled by mypyc (scripts/build_compiled.py), checks it
holds one extension module per module listed under ``[tool.llmeval.build] compiled`` and
grades in a venv with nothing installed (no mypy at run time), then
1. prints the numeric fingerprint (benchmarks/numeric_fingerprint.py: every verdict, explanation
   and figure read, on the tests' cases and, when ``../shared/data`` is there, the dev sets) with
   the pure package and with the compiled one: the two must be byte-identical;
2. runs the test suite with the compiled package first on ``sys.path`` (the packaging tests,
   which inspect the source tree, and the benchmark scripts' own messages apart).
Without a C compiler it says so and stops (exit 0): the compiled wheel is an addition, the pure
one stays the reference.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_compiled  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
def say(message: str) -> None:
    print(f"compiled-check: {message}", flush=True)


def check_wheel(wheel: Path) -> None:
    """One extension module per listed module, and a platform tag (never py3-none-any)."""
    listed = build_compiled.compiled_modules()
    names = zipfile.ZipFile(wheel).namelist()
    for module in listed:
        stem = module.removesuffix(".py")
        if not any(n.startswith(stem + ".cpython-") and n.endswith(".so") for n in names):
            sys.exit(f"compiled-check: {wheel.name} has no compiled {module}")
    if wheel.name.endswith("-none-any.whl"):
        sys.exit(f"compiled-check: {wheel.name} is tagged pure Python")
    say(f"{wheel.name}: {len(listed)} compiled modules")


# The package an interpreter imports is the compiled one, grades, and loads nothing of mypy. Run
# by a bare venv (nothing needed at run time) and with the test run's environment in the checkout
# (pytest imports the plugin by its entry point before it reads the checkout's conftest.py, and
# every later import of the package goes through that package's folder).
_PROBE = (
    "import sys\n"
    "from pytest_llmeval.metrics.numeric import is_compiled\n"
    "from pytest_llmeval.metrics.numeric.match import numeric_match\n"
    "r = numeric_match('Net sales slipped 2.8% in fiscal 2023 to $383.3 billion.', '-2.8%')\n"
    "if not (is_compiled() and r.passed): sys.exit(f'compiled-check: not compiled or wrong: {r}')\n"
    "leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('mypy', 'mypy_extensions'))\n"
    "if leaked: sys.exit(f'compiled-check: the compiled modules import {leaked}')\n"
)


def check_bare_interpreter(site: Path, tmp: Path) -> None:
    """The unpacked wheel grades in a fresh venv without pip, mypy or anything else."""
    bare = tmp / "bare-venv"
    venv.create(bare, with_pip=False)
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1"}
    subprocess.run([str(bare / "bin" / "python"), "-c", _PROBE], env=env, check=True)
    say("grades in a bare venv (no mypy at run time)")


def fingerprint(site: Path | None) -> bytes:
    env = dict(os.environ)
    env.pop("LLMEVAL_BENCH_PKG", None)
    if site is not None:
        env["LLMEVAL_BENCH_PKG"] = str(site)
    cmd = [sys.executable, str(ROOT / "benchmarks" / "numeric_fingerprint.py")]
    if DATA.is_dir():
        cmd += ["--data", str(DATA)]
    return subprocess.run(cmd, env=env, capture_output=True, check=True).stdout


def main() -> None:
    if build_compiled.compiler() is None:
        say("no C compiler here: the compiled wheel is not built or checked")
        return
    with tempfile.TemporaryDirectory(prefix="llmeval-compiled-check-") as tmp:
        started = time.perf_counter()
        site = build_compiled.build(Path(tmp))
        (wheel,) = (Path(tmp) / "dist").glob("*.whl")
        say(f"built in {time.perf_counter() - started:.0f}s")
        check_wheel(wheel)
        check_bare_interpreter(site, Path(tmp))
        pure, compiled = fingerprint(None), fingerprint(site)
        if pure != compiled:
            (Path(tmp).parent / "fingerprint-pure.jsonl").write_bytes(pure)
            (Path(tmp).parent / "fingerprint-compiled.jsonl").write_bytes(compiled)
            sys.exit(
                f"compiled-check: the fingerprints differ (both written to {Path(tmp).parent})"
            )
        lines = pure.count(b"\n")
        say(f"fingerprint identical ({lines:,} lines)")
        # PYTHONSAFEPATH (Python >= 3.11): no interpreter of the run (xdist workers and pytester's
        # subprocesses included) puts its current folder, the checkout, ahead of PYTHONPATH.
        env = {**os.environ, "PYTHONPATH": str(site), "PYTHONSAFEPATH": "1", "HF_HUB_OFFLINE": "1"}
        args = ["tests", "-n", "2", "-q", "-p", "no:cacheprovider"]
        # Apart: the packaging tests (they inspect the source tree, not an install) and the
        # benchmark scripts' messages (the scripts import their sibling modules from their own
        # folder, which PYTHONSAFEPATH takes off sys.path).
        args += ["--ignore", "tests/test_packaging.py", "--ignore", "tests/test_benchmark_data.py"]
        subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, check=True)
        result = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env)
        if result.returncode != 0:
            sys.exit("compiled-check: the tests failed against the compiled package")
        say(f"tests passed against the compiled package ({time.perf_counter() - started:.0f}s)")


if __name__ == "__main__":
    main()
