"""Numeric grader: does a free-text answer state the expected financial value?

``numeric_match("Revenue came to $1.5B.", "1,500 million USD")`` extracts every value from the
response (see :mod:`numeric_extract`), picks the figure stated as the answer, normalises scale,
sign and percent on both sides, and compares with a tolerance that also accepts rounded displays.
Conventions are documented in the README section "Numeric answers".
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.numeric_extract import Candidate, extract_values
from pytest_llmeval.metrics.numeric_roles import Asserted, co_asserted, role_in_sentence

if TYPE_CHECKING:
    from pytest_llmeval.registry import GradeContext

__all__ = [
    "CATEGORY_SYNONYMS",
    "Candidate",
    "NumericMatch",
    "assert_numeric_match",
    "extract_values",
    "grade",
    "looks_numeric",
    "numeric_match",
    "register_category",
    "values_agree",
]

TOLERANCE_MODES = ("relative", "absolute", "rounding", "exact")
PERCENT_MODES = ("ratio-or-percent", "number", "strict")
MATCH_MODES = ("concluding", "any", "first", "last")

# Category -> phrases that name it in prose. Extend with register_category().
CATEGORY_SYNONYMS: dict[str, list[str]] = {
    "revenue": [
        "total net revenue",
        "net revenues",
        "net revenue",
        "total revenues",
        "total revenue",
        "revenues",
        "revenue",
        "net sales",
        "total sales",
        "sales",
        "turnover",
        "top line",
        "top-line",
    ],
    "net income": [
        "net income",
        "net profit",
        "net earnings",
        "profit after tax",
        "earnings",
        "profit",
        "bottom line",
        "net loss",
    ],
    "operating income": [
        "operating income",
        "operating profit",
        "income from operations",
        "operating loss",
        "ebit",
    ],
    "gross profit": ["gross profit", "gross margin"],
    "ebitda": ["adjusted ebitda", "adj. ebitda", "ebitda"],
    "eps": ["diluted eps", "diluted earnings per share", "earnings per share", "eps"],
    "capex": [
        "capital expenditures",
        "capital expenditure",
        "capex",
        "capital spending",
        "purchases of property, plant and equipment",
        "purchases of property and equipment",
    ],
    "operating cash flow": [
        "net cash provided by operating activities",
        "cash from operations",
        "operating cash flow",
        "cash flow from operations",
        "cash flows from operating activities",
    ],
    "free cash flow": ["free cash flow", "fcf"],
    "cash": ["cash and cash equivalents", "cash and equivalents", "cash"],
    "debt": ["total debt", "long-term debt", "borrowings", "debt"],
    "total assets": ["total assets", "assets"],
    "total liabilities": ["total liabilities", "liabilities"],
    "equity": ["shareholders' equity", "stockholders' equity", "total equity", "equity"],
    "dividends": [
        "dividends paid",
        "cash dividends",
        "dividend per share",
        "dividends",
        "dividend",
    ],
    "cost of sales": ["cost of goods sold", "cost of sales", "cost of revenue", "cogs"],
    "operating expenses": [
        "operating expenses",
        "opex",
        "sg&a",
        "selling, general and administrative",
    ],
    "r&d": ["research and development", "r&d"],
    "inventory": ["inventories", "inventory"],
    "accounts receivable": ["accounts receivable", "receivables"],
    "accounts payable": ["accounts payable", "payables"],
    "margin": ["operating margin", "net margin", "gross margin", "margin"],
    "growth": ["growth rate", "growth", "increase", "change"],
    "tax rate": ["effective tax rate", "tax rate"],
    "share price": ["share price", "stock price", "price per share"],
}


def register_category(name: str, synonyms: list[str]) -> None:
    """Add or extend a category (e.g. ``register_category("arr", ["annual recurring revenue", "ARR"])``)."""
    key = name.strip().lower()
    existing = CATEGORY_SYNONYMS.setdefault(key, [])
    for s in synonyms:
        if s.lower() not in existing:
            existing.append(s.lower())
    _category_regex.cache_clear()


@dataclass(kw_only=True)
class NumericMatch(MetricResult):
    """Result of :func:`numeric_match`. Values are normalised floats (scale, sign, percent applied)."""

    metric: str = "numeric"
    expected_value: float | None = None
    found_value: float | None = None
    percentage_difference: float | None = None
    unit_match: bool | None = None
    candidates: list[Candidate] = field(default_factory=list)
    found: Candidate | None = None


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
    r"\b(?:decreas\w*|declin\w*|drop\w*|fall|fell|loss\w*|reduc\w*|shr[iau]nk\w*|lower|down|contract\w*"
    r"|expenditures?|capex|spen[dt]\w*|paid|pay\s?out|payments?|purchases?|repurchas\w*|used\s+in|outflows?"
    r"|costs?|expenses?|impairment|write-?downs?|dividends?|buybacks?)\b",
    re.IGNORECASE,
)
_Q_PAREN_RE = re.compile(r"\([^()]{0,300}\)")
_RESPONSE_SCALE_RE = re.compile(
    r"\((?:\s*(?:amounts|figures|dollars)\s+)?(?:in\s+)?(?:\$|usd|us\$|€)?\s*(thousands|millions|billions)(?:\s+of\s+(?:dollars|usd))?\s*\)"
    r"|\b(?:amounts|figures|numbers|values|dollars|expressed|presented|stated|reported)\s+(?:are\s+)?in\s+(?:\$\s*|usd\s+)?(thousands|millions|billions)\b",
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


@dataclass(frozen=True)
class _QuestionHints:
    scale: float | None
    percent: bool
    percent_strong: bool
    currency: str | None
    magnitude_ok: bool


@lru_cache(maxsize=512)
def _question_hints(question: str | None) -> _QuestionHints:
    if not question:
        return _QuestionHints(None, False, False, None, False)
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
    return _QuestionHints(
        scale=scale,
        percent=bool(_Q_PERCENT_RE.search(q)),
        percent_strong=bool(_Q_PERCENT_STRONG_RE.search(q)),
        currency=currency,
        # "free cash flow (cash from operations minus capital expenditures)": a definition in
        # parentheses does not make the asked figure an outflow.
        magnitude_ok=bool(_Q_NEG_DIRECTION_RE.search(_Q_PAREN_RE.sub(" ", q))),
    )


# --------------------------------------------------------------------------- expected value


@dataclass(frozen=True)
class _Gold:
    value: float
    ulp: float
    percent: bool
    currency: str | None
    raw: str
    bare: bool  # no scale word, no percent, no currency
    yearish: bool
    display_unit: float  # 1 unit of the number as written, normalised (for absolute tolerance)
    word_sign: bool


def _decimals_of_float(x: float) -> int:
    r = repr(float(x))
    if "e" in r or "E" in r:
        mant, _, exp = r.lower().partition("e")
        d = len(mant.partition(".")[2].rstrip("0"))
        return max(0, d - int(exp))
    frac = r.partition(".")[2].rstrip("0")
    return len(frac)


def _parse_gold(expected: Any, question: str | None) -> _Gold | None:
    if isinstance(expected, bool):
        return None
    if isinstance(expected, (int, float)):
        x = float(expected)
        if not math.isfinite(x):
            return None
        d = _decimals_of_float(x)
        return _Gold(
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
def _parse_gold_text(text: str, question: str | None) -> _Gold | None:
    cands = extract_values(text, question=question)
    if not cands:
        return None
    pick = None
    eligible = [c for c in cands if not c.ignored]
    if len(eligible) == 1:
        pick = eligible[0]
    elif eligible:
        pick = _select_concluding(text, eligible, question, set())[0]
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
    return _Gold(
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


# --------------------------------------------------------------------------- agreement


def _digits_ulp(x: float) -> float:
    """One unit in the last significant digit of a float's shortest repr (1500 -> 100, 8.74 -> 0.01)."""
    if x == 0 or not math.isfinite(x):
        return 0.0
    d = _decimals_of_float(x)
    if d > 0:
        return 10.0**-d
    n = abs(round(x))
    ulp = 1.0
    while n and n % 10 == 0:
        n //= 10
        ulp *= 10
    return ulp


