"""``benchmarks/bench_corrected_pass_rate.py`` end to end on a small made-up set: its draws go through the
plugin's functions, and the real plugin with a labels file agrees with them (the script stops otherwise)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_corrected_pass_rate.py"


def test_missing_data_is_one_line(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(
        f"bench_corrected_pass_rate.py: {tmp_path}/nowhere/financebench_dev.jsonl not found. "
    )


def test_the_bench_runs_and_the_plugin_agrees_with_its_function(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows = []
    for q in range(30):
        for m in range(4):
            right = rng.random() < 0.6
            reworded = right and rng.random() < 0.3
            response = f"The answer is {q}." if reworded else (str(q) if right else str(q + 1))
            rows.append(
                {
                    "id": f"fb{q}/m{m}",
                    "question": f"What is {q}?",
                    "gold": str(q),
                    "response": response,
                    "label": "correct" if right else "incorrect",
                }
            )
    (tmp_path / "fb.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(SCRIPT.parents[1])}
    run = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--data",
            str(tmp_path),
            "--financebench",
            "fb.jsonl",
            "--set",
            "FinanceBench",
            "--draws",
            "4",
            "--plugin-checks",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FinanceBench: 120 answers, 30 questions" in run.stdout
    assert [line.split()[0] for line in run.stdout.splitlines() if line.strip().endswith("/4")] == [
        "10%",
        "20%",
        "50%",
    ]
