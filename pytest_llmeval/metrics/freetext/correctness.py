"""Answer correctness: is the response "factually matching" the gold answer, or not?

Criteria (the same for the LLM judge and the offline judge): the answer covers the key
topic of the ideal answer; it does not omit the central fact; it contradicts none of its
details; numbers, data points and percentages are accurate (with scales: "$1.58 billion"
matches "1577 (USD millions)"); economic indicators move in the same direction; yes/no
questions get the same polarity. A refusal is never correct.

The offline judge (default, deterministic, no network, no model) works in two steps.
Rules first (``RULES``, a registry the benchmark ablates): a refusal is incorrect; a numeric
gold answer is decided by the figure the response concludes with (numeric engine: scale, sign,
percent, rounding); an opposite yes/no (also read from a long answer's conclusion), a negated
answer to a "Yes, ..." gold, an opposite direction, a different option of an "Among A, B and C,
which ...?" question, a missing gold date, a short gold none of whose words is stated, a hedged
non-answer, or disagreeing on "if X is not a useful metric, say so" is decided outright; a short
gold the answer's opening names in any written form (:mod:`.naming`) passes, and one named among
other candidates, only to be rejected, or with a word the question states replaced does not. Only
the gold's answer counts, not its assumption sentences; a change/ratio/difference implied by two
figures of one response sentence counts as stated. Otherwise a small logistic model
(weights fitted on FinanceBench dev, cross-validated by question; see
``benchmarks/eval_answer_correctness.py``) weighs key-word inclusion, key-figure agreement,
polarity, direction and topic signals.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.freetext.calendar import MONTH_ALTERNATION, MONTHS
from pytest_llmeval.metrics.freetext.fuzzy import fact_inclusion, swapped_words
from pytest_llmeval.metrics.freetext.periods import identities, iso_dates, leads_period
from pytest_llmeval.metrics.freetext.refusal import refusal_check

if TYPE_CHECKING:
    from pytest_llmeval.models.base import ChatModel
    from pytest_llmeval.registry import GradeContext

__all__ = ["AnswerVerdict", "answer_correctness", "assert_answer_correct", "grade"]


@dataclass(kw_only=True)
class AnswerVerdict(MetricResult):
    """Binary verdict; ``passed`` == ``correct``. ``needs_review`` flags judge/fuzzy disagreement."""

    correct: bool = False
    refusal: bool = False
    reasons: list[str] = field(default_factory=list)
    needs_review: bool = False
    judge: str = "offline"


# Tuned on the FinanceBench dev set with cross-validation by question (see the benchmark).
PARAMS: dict[str, float] = {
    "rel_tol": 0.01,  # relative tolerance between a response figure and the gold figure
    "review_inclusion": 0.5,  # fuzzy inclusion that "agrees" with a correct verdict for needs_review
    "derived_tol": 0.03,  # relative tolerance of a change/ratio/difference computed from two stated levels
    # Analysis switches (1 on, 0 off) so the benchmark can measure each class of fix on grouped folds.
    "derived_figures": 1.0,
    "gold_answer_part": 1.0,
    "conclusion": 1.0,
}

# ---------------------------------------------------------------- polarity / direction
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'*\-\d])|\n+")
_YES_RE = re.compile(r"^\W*(yes)\b", re.IGNORECASE)
_NO_RE = re.compile(r"^\W*(no)\b(?!\.?\s*\d)", re.IGNORECASE)
_UP = re.compile(
    r"\b(increas\w*|grew|grow\w*|rose|rise[ns]?|rising|improv\w*|higher|gain(ed|s)?|up|expand\w*|positive|raised?)\b",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(decreas\w*|declin\w*|drop\w*|fell|fall\w*|shr[iau]nk\w*|lower|reduc\w*|down|contract\w*|negative|worse\w*|deteriorat\w*)\b",
    re.IGNORECASE,
)
_NEG_RE = re.compile(
    r"\b(not|no|never|none|neither|nor|n't|did not|does not|has not|have not|was not|is not)\b",
    re.IGNORECASE,
)


# "Here are the key points ..." summaries of a document instead of an answer to the question.
_SUMMARY_RE = re.compile(
    r"^\s*(here (are|is) (the |a |an )?(key|summary|relevant|main|brief|overview|some)|"
    r"the (provided )?(text|document|filing|excerpt) (appears to be|is an excerpt|contains|describes|outlines))",
    re.IGNORECASE,
)


_MONTHS, _MONTH_ALT = MONTHS, MONTH_ALTERNATION  # one calendar table (calendar.py)


def _dates(text: str) -> set[tuple[int, int, int]]:
    """Calendar dates stated in ``text`` as (year, month, day), in any form the period reader knows."""
    return {
        (ident.value[0], ident.value[1], ident.value[2])
        for ident in identities((text or "")[:20000])[0]
        if ident.kind == "date" and all(ident.value)
    }


_OPTIONS_RE = re.compile(
    r"\b(?:among|between|of|from)\s+(?:the\s+)?((?:[a-z][\w&-]*\s?){1,3}(?:,\s*(?:[a-z][\w&-]*\s?){1,3})*,?\s+(?:and|or)\s+(?:[a-z][\w&-]*\s?){1,3}?)"
    r"(?:\s+(?:activities|segments?|regions?|categories|businesses))?\s*,\s*(?:which|what)\b",
    re.IGNORECASE,
)


def _stem(word: str) -> str:
    return word.lower()[:5]


def question_options(question: str | None) -> list[str]:
    """The options a "Among A, B and C, which ...?" question offers (stems of their first words)."""
    m = _OPTIONS_RE.search(question or "")
    if not m:
        return []
    parts = re.split(r",\s*(?:and|or)?\s*|\s+(?:and|or)\s+", m.group(1).strip())
    stems = [_stem(p.split()[0]) for p in parts if p.strip()]
    return stems if len(stems) >= 2 and len(set(stems)) == len(stems) else []


def _chosen_options(text: str, options: list[str]) -> set[str]:
    """Options a sentence picks, ignoring a restated list of the options ("operations, investing and financing")."""
    words = re.findall(r"[a-z][\w&-]*", text.lower())
    hits = [i for i, w in enumerate(words) if _stem(w) in options]
    # a run of option words close together is the question's list restated, not a choice
    listed: set[int] = set()
    for a, b in itertools.pairwise(hits):
        if b - a <= 3:
            listed.update((a, b))
    return {_stem(words[i]) for i in hits if i not in listed}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_SPLIT.split(text.strip()) if s.strip()]


_FILLER_RE = re.compile(
    r"^\W*(sure|certainly|of course|absolutely|great question|happy to help|okay|ok)\b[!.,]?\s*"
    r"(i can help( you)? with that|here'?s? (is )?(the|my) answer|i'?d be happy to help)?[!.:,]?\s*",
    re.IGNORECASE,
)


def _strip_filler(text: str) -> str:
    """Drop a leading "Sure! I can help you with that." so the answer's first sentence is the answer."""
    return _FILLER_RE.sub("", text.strip(), count=1)