def _sig_digits(x: float, ulp: float) -> int:
    if x == 0 or ulp <= 0:
        return 1
    return max(1, math.floor(math.log10(abs(x)) - math.log10(ulp) + 1e-9) + 1)


def values_agree(a: float, b: float, *, rel_tol: float = 1e-9, rounding: bool = True) -> bool:
    """True when ``a`` and ``b`` state the same value.

    With ``rounding`` the one shown with fewer significant digits counts as a rounded display of the
    other (394.3e9 agrees with 394_328e6; 8.74 with 8.738), provided it keeps at least two
    significant digits. ``rel_tol`` adds a relative tolerance.
    """
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    diff = abs(a - b)
    if diff <= rel_tol * max(abs(a), abs(b)) or diff <= 1e-12:
        return True
    if not rounding:
        return False
    ua, ub = _digits_ulp(a), _digits_ulp(b)
    coarse, ulp = (a, ua) if ua >= ub else (b, ub)
    fine = b if coarse is a else a
    return _sig_digits(coarse, ulp) >= 2 and _rounds_to(coarse, fine, diff, 0.5 * ulp)


def _agree(
    unit: float, gv: float, gulp: float, cv: float, culp: float, csig: int, tol: float, mode: str
) -> bool:
    """Does the answer value ``cv`` state the expected ``gv``? ``unit``: one expected unit (absolute mode)."""
    diff = abs(gv - cv)
    scale = max(abs(gv), abs(cv))
    if diff <= 1e-9 * scale or diff <= 1e-15:
        return True
    if mode == "relative" and diff <= tol * abs(gv) * (1 + 1e-9):
        return True
    if mode == "absolute" and diff <= tol * unit * (1 + 1e-9):
        return True
    if mode == "exact":
        return False
    extra = tol if mode == "rounding" else 0.0
    if gulp >= culp:
        # The gold is the coarser display: the answer rounds to it.
        return _rounds_to(gv, cv, diff, (0.5 + extra) * gulp)
    # The answer is the coarser display: accept if it keeps two significant digits.
    return csig >= 2 and _rounds_to(cv, gv, diff, (0.5 + extra) * culp)


def _rounds_to(coarse: float, fine: float, diff: float, half: float) -> bool:
    """Is ``coarse`` a rounding of ``fine``? An exact half rounds away from zero (2.345 -> 2.35, not 2.34)."""
    if diff < half * (1 - 1e-9):
        return True
    return diff <= half * (1 + 1e-9) and abs(coarse) > abs(fine) and coarse * fine >= 0


@dataclass(frozen=True)
class _Interp:
    value: float
    ulp: float
    percent: bool
    note: str


def _gold_interps(g: _Gold, hints: _QuestionHints, percent_mode: str) -> list[_Interp]:
    out = []
    if g.bare and hints.scale and not g.yearish:
        out.append(
            _Interp(
                g.value * hints.scale,
                g.ulp * hints.scale,
                False,
                f"scale x{_fmt(hints.scale)} from the question",
            )
        )
    if g.bare and not g.percent and (hints.percent_strong or percent_mode == "number"):
        out.append(_Interp(g.value / 100.0, g.ulp / 100.0, True, "percent from the question"))
    if not out or not (g.bare and hints.scale):
        # With a question scale the unscaled reading is dropped: a bare answer gets the same scale.
        out.append(_Interp(g.value, g.ulp, g.percent, ""))
    return out


def _cand_interps(
    c: Candidate, hints: _QuestionHints, resp_scale: float | None, percent_mode: str, g: _Gold
) -> list[_Interp]:
    out = [_Interp(c.value, c.ulp, c.percent, "")]
    unscaled = c.scale_word is None and not c.percent
    if not hints.scale and not g.percent and not c.percent:
        # Only one side states a scale and nothing else gives one: the scale is unknown, so the
        # numbers as written are compared ("56" vs "$56 million", "1.5 million" vs "1.5").
        if g.bare and c.scale_word and c.scale > 1:
            out.append(
                _Interp(c.value / c.scale, c.ulp / c.scale, False, "expected states no scale")
            )
            # A gold without a unit is compatible with a stated scale when it reads like a
            # figure in table units: a computed value ("-2757.233", "1041531.0") or an amount
            # such as FinanceBench's "$1577.00" (asked in millions) vs "$1.6 billion". A plain
            # integer ("3456789") is a full amount.
            table_units = g.currency is not None or "." in g.raw
            for unit, name in ((1e3, "thousands"), (1e6, "millions"), (1e9, "billions")):
                if table_units:
                    out.append(
                        _Interp(
                            c.value / unit,
                            c.ulp / unit,
                            False,
                            f"expected states no scale, read in {name}",
                        )
                    )
        elif not g.bare and g.display_unit > 1 and unscaled and not resp_scale:
            out.append(
                _Interp(
                    c.value * g.display_unit,
                    c.ulp * g.display_unit,
                    False,
                    "answer states no scale",
                )
            )
    if unscaled and hints.scale:
        out.append(_Interp(c.value * hints.scale, c.ulp * hints.scale, False, "question scale"))
    if unscaled and resp_scale and resp_scale != hints.scale:
        out.append(
            _Interp(c.value * resp_scale, c.ulp * resp_scale, False, "scale stated in the answer")
        )
    if unscaled and not c.currency and (hints.percent_strong or percent_mode == "number"):
        out.append(_Interp(c.value / 100.0, c.ulp / 100.0, True, "percent from the question"))
    if percent_mode == "number" and c.percent:
        out.append(_Interp(c.value * 100.0, c.ulp * 100.0, False, "percent sign ignored"))
    return out


def _percent_ok(g: _Gold, c: Candidate, gi: _Interp, ci: _Interp, percent_mode: str) -> bool:
    if percent_mode == "strict":
        return gi.percent == ci.percent
    # A money amount never matches a percentage ("$0.40" vs "40%"), in either direction.
    return not ((g.currency and ci.percent) or (gi.percent and c.currency))


