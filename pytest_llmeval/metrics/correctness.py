"""Answer correctness: is the response "factually matching" the gold answer, or not?

Criteria (the same for the LLM judge and the offline judge): the answer covers the key
topic of the ideal answer; it does not omit the central fact; it contradicts none of its
details; numbers, data points and percentages are accurate (with scales: "$1.58 billion"
matches "1577 (USD millions)"); economic indicators move in the same direction; yes/no
questions get the same polarity. A refusal is never correct.

The offline judge (default, deterministic) combines: refusal detection, number agreement
(the answer's concluding figure for numeric gold answers; every key figure of a textual
gold answer), yes/no polarity, direction words and the rapidfuzz key-fact inclusion check.
It was calibrated on FinanceBench answers (``benchmarks/eval_answer_correctness.py``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.fuzzy import fact_inclusion
from pytest_llmeval.metrics.refusal import refusal_check

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
}

# ---------------------------------------------------------------- numbers
# Stand-in for pytest_llmeval.metrics.numeric while it is being built: figures with
# currency, thousands separators, parentheses negatives, percents and scale words.
_NUM_RE = re.compile(
    r"(?<![\w.])(?P<neg>[-\u2212(]|minus )?\s?(?P<cur>US\$|\$|€|£|USD ?)?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<attached>[a-zA-Z]{1,2}\b)?"
    r"(?:\s?(?P<pct>%|percent\b|per cent\b|percentage points?\b|pp\b)|"
    r"\s(?P<scale>trillion|billion|million|thousand|bn|mn|mm|tn)\b)?",
    re.IGNORECASE,
)
_ATTACHED_SCALE = {
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "tn": 1e12,
    "t": 1e12,
}
_SCALE = {
    "thousand": 1e3,
    "million": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "trillion": 1e12,
    "tn": 1e12,
}
_MONTH_BEFORE_RE = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? ?$", re.IGNORECASE
)
_ENUM_RE = re.compile(r"(?m)^\s*\d{1,2}[.)]\s")


@dataclass(frozen=True)
class _Num:
    value: float  # percent already divided by 100, scale words applied
    raw: str
    decimals: int
    percent: bool


def _numbers(text: str) -> list[_Num]:
    """Figures in ``text``; years, list markers, 10-K / Q2 / FY2022 style tokens are skipped."""
    out: list[_Num] = []
    enum_starts = {m.end() - 1 for m in _ENUM_RE.finditer(text)}
    for m in _NUM_RE.finditer(text):
        num = m.group("num")
        attached = (m.group("attached") or "").lower()
        if attached and (
            attached not in _ATTACHED_SCALE or not (m.group("cur") or "." in num or "," in num)
        ):
            continue  # "10k" filings, "2nd", "3M", "737MAX" are not figures; "$13.2B" is
        if _MONTH_BEFORE_RE.search(text[max(0, m.start() - 12) : m.start()]):
            continue  # day of a date: "December 31, 2022"
        end = m.end("num")
        if (
            text[end : end + 2] in ("-K", "-Q", "-k", "-q")
            or m.start("num") + len(num) in enum_starts
        ):
            continue
        if any(m.start("num") <= s < end + 2 for s in enum_starts):
            continue
        value = float(num.replace(",", ""))
        pct = bool(m.group("pct"))
        cur = bool(m.group("cur"))
        is_year = (
            re.fullmatch(r"(19|20)\d\d", num) is not None
            and not cur
            and not pct
            and not m.group("scale")
            and not attached
        )
        if is_year:
            continue
        if m.group("scale"):
            value *= _SCALE[m.group("scale").lower()]
        elif attached:
            value *= _ATTACHED_SCALE[attached]
        if pct:
            value /= 100.0
        if m.group("neg") and m.group("neg").strip() in ("-", "\u2212", "(", "minus"):
            value = -value
        decimals = (len(num.split(".")[1]) if "." in num else 0) + (2 if pct else 0)
        out.append(_Num(value=value, raw=m.group(0).strip(), decimals=decimals, percent=pct))
    return out


_SCALE_STEPS = (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9, 100.0, 0.01, 1e5, 1e-5, 1e8, 1e-8)


def _agree(a: float, g: float, rel_tol: float, g_decimals: int | None = None) -> bool:
    """Do figures agree up to a scale (millions vs billions, ratio vs percent), a relative
    tolerance, or rounding to the gold figure's shown decimals (-0.0153 ~ -0.02)?"""
    a, g = abs(a), abs(g)
    if g == 0:
        return a == 0
    for step in _SCALE_STEPS:
        x = a * step
        if math.isclose(x, g, rel_tol=rel_tol):
            return True
        if g_decimals is not None and x != 0 and round(x, g_decimals) == round(g, g_decimals):
            return True
    return False


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


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_SPLIT.split(text.strip()) if s.strip()]


