"""Explicit contradictions of a textual gold answer: a different figure where the gold states one.

The offline judge weighs key words and figures; an answer that states none of the gold's key
figures but another figure of the same kind ("reduced rate of 12%" for "reduced rate of 15%",
"$4.1 billion" for "$3.9 billion") contradicts it however many words it shares. This check can
only turn a verdict into a fail, never into a pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_llmeval.metrics.numeric.candidates import Candidate


def _same_kind(gold: Candidate, said: Candidate) -> bool:
    if gold.percent != said.percent:
        return False
    if gold.currency and said.currency and gold.currency != said.currency:
        return False
    return gold.percent or bool(gold.currency) == bool(said.currency) or gold.scale_word is not None


# A gold of at most this many words states a fact (decided by its figures); a longer one describes
# (graded by how much of it the answer covers, where one other figure is no contradiction).
SHORT_FACT_WORDS = 20


def figure_conflict(keys: list[Candidate], said: list[Candidate], asked: list[float], gold: str) -> str:
    """Why the answer's figures contradict the key figures (``keys``, none of which the answer
    states) of a short factual ``gold``, or "": a figure of a key's kind not in the question
    (``asked``)."""
    from pytest_llmeval.metrics.numeric.agreement import values_agree

    if len(gold.split()) > SHORT_FACT_WORDS:
        return ""

    for g in keys:
        if g.approximate:
            continue  # "~90%": a rounder figure is no contradiction
        for c in said:
            if c.role not in ("value", "result") or not _same_kind(g, c):
                continue
            if any(values_agree(c.value, q) for q in asked):
                continue
            return (
                f"0/{len(keys)} key figure(s) of the expected answer stated, and a different one: "
                f'the response states "{c.raw}" where the expected answer states "{g.raw}"'
            )
    return ""


def polarity_conflict(gold: str, answer: str) -> str:
    """Why the answer's own polarity words contradict the gold's, or "": a figure of the gold
    restated with the opposite word ("rose 5%" for "fell 5%"), or, for a short factual gold,
    words that all point the other way ("made a profit" for "made a loss")."""
    from pytest_llmeval.metrics.numeric import polarity

    why = polarity.restated_conflict(gold, answer)
    if why is None and len(gold.split()) <= SHORT_FACT_WORDS:
        why = polarity.words_conflict(gold, answer)
    return why or ""


def period_conflict(gold: str, answer: str, question: str | None) -> str:
    """Why the answer names another date or period than a short factual gold ("fiscal 2021" for
    "fiscal 2022", "Q2 2021" for "Q3 2021"), or ""; periods the question names do not count."""
    if len(gold.split()) > SHORT_FACT_WORDS:
        return ""
    from pytest_llmeval.metrics.freetext.periods import conflicting_identity

    why = conflicting_identity(gold, answer[:20000], question)
    return f"the response {why}" if why else ""