def _match_candidate(
    g: _Gold,
    c: Candidate,
    hints: _QuestionHints,
    resp_scale: float | None,
    tol: float,
    mode: str,
    percent_mode: str,
) -> tuple[bool, float, str]:
    """(agrees, signed value used, note). Applies the sign conventions."""
    best_val = c.value
    best_note = ""
    gis = _gold_interps(g, hints, percent_mode)
    cis = _cand_interps(c, hints, resp_scale, percent_mode, g)
    signs: list[tuple[float, str]] = []
    if c.sign_source == "word" and c.value > 0:
        signs.append((-1.0, "negative from wording"))
        if hints.magnitude_ok or (not g.word_sign and g.value >= 0 and hints.magnitude_ok):
            signs.append((1.0, ""))
    else:
        signs.append((1.0, ""))
    magnitude = hints.magnitude_ok or g.word_sign
    for gi in gis:
        for ci in cis:
            if not _percent_ok(g, c, gi, ci, percent_mode):
                continue
            for sgn, snote in signs:
                cv = sgn * ci.value
                unit = g.display_unit * (gi.ulp / g.ulp) if g.ulp > 0 else g.display_unit
                # A percentage rounded to whole points ("down 3%" for -2.8%) is a normal display.
                csig = max(c.sig_digits, 2) if ci.percent else c.sig_digits
                ok = _agree(unit, gi.value, gi.ulp, cv, ci.ulp, csig, tol, mode)
                if not ok and magnitude:
                    ok = _agree(
                        unit, abs(gi.value), gi.ulp, abs(cv), ci.ulp, csig, tol, mode
                    )
                    if ok:
                        snote = "sign read from the question's direction"
                if ok:
                    notes = [n for n in (gi.note, ci.note, snote) if n]
                    return True, cv, "; ".join(notes)
    # Not agreeing: report the value in the gold's most likely frame (first interpretation pair).
    gi0 = gis[0]
    best = None
    for ci in cis:
        for sgn, _ in signs:
            d = abs(gi0.value - sgn * ci.value)
            if best is None or d < best[0]:
                best = (d, sgn * ci.value)
    if best is not None:
        best_val = best[1]
    return False, best_val, best_note


# --------------------------------------------------------------------------- concluding selection

_SEG_RE = re.compile(r"\n+|(?<=[.!?])[\"”')\]*]*\s+")
_STRONG_CUE_RE = re.compile(
    r"\b(?:therefore|thus|hence|consequently|in\s+conclusion|in\s+summary|to\s+summari[sz]e|so,?\s+(?:the|\w+'s)|"
    r"the\s+(?:final\s+)?answer|final\s+answer|answer\s*:|as\s+a\s+result|in\s+total)\b",
    re.IGNORECASE,
)
# Derivation cues: a computed figure, but not necessarily the one asked for.
_DERIVE_CUE_RE = re.compile(
    r"\b(?:this\s+(?:gives|means|results|represents|amounts)|"
    r"this\s+(?:is|was)\s+an?\s+(?:increase|decrease|change|growth|decline|gain|loss|total|difference|drop|rise)|"
    r"comes?\s+(?:out\s+)?to|works?\s+out\s+to|totals?\s+\$|rounded|rounding|round(?:s|ed)?\s+to)\b",
    re.IGNORECASE,
)
_REFUSAL_RE = re.compile(
    r"\b(?:not\s+(?:explicitly\s+)?(?:provided|stated|available|included|given|mentioned|disclosed|possible)|cannot|can't|can\s+not|"
    r"unable|don't\s+have|do\s+not\s+have|doesn't\s+(?:provide|include|contain)|does\s+not\s+(?:provide|include|contain)|"
    r"no\s+information|if\s+you\s+(?:can\s+)?provide|would\s+need|you\s+would|let\s+me\s+know|for\s+example|e\.g\.|such\s+as|"
    r"hypothetical|assume|assuming|suppose|expects?|guidance|forecast|projected?)\b",
    re.IGNORECASE,
)
_ALT_LINK_RE = re.compile(
    r"^\s*(?:,?\s*or\b|\(|,?\s*i\.e\.,?|,?\s*which\s+is|,?\s*equivalent\s+to|/|,?\s*that\s+is,?)\s*(?:about|approximately|roughly)?\s*[$€£¥]?",
    re.IGNORECASE,
)
_STOP_TEXT = """
what which when where does have been were with from that this than then them they their there
these those into over under about above below based using used provided information statement
statements answer question following primarily details shown response round rounded decimal
places units percents percent millions billions thousands calculate compute company give please
only assume your respond perspective analyst financial metric metrics help basing address
adopting clearly utilizing items line reported year fiscal total the was and for its are has how
did per any all our you who why can not but had
"""
_STOP = frozenset(_STOP_TEXT.split())


_STATED_WORDS = frozenset(
    [
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "totaled",
        "totalled",
        "totals",
        "equals",
        "equal",
        "equaled",
        "reached",
        "of",
        "at",
        "by",
        "to",
        "reported",
        "recorded",
        "generated",
        "earned",
        "paid",
        "spent",
        "had",
        "has",
        "gives",
        "giving",
        "yields",
        "yielding",
        "amounted",
        "amounts",
        "stood",
        "came",
        "=",
    ]
)
_STATED_FILLERS = frozenset(
    [
        "approximately",
        "about",
        "around",
        "roughly",
        "nearly",
        "almost",
        "an",
        "a",
        "the",
        "just",
        "over",
        "under",
        "negative",
        "total",
        "~",
        "**",
        "*",
        ":",
        "-",
        "−",
    ]
)


def _is_stated(text: str, seg_start: int, c: Candidate) -> bool:
    """Is the value introduced as a statement ("... was $5 million", "= 0.66", "a total of 12")?"""
    toks = text[max(seg_start, c.span[0] - 40) : c.span[0]].lower().split()[-5:]
    while toks and (toks[-1].strip("*:~(") in _STATED_FILLERS or not toks[-1].strip("*:~($€£¥")):
        toks.pop()
    if not toks:
        return False
    last = toks[-1].strip("*:~(,")
    return last in _STATED_WORDS or toks[-1].endswith(":")


def _segments(text: str) -> list[tuple[int, int]]:
    segs: list[tuple[int, int]] = []
    pos = 0
    for m in _SEG_RE.finditer(text):
        if m.start() > pos:
            segs.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        segs.append((pos, len(text)))
    # A lead-in ending with ":" belongs to what follows ("... is:\n\n$1,577 million").
    merged: list[tuple[int, int]] = []
    for seg in segs:
        if (
            merged
            and text[merged[-1][0] : merged[-1][1]].rstrip(" *").endswith(":")
            and (seg[1] - seg[0]) < 200
        ):
            merged[-1] = (merged[-1][0], seg[1])
        else:
            merged.append(seg)
    return merged


def _question_stems(question: str | None) -> frozenset[str]:
    if not question:
        return frozenset()
    words = re.findall(r"[A-Za-z][A-Za-z&'-]{2,}", question[:2000].lower())
    return frozenset(w[:5] for w in words if w not in _STOP and len(w) >= 3)