def _polarity(text: str) -> str | None:
    """'yes' / 'no' when the text opens with it (after an optional "Based on ..., " preamble)."""
    head = _strip_filler(text).lstrip("*# ").strip()
    head = re.sub(r"^(based on|according to|from)[^,]{0,120},\s*", "", head, flags=re.IGNORECASE)
    if _YES_RE.match(head):
        return "yes"
    if _NO_RE.match(head):
        return "no"
    return None


def _direction(text: str) -> str | None:
    """'up' / 'down' when one direction dominates the text's direction words."""
    up = len(_UP.findall(text))
    down = len(_DOWN.findall(text))
    if up > down:
        return "up"
    if down > up:
        return "down"
    return None


# ---------------------------------------------------------------- the offline judge
@dataclass
class Signals:
    """What the offline judge measured (kept for the benchmark and for explanations)."""

    refusal: bool
    refusal_why: str
    gold_numeric: bool
    any_match: bool
    final_match: bool | None
    key_matched: int
    key_total: int
    gold_polarity: str | None
    resp_polarity: str | None
    gold_direction: str | None
    resp_direction: str | None
    inclusion: float
    inclusion_missing: list[str]
    key_words: int = 0
    numeric_why: str = ""
    question_coverage: float = 1.0
    gold_negative: bool = False
    resp_negative: bool = False
    summary_preamble: bool = False
    option_conflict: bool = False
    key_dates: int = 0
    dates_matched: int = 0
    date_only: bool = False
    short_gold: bool = False
    key_derived: int = 0
    key_contradicted: int = 0  # key figures missing where the response states another of their kind
    concl_direction: str | None = None
    concl_polarity: str | None = None
    answer_negated: bool = False
    hedged: bool = False
    metric_question: bool = False
    gold_rejects_metric: bool = False
    resp_rejects_metric: bool = False
    swapped: list[tuple[str, str]] = field(
        default_factory=list
    )  # (gold word, the response's word instead)
    named: str = ""  # how the opening sentence names a short gold ("word for word", "initials ...")
    not_answer: str = (
        ""  # why a short gold is named but not as the answer: listed among others, rejected
    )
    filing_dump: bool = False  # the response is a pasted filing cover page, not an answer
    # "reduced rate of 12%" for "reduced rate of 15%": no key figure stated, another of its kind instead
    figure_conflict: str = ""
    # "made a profit" for "made a loss", "rose 5%" for "fell 5%": the answer's own polarity words
    polarity_conflict: str = ""
    # "fiscal 2021" for "fiscal 2022": another date or period than a short factual gold's
    period_conflict: str = ""


# ---------------------------------------------------------------- the gold's answer vs its asides
# Sentences of a gold answer that state an assumption, a definition or how it was computed: their
# dates and figures are context ("The answer here assumes FY2023 refers to the 12 months ended
# January 28, 2023"), not facts the response must state.
_GOLD_ASIDE_RE = re.compile(
    r"\b(assum(e|es|ed|ing|ption)|refers? to|note that|for (reference|context)|defined as|"
    r"(is|are|was|were) (calculated|computed|derived|estimated) (as|by|using|from)|"
    r"(this|the) (answer|calculation|computation|figure|estimate) (here )?(uses|is based|excludes|includes|assumes))\b",
    re.IGNORECASE,
)
_GOLD_ASIDE_PAREN_RE = re.compile(
    r"\(([^()]*\b(?:using|assum\w*|defined|excluding|including|calculated|based on)\b[^()]*)\)",
    re.I,
)


def gold_answer_part(expected: str) -> str:
    """The gold without its asides: assumption/definition sentences and "(using X as ...)" remarks.

    Falls back to the whole gold when every sentence is an aside.
    """
    text = _GOLD_ASIDE_PAREN_RE.sub("", expected or "")
    kept = [sent for sent in _sentences(text) if not _GOLD_ASIDE_RE.search(sent)]
    return " ".join(kept) if kept else (expected or "")


# ---------------------------------------------------------------- the response's conclusion
_CONCLUSION_RE = re.compile(
    r"^\W*(in summary|in conclusion|to summari[sz]e|to conclude|in short|overall|therefore|thus|hence|"
    r"so\b|as a result|this (means|indicates|shows|suggests)|the answer is|in sum|the bottom line)",
    re.IGNORECASE,
)


def _conclusion(text: str) -> str:
    """Sentences that conclude a long answer ("In summary, ...", "Therefore ..."); '' when none."""
    sentences = _sentences(_strip_filler(text))
    if len(sentences) < 3:
        return ""
    return " ".join(s for s in sentences[2:] if _CONCLUSION_RE.match(s.lstrip("*-# ")))


def _after_cue(sentence: str) -> str:
    return _CONCLUSION_RE.sub("", sentence.lstrip("*-# "), count=1).lstrip(" ,:")


# ---------------------------------------------------------------- figures implied by two levels
_MAX_VALUES_PER_SENTENCE = 12  # bounds the pair search (quadratic in a sentence's figures)


def _derived_values(sentence_values: list[list[Any]]) -> list[tuple[float, bool]]:
    """Changes, ratios and differences implied by two figures stated in one sentence.

    "$1,874 million ... decreased to $1,093 million" implies a 41.7% decline (-0.417, percent),
    a ratio of 0.583 and a difference of 781 million. Returns (value, is_percent) pairs.
    """
    out: list[tuple[float, bool]] = []
    for values in sentence_values:
        values = values[:_MAX_VALUES_PER_SENTENCE]
        for i, a in enumerate(values):
            for b in values[i + 1 :]:
                if a.percent != b.percent or a.value == 0 or b.value == 0:
                    continue
                if a.percent:  # two rates: the gap between them, in points
                    out.append((abs(b.value - a.value), True))
                    continue
                if (a.currency or None) != (b.currency or None):
                    continue
                out.append((abs(b.value - a.value) / abs(a.value), True))  # change from a to b
                out.append((abs(a.value - b.value) / abs(b.value), True))  # change from b to a
                out.append((abs(a.value / b.value), True))  # share / ratio, as a percent
                out.append((abs(b.value / a.value), True))
                out.append((abs(a.value / b.value), False))  # ratio as a number ("1.5x")
                out.append((abs(b.value / a.value), False))
                out.append((abs(a.value - b.value), False))  # difference
    return out


