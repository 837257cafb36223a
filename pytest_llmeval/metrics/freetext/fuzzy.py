"""String graders: exact match, rapidfuzz similarity, and the fuzzy key-fact inclusion check.

``fact_inclusion`` asks "are the key words of the gold answer present in the response?"
(each gold content word fuzzy-matched against the response's words with rapidfuzz),
ignoring words the question already contains. ``answer_correctness`` uses it as a
second opinion: when it disagrees with the offline verdict the sample needs review.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult

if TYPE_CHECKING:
    from pytest_llmeval.registry import GradeContext

__all__ = [
    "FactInclusion",
    "content_words",
    "fact_inclusion",
    "grade_exact",
    "grade_fuzzy",
    "normalise_text",
]

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "why",
        "how",
        "than",
        "then",
        "so",
        "such",
        "not",
        "no",
        "yes",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "shall",
        "also",
        "any",
        "all",
        "each",
        "both",
        "more",
        "most",
        "other",
        "some",
        "into",
        "over",
        "under",
        "about",
        "between",
        "during",
        "after",
        "before",
        "per",
        "via",
        "up",
        "down",
        "out",
        "only",
        "very",
        "just",
        "vs",
        "versus",
        "while",
        "whereas",
        "amongst",
        "among",
        "company",
        "companys",
        "fy",
        "year",
        "years",
        "fiscal",
        "q1",
        "q2",
        "q3",
        "q4",
        "usd",
        "million",
        "millions",
        "billion",
        "billions",
        "percent",
        "approximately",
        "approx",
        "roughly",
        "around",
        "about",
    ]
)
# Letters and digits of any script ("dáin", "bokmål", "ørsted"): Nordic text is home ground.
_WORD_RE = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*")


def normalise_text(text: str) -> str:
    """Case-folded, NFKC, straight quotes, collapsed whitespace, no surrounding punctuation."""
    text = unicodedata.normalize("NFKC", text or "").replace("\u2019", "'").replace("\u2018", "'")
    # casefold, then NFC again: folding can decompose ("ǰ") and words must compare composed.
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFC", text.casefold())).strip()
    return text.strip(" .,;:!?\"'")


def content_words(text: str, *, ignore: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Words that carry meaning: no stopwords, no pure punctuation, none of ``ignore``."""
    words = _WORD_RE.findall(normalise_text(text).replace("'s", ""))
    seen: dict[str, None] = {}
    for w in words:
        if w in STOPWORDS or w in ignore or len(w) < 2:
            continue
        seen.setdefault(w, None)
    return list(seen)


def _in_stems(word: str, words: set[str] | list[str]) -> bool:
    """Same word up to its ending ("operations" ~ "operating", "acquisitions" ~ "acquired")."""
    if word in words:
        return True
    if len(word) < 5:
        return False
    stem = word[:5] if len(word) < 8 else word[:6]
    return any(w.startswith(stem) for w in words if len(w) >= 5)


@dataclass(kw_only=True)
class FactInclusion(MetricResult):
    """Share of the gold answer's key words found (fuzzily) in the response."""

    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    threshold: float = 0.5


def fact_inclusion(
    response: str,
    expected: str,
    *,
    question: str | None = None,
    threshold: float = 0.5,
    min_ratio: float = 85.0,
) -> FactInclusion:
    """Fuzzy key-fact inclusion: each gold content word not already in the question must match a
    response word with rapidfuzz ``ratio >= min_ratio`` (so "acquisitions" ~ "acquisition").
    ``score`` = found / key words; ``passed`` when ``score >= threshold``.
    """
    from rapidfuzz import fuzz, process

    q_words = set(content_words(question or ""))
    # Figures are judged by the numeric checks, not as words.
    gold_words = [w for w in content_words(expected) if not any(ch.isdigit() for ch in w)]
    keys = [w for w in gold_words if w not in q_words and not _in_stems(w, q_words)] or gold_words
    resp_norm = normalise_text(response).replace("'s", "")
    resp_words = list(set(_WORD_RE.findall(resp_norm)))
    squashed = resp_norm.replace(" ", "").replace("-", "")
    found: list[str] = []
    missing: list[str] = []
    for key in keys:
        hit = _in_stems(key, resp_words) or (len(key) >= 6 and key in squashed)
        if not hit and resp_words:
            hit = (
                process.extractOne(key, resp_words, scorer=fuzz.ratio, score_cutoff=min_ratio)
                is not None
            )
        (found if hit else missing).append(key)
    score = len(found) / len(keys) if keys else 0.0
    passed = bool(keys) and score >= threshold
    explanation = (
        f"{len(found)}/{len(keys)} key words of the expected answer found in the response "
        f"(rapidfuzz ratio >= {min_ratio:g}; words already in the question ignored); "
        f"score {score:.2f} vs threshold {threshold:.2f}"
        + (f"; missing: {', '.join(missing[:8])}" if missing else "")
    )
    return FactInclusion(
        metric="fact_inclusion",
        passed=passed,
        score=score,
        explanation=explanation,
        found=found,
        missing=missing,
        threshold=threshold,
        details={"found": found, "missing": missing, "threshold": threshold},
    )