_BULLET_RE = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")


def _is_change_value(text: str, seg_start: int, c: Candidate) -> bool:
    if _CHANGE_BEFORE_RE.search(text[max(seg_start, c.span[0] - 40) : c.span[0]]):
        return True
    return bool(_CHANGE_AFTER_RE.match(text, c.span[1]))


_WORD_RE = re.compile(r"[A-Za-z][A-Za-z&'-]{2,}")


_STRONG_GATE = frozenset(
    [
        "therefore",
        "thus",
        "hence",
        "consequently",
        "conclusion",
        "summary",
        "summarize",
        "summarise",
        "answer",
        "result",
        "total",
        "so",
    ]
)
_REFUSAL_GATE = frozenset(
    [
        "not",
        "cannot",
        "can't",
        "unable",
        "don't",
        "doesn't",
        "information",
        "provide",
        "would",
        "you",
        "let",
        "example",
        "such",
        "hypothetical",
        "assume",
        "assuming",
        "suppose",
        "expect",
        "expects",
        "guidance",
        "forecast",
        "projected",
        "project",
        "e.g",
    ]
)
_DERIVE_GATE = frozenset(
    [
        "this",
        "comes",
        "come",
        "works",
        "work",
        "totals",
        "total",
        "rounded",
        "rounding",
        "round",
        "rounds",
    ]
)
_TOKEN_RE = re.compile(r"[a-z][a-z&'.-]*")


def _segment_flags(text: str, seg: tuple[int, int]) -> set[str]:
    """Which cue families occur in the sentence; a token check gates each regex."""
    seg_text = text[seg[0] : seg[1]]
    toks = {t.rstrip(".,") for t in _TOKEN_RE.findall(seg_text.lower())}
    flags: set[str] = set()
    if not toks.isdisjoint(_STRONG_GATE) and _STRONG_CUE_RE.search(seg_text):
        flags.add("strong")
    if not toks.isdisjoint(_REFUSAL_GATE) and _REFUSAL_RE.search(seg_text):
        flags.add("refusal")
    if not toks.isdisjoint(_DERIVE_GATE) and _DERIVE_CUE_RE.search(seg_text):
        flags.add("derive")
    return flags


def _score_segment(seg_text: str, q_stems: frozenset[str], flags: set[str] | None = None) -> float:
    if flags is None:
        flags = _segment_flags(seg_text, (0, len(seg_text)))
    score = 0.0
    if "strong" in flags:
        score += 3.0
    elif "derive" in flags:
        score += 1.5
    if q_stems:
        words = {w[:5] for w in _WORD_RE.findall(seg_text.lower())}
        score += min(len(words & q_stems), 4) * 0.5
    if "refusal" in flags:
        score -= 3.0
    if "strong" not in flags and _BULLET_RE.match(seg_text):
        score -= 0.5  # a bullet in a list of inputs
    return score


_CLAUSE_CUE_RE = re.compile(
    r"(?:,\s*so\b|\bso\s+(?:the|its|this)\b|\btherefore\b|\bthus\b|\bhence\b|\bwhich\s+(?:gives|yields|results\s+in|equals|comes\s+to)|"
    r"\bgiving\b|\bresulting\s+in\b|\bthis\s+(?:gives|yields|means)\b|\bin\s+total\b|\boverall\b)",
    re.IGNORECASE,
)


def _pick_in_segment(
    text: str,
    seg: tuple[int, int],
    cands: list[Candidate],
    q_stems: frozenset[str] = frozenset(),
    q_years: frozenset[str] = frozenset(),
    q_change: bool = False,
    gold_kind: str | None = None,
    promoted: frozenset[int] = frozenset(),
    label_stems: frozenset[str] | None = None,
) -> Candidate | None:
    # Within a sentence, what follows the last "so"/"therefore"/"which gives" is the conclusion.
    cue_pos = -1
    for m in _CLAUSE_CUE_RE.finditer(text, seg[0], seg[1]):
        cue_pos = m.end()
    if cue_pos >= 0:
        after = [c for c in cands if c.span[0] >= cue_pos]
        if after:
            cands = after
    results = [c for c in cands if c.role == "result"]
    if results:
        if gold_kind:
            fitting = [c for c in results if _kind(c) in _COMPATIBLE_KINDS[gold_kind]]
            if fitting:
                return fitting[-1]
        return results[-1]
    values = [c for c in cands if c.role in ("value", "range") or id(c) in promoted]
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    # Several stated values in one sentence: the one whose clause speaks of what was asked
    # ("... in 2022", "a change of ..."), then the first one stated with "is/was/of".
    asks_change = bool(q_change)
    best: tuple[float, float, int] | None = None
    if len(values) > 64:  # keep the work linear on pathological sentences
        values = values[:32] + values[-32:]
    bounds = _clause_bounds(text, seg)
    clauses = [_clause_around(text, bounds, c) for c in values]
    clause_words = [{w[:5] for w in _WORD_RE.findall(cl.lower())} & q_stems for cl in clauses]
    clause_years = [set(_YEAR_RE.findall(cl)) for cl in clauses]
    # A question word found in every clause says little; one found in a single clause says a lot.
    df: dict[str, int] = {}
    for ws in clause_words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    # Years only discriminate when some clause names a year other than the question's.
    years_discriminate = len(q_years) == 1 and any(ys and not ys & q_years for ys in clause_years)
    base: list[float] = []
    for i, c in enumerate(values):
        sc = 0.5 * sum(1.0 / df[w] for w in clause_words[i])
        # The label right before the figure ("net income of $99.8 billion") says most about it.
        # Tie-break: the label right before the figure ("net income of $99.8 billion").
        # The label runs back to the previous value, not to the previous digit: a year inside
        # it ("operating income for fiscal 2022 was $119.4 billion") is part of the label.
        label_start = max(seg[0], c.span[0] - 60, values[i - 1].span[1] if i else seg[0])
        label = _LABEL_TAIL_RE.search(text, label_start, c.span[0])
        label_sc = 0.0
        if label:
            # The last three content words, nearest first weighing most: "net income of" names
            # the figure more than "Apple reported" before it.
            content = [w for w in _WORD_RE.findall(label.group(0).lower()) if w not in _STOP and w not in _STATED_WORDS]
            wanted = q_stems if label_stems is None else label_stems
            for weight, w in zip((1.0, 0.75, 0.5), reversed(content[-3:]), strict=False):
                if w[:5] in wanted:
                    label_sc += weight / df.get(w[:5], 1)
        years = clause_years[i]
        if len(q_years) == 1 and years:
            if not years & q_years:
                sc -= 1.0
            elif years_discriminate:
                sc += 1.0
        if _HYPOTHETICAL_RE.search(clauses[i]):
            sc -= 1.0
        is_change = _is_change_value(text, seg[0], c)
        if is_change:
            sc += 1.5 if asks_change else -1.5
        if _is_stated(text, seg[0], c):
            sc += 0.25
        # A restatement ("$780 million, or 7.8%") is the same answer in another form: it inherits
        # what the sentence says about the figure it restates; the kind then decides.
        if i and c.span[0] - values[i - 1].span[1] <= 40:
            link = text[values[i - 1].span[1] : c.span[0]]
            lm = _ALT_LINK_RE.match(link)
            if lm and not link[lm.end() :].strip():
                sc = max(sc, base[i - 1])
        base.append(sc)
        if gold_kind:
            k = _kind(c)
            if k == gold_kind or (gold_kind == "money" and k == "money-unscaled"):
                sc += 0.5
            elif k not in _COMPATIBLE_KINDS[gold_kind]:
                sc -= 0.5
        key = (round(sc, 6), label_sc, -i)
        if best is None or key > best:
            best = key
    assert best is not None
    return values[-best[2]]


