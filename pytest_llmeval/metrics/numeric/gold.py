"""Expected-value stage of the numeric grader: the gold figure and what the question says.

:func:`parse_gold` reads the expected answer (a string such as ``"(31) million"`` or a JSON
number, which is that number); :func:`question_hints` reads the question's unit, percent,
currency and direction words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pytest_llmeval.metrics.numeric.candidates import extract_values
from pytest_llmeval.metrics.numeric.roles import gate_lower
from pytest_llmeval.metrics.numeric.selection import Q_PAREN_RE, select_concluding

# --------------------------------------------------------------------------- question hints

_Q_SCALE_RE = re.compile(
    r"(?:\bin\s+(?:units\s+of\s+)?(?:(?:usd|us\$|\$|eur|€|gbp|£|jpy|¥|dollars?)\s+)?"
    r"|\(\s*(?:in\s+)?(?:(?:usd|us\$|\$|eur|€)\s*)?"
    r"|\b(?:usd|us\$|\$|eur|€|gbp|£)\s*)"
    r"(thousands?|millions?|billions?|trillions?|mn|bn|mm|crores?|lakhs?)\b",
    re.IGNORECASE,
)
_Q_PERCENT_RE = re.compile(
    r"\b(?:in\s+(?:units\s+of\s+)?(?:percents?|percentages?|%)|as\s+a\s+percent(?:age)?|in\s+%"
    r"|what\s+(?:is\s+the\s+|was\s+the\s+)?percent(?:age)?|percentage\s+(?:change|increase|decrease|growth)"
    r"|%\s*(?:margin|change|growth)|(?:margin|growth\s+rate|cagr|rate)\b)",
    re.IGNORECASE,
)
_Q_PERCENT_STRONG_RE = re.compile(
    r"\b(?:in\s+(?:units\s+of\s+)?(?:percents?|percentages?)|as\s+a\s+percent(?:age)?|in\s+%|what\s+percent(?:age)?"
    r"|what\s+(?:is|was)\s+the\s+percent(?:age)?|percent(?:age)?\s+(?:change|increase|decrease|growth|of)"
    r"|growth\s+rate|rate\s+of\s+(?:growth|change|return)|cagr|%\s*(?:change|margin|growth))",
    re.IGNORECASE,
)
_Q_CURRENCY_RE = re.compile(r"\b(USD|EUR|GBP|JPY|CHF|NOK|CAD|AUD|INR)\b|(US\$|\$|€|£|¥)")
_Q_NEG_DIRECTION_RE = re.compile(
    r"\b(?:decreas\w*|declin\w*|drop\w*|fall|fell|loss\w*|lose|lost|reduc\w*|shr[iau]nk\w*|lower|down|contract\w*"
    r"|expenditures?|capex|spen[dt]\w*|paid|pay\s?out|payments?|purchases?|repurchas\w*|used\s+in|outflows?|repa(?:y|id)\w*"
    r"|costs?|expenses?|impairment|write-?downs?|dividends?|buybacks?)\b",
    re.IGNORECASE,
)
_RESPONSE_SCALE_RE = re.compile(
    # The gate names the first characters of both branches, so most positions fail at once.
    r"(?=[(afnvdeprsi])(?:\((?:\s*(?:amounts|figures|dollars)\s+)?(?:\$\s*)?(?:in\s+)?(?:\$|usd|us\$|€|eur|gbp|nok|sek|dkk)?\s*(thousands|millions|billions)(?:\s+of\s+(?:dollars|usd))?\s*\)"
    r"|\b(?:amounts|figures|numbers|values|dollars|expressed|presented|stated|reported)\s+(?:are\s+)?in\s+(?:\$\s*|(?:usd|eur|gbp|nok|sek|dkk)\s+)?(thousands|millions|billions)\b"
    # a lead that heads the figures after it: "In thousands of dollars, ...", "In USD millions: ..."
    r"|\bin\s+(?:\$\s*|usd\s+|us\$\s*|€\s*|eur\s+)?(thousands|millions|billions)(?:\s+of\s+(?:dollars|usd|euros?))?\s*[,:])",
    re.IGNORECASE,
)
_SCALE_NAMES = {
    "thousands": 1e3,
    "millions": 1e6,
    "billions": 1e9,
    "trillions": 1e12,
    "mn": 1e6,
    "mm": 1e6,
    "bn": 1e9,
    "crores": 1e7,
    "lakhs": 1e5,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "crore": 1e7,
    "lakh": 1e5,
}


# A match of _RESPONSE_SCALE_RE holds one scale word; before it only letters of its lead words,
# white space (as \s reads it), "(", "$" and "€"; after it only white space, the letters of
# "of dollars"/"of usd" and ")". Neither side can hold a scale word. (Under IGNORECASE four
# characters outside ASCII also match an ASCII letter; texts holding one are searched whole.)
_SCALE_WORDS = ("thousands", "millions", "billions")
# Every character str.isspace() accepts, which is what \s matches in a str pattern.
_UNICODE_SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_LEAD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz($€" + _UNICODE_SPACES
_TAIL_RUN_RE = re.compile(r"[A-Za-z\s)]*")


def response_scale(response: str) -> float | None:
    """The scale the answer declares for its figures ("(in millions)", "amounts are in thousands")."""
    head = response[:20000]
    # Lower-casing keeps offsets unless a character folds to an ASCII letter (then: None).
    low = gate_lower(head)
    rs = _RESPONSE_SCALE_RE.search(head) if low is None else _scale_statement_near_words(head, low)
    return _SCALE_NAMES.get((rs.group(1) or rs.group(2) or rs.group(3)).lower()) if rs else None


def _lead_start(head: str, floor: int, at: int) -> int:
    """Where the run of lead characters that ends at ``at`` starts, not before ``floor``."""
    near = max(floor, at - 200)
    kept = head[near:at].rstrip(_LEAD_CHARS)
    if kept or near == floor:
        return near + len(kept)
    return floor + len(head[floor:at].rstrip(_LEAD_CHARS))


def _scale_statement_near_words(head: str, low: str) -> re.Match[str] | None:
    """``_RESPONSE_SCALE_RE.search(head)``, read only around the scale words of ``low`` (``head``
    lower-cased by :func:`roles.gate_lower`, so only ASCII letters match ASCII letters and every
    offset is kept).

    A match holding the scale word at ``at`` starts after the last character before it that no
    lead can hold and after the previous scale word, and ends before the first character after
    it that no tail can hold and before the next scale word. Each word is tried in that window
    alone, in text order; the first word with a match has the leftmost one. The windows do not
    overlap, so the work stays linear: a long answer that mentions "millions" without declaring a
    scale is not searched from top to bottom once per word.
    """
    spans = _scale_word_spans(low)
    floor = 0
    for k, (at, end) in enumerate(spans):
        lo = _lead_start(head, floor, at)
        ceiling = spans[k + 1][0] + 1 if k + 1 < len(spans) else len(head)
        tail_end = _TAIL_RUN_RE.match(head, end, ceiling).end()  # type: ignore[union-attr]
        rs = _RESPONSE_SCALE_RE.search(head, lo, min(ceiling, tail_end + 1))
        if rs is not None and rs.start() <= at:
            return rs
        floor = end
    return None


def _scale_word_spans(low: str) -> list[tuple[int, int]]:
    """Where "thousands", "millions" and "billions" occur in ``low``, in text order (found with
    str.find, which outruns a regex scan several times over on long non-ASCII text)."""
    spans = []
    for word in _SCALE_WORDS:
        at = low.find(word)
        while at >= 0:
            spans.append((at, at + len(word)))
            at = low.find(word, at + 1)
    return sorted(spans)


@dataclass(frozen=True)
class QuestionHints:
    """What the question says about its answer: scale, percent, currency, and a direction in its
    words (a fall, a cost) that lets an answer state the magnitude alone."""

    scale: float | None
    percent: bool
    percent_strong: bool
    currency: str | None
    magnitude_ok: bool
    asked: bool = True  # a question was given


@lru_cache(maxsize=512)
def question_hints(question: str | None) -> QuestionHints:
    """What ``question`` says about the unit of its answer (read once per question)."""
    if not question:
        return QuestionHints(None, False, False, None, False, asked=False)
    q = question[:4000]
    sm = _Q_SCALE_RE.search(q)
    scale = _SCALE_NAMES.get(sm.group(1).lower()) if sm else None
    cm = _Q_CURRENCY_RE.search(q)
    currency = None
    if cm:
        code = cm.group(1) or {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}.get(
            cm.group(2) or ""
        )
        currency = code
    return QuestionHints(
        scale=scale,
        percent=bool(_Q_PERCENT_RE.search(q)),
        percent_strong=bool(_Q_PERCENT_STRONG_RE.search(q)),
        currency=currency,
        # "free cash flow (cash from operations minus capital expenditures)": a definition in
        # parentheses does not make the asked figure an outflow.
        magnitude_ok=bool(_Q_NEG_DIRECTION_RE.search(Q_PAREN_RE.sub(" ", q))),
    )


# --------------------------------------------------------------------------- expected value


@dataclass(frozen=True)
class Gold:
    """The expected answer read once: value, rounding unit, percent, currency, and how it is written."""

    value: float
    ulp: float
    percent: bool
    currency: str | None
    raw: str
    bare: bool  # no scale word, no percent, no currency
    yearish: bool
    display_unit: float  # 1 unit of the number as written, normalised (for absolute tolerance)
    word_sign: bool


def decimals_of_float(x: float) -> int:
    """Decimal places of a float as Python writes it (1.25 -> 2, 1.5e-05 -> 6)."""
    r = repr(float(x))
    if "e" in r or "E" in r:
        mant, _, exp = r.lower().partition("e")
        d = len(mant.partition(".")[2].rstrip("0"))
        return max(0, d - int(exp))
    frac = r.partition(".")[2].rstrip("0")
    return len(frac)


def parse_gold(expected: Any, question: str | None) -> Gold | None:
    """The gold as a :class:`Gold`: a number as given, a text read like an answer (its concluding
    figure); None when it holds no number."""
    if isinstance(expected, bool):
        return None
    if isinstance(expected, (int, float)):
        x = float(expected)
        if not math.isfinite(x):
            return None
        d = decimals_of_float(x)
        return Gold(
            x,
            10.0**-d if d else 1.0,
            False,
            None,
            repr(expected),
            True,
            x.is_integer() and 1900 <= x <= 2100,
            1.0,
            False,
        )
    if isinstance(expected, (list, tuple)):
        expected = " ".join(str(e) for e in expected)
    text = str(expected) if expected is not None else ""
    return _parse_gold_text(text[:2000], question)


@lru_cache(maxsize=2048)
def _parse_gold_text(text: str, question: str | None) -> Gold | None:
    cands = extract_values(text, question=question)
    if not cands:
        return None
    pick = None
    eligible = [c for c in cands if not c.ignored]
    if len(eligible) == 1:
        pick = eligible[0]
    elif eligible:
        pick = select_concluding(text, eligible, question, set())[0]
    else:
        pick = cands[0]  # a gold that is a year or a note number is still the answer
    if pick is None:
        return None
    value = pick.value
    # In a gold, parentheses always mean negative ("(5)").
    if (
        pick.role == "marker"
        and text.strip().startswith("(")
        and text.strip().rstrip(".").endswith(")")
    ):
        value = -abs(value)
    word_sign = pick.sign_source == "word"
    if word_sign:
        value = -abs(value)
    bare = pick.scale_word is None and not pick.percent
    unit = pick.scale * (0.01 if pick.percent else 1.0)
    return Gold(
        value,
        pick.ulp,
        pick.percent,
        pick.currency,
        pick.raw or text.strip(),
        bare,
        pick.role == "year",
        unit,
        word_sign,
    )


def kind_of_gold(g: Gold, hints: QuestionHints) -> str:
    """ "percent", "money" or "plain": the kind of figure the gold is, which selection prefers."""
    if g.percent or (g.bare and hints.percent_strong):
        return "percent"
    if g.currency or not g.bare or hints.scale or hints.currency:
        return "money"
    if "." in g.raw and abs(g.value) >= 100 and not g.yearish:
        # A computed amount in table units ("-2757.233", "1041531.0"): an amount, which the
        # answer may state with a scale ("-2,757.233 million").
        return "money"
    return "plain"
