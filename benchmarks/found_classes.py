"""Per-class counts of the found-class variants graded right through every grading path.

Usage:  python benchmarks/found_classes.py [--class polarity|period|figure|label|explanation] [--misses N]

The variants (``tests/found_classes.py``) are written from each class's description and labelled
by construction. Each is graded as a single sample, an alias gold, a conversation turn and a
structured field, in process as a default gold-file run grades them (gate view: needs review is
not a pass). Prints, per class and path, how many are graded as labelled, how many variants differ
between paths, how many wrong ones pass on some path (false passes), how many right ones are left
undecided (needs review) rather than failed, and with ``--misses`` the first misses of each class.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.found_classes import GENERATORS, PATHS, default_rubric, grade_paths, right, variants


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--class", dest="cls", choices=sorted(GENERATORS), action="append")
    ap.add_argument("--misses", type=int, default=0, help="print up to N misses per class")
    args = ap.parse_args()
    rubric = default_rubric()
    t0 = time.perf_counter()
    print(
        f"{'class':<12} {'variants':>8}  "
        + "  ".join(f"{p:>7}" for p in PATHS)
        + "  all paths  paths differ  false pass  right undecided"
    )
    for cls in args.cls or list(GENERATORS):
        members = variants(cls)
        counts: Counter[str] = Counter()
        misses = []
        for v in members:
            verdicts = grade_paths(v, rubric)
            ok = right(v, verdicts)
            counts.update(p for p in PATHS if ok[p])
            counts["all"] += all(ok.values())
            counts["differ"] += len({x.passed for x in verdicts.values()}) > 1
            counts["false pass"] += not v.correct and any(x.passed for x in verdicts.values())
            counts["undecided"] += (
                v.correct
                and all(x.passed or x.review for x in verdicts.values())
                and not all(ok.values())
            )
            if not all(ok.values()):
                misses.append((v, verdicts, ok))
        print(
            f"{cls:<12} {len(members):>8}  "
            + "  ".join(f"{counts[p]:>7}" for p in PATHS)
            + f"  {counts['all']:>9}  {counts['differ']:>12}  {counts['false pass']:>10}  {counts['undecided']:>15}"
        )
        for v, verdicts, ok in misses[: args.misses]:
            wrong = [p for p in PATHS if not ok[p]]
            print(
                f"    MISS {wrong} label {'right' if v.correct else 'wrong'}: Q {v.question!r} | gold {v.expected!r} | "
                f"answer {v.answer!r}"
            )
            print(f"         {verdicts[wrong[0]].explanation[:300]!r}")
    print(f"({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