def _polarity(text: str) -> str | None:
    """'yes' / 'no' when the text opens with it (after an optional "Based on ..., " preamble)."""
    head = text.strip().lstrip("*# ").strip()
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
    gold_numbers: list[_Num]
    resp_numbers: list[_Num]
    final_numbers: list[_Num]
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
    question_coverage: float = 1.0
    gold_negative: bool = False
    resp_negative: bool = False


_CONCLUDE_RE = re.compile(
    r"\b(therefore|thus|hence|so,|in conclusion|in summary|overall|the answer is|approximately|rounded|which is|result(s|ing)? in)\b|=",
    re.IGNORECASE,
)
_GOLD_NUMERIC_RE = re.compile(
    r"^\s*[-\u2212(]?\s*(US\$|\$|USD)?\s*[\d.,]+\s*(%|x|times)?\s*\)?\s*$", re.IGNORECASE
)


def _final_numbers(response: str) -> list[_Num]:
    """Figures the response concludes with: those of its last concluding sentence, else of its
    first sentence that states a figure (direct answers), else all."""
    sents = _sentences(response)
    with_nums = [(s, _numbers(s)) for s in sents]
    with_nums = [(s, ns) for s, ns in with_nums if ns]
    if not with_nums:
        return []
    concl = [(s, ns) for s, ns in with_nums if _CONCLUDE_RE.search(s)]
    if concl:
        return concl[-1][1]
    if len(with_nums) <= 2:
        return [n for _, ns in with_nums for n in ns]
    return with_nums[-1][1] + with_nums[0][1]


def analyse(
    response: str,
    expected: str,
    question: str | None = None,
    params: dict[str, float] | None = None,
) -> Signals:
    """Measure every signal the offline verdict uses."""
    p = {**PARAMS, **(params or {})}
    tol = p["rel_tol"]
    ref = refusal_check(response)
    gold_numeric = bool(_GOLD_NUMERIC_RE.match(expected or ""))
    gold_numbers = _numbers(expected or "")
    q_numbers = _numbers(question or "")
    resp_numbers = _numbers(response or "")
    final = _final_numbers(response or "")
    any_match = any(
        _agree(r.value, g.value, tol, g.decimals) for g in gold_numbers for r in resp_numbers
    )
    final_match = (
        any(_agree(r.value, g.value, tol, g.decimals) for g in gold_numbers for r in final)
        if final
        else None
    )
    # Key figures of a textual gold answer: not those merely repeated from the question.
    keys = [g for g in gold_numbers if not any(_agree(g.value, q.value, 1e-9) for q in q_numbers)]
    key_matched = sum(1 for g in keys if any(_agree(r.value, g.value, tol) for r in resp_numbers))
    inc = fact_inclusion(response, expected, question=question)
    head = " ".join(_sentences(response)[:2])
    # Does the response address the question at all (off-topic answers cover few of its words)?
    qcov = fact_inclusion(response, question, threshold=0.0).score if question else 1.0
    first = _sentences(response)[0] if response.strip() else ""
    return Signals(
        refusal=ref.refusal,
        refusal_why=ref.explanation,
        gold_numeric=gold_numeric,
        gold_numbers=gold_numbers,
        resp_numbers=resp_numbers,
        final_numbers=final,
        any_match=any_match,
        final_match=final_match,
        key_matched=key_matched,
        key_total=len(keys),
        gold_polarity=_polarity(expected),
        resp_polarity=_polarity(response),
        gold_direction=_direction(expected),
        resp_direction=_direction(head),
        inclusion=inc.score,
        inclusion_missing=inc.missing,
        key_words=len(inc.found) + len(inc.missing),
        question_coverage=qcov,
        gold_negative=_polarity(expected) != "yes" and bool(_NEG_RE.search(expected)),
        resp_negative=bool(_NEG_RE.search(first)),
    )


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
)
# Logistic weights (bias first) for textual gold answers, fitted on FinanceBench dev
# (benchmarks/eval_answer_correctness.py prints them; cross-validated by question).
TEXT_WEIGHTS: tuple[float, ...] = (-0.18, 1.89, -0.37, 0.44, -0.14, 0.03, 1.17, -1.39, 0.34, 0.82)


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
    ]