def swapped_words(response: str, expected: str, missing: list[str]) -> list[tuple[str, str]]:
    """Gold words the response replaces rather than leaves out: ("timmy", "emmitt") for "Emmitt Smith"
    against "Timmy Smith" (the word beside a shared one differs), but nothing for "Christopher Lloyd"
    against "Christopher Allen Lloyd" (a middle word is left out)."""
    gold = _WORD_RE.findall(normalise_text(expected).replace("'s", ""))
    said = _WORD_RE.findall(normalise_text(response).replace("'s", ""))
    swaps: list[tuple[str, str]] = []
    for word in missing:
        if word not in gold:
            continue
        i = gold.index(word)
        for neighbour, step in (
            (gold[i - 1] if i > 0 else None, 1),
            (gold[i + 1] if i + 1 < len(gold) else None, -1),
        ):
            if neighbour is None or neighbour in STOPWORDS or neighbour not in said:
                continue
            j = said.index(neighbour) + step
            if 0 <= j < len(said):
                other = said[j]
                letters = other.replace(".", "")
                initial = (
                    len(letters) <= 3 and word[0] in letters
                )  # "B. R. Ambedkar", "B.R. Ambedkar"
                if (
                    other not in STOPWORDS
                    and other not in gold
                    and not _in_stems(other, gold)
                    and not initial
                ):
                    swaps.append((word, other))
                    break
    return swaps


def _is_refusal(response: str) -> bool:
    # A failed match that is also a refusal is counted apart in the report.
    from pytest_llmeval.metrics.freetext.refusal import is_refusal

    return is_refusal(response)


def grade_exact(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``exact``: normalised string equality (case, whitespace, surrounding punctuation)."""
    got, want = normalise_text(ctx.response), normalise_text(ctx.expected)
    passed = got == want
    return MetricResult(
        metric="exact",
        passed=passed,
        score=1.0 if passed else 0.0,
        explanation=(
            f"normalised response {got[:80]!r} {'==' if passed else '!='} normalised expected {want[:80]!r}"
        ),
        details={"refusal": not passed and _is_refusal(ctx.response), "needs_review": False},
    )


def grade_fuzzy(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``fuzzy``: rapidfuzz ``token_set_ratio`` / 100 against ``criteria['min_ratio']`` (default 0.8)."""
    from rapidfuzz import fuzz

    threshold = ctx.criteria.get("min_ratio", ctx.options.get("fuzzy_min_ratio", 0.8))
    try:
        threshold = float(threshold)
    except (TypeError, ValueError) as exc:
        raise GraderError(
            f"fuzzy grader: min_ratio must be a number in [0, 1], got {threshold!r}"
        ) from exc
    if not 0.0 <= threshold <= 1.0:
        raise GraderError(f"fuzzy grader: min_ratio must be in [0, 1], got {threshold!r}")
    score = fuzz.token_set_ratio(normalise_text(ctx.response), normalise_text(ctx.expected)) / 100.0
    passed = score >= threshold
    return MetricResult(
        metric="fuzzy",
        passed=passed,
        score=score,
        explanation=f"rapidfuzz token_set_ratio {score:.2f} {'>=' if passed else '<'} min_ratio {threshold:.2f}",
        details={
            "refusal": not passed and _is_refusal(ctx.response),
            "needs_review": False,
            "threshold": threshold,
        },
    )
