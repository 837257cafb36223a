"""Hostile model answers through the whole rubric: seconds per sample for each grader.

    python benchmarks/bench_hostile.py [--size 100000]

Each answer is ``--size`` characters of text built to hurt a regex (runs of "[", "(source: ",
"I cannot ", digits, one long word). Prints the slowest time per grader; the issue-16 target is
"well under a second" for a 100 KB answer. Answers past ``MAX_GRADED_CHARS`` are cut before grading,
so a 50 MB answer costs what a 100 KB one does (also printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_llmeval.models.base import Answer
from pytest_llmeval.options import Settings
from pytest_llmeval.registry import GraderRegistry
from pytest_llmeval.rubric import MAX_GRADED_CHARS, Rubric
from pytest_llmeval.sample import Sample

SEEDS = [
    "[",
    "[1]. ",
    "[1][2]",
    "(source: ",
    "[§1 ",
    "[a](",
    "I cannot ",
    "9,",
    "x" * 50 + " ",
    "a. ",
    "$",
]
GRADERS = ["exact", "fuzzy", "numeric", "answer_correctness", "sentence_coverage"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args()
    rubric = Rubric(Settings.defaults(), GraderRegistry())
    for grader in GRADERS:
        worst, worst_seed = 0.0, ""
        for seed in ["warm-up", *SEEDS]:
            text = (seed * (args.size // len(seed) + 1))[: args.size]
            sample = Sample(
                id="s",
                path="bench",
                line=1,
                question="What is the rate? Cite your source.",
                expected="4.2%",
                messages=({"role": "user", "content": "q"},),
                contexts=("The rate is 4.2%.",),
                criteria={
                    "accuracy": grader,
                    "citation_required": True,
                    "citation_patterns": [r"\[(\d+)\]"],
                },
            )
            start = time.perf_counter()
            rubric.grade(sample, Answer(text=text, source="response"))
            took = time.perf_counter() - start
            if took > worst and seed != "warm-up":
                worst, worst_seed = took, seed
        print(
            f"{grader:<20} worst {worst:6.3f} s per {args.size}-character answer (seed {worst_seed[:12]!r})"
        )
    text = "I cannot [" * (5_000_000 // 10)
    start = time.perf_counter()
    rubric.grade(sample, Answer(text=text, source="response"))
    print(
        f"5 MB answer (cut to {MAX_GRADED_CHARS} characters): {time.perf_counter() - start:.3f} s"
    )


if __name__ == "__main__":
    main()
