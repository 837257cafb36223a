"""Worked RAG example for the closing note: every retrieval metric, then a citation check.

    .venv/bin/python benchmarks/rag_example.py [--semantic]

The retrieval part is cross-checked against trec_eval (pytrec_eval) when it is installed.
``--semantic`` also runs the support check with sentence embeddings (bundled MiniLM, offline).
"""

from __future__ import annotations

import argparse
import os
import time

from pytest_llmeval.metrics.rag.citation import citation_check
from pytest_llmeval.metrics.rag.retrieval import retrieval_metrics

RETRIEVED = ["mval-3-1", "mval-6-1", "mval-14-1", "mval-8-1", "skatteloven-5-1"]
RELEVANT = ["mval-3-1", "mval-14-1", "mval-8-1"]
RELEVANT_4 = [*RELEVANT, "mval-15-10"]  # one relevant section the retriever missed

SOURCES = {
    "mval": "Lov om merverdiavgift (merverdiavgiftsloven)",
    "ns4102": "NS 4102 Kontoplan for regnskapsføring",
}
CONTEXTS = [
    "Ved omsetning av varer og tjenester skal det beregnes merverdiavgift etter merverdiavgiftsloven § 3-1.",
    "Den alminnelige satsen for merverdiavgift er 25 prosent av beregningsgrunnlaget.",
    "For næringsmidler gjelder en redusert sats på 15 prosent.",
]
RESPONSE = (
    "Omsetning av tjenester er avgiftspliktig [§ 3-1 Lov om merverdiavgift]. "
    "Den alminnelige satsen er 25 prosent [2]. "
    "Matvarer har redusert sats på 15 prosent [3]. "
    "Personbiler er fritatt for merverdiavgift [1]. "
    "Regnskapet føres etter [NS 4102]. "
    "Digitale tjenester er unntatt [§ 4-2 Lov om digitale tjenester], se også [5]."
)


def trec_reference(relevant: list[str], k: int | None) -> dict[str, float] | None:
    try:
        import pytrec_eval
    except ImportError:
        return None
    n = len(RETRIEVED)
    cut = k or n
    run = {"q": {d: float(n - i) for i, d in enumerate(RETRIEVED)}}
    measures = {f"P.{cut}", f"recall.{cut}", "recip_rank", "ndcg" if k is None else f"ndcg_cut.{k}"}
    measures.add("map" if k is None else f"map_cut.{k}")
    ref = pytrec_eval.RelevanceEvaluator({"q": dict.fromkeys(relevant, 1)}, measures).evaluate(run)[
        "q"
    ]
    return {
        "precision_at_k": ref[f"P_{cut}"],
        "recall_at_k": ref[f"recall_{cut}"],
        "mrr": ref["recip_rank"],
        "average_precision": ref["map" if k is None else f"map_cut_{k}"],
        "ndcg_at_k": ref["ndcg" if k is None else f"ndcg_cut_{k}"],
    }


def retrieval_table() -> None:
    fields = [
        "modified_precision",
        "ndcg_harmonic",
        "precision_at_k",
        "recall_at_k",
        "hit_rate",
        "mrr",
        "average_precision",
        "ndcg_at_k",
    ]
    cases = [
        ("|R|=3, k=None", RELEVANT, None),
        ("|R|=3, k=3", RELEVANT, 3),
        ("|R|=4, k=None", RELEVANT_4, None),
        ("|R|=4, k=3", RELEVANT_4, 3),
    ]
    print("Retrieved (ranked):", ", ".join(RETRIEVED))
    print("Relevant:", ", ".join(RELEVANT), "(+ mval-15-10 in the |R|=4 cases)\n")
    header = f"| {'metric':<20} |" + "".join(f" {name:>13} |" for name, _, _ in cases)
    print(header)
    print("|" + "-" * 22 + "|" + "".join("-" * 15 + "|" for _ in cases))
    results = [retrieval_metrics(RETRIEVED, rel, k=k) for _, rel, k in cases]
    for f in fields:
        print(f"| {f:<20} |" + "".join(f" {getattr(r, f):>13.4f} |" for r in results))
    mismatches = []
    checked = 0
    for (name, rel, k), r in zip(cases, results, strict=True):
        ref = trec_reference(rel, k)
        if ref is None:
            continue
        for f, v in ref.items():
            checked += 1
            if abs(getattr(r, f) - v) > 1e-9:
                mismatches.append(f"{name} {f}: ours {getattr(r, f):.6f} trec_eval {v:.6f}")
    if checked:
        print(
            f"\ntrec_eval (pytrec_eval) parity: {checked - len(mismatches)}/{checked} values equal"
        )
        for m in mismatches:
            print("  MISMATCH", m)
    print(
        "\nHarmonic nDCG, |R|=3: f=[1,0,1,1,0], DCG = 1 + 1/3 + 1/4 = 19/12, IDCG = 1 + 1/2 + 1/3 = 11/6,"
        f" nDCG = 19/22 = {19 / 22:.4f}"
    )


def citation_report(check_support: str | bool) -> None:
    print("\nResponse:", RESPONSE)
    print("Sources:", SOURCES)
    print(f"Contexts: {len(CONTEXTS)} passages\n")
    start = time.perf_counter()
    result = citation_check(
        RESPONSE, sources=SOURCES, contexts=CONTEXTS, check_support=check_support
    )
    elapsed = time.perf_counter() - start
    print(f"| {'citation':<36} | {'kind':<9} | {'resolved':<8} | {'support':>7} | resolution")
    print("|" + "-" * 38 + "|" + "-" * 11 + "|" + "-" * 10 + "|" + "-" * 9 + "|" + "-" * 12)
    for c in result.citations:
        support = "-" if c.support is None else f"{c.support:.2f}{'' if c.supported else ' x'}"
        print(f"| {c.text:<36} | {c.kind:<9} | {c.resolved!s:<8} | {support:>7} | {c.resolution}")
    print(
        f"\ncheck_support={check_support!r}: score {result.score:.4f}, passed {result.passed}, "
        f"unresolved {result.unresolved}, unsupported {result.unsupported} ({elapsed:.2f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--semantic", action="store_true", help="also check support with embeddings"
    )
    args = parser.parse_args()
    retrieval_table()
    citation_report(True)
    if args.semantic:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        citation_report("semantic")


if __name__ == "__main__":
    main()
