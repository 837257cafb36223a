"""Instructions a gold item costs beside a plain parametrized test, counted by valgrind.

    python benchmarks/gold_item_instructions.py [--samples 1000] [--project 10000]

Wall time on a shared machine moves by ten per cent from one run to the next; instruction counts do
not. This runs the two runs of ``bench_gold_item.py`` (a gold file, and a plain
``@pytest.mark.parametrize`` test calling ``numeric_match`` per row) under
``valgrind --tool=callgrind`` at 1 sample and at ``--samples``, after a warm-up run that writes the
bytecode caches, and prints instructions per sample, the fixed cost of each run and the ratio they
project at ``--project`` samples. Cache misses are not counted: wall time can differ by a few points.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gold_item import pytest_run, write_files

COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(path: Path) -> int:
    """Instructions one pytest run of ``path`` executes (callgrind's Ir total)."""
    command, env = pytest_run(path)
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up writes the caches the counted runs read
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    done = subprocess.run(command, cwd=path.parent, capture_output=True, text=True, env=env)
    found = COLLECTED.search(done.stderr)
    if done.returncode not in (0, 1) or found is None:
        sys.exit(f"run of {path} failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--project", type=int, default=10_000)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("gold_item_instructions.py: valgrind not found (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("one", "many"):
            (Path(tmp) / name).mkdir()
        small = write_files(Path(tmp) / "one", 1)
        large = write_files(Path(tmp) / "many", args.samples)
        for path in small:  # warm-up: bytecode and assertion-rewrite caches
            instructions(path)
        counts = {
            label: (instructions(small[i]), instructions(large[i]))
            for i, label in enumerate(("gold", "plain"))
        }
    per_sample: dict[str, float] = {}
    fixed: dict[str, float] = {}
    for label, (one, many) in counts.items():
        per_sample[label] = (many - one) / (args.samples - 1)
        fixed[label] = one - per_sample[label]
        print(
            f"{label:5}: {per_sample[label] / 1e6:6.3f} M instructions per sample, "
            f"{fixed[label] / 1e9:5.2f} G fixed ({one / 1e9:.2f} G at 1, {many / 1e9:.2f} G at {args.samples})"
        )
    projected = {k: fixed[k] + args.project * per_sample[k] for k in counts}
    print(f"per sample, gold/plain: {per_sample['gold'] / per_sample['plain']:.3f}")
    print(
        f"projected at {args.project} samples, gold/plain: {projected['gold'] / projected['plain']:.3f}"
        " (target <= 1.10 in wall time)"
    )


if __name__ == "__main__":
    main()
