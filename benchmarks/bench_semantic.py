"""Encode time of a run's semantic-similarity grading vs one batched ``model.encode``.

    .venv/bin/python benchmarks/bench_semantic.py [path/to/financebench_dev.jsonl] [--limit N] [--repeat R]

Texts: (response, gold) pairs from the JSONL file (fields ``response`` and ``gold`` or
``expected``), or synthetic finance sentences without a path. Prints the best of R runs of:
  batch   one ``model.encode`` of all texts (the floor),
  run     ``prefetch`` of all texts + one ``semantic_similarity`` per sample (the plugin path),
  naive   one ``semantic_similarity`` per sample with an empty cache (no prefetch).
Target: run <= 1.3 x batch.

With ``--agreement`` (needs a labelled file: ``label`` in correct/incorrect/refusal) it
instead prints, on the non-refusal rows, how often each grader's pass/fail agrees with the
human "correct" label: semantic_similarity at several thresholds, offline claims recall
(gold claims stated by the response) and sentence coverage.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def load_pairs(path: str | None, limit: int) -> list[tuple[str, str]]:
    if path is None:
        companies = ["3M", "Apple", "Boeing", "Costco", "PepsiCo", "Netflix", "Adobe", "Nike"]
        pairs = []
        for i in range(limit):
            c = companies[i % len(companies)]
            year = 2015 + i % 8
            pairs.append(
                (
                    f"{c}'s revenue in FY{year} was ${1000 + 7 * i:,} million, up {i % 9 + 1}% from the prior year, "
                    f"driven by higher volumes and pricing.",
                    f"${1000 + 7 * i:,}.00 million",
                )
            )
        return pairs
    pairs = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pairs.append(
                (str(row.get("response") or ""), str(row.get("gold") or row.get("expected") or ""))
            )
            if len(pairs) >= limit:
                break
    return pairs


def agreement(path: str, limit: int) -> None:
    from pytest_llmeval.metrics.freetext.claims import claims_f1
    from pytest_llmeval.metrics.freetext.coverage import sentence_coverage
    from pytest_llmeval.metrics.freetext.semantic import prefetch, semantic_similarity

    rows = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("label") in ("correct", "incorrect"):
                rows.append(row)
    rows = rows[:limit]
    prefetch([t for r in rows for t in (r["response"], r["gold"])])
    labels = [r["label"] == "correct" for r in rows]
    start = time.perf_counter()
    sims = [semantic_similarity(r["response"], r["gold"]).similarity for r in rows]
    t_sim = time.perf_counter() - start
    start = time.perf_counter()
    recalls = [
        claims_f1(r["response"], r["gold"], question=r["question"], judge="offline").recall
        for r in rows
    ]
    t_claims = time.perf_counter() - start
    start = time.perf_counter()
    covers = [sentence_coverage(r["response"], r["gold"]).score for r in rows]
    t_cov = time.perf_counter() - start

    def agree(scores: list[float], threshold: float) -> float:
        hits = sum((s >= threshold) == y for s, y in zip(scores, labels, strict=True))
        return float(hits) / len(labels)

    print(
        f"non-refusal rows {len(rows)} ({sum(labels)} correct), majority {max(sum(labels), len(labels) - sum(labels)) / len(labels):.3f}"
    )
    for name, scores, elapsed in (
        ("semantic_similarity", sims, t_sim),
        ("claims recall (offline)", recalls, t_claims),
        ("sentence_coverage", covers, t_cov),
    ):
        cells = "  ".join(f"@{t:.2f}: {agree(scores, t):.3f}" for t in (0.3, 0.5, 0.6, 0.75, 0.85))
        print(f"{name:26s} {cells}   ({elapsed:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", nargs="?")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--agreement", action="store_true")
    args = parser.parse_args()
    if args.agreement:
        agreement(args.path, args.limit)
        return

    from pytest_llmeval.metrics.freetext import semantic

    pairs = load_pairs(args.path, args.limit)
    texts = [t for pair in pairs for t in pair]
    model = semantic.load_model()
    model.encode(texts[:8], show_progress_bar=False)  # warm-up, not timed

    def batch() -> None:
        model.encode(
            texts,
            batch_size=semantic.BATCH_SIZE,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )

    def run() -> None:
        semantic.clear_cache()
        semantic.prefetch(texts)
        for response, expected in pairs:
            semantic.semantic_similarity(response, expected)

    def naive() -> None:
        semantic.clear_cache()
        for response, expected in pairs:
            semantic.semantic_similarity(response, expected)

    def best(fn: object, repeat: int) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        return min(times)

    # interleave so machine load hits both alike
    t_batch, t_run = float("inf"), float("inf")
    for _ in range(args.repeat):
        t_batch = min(t_batch, best(batch, 1))
        t_run = min(t_run, best(run, 1))
    t_naive = best(naive, 1)
    print(
        f"samples {len(pairs)}, texts {len(texts)} ({'synthetic' if args.path is None else args.path})"
    )
    print(f"batch  one model.encode of all texts      {t_batch:8.2f} s")
    print(
        f"run    prefetch + per-sample similarity   {t_run:8.2f} s   ratio {t_run / t_batch:.2f} (target <= 1.30)"
    )
    print(
        f"naive  per-sample, no prefetch            {t_naive:8.2f} s   ratio {t_naive / t_batch:.2f}"
    )


if __name__ == "__main__":
    main()