def _derived_agree(
    gold: float, gold_percent: bool, derived: list[tuple[float, bool]], tol: float
) -> bool:
    target = abs(gold)
    if target == 0 or (gold_percent and abs(target - 1.0) < 1e-9):
        return False  # 0% and 100% are implied by almost any two figures
    return any(
        is_percent == gold_percent
        and abs(value - target) <= max(tol * target, 0.0051 if is_percent else 0.0)
        for value, is_percent in derived
    )


# ---------------------------------------------------------------- "if X is not useful, say so"
_METRIC_QUESTION_RE = re.compile(
    r"\bif\b[^.?]{0,120}\b(?:not|isn'?t)\b[^.?]{0,30}\b(?:useful|relevant|meaningful|appropriate|applicable|helpful|"
    r"good|suitable|sensible)\b[^.?]{0,80}\b(?:say so|state (?:so|that|this)|explain|mention|note|indicate|tell)",
    re.IGNORECASE,
)
_REJECTS_METRIC_RE = re.compile(
    r"\b(?:not|isn'?t|aren'?t|less|no longer)\s+(?:a\s+|an\s+|very\s+|particularly\s+|really\s+|as\s+|that\s+)?"
    r"(?:useful|relevant|meaningful|appropriate|applicable|helpful|suitable|sensible|informative|good)\b"
    r"|\b(?:meaningless|not\s+meaningful|of\s+limited\s+(?:use|usefulness|relevance|value)|limited\s+usefulness|"
    r"not\s+(?:a\s+)?(?:key|primary|standard|common)\s+(?:metric|measure|indicator))\b",
    re.IGNORECASE,
)


def _rejects_metric(text: str) -> bool:
    """The text says the asked metric is not useful for this company (in its opening or conclusion)."""
    sentences = _sentences(_strip_filler(text))
    where = " ".join(sentences[:2] + sentences[-2:])
    return bool(_REJECTS_METRIC_RE.search(where))


# "To determine if X increased, we need to look at ...": method sentences restate the question.
_METHOD_RE = re.compile(
    r"^\W*(to (determine|answer|calculate|find|compute|assess|evaluate|see|identify)|in order to|let'?s|"
    r"first,? (we|let)|we (need|have|will need) to|we can (calculate|compute|determine))\b",
    re.IGNORECASE,
)


def _answer_sentences(text: str) -> list[str]:
    """Sentences of the response without leading filler and without method sentences."""
    sentences = _sentences(_strip_filler(text))
    kept = [s for s in sentences if not _METHOD_RE.match(s)]
    return kept or sentences


def _answer_sentence(text: str) -> str:
    """The response's first sentence without a "Based on the filing," preamble."""
    opening = _answer_sentences(text)
    first = opening[0] if opening else ""
    return re.sub(r"^(based on|according to|from)[^,]{0,160},\s*", "", first, flags=re.IGNORECASE)


SHORT_GOLD_WORDS = 6  # "Paris", "Customer deposits", "Trillium, Array, and Therachon"
# Scores of an answer "related but missing key information" (the design's 0.4-0.69 band): below
# the acceptable tier, so it fails the default tiers whatever the other components say.
PARTIAL_BAND = (0.4, 0.69)


def _short_answer(expected: str) -> bool:
    """A gold that is a name or a short phrase, not a sentence: its words are the answer."""
    words = (expected or "").split()
    return 0 < len(words) <= SHORT_GOLD_WORDS and not _NEG_RE.search(expected)


# Cover-page lines of an SEC filing: a response that opens with them pastes the document instead of
# answering (on FinanceBench dev every response with two of them is labelled incorrect).
_FILING_MARKS = tuple(
    re.compile(p, re.MULTILINE)
    for p in (
        r"SECURITIES AND EXCHANGE COMMISSION",
        r"Washington,? D\.?C\.? 20549",
        r"\(Mark One\)",
        r"(?i:Commission file number)",
        r"(?i:Exact name of registrant)",
        r"^\W*Table of Contents\s*$",
        r"\[END OF FILING\]",
        r"(?i:Indicate by check mark)",
    )
)


def _is_filing_dump(response: str) -> bool:
    head = response[:800]
    return sum(1 for mark in _FILING_MARKS if mark.search(head)) >= 2


def analyse(
    response: str,
    expected: str,
    question: str | None = None,
    params: dict[str, float] | None = None,
) -> Signals:
    """Measure every signal the offline verdict uses: figures, dates, options, words, framing."""
    p = {**PARAMS, **(params or {})}
    ref = refusal_check(response)
    gold_part = gold_answer_part(expected) if p["gold_answer_part"] else expected
    # one date written two ways shares its words ("30 June 2023", "2023-06-30")
    inc = fact_inclusion(iso_dates(response), iso_dates(gold_part), question=question)
    framing = _framing_signals(response, ref.position if not ref.refusal else None, p)
    metric_question = bool(_METRIC_QUESTION_RE.search(question or ""))
    resp_rejects_metric = metric_question and _rejects_metric(response)
    return Signals(
        # declining a metric the question says may not be useful is an answer, not a refusal
        refusal=ref.refusal and not resp_rejects_metric,
        refusal_why=ref.explanation,
        **_figure_signals(response, expected, gold_part, question, p),
        **_date_signals(response, expected, gold_part, question),
        **framing,
        gold_polarity=_polarity(expected),
        resp_polarity=_polarity(response),
        gold_direction=_direction(expected),
        inclusion=inc.score,
        inclusion_missing=inc.missing,
        key_words=len(inc.found) + len(inc.missing),
        # Does the response address the question at all (off-topic answers cover few of its words)?
        question_coverage=fact_inclusion(response, question, threshold=0.0).score
        if question
        else 1.0,
        gold_negative=_polarity(expected) != "yes" and bool(_NEG_RE.search(expected)),
        summary_preamble=bool(_SUMMARY_RE.search(response)),
        option_conflict=_option_conflict(response, expected, question),
        short_gold=_short_answer(expected),
        answer_negated=bool(_NEG_RE.search(_answer_sentence(response))),
        metric_question=metric_question,
        gold_rejects_metric=metric_question and _rejects_metric(expected),
        resp_rejects_metric=resp_rejects_metric,
        swapped=_named_swaps(response, gold_part, inc.missing) if _short_answer(expected) else [],
        **_naming_signals(response, expected, question),
        filing_dump=_is_filing_dump(response),
    )