def decide(
    s: Signals,
    params: dict[str, float] | None = None,
    weights_override: tuple[float, ...] | None = None,
) -> tuple[bool, float, list[str]]:
    """Offline verdict from the signals: (correct, score, reasons)."""
    p = {**PARAMS, **(params or {})}
    reasons: list[str] = []
    if s.refusal:
        return False, 0.0, [s.refusal_why]
    if s.gold_numeric and s.gold_numbers:
        g = s.gold_numbers[0].raw
        if s.final_match:
            return (
                True,
                1.0,
                [
                    f"the concluding figure agrees with the expected {g} (±{p['rel_tol']:.0%}, any scale)"
                ],
            )
        if s.final_match is None:
            return False, 0.0, [f"no figure in the response; expected {g}"]
        shown = ", ".join(n.raw for n in s.final_numbers[:4])
        return (
            False,
            0.0,
            [
                f"concluding figure(s) {shown} disagree with the expected {g} (±{p['rel_tol']:.0%}, any scale)"
            ],
        )
    if s.gold_polarity and s.resp_polarity and s.gold_polarity != s.resp_polarity:
        return (
            False,
            0.0,
            [f"expected answer says {s.gold_polarity!r}, the response says {s.resp_polarity!r}"],
        )
    if s.gold_direction and s.resp_direction and s.gold_direction != s.resp_direction:
        return (
            False,
            0.0,
            [f"expected answer moves {s.gold_direction}, the response moves {s.resp_direction}"],
        )
    weights = weights_override if weights_override is not None else TEXT_WEIGHTS
    feats = text_features(s)
    z = weights[0] + sum(w * f for w, f in zip(weights[1:], feats, strict=True))
    score = 1.0 / (1.0 + math.exp(-z))
    correct = score >= 0.5
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
    reasons.append(f"combined evidence {score:.2f} {'>=' if correct else '<'} 0.50")
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
    if s.gold_numeric and s.gold_numbers:
        return s.any_match
    return s.inclusion >= PARAMS["review_inclusion"]


def _resolve(judge: ChatModel | str | None) -> ChatModel | None:
    try:
        from pytest_llmeval.judge import resolve_judge
    except ImportError:  # judge package not available: offline
        return None if judge is None or isinstance(judge, str) else judge
    return resolve_judge(judge)


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
    never correct. ``needs_review`` is set when the verdict and the fuzzy key-fact inclusion
    check disagree, or when an LLM judge and the offline verdict disagree.
    """
    response = response or ""
    model = _resolve(judge)
    off_correct, off_score, off_reasons, signals = _offline(response, expected, question)
    review_notes: list[str] = []
    fuzzy_agrees = _fuzzy_says_correct(signals) == off_correct
    if signals.refusal:
        correct, score, reasons, judge_label = False, 0.0, off_reasons, "offline"
    elif model is None:
        correct, score, reasons, judge_label = off_correct, off_score, off_reasons, "offline"
        if not fuzzy_agrees:
            what = (
                f"gold figure {'found' if signals.any_match else 'not found'} anywhere in the response"
                if signals.gold_numeric and signals.gold_numbers
                else f"{signals.inclusion:.0%} of key words included"
            )
            review_notes.append(
                f"offline verdict ({'correct' if correct else 'incorrect'}) and fuzzy fact inclusion ({what}) disagree"
            )
    else:
        from pytest_llmeval.judge.llm import judge_correctness

        judgement = judge_correctness(
            model, question=question, expected=expected, response=response
        )
        correct = bool(judgement.correct)
        score = 1.0 if correct else 0.0
        reasons = list(judgement.reasons)
        judge_label = str(getattr(model, "name", type(model).__name__))
        if correct != off_correct:
            review_notes.append(
                f"LLM judge ({'correct' if correct else 'incorrect'}) and offline verdict "
                f"({'correct' if off_correct else 'incorrect'}: {'; '.join(off_reasons)}) disagree"
            )
    needs_review = bool(review_notes)
    verdict = (
        "factually matching"
        if correct
        else ("refusal" if signals.refusal else "factually contradicting")
    )
    explanation = (
        f"{verdict} (judge: {judge_label}): {'; '.join(reasons) or 'no reasons given'}"
        f"; expected {expected[:120]!r}, got {response[:160]!r}"
        + (f"; NEEDS REVIEW: {'; '.join(review_notes)}" if needs_review else "")
    )
    return AnswerVerdict(
        metric="answer_correctness",
        passed=correct,
        correct=correct,
        refusal=signals.refusal,
        score=float(score),
        reasons=reasons,
        needs_review=needs_review,
        judge=judge_label,
        explanation=explanation,
        details={
            "refusal": signals.refusal,
            "needs_review": needs_review,
            "review_notes": review_notes,
            "judge": judge_label,
            "offline_correct": off_correct,
            "fact_inclusion": round(signals.inclusion, 4),
            "reasons": reasons,
        },
    )


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
