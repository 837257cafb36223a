"""Peak memory and time of ``python -m pytest_llmeval merge`` on many large shard reports.

    PYTHONPATH=$PWD python benchmarks/bench_merge.py [--shards 100] [--samples 1000]

One real shard of a small pre-answered numeric suite gives the shape of a sample's entry; it is copied
into SHARDS reports of SAMPLES samples each (every one a distinct sample of one run), then merged with
a pass-rate gate. Prints the merge's wall time, its exit status and its peak RSS (the child's maxrss).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def template(work: Path) -> dict:
    """One shard report of a real run (1/1 of a 12-sample suite)."""
    lines = [
        json.dumps(
            {
                "id": f"q{i}",
                "question": f"What is figure {i}?",
                "expected": str(1000 + i),
                "response": f"The figure is {1000 + i if i % 5 else 7}.",
                "metadata": {"task": f"t{i % 3}"},
            }
        )
        for i in range(12)
    ]
    (work / "seed_eval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "seed_eval.jsonl",
            "--llm-shard=1/1",
            "--llm-run-id=bench",
            f"--llm-report={work / 'seed.json'}",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )
    return json.loads((work / "seed.json").read_text(encoding="utf-8"))


def write_shards(work: Path, seed: dict, shards: int, samples: int) -> list[Path]:
    entries = seed["sample_results"]
    extras = seed["shard"]["record_extras"]
    paths = []
    for k in range(1, shards + 1):
        report = copy.deepcopy(seed)
        results, record_extras = [], {}
        for i in range(samples):
            base = entries[i % len(entries)]
            sample_id = f"s{k}-{i}"
            nodeid = f"evals/part{k % 10}_eval.jsonl::{sample_id}"
            entry = {
                **base,
                "sample_id": sample_id,
                "nodeid": nodeid,
                "file": f"evals/part{k % 10}_eval.jsonl",
                "line": i + 1,
            }
            results.append(entry)
            if base["nodeid"] in extras:
                record_extras[nodeid] = extras[base["nodeid"]]
        report["sample_results"] = results
        report["failed_samples"] = [e for e in results if e["status"] in ("fail", "error")]
        report["shard"].update(index=k, total=shards, record_extras=record_extras)
        path = work / f"shard-{k}.json"
        path.write_text(json.dumps(report), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=100)
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-merge-") as tmp:
        work = Path(tmp)
        paths = write_shards(work, template(work), args.shards, args.samples)
        size = sum(p.stat().st_size for p in paths)
        env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest_llmeval",
                "merge",
                *map(str, paths),
                "-o",
                str(work / "merged.json"),
                "-q",
                "--llm-min-pass-rate=0.5",
                "--junitxml",
                str(work / "merged.xml"),
            ],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        merged = (
            json.loads((work / "merged.json").read_text(encoding="utf-8"))
            if (work / "merged.json").is_file()
            else None
        )
        print(
            f"shards: {args.shards} x {args.samples} samples, {size / 1e6:.0f} MB of shard reports"
        )
        print(
            f"merge: exit {result.returncode} in {seconds:.1f} s; merged samples: "
            f"{len(merged['sample_results']) if merged else 'none'}"
        )
        if result.returncode not in (0, 1):
            print(result.stdout[-2000:], result.stderr[-2000:])
        print(f"peak RSS of the merge: {max(peak_kib, before) / 1024:.0f} MiB (limit 1024 MiB)")
        return 0 if peak_kib < 1024 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