# The words between the previous number and this one (its label).
_LABEL_TAIL_RE = re.compile(r"(?:[^\d]|(?<![\d.,])(?:19|20)\d\d(?![\d.,]))+$")
_HYPOTHETICAL_RE = re.compile(
    r"\b(?:assum\w*|suppos\w*|hypothetical\w*|if\s+(?:we|you|the|it|payables|revenue)|for\s+example|e\.g\.|such\s+as|would\s+be)\b",
    re.IGNORECASE,
)
_CLAUSE_SPLIT_RE = re.compile(r"[,;]\s|\s(?:and|while|whereas|but|compared)\s", re.IGNORECASE)
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")
_CHANGE_BEFORE_RE = re.compile(
    r"\b(?:change|increase|decrease|difference|decline|growth|rise|drop|fall|gain|up|down|grew|rose|fell|"
    r"increased|decreased|declined|dropped|improved|expanded|contracted|reduction|reduced|cut|jump|jumped|"
    r"surged?|climbed|slipped|variance)"
    r"(?:\s+(?:of|by|approximately|about|around|roughly|nearly|some|an?|the|just|only))*\s*[$€£¥]?\s*[-−]?\s*$",
    re.IGNORECASE,
)
_CHANGE_AFTER_RE = re.compile(
    r"\s*(?:\)\s*)?(?:year[- ]over[- ]year\s+|yoy\s+)?(?:increase|decrease|decline|growth|rise|drop|gain|jump|fall|reduction|higher|lower)\b",
    re.IGNORECASE,
)
_Q_YEAR_RE = re.compile(
    r"\b(?:which|what)\s+(?:fiscal\s+|calendar\s+)?years?\b|\bwhen\b|\byears?\s+(?:in\s+which|when)\b",
    re.IGNORECASE,
)
_COMPARED_YEAR_RE = re.compile(
    r"\b(?:than|from|compared\s+(?:to|with)|vs\.?|versus|over|since|prior|previous)\s+(?:in\s+)?(?:fy\s*)?$",
    re.IGNORECASE,
)
_Q_CHANGE_RE = re.compile(
    r"\b(?:change|changed|increase|decrease|difference|decline|growth|grow|grew|rise|drop|fall|by\s+how\s+much|"
    r"increased|decreased|declined|variance|cagr)\b",
    re.IGNORECASE,
)


def _clause_bounds(text: str, seg: tuple[int, int]) -> list[int]:
    bounds = [seg[0]]
    for m in _CLAUSE_SPLIT_RE.finditer(text, seg[0], seg[1]):
        bounds.append(m.end())
    bounds.append(seg[1])
    return bounds


def _clause_around(text: str, bounds: list[int], c: Candidate) -> str:
    i = max(0, bisect.bisect_right(bounds, c.span[0]) - 1)
    end = bounds[i + 1] if i + 1 < len(bounds) else bounds[-1]
    return text[bounds[i] : max(end, c.span[1])]


_COMPATIBLE_KINDS = {
    "money": frozenset({"money", "money-unscaled", "plain"}),
    "percent": frozenset({"percent", "plain"}),
    "plain": frozenset({"plain", "percent", "money-unscaled"}),
}


def _kind(c: Candidate) -> str:
    if c.percent:
        return "percent"
    if c.scale_word:
        return "money"
    if c.currency:
        return "money-unscaled" if c.value < 1e5 else "money"
    return "plain"


def _gold_kind(g: _Gold, hints: _QuestionHints) -> str:
    if g.percent or (g.bare and hints.percent_strong):
        return "percent"
    if g.currency or not g.bare or hints.scale or hints.currency:
        return "money"
    return "plain"


def _restates(a: Candidate, b: Candidate) -> bool:
    """Is ``b`` the same figure as ``a`` in another form ("0.66 or 66%", "$0.389 billion ($389 million)")?"""
    # "$(4,625) million, which is $4.625 billion": the sign of an accounting line is not restated.
    diff = abs(abs(a.value) - abs(b.value))
    return diff <= 0.02 * max(abs(a.value), abs(b.value)) or diff < 0.5 * max(a.ulp, b.ulp)


_YEAR_CLAUSE_AFTER_RE = re.compile(r"[^.;,\n]{0,30}")


def _promoted_comparisons(
    text: str, cands: list[Candidate], q_years: frozenset[str], question: str | None
) -> frozenset[int]:
    """Comparison figures tied to the question's year ("21.3% in 2019, compared to 23.1% in 2018"
    asked about 2018): the figure asked for, even though the sentence states it as the reference."""
    if len(q_years) != 1 or not question or _Q_YEAR_RE.search(question[:2000]):
        return frozenset()
    out = set()
    for c in cands:
        if c.role != "comparison":
            continue
        # The year that follows in the same clause ("compared to 23.1% in 2018").
        after = _YEAR_CLAUSE_AFTER_RE.match(text, c.span[1])
        years = set(_YEAR_RE.findall(after.group(0))) if after else set()
        if years and years <= q_years:
            out.add(id(c))
    return frozenset(out)