def _calendar_word(word: str) -> bool:
    """A month name or a number: part of a date, which the period check compares as a whole."""
    return word.lower().strip(".") in _MONTHS or word.isdigit()


def _named_swaps(response: str, gold: str, missing: list[str]) -> list[tuple[str, str]]:
    """Words the answer names in place of the gold's, dates apart ("Sept." for "September" and
    "09" for "June" are dates written another way; the period check reads them)."""
    return [
        (g, said)
        for g, said in swapped_words(response, gold, missing)
        if not (_calendar_word(g) or _calendar_word(said))
    ]


def _numeric_gold_signals(
    response: str, expected: str, question: str | None, tol: float
) -> dict[str, Any]:
    """A numeric gold: the numeric engine picks the concluding figure and knows the question's units."""
    from pytest_llmeval.metrics.numeric.match import numeric_match

    concl = numeric_match(response, expected, question=question, tolerance=tol, match="concluding")
    anywhere = numeric_match(response, expected, question=question, tolerance=tol, match="any")
    return {
        "gold_numeric": True,
        "final_match": concl.passed if concl.found is not None or concl.passed else None,
        "any_match": anywhere.passed,
        "numeric_why": concl.explanation,
        "key_matched": 0,
        "key_total": 0,
        "key_derived": 0,
        "key_contradicted": 0,
    }


def _figure_signals(
    response: str, expected: str, gold_part: str, question: str | None, p: dict[str, float]
) -> dict[str, Any]:
    """A numeric gold: the numeric engine's verdict on the concluding figure and anywhere. A textual
    gold: how many of its key figures (not those the question states) the response gives or derives."""
    from pytest_llmeval.metrics.numeric.match import extract_values, looks_numeric, values_agree

    tol = p["rel_tol"]
    if looks_numeric(expected or ""):
        return _numeric_gold_signals(response, expected, question, tol)

    def stated(text: str | None) -> list[Any]:
        # "3. kvartal 2022": the number of a quarter or half-year is no figure
        return [
            c
            for c in extract_values(text or "", question=question)
            if not c.ignored and not leads_period((text or "")[c.span[0] :])
        ]

    q_vals, r_vals = [c.value for c in stated(question)], [c.value for c in stated(response)]
    keys = [g for g in stated(gold_part) if not any(values_agree(g.value, q) for q in q_vals)]
    unmatched = [
        g for g in keys if not any(values_agree(abs(r), abs(g.value), rel_tol=tol) for r in r_vals)
    ]
    missing = unmatched
    if unmatched and p["derived_figures"]:
        # "a decline of about 42%" vs "$1,874 million ... decreased to $1,093 million"
        derived = _derived_values([stated(sent) for sent in _sentences(response)])
        missing = [
            g
            for g in unmatched
            if not _derived_agree(g.value, g.percent, derived, p["derived_tol"])
        ]
    key_matched = len(keys) - len(missing)
    response_kinds = {c.percent for c in stated(response)}
    from pytest_llmeval.metrics.freetext.contradiction import (
        figure_conflict,
        label_conflict,
        period_conflict,
        polarity_conflict,
    )

    conflict = (
        figure_conflict(keys, stated(response), q_vals, gold_part)
        if keys and not key_matched
        else ""
    )
    if not conflict and missing:
        # "international sales grew 9.1%" for "international sales decline of 0.6%": another figure
        # tied to the label of a key figure the answer does not state
        conflict = label_conflict(gold_part, response, missing, question)
    return {
        "gold_numeric": False,
        "final_match": None,
        "any_match": key_matched > 0,
        "numeric_why": "",
        "key_matched": key_matched,
        "key_total": len(keys),
        "key_derived": len(unmatched) - len(missing),
        # a key figure the response does not state while it states others of its kind (a
        # percentage where the gold has one): the answer gives another figure in its place
        "key_contradicted": sum(1 for g in missing if g.percent in response_kinds),
        "figure_conflict": conflict,
        "polarity_conflict": polarity_conflict(gold_part, response),
        "period_conflict": period_conflict(gold_part, response, question),
    }


def _date_signals(
    response: str, expected: str, gold_part: str, question: str | None
) -> dict[str, Any]:
    """Calendar dates of the gold answer (not those the question states) are key facts too."""
    gold_dates = _dates(gold_part) - _dates(question or "")
    date_only = (
        bool(gold_dates)
        and not re.sub(
            r"[\W\d_]+|\b(" + _MONTH_ALT + r")\b", "", expected, flags=re.IGNORECASE
        ).strip()
    )
    return {
        "key_dates": len(gold_dates),
        "dates_matched": len(gold_dates & _dates(response)),
        "date_only": date_only,
    }


def _naming_signals(response: str, expected: str, question: str | None) -> dict[str, Any]:
    """How the answer's opening names a short gold, or why it names it but not as the answer."""
    if not _short_answer(expected):
        return {}
    from pytest_llmeval.metrics.freetext.naming import naming

    named = naming(_strip_filler(response), expected, question)
    if named is None:
        return {}
    return {"named": named.how if named.named else "", "not_answer": named.not_answer}


def _option_conflict(response: str, expected: str, question: str | None) -> bool:
    """The question lists options; the gold and the response's opening pick one each, not the same."""
    options = question_options(question)
    if not options:
        return False
    gold_choice = _chosen_options(expected, options)
    body = re.sub(
        r"^(based on|according to|from)[^,]{0,160},\s*",
        "",
        _strip_filler(response),
        flags=re.IGNORECASE,
    )
    resp_choice = _chosen_options(_sentences(body)[0] if body.strip() else "", options)
    return len(gold_choice) == 1 and len(resp_choice) == 1 and gold_choice != resp_choice


def _framing_signals(
    response: str, refusal_position: int | None, p: dict[str, float]
) -> dict[str, Any]:
    """Where the answer stands: its opening sentences, its conclusion, a "not found" hedge up front."""
    opening = _sentences(_strip_filler(response))
    conclusion = _conclusion(response) if p["conclusion"] else ""
    # a "not found" cue in the first two sentences (refusal_check reports where its first cue is)
    head_chars = len(" ".join(opening[:2])) + (len(response) - len(_strip_filler(response)))
    return {
        "resp_direction": _direction(" ".join(_answer_sentences(response)[:2])),
        "resp_negative": bool(_NEG_RE.search(opening[0] if opening else "")),
        "concl_direction": _direction(conclusion) if conclusion else None,
        "concl_polarity": _polarity(_after_cue(conclusion)) if conclusion else None,
        "hedged": refusal_position is not None and refusal_position < head_chars,
    }


