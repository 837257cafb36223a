"""JSON reports of a plain ``pytest`` run over the example suites and every dev set, and their diff.

Usage:  python benchmarks/dev_reports.py run --data ../shared/data --out DIR [-n 2]
        python benchmarks/dev_reports.py compare BEFORE_DIR AFTER_DIR

``run`` writes each dev set as a gold file into a temporary directory (never into the project),
runs ``pytest`` on it with default options and ``--llm-report``, and does the same for
``example_suites/``; the reports land in ``DIR/<name>.json``. ``compare`` masks what differs
between two runs of the same code (timings and run ids as ``report_identity.py`` masks them, paths
under a checkout or the temp directory) and prints each report's first differences (key order
counts); it exits 1 when any report differs. A refactor that keeps behaviour keeps every report
identical.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import report_identity  # noqa: E402
from eval_verdicts import SETS  # noqa: E402


def write_gold(name: str, data: Path, folder: Path) -> Path:
    path = folder / f"{name}_eval.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for _row, record, _group, _human in SETS[name](data):
            # a gold file needs a question; the numeric rows have none (their grader reads it only for hints)
            record = {
                **record,
                "question": record.get("question") or "What figure does the answer state?",
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def run_pytest(target: Path, report: Path, workers: str | None, cwd: Path) -> int:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        str(target),
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        f"--llm-report={report}",
    ]
    if workers:
        cmd += ["-n", workers]
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return done.returncode


def run(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    status = run_pytest(ROOT / "example_suites", out / "example_suites.json", args.workers, ROOT)
    print(f"example_suites: exit {status}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in SETS:
            folder = Path(tmp) / name
            folder.mkdir()
            gold = write_gold(name, Path(args.data), folder)
            status = run_pytest(gold, out / f"{name}.json", args.workers, folder)
            print(f"{name}: exit {status}")
    return 0


def normalised(value: Any) -> Any:
    """``value`` with paths under a checkout or the temp directory written alike, then the timings
    masked as :mod:`report_identity` masks them."""

    def paths(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: paths(x) for k, x in v.items()}
        if isinstance(v, list):
            return [paths(x) for x in v]
        if isinstance(v, str):
            v = re.sub(
                r"(?:/[^/\s]+)+/(?=(?:example_suites|pytest_llmeval|tests)/)", "<checkout>/", v
            )
            return re.sub(r"/tmp/\S+", "<tmp>", v)
        return v

    return report_identity.masked(paths(value))


def compare(args: argparse.Namespace) -> int:
    before, after = Path(args.before), Path(args.after)
    changed = 0
    for report in sorted(before.glob("*.json")):
        other = after / report.name
        if not other.is_file():
            print(f"{report.name}: missing after")
            changed += 1
            continue
        found = report_identity.differences(
            normalised(json.loads(report.read_text())), normalised(json.loads(other.read_text()))
        )
        print(f"{report.name}: {'identical' if not found else f'{len(found)} difference(s)'}")
        for line in found[:10]:
            print("   ", line)
        changed += bool(found)
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    runner = sub.add_parser("run")
    runner.add_argument("--data", required=True)
    runner.add_argument("--out", required=True)
    runner.add_argument("-n", dest="workers", default=None)
    comparer = sub.add_parser("compare")
    comparer.add_argument("before")
    comparer.add_argument("after")
    args = parser.parse_args()
    return run(args) if args.command == "run" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
