"""Throughput of numeric_match on ~500-character financial answers (one core).

    python benchmarks/bench_numeric.py [--seconds 3]

Prints matches per second (target >= 2,000/s) and the time for one 100 KB answer.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_llmeval.metrics.numeric import numeric_match

ANSWERS = [
    (
        "To calculate the operating cash flow ratio for FY2015, we take cash from operations and divide it by "
        "total current liabilities. From the Consolidated Statements of Cash Flows, net cash provided by "
        "operating activities was $1,469,502 thousand. From the balance sheet as of November 27, 2015, total "
        "current liabilities were $2,213,556 thousand (see Note 12 and Item 7 of the 10-K). Operating cash flow "
        "ratio = $1,469,502 / $2,213,556 = 0.6637. Therefore, the FY2015 operating cash flow ratio is 0.66, "
        "compared to 0.71 in FY2014.",
        "0.66",
        "What is Adobe's FY2015 operating cash flow ratio? Round to two decimal places.",
    ),
    (
        "Net sales in fiscal 2022 were $394.3 billion, up from $365.8 billion in 2021, an increase of 8%. "
        "iPhone net sales were $205.5 billion and Services net sales were $78.1 billion. Gross margin "
        "percentage was 43.3% versus 41.8% a year earlier. Net income was $99.8 billion, or $6.11 per diluted "
        "share. The company returned over $110 billion to shareholders, including $89.4 billion of share "
        "repurchases and $14.8 billion of dividends. Therefore, total net sales were $394,328 million.",
        "394.3 billion",
        "What were Apple's total net sales in FY2022 (in USD millions)?",
    ),
    (
        "ROA = Net income / Average total assets. Net loss attributable to AES was $(546) million in FY2022. "
        "Total assets were $38,363 million at December 31, 2022 and $32,963 million a year earlier, so the "
        "average is ($38,363 + $32,963) / 2 = $35,663 million. ROA = -$546 million / $35,663 million = "
        "-0.0153, or -1.53%. Rounded to two decimal places, AES's FY2022 ROA is -0.02, reflecting the "
        "impairments recorded in Q3 2022 under ASC 360.",
        "-0.02",
        "What is AES's FY2022 return on assets (ROA)? Round to two decimal places.",
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    for r, e, q in ANSWERS:  # warm caches and check the fixtures still pass
        res = numeric_match(r, e, question=q)
        assert res.passed, res.explanation
    # CPU time of this process, so a loaded machine does not distort the per-core figure.
    n = 0
    t0 = time.process_time()
    deadline = t0 + args.seconds
    while time.process_time() < deadline:
        for r, e, q in ANSWERS:
            # Vary the text so the expected-value cache is the only thing reused.
            numeric_match(r + f" Ref {n}.", e, question=q)
            n += 1
    dt = time.process_time() - t0
    avg = sum(len(a[0]) for a in ANSWERS) / len(ANSWERS)
    print(
        f"numeric_match: {n / dt:,.0f} matches per CPU-second on ~{avg:.0f}-char answers (one core)"
    )
    big = (ANSWERS[1][0] + " ") * (100_000 // (len(ANSWERS[1][0]) + 1))
    t1 = time.process_time()
    numeric_match(big, "394.3 billion")
    print(f"100 KB answer ({len(big):,} chars): {time.process_time() - t1:.3f} s CPU")


if __name__ == "__main__":
    main()