TEXT_FEATURES = (
    "inclusion",
    "few_key_words",
    "polarity_match",
    "polarity_unstated",
    "direction_match",
    "key_figures_all",
    "key_figures_none",
    "negative_match",
    "question_coverage",
    "summary_preamble",
    "implicit_polarity_conflict",
    "figure_contradicted",
)
# Logistic weights (bias first) for textual gold answers no rule decides, fitted on every
# FinanceBench dev row (benchmarks/risk_coverage.py prints them with each fold's refit).
TEXT_WEIGHTS: tuple[float, ...] = (
    0.59,
    1.27,
    -0.35,
    0.47,
    0.03,
    -0.03,
    1.11,
    -1.04,
    0.11,
    1.07,
    -0.9,
    -0.06,
    -0.34,
)


def text_features(s: Signals) -> list[float]:
    """Features of a textual (non-numeric) gold answer for the logistic verdict, in TEXT_FEATURES order."""
    return [
        s.inclusion,
        float(s.key_words < 3),
        float(bool(s.gold_polarity) and s.resp_polarity == s.gold_polarity),
        float(bool(s.gold_polarity) and s.resp_polarity is None),
        float(bool(s.gold_direction) and s.resp_direction == s.gold_direction),
        float(s.key_total > 0 and s.key_matched == s.key_total),
        float(s.key_total > 0 and s.key_matched == 0),
        float(s.gold_negative and s.resp_negative),
        s.question_coverage,
        float(s.summary_preamble),
        float(
            s.resp_polarity is None
            and (
                (s.gold_polarity == "yes" and s.resp_negative)
                or (s.gold_polarity == "no" and not s.resp_negative)
            )
        ),
        float(s.key_contradicted > 0),
    ]


Verdict = tuple[bool, float, list[str]]

# Cuts on the key-word inclusion (share of the gold's key words the answer states) below which a
# rule fails the answer (no_gold_facts, hedged) or a pass is too thin to count (thin_evidence).
# Cross-validated by question with the weights and bands: benchmarks/risk_coverage.py --refit-cuts
# chooses each on the fitting folds and prints what the held-out folds score with them.
INCLUSION_CUTS: dict[str, float] = {"no_gold_facts": 0.2, "hedged": 0.6, "thin_evidence": 0.25}


def _rule_refusal(s: Signals) -> Verdict | None:
    return (False, 0.0, [s.refusal_why]) if s.refusal else None


def _rule_figure_conflict(s: Signals) -> Verdict | None:
    """An explicitly different figure vetoes: the response states none of the gold's key figures
    and one of their kind instead ("reduced rate of 12%" for "reduced rate of 15%")."""
    if not s.figure_conflict or (
        s.gold_polarity and s.gold_polarity in (s.resp_polarity, s.concl_polarity)
    ):
        return None  # "No. ... decreased its debt by $2.5bn": the shared yes/no is the answer
    return False, 0.0, [s.figure_conflict]


def _rule_polarity_conflict(s: Signals) -> Verdict | None:
    """The answer's own polarity words contradict the gold's: a veto, never a pass."""
    return (False, 0.0, [s.polarity_conflict]) if s.polarity_conflict else None


def _rule_period_conflict(s: Signals) -> Verdict | None:
    """Another date or period than the gold's: identities are equal or not, a veto."""
    return (False, 0.0, [s.period_conflict]) if s.period_conflict else None


def _rule_numeric_gold(s: Signals) -> Verdict | None:
    if not s.gold_numeric:
        return None
    if s.final_match is None:
        return False, 0.0, [f"no figure stated as the answer: {s.numeric_why}"]
    return bool(s.final_match), float(bool(s.final_match)), [s.numeric_why]


def _rule_polarity(s: Signals) -> Verdict | None:
    """An opposite yes/no, unless the conclusion of a long answer states the gold's."""
    said = s.resp_polarity or s.concl_polarity
    if (
        not s.gold_polarity
        or not said
        or said == s.gold_polarity
        or s.concl_polarity == s.gold_polarity
    ):
        return None
    return False, 0.0, [f"expected answer says {s.gold_polarity!r}, the response says {said!r}"]


def _rule_direction(s: Signals) -> Verdict | None:
    """An opposite direction in the opening, unless the conclusion agrees (or in the conclusion)."""
    said = s.resp_direction or s.concl_direction
    if (
        not s.gold_direction
        or not said
        or said == s.gold_direction
        or s.concl_direction == s.gold_direction
    ):
        return None
    return False, 0.0, [f"expected answer moves {s.gold_direction}, the response moves {said}"]


def _rule_option(s: Signals) -> Verdict | None:
    if not s.option_conflict:
        return None
    return (
        False,
        0.0,
        ["the response picks a different option of the question than the expected answer"],
    )


def _rule_missing_date(s: Signals) -> Verdict | None:
    if not s.key_dates or s.dates_matched:
        return None
    why = f"the response does not state the expected date(s) ({s.key_dates} in the expected answer)"
    return False, 0.0, [why]


def _rule_date_only(s: Signals) -> Verdict | None:
    return (True, 1.0, ["the response states the expected date"]) if s.date_only else None


def _rule_not_the_answer(s: Signals) -> Verdict | None:
    """ "Paris, Lyon and Nice", "Paris or Lyon" or "Lyon, not Paris" for "Paris": a candidate among
    others, or one rejected, is not the answer."""
    return (False, 0.0, [s.not_answer + " (not as the answer)"]) if s.not_answer else None


def _rule_named(s: Signals) -> Verdict | None:
    """A short gold (a name or phrase, not a yes/no or a direction: those have rules of their own) the
    opening sentence states as one phrase, in any of its written forms, and that no rule before
    vetoes: a short factual gold is decided by naming, not weighed."""
    if not s.named or s.hedged or s.swapped or s.gold_polarity or s.gold_direction:
        return None
    return True, 1.0, [f"the response's opening names the expected answer ({s.named})"]


def _rule_short_gold(s: Signals) -> Verdict | None:
    """ "Paris" vs "The capital of France is Lyon.": a short gold is its key words; none is there."""
    if (
        s.short_gold
        and s.key_words
        and s.inclusion == 0.0
        and not s.gold_polarity
        and not s.gold_direction
        and not (s.key_total and s.key_matched)
    ):
        return (
            False,
            0.0,
            [
                f"the response states none of the expected answer's words ({', '.join(s.inclusion_missing[:6])})"
            ],
        )
    return None