def _select_concluding(
    text: str,
    cands: list[Candidate],
    question: str | None,
    allow_roles: set[str],
    gold_kind: str | None = None,
) -> tuple[Candidate | None, list[Candidate], str]:
    """The figure stated as the answer, its restatements ("0.66 or 66%"), and why it was chosen.

    ``gold_kind`` ("money", "percent", "plain") prefers sentences stating a figure of the same kind
    as the expected answer: a payout ratio is not the dollar amount next to it.
    """
    q_years = frozenset(_YEAR_RE.findall(question[:2000])) if question else frozenset()
    promoted = _promoted_comparisons(text, cands, q_years, question)
    eligible = [
        c
        for c in cands
        if c.role in ("value", "result", "range") or c.role in allow_roles or id(c) in promoted
    ]
    if not eligible:
        return None, [], "no stated value (only operands, comparisons, years or references)"
    segs = _segments(text)
    q_stems = _question_stems(question)
    by_seg: dict[int, list[Candidate]] = {}
    si = 0
    for c in eligible:
        while si < len(segs) - 1 and c.span[0] >= segs[si][1]:
            si += 1
        by_seg.setdefault(si, []).append(c)
    last_idx = max(by_seg)
    first_idx = min(by_seg)
    best: tuple[float, int] | None = None
    q_change = bool(question and _Q_CHANGE_RE.search(question[:2000]))
    for idx, group in by_seg.items():
        seg = segs[idx] if idx < len(segs) else (0, len(text))
        seg_text = text[seg[0] : seg[1]]
        sc = _score_segment(seg_text, q_stems, _segment_flags(text, seg))
        if question and all(_is_change_value(text, seg[0], c) for c in group):
            # Only changes stated here ("an increase of 5%"): the answer when a change was asked.
            sc += 1.0 if q_change else -2.0
        if gold_kind:
            kinds = {_kind(c) for c in group}
            if gold_kind in kinds or (gold_kind == "money" and "money-unscaled" in kinds):
                sc += 1.0
            elif not kinds & _COMPATIBLE_KINDS[gold_kind]:
                sc -= 1.0
        if len(q_years) == 1:
            years = set(_YEAR_RE.findall(seg_text))
            if years:
                sc += 1.0 if years & q_years else -0.5
        if any(c.role == "result" for c in group):
            sc += 2.0
        if any(_is_stated(text, seg[0], c) for c in group):
            sc += 1.0
        if idx == last_idx:
            sc += 1.5
        if idx == first_idx and len(by_seg) > 1:
            sc += 0.5
        key = (sc, idx)
        if best is None or key > best:
            best = key
    assert best is not None
    idx = best[1]
    seg = segs[idx] if idx < len(segs) else (0, len(text))
    group = by_seg[idx]
    # What the question asks about, without its parenthesised definition or unit.
    label_stems = _question_stems(_Q_PAREN_RE.sub(" ", question[:2000])) if question else q_stems
    primary = (
        _pick_in_segment(
            text, seg, group, q_stems, q_years, q_change, gold_kind, promoted, label_stems
        )
        or group[0]
    )
    pos = next((i for i, c in enumerate(cands) if c is primary), -1)
    if (
        gold_kind
        and 0 <= pos < len(cands) - 1
        and _kind(primary) not in _COMPATIBLE_KINDS[gold_kind]
    ):
        # "$612 million (25%)" asked as a percentage: the restatement in the asked kind answers.
        nxt = cands[pos + 1]
        link = text[primary.span[1] : nxt.span[0]]
        lm = _ALT_LINK_RE.match(link)
        if (
            nxt.role in ("value", "result", "aside")
            and _kind(nxt) == gold_kind
            and len(link) <= 40
            and (
                (lm is not None and not link[lm.end() :].strip())
                or (not link.strip() and nxt.raw.startswith("("))
            )
        ):
            primary, pos = nxt, pos + 1
    alts = []
    while 0 <= pos < len(cands) - 1:
        nxt = cands[pos + 1]
        link = text[cands[pos].span[1] : nxt.span[0]]
        if (
            len(link) <= 40
            and _ALT_LINK_RE.match(link)
            and not nxt.ignored
            and _restates(primary, nxt)
        ):
            alts.append(nxt)
            pos += 1
        else:
            break
    snippet = " ".join(text[seg[0] : seg[1]].split())
    if len(snippet) > 120:
        snippet = snippet[:117] + "..."
    return primary, alts, f'the concluding figure, in "{snippet}"'


@lru_cache(maxsize=256)
def _category_regex(category: str) -> re.Pattern[str]:
    key = category.strip().lower().replace("_", " ")
    phrases = list(CATEGORY_SYNONYMS.get(key, []))
    if not phrases:
        # Not a table key: the phrase itself, or the group it belongs to when it is a synonym
        # ("profit" -> net income group); _select_category tries the exact phrase first.
        for k, syns in CATEGORY_SYNONYMS.items():
            if key in syns:
                phrases.extend([k, *syns])
    if key not in phrases:
        phrases.append(key)
    phrases = sorted({p for p in phrases if p}, key=len, reverse=True)
    return re.compile(
        r"(?<![\w])(?:" + "|".join(re.escape(p) for p in phrases) + r")(?![\w])", re.IGNORECASE
    )


def _select_category(
    text: str,
    cands: list[Candidate],
    category: str,
    question: str | None,
) -> tuple[Candidate | None, str]:
    key = category.strip().lower().replace("_", " ")
    hits: list[re.Match[str]] = []
    if key not in CATEGORY_SYNONYMS:
        hits = list(re.finditer(r"(?<![\w])" + re.escape(key) + r"(?![\w])", text, re.IGNORECASE))
    if not hits:
        hits = list(_category_regex(category).finditer(text))
    eligible = [c for c in cands if c.role in ("value", "result", "range")]
    if not hits or not eligible:
        return None, ""
    hits = hits[:200]
    segs = _segments(text)
    seg_starts = [sg[0] for sg in segs]
    starts = [c.span[0] for c in eligible]
    q_stems = _question_stems(question)
    best: tuple[float, int, Candidate, str] | None = None
    seg_scores: dict[int, float] = {}
    for m in hits:
        si = max(0, bisect.bisect_right(seg_starts, m.start()) - 1)
        seg = segs[si] if segs else (0, len(text))
        # The value tied to the phrase: the first stated value after it in the same sentence
        # (no ";" and not too far); otherwise the nearest one just before it.
        pick = None
        j = bisect.bisect_left(starts, m.end())
        if j < len(eligible) and eligible[j].span[0] < seg[1]:
            between = text[m.end() : eligible[j].span[0]]
            if ";" not in between and len(between) <= 150:
                pick = eligible[j]
        if pick is None and j > 0:
            prev = eligible[j - 1]
            if seg[0] <= prev.span[0] and m.start() - prev.span[1] < 60:
                pick = prev
        if pick is None:
            continue
        if si not in seg_scores:
            seg_scores[si] = _score_segment(
                text[seg[0] : seg[1]], q_stems, _segment_flags(text, seg)
            )
        sc = seg_scores[si]
        dist = abs(pick.span[0] - m.end())
        rank = (sc - dist / 200.0, seg[0])
        if best is None or rank > (best[0], best[1]):
            best = (rank[0], rank[1], pick, m.group(0))
    if best is None:
        return None, ""
    return best[2], f'the value tied to "{best[3]}" (category {category!r})'


# --------------------------------------------------------------------------- formatting


def _fmt(v: float | None) -> str:
    if v is None:
        return "none"
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6 or a < 1e-4:
        s = f"{v:.6g}"
        return s.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    return f"{v:.10g}" if a >= 1 else f"{v:.6g}"


def _fmt_val(v: float | None, percent: bool, currency: str | None) -> str:
    if v is None:
        return "none"
    s = f"{_fmt(v * 100)}%" if percent else _fmt(v)
    return f"{s} {currency}" if currency else s


# --------------------------------------------------------------------------- public API


