"""Reference metrics (``llm_reference_metrics``): BLEU, ROUGE-1/ROUGE-L F and a BERTScore-style F1.

Informational only, never scored: they sit beside the rubric's verdict so a team moving off
these metrics sees both in one report (a gold ``2022-10-27`` and an answer ``October 27, 2022``
share no n-gram: BLEU 0 beside a correct verdict).

- BLEU: sacrebleu's sentence BLEU (0-100, 13a tokenizer), unsmoothed as in the original
  definition: an answer sharing no bigram with the gold scores 0 whatever its unigrams.
- ROUGE-1 / ROUGE-L: rouge-score F-measures (0-1, Porter stemming; its tokenizer keeps only
  ``[a-z0-9]``, so æøå words are split: read ROUGE on Norwegian text with care).
- BERTScore F1: greedy matching of the bundled encoder's contextual token embeddings
  (:func:`pytest_llmeval.metrics.freetext.coverage.pair_f1`), not BERTScore's own model or baseline
  rescaling, so its absolute values are not comparable with published BERTScore figures.

Each library is imported on first use; a missing one leaves its metric ``None`` and names
the extra (``pip install 'pytest-llmeval-gold[reference]'``) in ``missing``.
"""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

__all__ = ["bertscore_f1", "bleu", "reference_metrics", "rouge"]

MAX_CHARS = 20_000  # bounded work on huge answers

_lock = threading.Lock()
_scorer: list[Any] = []


def bleu(response: str, reference: str) -> float:
    """sacrebleu sentence BLEU, 0-100, unsmoothed (n-gram orders longer than the answer are skipped)."""
    from sacrebleu.metrics.bleu import BLEU

    metric = BLEU(effective_order=True, smooth_method="none")
    return float(metric.sentence_score(response[:MAX_CHARS], [reference[:MAX_CHARS]]).score)


def rouge(response: str, reference: str) -> dict[str, float]:
    """ROUGE-1 and ROUGE-L F-measures (rouge-score, Porter stemming)."""
    if not _scorer:
        with _lock:
            if not _scorer:
                from rouge_score import rouge_scorer

                _scorer.append(rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True))
    scores = _scorer[0].score(reference[:MAX_CHARS], response[:MAX_CHARS])
    return {
        "rouge1_f": float(scores["rouge1"].fmeasure),
        "rougeL_f": float(scores["rougeL"].fmeasure),
    }


def bertscore_f1(response: str, reference: str, *, model: str | None = None) -> float:
    """BERTScore-style F1 over the encoder's token embeddings of the two whole texts."""
    from pytest_llmeval.metrics.freetext.coverage import pair_f1
    from pytest_llmeval.metrics.freetext.semantic import token_embeddings

    gen, ref = token_embeddings([response[:MAX_CHARS], reference[:MAX_CHARS]], model=model)
    return pair_f1(gen, ref)


def reference_metrics(response: str, reference: str, *, model: str | None = None) -> dict[str, Any]:
    """All four metrics, rounded; a metric whose package is missing is ``None`` and listed in ``missing``."""
    response, reference = response or "", reference or ""
    out: dict[str, Any] = {"bleu": None, "rouge1_f": None, "rougeL_f": None, "bertscore_f1": None}
    missing: list[str] = []
    if importlib.util.find_spec("sacrebleu") is not None:
        out["bleu"] = round(bleu(response, reference), 4)
    else:
        missing.append("sacrebleu ([reference] extra)")
    if importlib.util.find_spec("rouge_score") is not None:
        out.update({k: round(v, 4) for k, v in rouge(response, reference).items()})
    else:
        missing.append("rouge-score ([reference] extra)")
    if importlib.util.find_spec("sentence_transformers") is not None:
        out["bertscore_f1"] = (
            round(bertscore_f1(response, reference, model=model), 4)
            if response.strip() and reference.strip()
            else 0.0
        )
    else:
        missing.append("sentence-transformers ([semantic] extra)")
    if missing:
        out["missing"] = missing
    return out