def _rule_filing_dump(s: Signals) -> Verdict | None:
    if not s.filing_dump:
        return None
    return False, 0.0, ["the response pastes a filing's cover page instead of answering"]


def _rule_name_mismatch(s: Signals) -> Verdict | None:
    """ "Timmy Smith" vs "Emmitt Smith": a short name or phrase is all its words; sharing one is naming
    something else ("Atlanta Braves" vs "Atlanta Falcons")."""
    if (
        s.short_gold
        and s.swapped
        and 0.0 < s.inclusion < 1.0
        and not s.key_total
        and not s.gold_polarity
        and not s.gold_direction
    ):
        swaps = ", ".join(
            f"{said!r} where the expected answer has {gold!r}" for gold, said in s.swapped[:3]
        )
        return False, 0.0, [f"the response names something else: it shares a word but says {swaps}"]
    return None


def _rule_no_gold_facts(s: Signals) -> Verdict | None:
    """A descriptive gold (3+ key words) of which the response states almost no word, none of its
    figures and not its yes/no: it answers something else (on FinanceBench dev 7 of 8 such verdicts
    that weighing passed were wrong answers)."""
    if (
        s.key_words >= 3
        and s.inclusion < INCLUSION_CUTS["no_gold_facts"]
        and s.key_matched == 0
        and not s.gold_negative
        and not (s.gold_polarity and s.gold_polarity in (s.resp_polarity, s.concl_polarity))
    ):
        return (
            False,
            0.0,
            [
                f"the response states none of the expected answer's figures and {s.inclusion:.0%} of its key words "
                f"(missing: {', '.join(s.inclusion_missing[:6])})"
            ],
        )
    return None


def _rule_few_key_figures(s: Signals) -> Verdict | None:
    """Half a definition is not the definition: a gold with 3+ key figures of which the response
    states fewer than half scores in the partial band ("related but missing key information")."""
    if s.key_total < 3 or s.key_matched * 2 >= s.key_total:
        return None
    share = s.key_matched / s.key_total
    return (
        False,
        round(PARTIAL_BAND[0] + (PARTIAL_BAND[1] - PARTIAL_BAND[0]) * share, 4),
        [
            f"partial: the response states {s.key_matched} of the expected answer's {s.key_total} key figures"
        ],
    )


def _rule_metric_rejection(s: Signals) -> Verdict | None:
    """ "If X is not a useful metric for this company, say so": who rejects the metric decides."""
    if not s.metric_question:
        return None
    if s.gold_rejects_metric and s.resp_rejects_metric:
        return (
            True,
            1.0,
            ["both the expected answer and the response say the metric is not useful here"],
        )
    if s.gold_rejects_metric:
        return (
            False,
            0.0,
            ["the expected answer says the metric is not useful here; the response computes it"],
        )
    if s.resp_rejects_metric:
        return (
            False,
            0.0,
            ["the response calls the metric not useful; the expected answer computes it"],
        )
    return None


def _rule_negated_answer(s: Signals) -> Verdict | None:
    """Gold "Yes, $0.01 per share" vs "X did not pay dividends; the $0.01 dividend was suspended"."""
    if (
        s.gold_polarity != "yes"
        or s.resp_polarity
        or s.concl_polarity == "yes"
        or not s.answer_negated
    ):
        return None
    return False, 0.0, ["the expected answer says 'yes'; the response's answer sentence is negated"]


def _rule_hedged(s: Signals) -> Verdict | None:
    """ "There is no specific mention of X; however, earlier years show ..." without the gold's facts."""
    if not s.hedged or s.key_matched or s.dates_matched or s.inclusion >= INCLUSION_CUTS["hedged"]:
        return None
    return (
        False,
        0.0,
        [
            "the response opens by saying the information is missing and then states "
            "neither the expected figures nor most of its key words"
        ],
    )


# Verdicts that need no weighing, first match wins. Named so the benchmark can switch each off and
# measure it on grouped folds (a rule that only helps the pooled dev figure is tuned to dev).
RULES: dict[str, Callable[[Signals], Verdict | None]] = {
    "metric_rejection": _rule_metric_rejection,  # before refusal: "not a useful metric" is an answer here
    "refusal": _rule_refusal,
    "filing_dump": _rule_filing_dump,
    # a yes/no gold with a figure ("Yes, $0.01 per share") is contradicted by "No" or a negated answer
    "polarity": _rule_polarity,
    "negated_answer": _rule_negated_answer,
    "numeric_gold": _rule_numeric_gold,
    "figure_conflict": _rule_figure_conflict,
    "polarity_conflict": _rule_polarity_conflict,
    "direction": _rule_direction,
    "option": _rule_option,
    "missing_date": _rule_missing_date,
    "period_conflict": _rule_period_conflict,
    "date_only": _rule_date_only,
    "not_the_answer": _rule_not_the_answer,
    "named": _rule_named,
    "short_gold": _rule_short_gold,
    "name_mismatch": _rule_name_mismatch,
    "hedged": _rule_hedged,
    "few_key_figures": _rule_few_key_figures,
    "no_gold_facts": _rule_no_gold_facts,
}


# Rules that read a contradiction in the answer's own words: their fail is decided, never
# turned into needs review by a second opinion (the fuzzy check cannot overrule what it says).
CONTRADICTIONS = frozenset(
    {
        "metric_rejection",
        "refusal",
        "filing_dump",
        "polarity",
        "negated_answer",
        "direction",
        "option",
        "name_mismatch",
        "figure_conflict",
        "polarity_conflict",
        "period_conflict",
    }
)

# Weighed evidence (the logistic score of a verdict no rule decides) below low fails, at or
# above high passes, and in [low, high) is not decided: needs review, or the LLM judge's
# verdict with --llm-judge. low is the logistic's even odds; high, one per kind of gold (a
# short name or phrase, a descriptive answer: their evidence is spread differently), is the
# lowest pass threshold that holds false passes among decided samples at or under 8 % on every
# dev set with 90 % one-sided confidence: at 80 % the held-out folds' false passes among decided
# went over 8 % (benchmarks/risk_coverage.py prints the curve, each fold's choice and the
# cross-validated figures by question, company and question type).
ABSTAIN_BANDS: dict[str, tuple[float, float]] = {"short": (0.5, 0.8), "descriptive": (0.5, 0.8)}