def numeric_match(
    response: str,
    expected: str | float | int,
    *,
    category: str | None = None,
    tolerance: float = 0.0,
    tolerance_mode: str = "relative",
    question: str | None = None,
    require_currency: bool = False,
    percent: str = "ratio-or-percent",
    match: str = "concluding",
    locale: str | None = None,
) -> NumericMatch:
    """Compare the value stated in ``response`` with ``expected`` after normalisation.

    See the README section "Numeric answers" for the conventions (scale, sign, percent, rounding).
    ``locale`` ("nb-NO", "de") decides an ambiguous decimal mark; without it the response's
    own words decide. Bad option values raise ``ValueError``; no response string makes it raise.
    """
    if tolerance_mode not in TOLERANCE_MODES:
        raise ValueError(
            f"tolerance_mode must be one of {', '.join(TOLERANCE_MODES)}; got {tolerance_mode!r}"
        )
    if percent not in PERCENT_MODES:
        raise ValueError(f"percent must be one of {', '.join(PERCENT_MODES)}; got {percent!r}")
    if match not in MATCH_MODES:
        raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}; got {match!r}")
    try:
        tol = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"tolerance must be a number; got {tolerance!r}") from None
    if not math.isfinite(tol) or tol < 0:
        raise ValueError(f"tolerance must be a finite number >= 0; got {tolerance!r}")
    if not isinstance(response, str):
        response = "" if response is None else str(response)
    if question is not None and not isinstance(question, str):
        question = str(question)
    return _numeric_match(
        response,
        expected,
        category,
        tol,
        tolerance_mode,
        question,
        require_currency,
        percent,
        match,
        locale if isinstance(locale, str) else None,
    )


def _tol_text(tol: float, mode: str) -> str:
    if mode == "relative":
        return f"relative tolerance {_fmt(tol * 100)}% (plus rounding of the coarser display)"
    if mode == "absolute":
        return (
            f"absolute tolerance {_fmt(tol)} expected units (plus rounding of the coarser display)"
        )
    if mode == "rounding":
        return f"rounding tolerance (half a unit in the last shown digit{f' + {_fmt(tol)} units' if tol else ''})"
    return "exact match"


def _numeric_match(
    response: str,
    expected: Any,
    category: str | None,
    tol: float,
    mode: str,
    question: str | None,
    require_currency: bool,
    percent_mode: str,
    match: str,
    locale: str | None = None,
) -> NumericMatch:
    gold = _parse_gold(expected, question)
    counting = bool(
        gold is not None
        and not gold.yearish
        and gold.bare
        and not gold.percent
        and float(gold.value).is_integer()
        and 0 <= gold.value <= 1000
    )
    cands = extract_values(
        response, question=question, count_words=counting, locale=locale, padding=False
    )
    exp_repr = expected if isinstance(expected, str) else repr(expected)
    if gold is None:
        return NumericMatch(
            passed=False,
            score=0.0,
            candidates=cands,
            explanation=f"expected {str(exp_repr)[:80]!r} holds no number, so there is nothing to compare; "
            "use a text grader for non-numeric golds",
            details={"error": "expected_not_numeric"},
        )
    hints = _question_hints(question)
    resp_scale = None
    rs = _RESPONSE_SCALE_RE.search(response[:20000])
    if rs:
        resp_scale = _SCALE_NAMES.get((rs.group(1) or rs.group(2)).lower())
    exp_currency = gold.currency or hints.currency
    exp_desc = f'expected {_fmt_val(gold.value, gold.percent, gold.currency)} (from "{str(exp_repr)[:60]}")'
    gold_interps = _gold_interps(gold, hints, percent_mode)
    if gold_interps[0].note:
        exp_desc += f", i.e. {_fmt_val(gold_interps[0].value, gold_interps[0].percent, gold.currency)} with {gold_interps[0].note}"

    allow = {"year"} if gold.yearish else set()
    how = ""
    chosen: list[Candidate] = []
    extras: list[Asserted] = []
    if match == "any":
        chosen = [c for c in cands if not c.ignored or c.role in allow]
        how = "any value in the answer (match='any')"
    elif match in ("first", "last"):
        pool = [c for c in cands if c.role in ("value", "result", "range") or c.role in allow]
        if pool:
            chosen = [pool[0] if match == "first" else pool[-1]]
        how = f"the {match} stated value"
    else:
        primary = None
        years = [c for c in cands if c.role == "year"] if gold.yearish else []
        asks_year = bool(question and _Q_YEAR_RE.search(question[:2000]))
        if years and not asks_year and any(c.role in ("value", "result") for c in cands):
            years = []  # "1950" may be an amount ("$1,950 million in 2019"): use the stated figures
        if years:
            # "In which year ...?": the answer is a year; the one stated, not one it is compared with.
            pool = [
                dataclasses.replace(c, role="value")
                if c.role == "year"
                and not _COMPARED_YEAR_RE.search(response, max(0, c.span[0] - 30), c.span[0])
                else dataclasses.replace(c, role="aside")
                for c in cands
            ]
            picked, _alts, how = _select_concluding(response, pool, question, set(), "plain")
            primary = next((c for c in cands if picked is not None and c.span == picked.span), None)
            if primary is not None:
                chosen = [primary]
                how = how.replace("the concluding figure", "the concluding year")
        if primary is None and category:
            primary, how = _select_category(response, cands, category, question)
            if primary is not None:
                chosen = [primary]
        if primary is None:
            gkind = _gold_kind(gold, hints)
            primary, alts, how2 = _select_concluding(response, cands, question, allow, gkind)
            if primary is not None:
                chosen = [primary, *alts]
                how = (f"no value tied to category {category!r}; " if category else "") + how2
                seg = next(
                    (sg for sg in _segments(response) if sg[0] <= primary.span[0] < sg[1]),
                    (0, len(response)),
                )
                asks_change = (
                    bool(_Q_CHANGE_RE.search(question[:2000])) if question else None
                )
                extras = co_asserted(response, seg, cands, chosen, asks_change)
                primary_role = role_in_sentence(response, seg, cands, primary)
                if primary_role == "whole":
                    # "$206.7 million of the $1,344.1 million": the part is the answer.
                    part = next(
                        (c for c in reversed(cands) if c.span[1] <= primary.span[0] and not c.ignored),
                        None,
                    )
                    if part is not None:
                        chosen = [part]
                        how = f"the part stated before its whole ({how2})"
                elif (
                    asks_change is not False
                    and any(a.role in ("change", "difference") for a in extras)
                    and primary_role == "endpoint"
                ):
                    # "rose by $59 million, from $3,475 million to $3,534 million": the change
                    # is asserted; the endpoint the sentence ends on is an input.
                    chosen = []
                    how = f"an endpoint of the stated change, not the answer ({how2})"

    if chosen and chosen[0].role == "range":
        # "between $29 billion and $30 billion", "5-10%": a range states no single value.
        chosen, extras = [], []
        how = "a range, not a value"
    if not chosen and not extras:
        reason = (
            "no numeric value found in the answer"
            if not cands
            else (
                "no stated value found (values seen: "
                + ", ".join(f'"{c.raw}" ({c.role})' for c in cands[:6])
                + ")"
            )
        )
        return NumericMatch(
            passed=False,
            score=0.0,
            expected_value=gold.value,
            candidates=cands,
            explanation=f"{exp_desc}; {reason}.",
            details={"selection": how, "expected_raw": str(exp_repr)},
        )

    found = chosen[0] if chosen else extras[0].cand
    found_val = found.value
    ok = False
    note = ""
    for c in chosen:
        agree, val, nt = _match_candidate(gold, c, hints, resp_scale, tol, mode, percent_mode)
        if agree:
            ok, found, found_val, note = True, c, val, nt
            break
        if c is chosen[0]:
            found_val = val
    if not chosen:
        found_val = _match_candidate(gold, found, hints, resp_scale, tol, mode, percent_mode)[1]
        how = f"{extras[0].description}, {how}"
    if not ok:
        # The gold asserted in another role of the answer sentence (a change beside its
        # endpoints, the level it leads to, a total before its parts) answers too.
        for a in extras:
            agree, val, nt = _match_candidate(gold, a.cand, hints, resp_scale, tol, mode, percent_mode)
            if agree:
                ok, found, found_val, note = True, a.cand, val, nt
                how = f"{a.description}, beside {how}"
                break
    unit_match = _unit_match(gold, found, exp_currency, percent_mode)
    currency_note = ""
    if exp_currency and found.currency and exp_currency != found.currency:
        currency_note = f"; currency differs ({found.currency} vs expected {exp_currency})"
    elif exp_currency and not found.currency and require_currency:
        currency_note = f"; the answer states no currency (expected {exp_currency})"
    if require_currency and exp_currency and found.currency != exp_currency:
        ok = False
    if percent_mode == "strict" and gold.percent != found.percent:
        ok = False
    denom = abs(gold.value) if gold.value else 0.0
    pdiff = (
        abs(found_val - gold.value) / denom * 100.0
        if denom
        else (0.0 if found_val == gold.value else math.inf)
    )
    if ok:
        score = 1.0
    else:
        rel = pdiff / 100.0 if math.isfinite(pdiff) else math.inf
        score = 0.9 * math.exp(-20.0 * rel) if math.isfinite(rel) else 0.0
    found_desc = (
        f'found {_fmt_val(found_val, found.percent, found.currency)} (from "{found.raw}", {how})'
    )
    if note:
        found_desc += f" [{note}]"
    verdict = (
        f"match within {_tol_text(tol, mode)}"
        if ok
        else f"difference {f'{pdiff:.4g}' if math.isfinite(pdiff) else 'inf'}% exceeds {_tol_text(tol, mode)}"
    )
    if not ok and require_currency and exp_currency and found.currency != exp_currency:
        verdict = "currency required to match (require_currency=True)"
    explanation = f"{exp_desc}, {found_desc}: {verdict}{currency_note}."
    return NumericMatch(
        passed=ok,
        score=round(score, 6),
        expected_value=gold.value,
        found_value=found_val,
        percentage_difference=pdiff if math.isfinite(pdiff) else None,
        unit_match=unit_match,
        candidates=cands,
        found=found,
        explanation=explanation,
        details={
            "selection": how,
            "found_raw": found.raw,
            "expected_raw": str(exp_repr),
            "tolerance": tol,
            "tolerance_mode": mode,
            "percent": percent_mode,
            "match": match,
        },
    )


