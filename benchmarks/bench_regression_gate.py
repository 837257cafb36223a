"""How the regression gate behaves on simulated paired suites (no model, no data: the statistics alone).

For each suite size and true change it draws paired outcomes (each pair newly failing with probability
p_fail, newly passing with p_pass) and reports, over many draws:

- how often each gate mode fails (``difference``: significant or observed drop beyond the margin;
  ``non-inferiority``: the one-sided upper bound beyond the margin);
- the coverage of the one-sided upper bound of the drop (nominal 1 - alpha);
- the smallest detectable drop the gate line states.

    python benchmarks/bench_regression_gate.py [--draws 2000] [--margin 0.05] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import random

from pytest_llmeval.regression import significance

CASES = (  # (paired samples, p_fail, p_pass): no change, a drop within the margin, at it, beyond it
    (6, 0.0, 0.0),
    (6, 0.8, 0.0),
    (50, 0.05, 0.05),
    (50, 0.08, 0.05),
    (50, 0.10, 0.05),
    (50, 0.15, 0.05),
    (200, 0.05, 0.05),
    (200, 0.08, 0.05),
    (200, 0.10, 0.05),
    (200, 0.15, 0.05),
    (1000, 0.05, 0.05),
    (1000, 0.07, 0.05),
    (1000, 0.10, 0.05),
    (1000, 0.15, 0.05),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    rng = random.Random(20261128)
    print(
        f"{'n':>5} {'true drop':>9} {'fails: difference':>17} {'non-inferiority':>15} {'bound covers':>12} "
        f"{'detectable':>10} {'needed (NI)':>11}"
    )
    for n, p_fail, p_pass in CASES:
        fail_diff = fail_ni = covered = 0
        for _ in range(args.draws):
            b = c = 0
            for _ in range(n):
                u = rng.random()
                b += u < p_fail
                c += p_fail <= u < p_fail + p_pass
            significant = significance.mcnemar_exact(b, c) < args.alpha and b > c
            fail_diff += significant or (b - c) / n > args.margin
            upper = significance.drop_upper_bound(b, c, n, args.alpha)
            fail_ni += upper > args.margin
            covered += upper >= p_fail - p_pass
        k = significance.min_discordant(args.alpha)
        detectable = f"{k / n:.1%}" if k <= n else "none"
        needed = significance.noninferiority_samples(p_fail, p_pass, args.margin, args.alpha)
        print(
            f"{n:>5} {p_fail - p_pass:>9.1%} {fail_diff / args.draws:>17.1%} {fail_ni / args.draws:>15.1%} "
            f"{covered / args.draws:>12.1%} {detectable:>10} {'-' if needed is None else needed:>11}"
        )


if __name__ == "__main__":
    main()