def gold_kind(s: Signals) -> str:
    """Which abstention band applies: "short" (a name or phrase) or "descriptive"."""
    return "short" if s.short_gold else "descriptive"


def ruling(s: Signals, disabled: frozenset[str] = frozenset()) -> tuple[str, Verdict] | None:
    """The first rule that decides, by name, with its verdict; None when the evidence is weighed."""
    for name, rule in RULES.items():
        if name not in disabled:
            verdict = rule(s)
            if verdict is not None:
                return name, verdict
    return None


def rule_verdict(s: Signals, disabled: frozenset[str] = frozenset()) -> Verdict | None:
    """The verdicts that need no weighing: refusals, numeric gold answers, contradictions."""
    ruled = ruling(s, disabled)
    return ruled[1] if ruled is not None else None


def decide(
    s: Signals,
    params: dict[str, float] | None = None,
    weights_override: tuple[float, ...] | None = None,
    disabled: frozenset[str] = frozenset(),
) -> tuple[bool, float, list[str]]:
    """Offline verdict from the signals: (correct, score, reasons); ``disabled`` names rules to skip."""
    p = {**PARAMS, **(params or {})}
    reasons: list[str] = []
    ruled = rule_verdict(s, disabled)
    if ruled is not None:
        return ruled
    weights = weights_override if weights_override is not None else TEXT_WEIGHTS
    feats = text_features(s)
    z = weights[0] + sum(w * f for w, f in zip(weights[1:], feats, strict=True))
    score = 1.0 / (1.0 + math.exp(-z))
    correct = (
        score >= ABSTAIN_BANDS[gold_kind(s)][0]
    )  # a pass inside the band is tentative (needs review)
    if s.gold_polarity and s.resp_polarity == s.gold_polarity:
        reasons.append(f"same yes/no polarity ({s.gold_polarity!r})")
    if s.gold_direction and s.resp_direction == s.gold_direction:
        reasons.append(f"same direction ({s.gold_direction})")
    if s.key_total:
        reasons.append(
            f"{s.key_matched}/{s.key_total} key figure(s) of the expected answer agree (±{p['rel_tol']:.0%})"
        )
    reasons.append(
        f"{s.inclusion:.0%} of the expected answer's key words present"
        + (f" (missing: {', '.join(s.inclusion_missing[:6])})" if s.inclusion_missing else "")
    )
    if s.question_coverage < 0.3:
        reasons.append(
            f"the response covers only {s.question_coverage:.0%} of the question's words"
        )
    reasons.append(f"combined evidence {score:.2f}")
    return correct, score, reasons


# ---------------------------------------------------------------- public API
def _offline(
    response: str, expected: str, question: str | None
) -> tuple[bool, float, list[str], Signals]:
    signals = analyse(response, expected, question)
    correct, score, reasons = decide(signals)
    return correct, score, reasons, signals


def _fuzzy_says_correct(s: Signals) -> bool:
    """The second opinion: is the gold fact included in the response at all? (the gold figure
    anywhere in the response for numeric gold answers; else rapidfuzz key-word inclusion)."""
    if s.gold_numeric:
        return s.any_match
    if s.date_only:
        return s.dates_matched > 0
    return s.inclusion >= PARAMS["review_inclusion"]


def _thin_evidence(s: Signals) -> bool:
    """No key figure, under a quarter of the key words, no shared yes/no: too little to call it right."""
    return (
        not s.gold_numeric
        and not s.date_only
        and s.key_matched == 0
        and s.dates_matched == 0
        and s.inclusion < INCLUSION_CUTS["thin_evidence"]
        and not (s.gold_polarity and s.gold_polarity in (s.resp_polarity, s.concl_polarity))
    )


def _fuzzy_evidence(s: Signals) -> str:
    if s.gold_numeric:
        return f"gold figure {'found' if s.any_match else 'not found'} anywhere in the response"
    if s.date_only:
        return f"expected date {'found' if s.dates_matched else 'not found'} in the response"
    return f"{s.inclusion:.0%} of key words included"


def _partial_score(s: Signals) -> float:
    partial = _rule_few_key_figures(s)
    return partial[1] if partial is not None and not s.refusal else 0.0


def _resolve(judge: ChatModel | str | None) -> ChatModel | None:
    try:
        from pytest_llmeval.judge import resolve_judge
    except ImportError:  # judge package not available: offline
        return None if judge is None or isinstance(judge, str) else judge
    return resolve_judge(judge)


@dataclass
class _Judgement:
    """One verdict with how it was reached: by the offline judge or an LLM judge (and its re-check)."""

    correct: bool
    score: float  # the offline evidence or 1/0 from an LLM judge (details["confidence"])
    reasons: list[str]
    judge_label: str
    review_notes: list[str] = field(default_factory=list)
    review_between: str | None = None
    verification: dict[str, Any] | None = None
    decided_by: str = "weighed evidence"  # or "rule <name>"


def answer_correctness(
    response: str,
    expected: str,
    *,
    question: str | None = None,
    judge: ChatModel | str | None = None,
) -> AnswerVerdict:
    """Binary verdict "factually matching" vs "factually contradicting" the expected answer.

    ``judge=None`` uses the run's judge (``--llm-judge``) or, without one, the offline judge;
    ``judge="offline"`` forces the offline judge; a chat model asks that model. A refusal is
    never correct. ``needs_review`` is set for a pass on thin evidence, when the verdict and the
    fuzzy key-fact inclusion check disagree, or when an LLM judge and the offline verdict disagree.
    """
    response = response or ""
    model = _resolve(judge)
    offline = _offline(response, expected, question)
    signals = offline[3]
    if signals.refusal:
        judged = _Judgement(False, 0.0, offline[2], "offline")
    elif model is None:
        judged = _offline_judgement(offline)
    else:
        judged = _llm_judgement(
            model, offline, question=question, expected=expected, response=response
        )
    needs_review = bool(judged.review_notes)
    correct = judged.correct
    return AnswerVerdict(
        metric="answer_correctness",
        passed=correct,
        correct=correct,
        refusal=signals.refusal,
        # 1 or 0, except an answer stating under half of the gold's key figures: partial credit
        # (below the acceptable tier even with every other component full); evidence is in details.
        score=1.0 if correct else _partial_score(signals),
        reasons=judged.reasons,
        needs_review=needs_review,
        judge=judged.judge_label,
        explanation=_explain(judged, signals, expected, response),
        details={
            "refusal": signals.refusal,
            "needs_review": needs_review,
            **(
                {"reverified": True, "verification": judged.verification}
                if judged.verification is not None
                else {}
            ),
            "review_notes": judged.review_notes,
            "review_reason": "; ".join(judged.review_notes) if needs_review else None,
            "review_between": judged.review_between if needs_review else None,
            "judge": judged.judge_label,
            "offline_correct": offline[0],
            "decided_by": judged.decided_by,
            "fact_inclusion": round(signals.inclusion, 4),
            "confidence": round(float(judged.score), 4),
            "reasons": judged.reasons,
        },
    )


