"""``benchmarks/gold_item_instructions.py`` needs valgrind: without it, one line says so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "gold_item_instructions.py"


def test_without_valgrind_the_script_says_what_it_needs(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no valgrind on this PATH
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--samples", "10"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=60,
    )
    assert run.returncode == 1
    assert run.stderr.strip() == (
        "gold_item_instructions.py: valgrind not found (apt-get install valgrind)"
    )
