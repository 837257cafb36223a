"""JSON reports of a plain ``pytest`` run over the example suites and every dev set, and their diff.

Usage:  python benchmarks/dev_reports.py run --data ../shared/data --out DIR [-n 2]
        python benchmarks/dev_reports.py compare BEFORE_DIR AFTER_DIR

``run`` writes each dev set as a gold file into a temporary directory (never into the project),
runs ``pytest`` on it with default options and ``--llm-report``, and does the same for
``example_suites/``; the reports land in ``DIR/<name>.json``. ``compare`` masks what differs
between two runs of the same code (timings, durations, paths, dates, run ids, versions) and prints
each report's first differences; it exits 1 when any report differs. A refactor that keeps
behaviour keeps every report identical.
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

from eval_verdicts import SETS  # noqa: E402

# keys whose values change from run to run of the same code
VOLATILE = re.compile(r"(duration|elapsed|seconds|latency|time|timestamp|started|finished|date|created|run_id|pid|version|path|rootdir|cwd|host|python|platform|tmp)", re.I)


def write_gold(name: str, data: Path, folder: Path) -> Path:
    path = folder / f"{name}_eval.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for _row, record, _group, _human in SETS[name](data):
            # a gold file needs a question; the numeric rows have none (their grader reads it only for hints)
            record = {**record, "question": record.get("question") or "What figure does the answer state?"}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def run_pytest(target: Path, report: Path, workers: str | None, cwd: Path) -> int:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "pytest", str(target), "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--llm-report={report}"]
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


def masked(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: ("<masked>" if VOLATILE.search(k) and not isinstance(v, (dict, list)) else masked(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        items = [masked(v, key) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True)) if key in ("sample_results", "helper_results", "failed_samples", "needs_review", "flaky_samples") else items
    if isinstance(value, str):
        value = re.sub(r"(?:/[^/\s]+)+/(?=(?:example_suites|pytest_llmeval|tests)/)", "<checkout>/", value)
        value = re.sub(r"/tmp/\S+", "<tmp>", value)
        return re.sub(r"\d+(\.\d+)?\s*(ms|s)\b", "<t>", value)
    return value


def differences(a: Any, b: Any, where: str = "$") -> list[str]:
    if type(a) is not type(b):
        return [f"{where}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"]
    if isinstance(a, dict):
        found = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                found.append(f"{where}.{k}: only in {'after' if k in b else 'before'}")
            else:
                found += differences(a[k], b[k], f"{where}.{k}")
        return found
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"]


def compare(args: argparse.Namespace) -> int:
    before, after = Path(args.before), Path(args.after)
    changed = 0
    for report in sorted(before.glob("*.json")):
        other = after / report.name
        if not other.is_file():
            print(f"{report.name}: missing after")
            changed += 1
            continue
        found = differences(masked(json.loads(report.read_text())), masked(json.loads(other.read_text())))
        print(f"{report.name}: {'identical' if not found else f'{len(found)} difference(s)'}")
        for line in found[:10]:
            print("   ", line)
        changed += bool(found)
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