def _offline_judgement(
    offline: tuple[bool, float, list[str], Signals],
    bands: dict[str, tuple[float, float]] | None = None,
) -> _Judgement:
    """The offline verdict and when it needs a person: weighed evidence inside the abstention
    band, a pass on thin evidence, a fail the fuzzy check disputes. A contradiction in the
    answer's own words stays a decided fail."""
    correct, score, reasons, signals = offline
    low, high = (ABSTAIN_BANDS if bands is None else bands)[gold_kind(signals)]
    judged = _Judgement(correct, score, reasons, "offline")
    ruled = ruling(signals)
    if ruled is not None:
        judged.decided_by = f"rule {ruled[0]}"
    if ruled is None and low <= score < high:
        judged.correct = True  # more likely right than wrong, not sure enough to decide
        judged.review_notes.append(
            f"undecided: weighed evidence {score:.2f} inside the abstention band [{low:.2f}, {high:.2f}) "
            f"of {gold_kind(signals)} expected answers"
        )
        judged.review_between = "offline judge (abstains)"
    elif judged.correct and ruled is None and _thin_evidence(signals):
        # A pass resting on almost nothing is not a pass the gate should count: a person or
        # the judge decides (llm_review_passes counts it anyway).
        judged.review_notes.append(
            f"thin evidence for a pass: no key figure and {signals.inclusion:.0%} of the key words of the "
            "expected answer, no shared yes/no"
        )
        judged.review_between = "offline judge (thin evidence)"
    elif (
        not judged.correct
        and not (ruled and ruled[0] in CONTRADICTIONS)
        and _fuzzy_says_correct(signals)
    ):
        judged.review_notes.append(
            f"offline verdict (incorrect) and fuzzy fact inclusion ({_fuzzy_evidence(signals)}) disagree"
        )
        judged.review_between = "offline judge and fuzzy check"
    return judged


def _llm_judgement(
    model: ChatModel,
    offline: tuple[bool, float, list[str], Signals],
    *,
    question: str | None,
    expected: str,
    response: str,
) -> _Judgement:
    """The LLM judge's verdict, asked once more when the fuzzy check disagrees (second verification).
    A disagreement with a decided offline verdict needs review; where the offline judge is undecided
    (it would flag the sample for review) the judge's verdict decides."""
    from pytest_llmeval.judge.llm import judge_correctness, verify_correctness

    off_correct, _, off_reasons, signals = offline
    offline_view = _offline_judgement(offline)
    judgement = judge_correctness(model, question=question, expected=expected, response=response)
    judged = _Judgement(
        bool(judgement.correct),
        0.0,
        list(judgement.reasons),
        str(getattr(model, "name", type(model).__name__)),
        decided_by="LLM judge",
    )
    fuzzy_correct = _fuzzy_says_correct(signals)
    # Where the offline judge is undecided the fuzzy check is part of why: the judge's one verdict decides.
    if judged.correct != fuzzy_correct and not offline_view.review_notes:
        # Second verification (RAG metrics note): the judge and the fuzzy fact-inclusion
        # check disagree, so the judge is asked once more with both verdicts and the evidence.
        what = _fuzzy_evidence(signals)
        second = verify_correctness(
            model,
            question=question,
            expected=expected,
            response=response,
            first=judgement,
            fuzzy_correct=fuzzy_correct,
            fuzzy_evidence=what,
        )
        judged.verification = {
            "first": {"correct": judged.correct, "reasons": judged.reasons},
            "fuzzy": {"correct": fuzzy_correct, "evidence": what},
            "second": {"correct": bool(second.correct), "reasons": list(second.reasons)},
            "final": bool(second.correct),
            "changed": bool(second.correct) != judged.correct,
        }
        judged.correct, judged.reasons = bool(second.correct), list(second.reasons)
    judged.score = 1.0 if judged.correct else 0.0
    if offline_view.review_notes:
        judged.decided_by = (
            f"LLM judge (offline judge undecided: {'; '.join(offline_view.review_notes)})"
        )
    elif judged.correct != off_correct:
        judged.review_notes.append(
            f"LLM judge ({'correct' if judged.correct else 'incorrect'}) and offline verdict "
            f"({'correct' if off_correct else 'incorrect'}: {'; '.join(off_reasons)}) disagree"
        )
        judged.review_between = f"LLM judge ({judged.judge_label}) and offline verdict"
    return judged


def _explain(judged: _Judgement, signals: Signals, expected: str, response: str) -> str:
    verdict = (
        "factually matching"
        if judged.correct
        else ("refusal" if signals.refusal else "factually contradicting")
    )
    text = (
        f"{verdict} (judge: {judged.judge_label}): {'; '.join(judged.reasons) or 'no reasons given'}"
        f"; expected {expected[:120]!r}, got {response[:160]!r}"
    )
    if judged.review_notes:
        text += f"; NEEDS REVIEW: {'; '.join(judged.review_notes)}"
    check = judged.verification
    if check is not None:
        text += (
            f"; SECOND VERIFICATION (judge {'correct' if check['first']['correct'] else 'incorrect'}, "
            f"fuzzy check {'correct' if check['fuzzy']['correct'] else 'incorrect'}: {check['fuzzy']['evidence']}) -> "
            f"{'correct' if check['final'] else 'incorrect'}"
        )
    return text


def assert_answer_correct(
    response: str,
    expected: str,
    *,
    question: str | None = None,
    judge: ChatModel | str | None = None,
) -> AnswerVerdict:
    """Fail the running test unless ``response`` factually matches ``expected`` (see :func:`answer_correctness`)."""
    __tracebackhide__ = True
    result = answer_correctness(response, expected, question=question, judge=judge)
    enforce(result)
    return result


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``answer_correctness``; ``ctx.judge`` None means offline."""
    if not isinstance(ctx.expected, str) or not ctx.expected.strip():
        raise GraderError("answer_correctness needs a non-empty expected answer")
    judge: Any = ctx.judge if ctx.judge is not None else "offline"
    return answer_correctness(ctx.response, ctx.expected, question=ctx.question, judge=judge)
