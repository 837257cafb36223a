"""Explicit contradictions of a textual gold answer: a different figure where the gold states one.

The offline judge weighs key words and figures; an answer that states none of the gold's key
figures but another figure of the same kind ("reduced rate of 12%" for "reduced rate of 15%",
"$4.1 billion" for "$3.9 billion") contradicts it however many words it shares. This check can
only turn a verdict into a fail, never into a pass.
"""

from __future__ import annotations

from collections.abc import Callable
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


def figure_conflict(
    keys: list[Candidate], said: list[Candidate], asked: list[float], gold: str
) -> str:
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


def _name(label: frozenset[str] | None, signed: frozenset[str]) -> frozenset[str]:
    """What a label names without its polarity words ("international sales" of "international sales decline")."""
    return frozenset(w for w in label or () if w not in signed)


def _same_size(a: Candidate, b: Candidate, values_agree: Callable[[float, float], bool]) -> bool:
    """Sizes that agree, or differ by no more than the rounding of the coarser display."""
    return values_agree(abs(a.value), abs(b.value)) or abs(abs(a.value) - abs(b.value)) <= max(
        a.ulp, b.ulp
    ) / 2 * (1 + 1e-9)


def label_conflict(gold: str, answer: str, missing: list[Candidate], question: str | None) -> str:
    """Why the answer ties another figure to the label of a key figure it does not state, or "":
    "international sales growth was 9.1%" where a short factual gold says "international sales
    decline of 0.6%". Labels of two or more words (polarity words apart) only: "sales" alone names
    too much."""
    if len(gold.split()) > SHORT_FACT_WORDS or not missing:
        return ""
    from pytest_llmeval.metrics.numeric.agreement import values_agree
    from pytest_llmeval.metrics.numeric.candidates import extract_values
    from pytest_llmeval.metrics.numeric.figure_labels import tie
    from pytest_llmeval.metrics.numeric.polarity import sign_stems

    signed = sign_stems()
    gold_figures = [c for c in extract_values(gold, question=question) if not c.ignored]
    gold_labels = tie(gold, gold_figures)
    answer = answer[:20000]
    said = [c for c in extract_values(answer, question=question) if not c.ignored]
    said_labels = tie(answer, said)
    wanted = {m.span for m in missing}
    for i, g in enumerate(gold_figures):
        name = _name(gold_labels.get(i), signed)
        if g.span not in wanted or len(name) < 2:
            continue
        tied = [
            c
            for k, c in enumerate(said)
            if c.percent == g.percent and name <= _name(said_labels.get(k), signed)
        ]
        # "(0.6)%" for "0.62%" is the same figure at a coarser display; one such figure of the
        # label (of several years, say) states the gold's
        if tied and not any(_same_size(c, g, values_agree) for c in tied):
            return f'the response ties "{tied[0].raw}" to the label the expected answer gives "{g.raw}"'
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