def _unit_match(gold: _Gold, found: Candidate, exp_currency: str | None, percent_mode: str) -> bool:
    if exp_currency and found.currency and exp_currency != found.currency:
        return False
    if gold.percent and not found.percent and found.currency:
        return False
    return not (found.percent and gold.currency)


def assert_numeric_match(
    response: str,
    expected: str | float | int,
    *,
    category: str | None = None,
    tolerance: float = 0.0,
    tolerance_mode: str = "relative",
    question: str | None = None,
    require_currency: bool = False,
    percent: str = "ratio-or-percent",
    match: str = "concluding",
    locale: str | None = None,
) -> NumericMatch:
    """Like :func:`numeric_match`, but records the result and raises on a mismatch."""
    __tracebackhide__ = True
    result = numeric_match(
        response,
        expected,
        category=category,
        tolerance=tolerance,
        tolerance_mode=tolerance_mode,
        question=question,
        require_currency=require_currency,
        percent=percent,
        match=match,
        locale=locale,
    )
    enforce(result)
    return result


_GRADE_KEYS = (
    "category",
    "tolerance",
    "tolerance_mode",
    "require_currency",
    "percent",
    "match",
    "locale",
)


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader: settings from ``ctx.criteria["numeric"]`` (a dict, or ``true`` for defaults)."""
    settings = ctx.criteria.get("numeric", True) if isinstance(ctx.criteria, dict) else True
    if settings is True or settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise GraderError(
            f"eval_criteria.numeric must be true or an object with {', '.join(_GRADE_KEYS)}; got {settings!r}"
        )
    unknown = sorted(set(settings) - set(_GRADE_KEYS))
    if unknown:
        raise GraderError(
            f"eval_criteria.numeric: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(_GRADE_KEYS)}"
        )
    # A gold that is a JSON number is that number (not its text "2e+20").
    gold = ctx.expected if ctx.expected_number is None else ctx.expected_number
    if _parse_gold(gold, ctx.question) is None:
        raise GraderError(
            f"numeric grader: expected answer {str(ctx.expected)[:80]!r} holds no number"
        )
    if "locale" not in settings and ctx.sample is not None:
        # The sample's metadata.locale decides an ambiguous decimal mark ("1,070" in Norwegian).
        loc = ctx.sample.metadata.get("locale")
        if isinstance(loc, str):
            settings = {**settings, "locale": loc}
    try:
        return numeric_match(ctx.response, gold, question=ctx.question, **settings)
    except (TypeError, ValueError) as exc:
        raise GraderError(f"eval_criteria.numeric: {exc}") from exc


_FILLER_RE = re.compile(
    r"\b(?:approximately|approx|about|around|roughly|nearly|almost|circa|ca|usd|eur|gbp|us|dollars?|euros?|per|share|"
    r"a|an|the|of|in|is|was|by|to|up|down|total|net|negative|minus|plus|or|and|increased?|decreased?|growth|"
    r"declined?|loss|gain|rose|fell|grew|times|x|"
    r"million|billion|thousand|trillion|percent|percentage|points?|bps|basis|units?|shares?)\b",
    re.IGNORECASE,
)


def looks_numeric(expected: str) -> bool:
    """True when a gold answer is essentially a number, amount or percentage ("$1,500 million", "12.5%")."""
    if isinstance(expected, bool):
        return False
    if isinstance(expected, (int, float)):
        return math.isfinite(float(expected))
    if not isinstance(expected, str):
        return False
    text = expected.strip()
    if not text or len(text) > 80:
        return False
    cands = extract_values(text)
    stated = [c for c in cands if not c.ignored]
    if not stated:
        return (
            bool(cands)
            and len(cands) == 1
            and cands[0].role == "year"
            and cands[0].raw.strip() == text
        )
    if len(stated) > 2:
        return False
    rest = text
    for c in reversed(cands):
        rest = rest[: c.span[0]] + " " + rest[c.span[1] :]
    rest = _FILLER_RE.sub(" ", rest)
    leftover = re.findall(r"[A-Za-z]{2,}", rest)
    return len(leftover) <= 1
