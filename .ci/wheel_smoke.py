"""Build the sdist and wheel, install the wheel into a fresh venv, run a smoke suite against it.

Usage (from the checkout, with the dev venv): ``.venv/bin/python .ci/wheel_smoke.py``
(``make wheel-smoke``; ``.ci/run`` calls it after ``make test``).

What it shows: the built distribution installs by its own name with the core dependencies only
(no torch, no [all]; [html] for the report template), the plugin loads from site-packages (not
the checkout), and its package data (gold schema, judge schemas, HTML template) is in the wheel.
Needs the ``build`` package (dev extra) and an index for the dependencies (PyPI or the pip
configuration's own); nothing else touches the network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = Path(__file__).resolve().parent / "wheel_smoke"
# Files the installed plugin reads at run time: a build that drops one of them must fail here.
PACKAGE_DATA = (
    "pytest_llmeval/gold_sample.schema.json",
    "pytest_llmeval/py.typed",
    "pytest_llmeval/judge/correctness.schema.json",
    "pytest_llmeval/report/templates/report.html.j2",
)


def step(title: str, args: list[str], **kwargs: object) -> None:
    started = time.perf_counter()
    print(f"wheel-smoke: {title}", flush=True)
    result = subprocess.run(args, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        sys.exit(f"wheel-smoke: FAILED at {title!r} (exit {result.returncode}): {' '.join(args)}")
    print(f"wheel-smoke:   {time.perf_counter() - started:.1f}s", flush=True)


def check_archives(dist: Path) -> Path:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        sys.exit(
            f"wheel-smoke: expected one wheel and one sdist in {dist}, got {[p.name for p in dist.iterdir()]}"
        )
    in_wheel = set(zipfile.ZipFile(wheels[0]).namelist())
    with tarfile.open(sdists[0]) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for name in PACKAGE_DATA:
        for archive, names in ((wheels[0].name, in_wheel), (sdists[0].name, in_sdist)):
            if name not in names:
                sys.exit(f"wheel-smoke: {archive} lacks {name}")
    return wheels[0]


def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="llmeval-wheel-smoke-") as tmp_name:
        tmp = Path(tmp_name)
        dist = tmp / "dist"
        # sdist first, then the wheel built from the sdist (python -m build's default): a file
        # missing from the sdist breaks the wheel too.
        step(
            "build sdist and wheel",
            [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
            stdout=subprocess.DEVNULL,
        )
        wheel = check_archives(dist)
        env_dir = tmp / "venv"
        venv.EnvBuilder(with_pip=True, symlinks=os.name != "nt").create(env_dir)
        python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        step(
            f"install {wheel.name}[html] into a fresh venv",
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                f"{wheel}[html]",
            ],
        )
        suite = tmp / "suite"
        shutil.copytree(SUITE, suite)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["HF_HUB_OFFLINE"] = "1"
        step(
            "smoke suite against the installed package",
            [
                str(python),
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                "--strict-markers",
                "--llm-report=report.json",
                "--llm-html=report.html",
                "--junitxml=junit.xml",
                "--llm-min-pass-rate=1.0",
                ".",
            ],
            cwd=suite,
            env=env,
        )
        report = json.loads((suite / "report.json").read_text(encoding="utf-8"))
        statuses = sorted(r["status"] for r in report["sample_results"])
        # the last two lines are the README quick start's: one graded pass, one skipped (no answer)
        if statuses != ["pass", "pass", "pass", "skipped"]:
            sys.exit(
                f"wheel-smoke: expected three passing gold samples and one skipped, got {statuses}"
            )
        if "llmeval_tier" not in (suite / "junit.xml").read_text(encoding="utf-8"):
            sys.exit("wheel-smoke: the JUnit XML lacks the llmeval_tier properties")
        html = (suite / "report.html").read_text(encoding="utf-8")
        if "<html" not in html.lower() or "capital" not in html:
            sys.exit("wheel-smoke: the HTML report (template from the wheel) lacks the samples")
        probe = [
            str(python),
            "-c",
            "import sys, importlib.util as u; sys.exit(u.find_spec('torch') is not None)",
        ]
        step("no torch in the minimal install", probe)
    print(f"wheel-smoke: OK in {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
