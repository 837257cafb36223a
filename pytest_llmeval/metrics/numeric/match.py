"""Numeric grader: does a free-text answer state the expected financial value?

``numeric_match("Revenue came to $1.5B.", "1,500 million USD")`` extracts every value from the
response (see :mod:`pytest_llmeval.metrics.numeric.candidates`), picks the figure stated as the answer, normalises scale,
sign and percent on both sides, and compares with a tolerance that also accepts rounded displays.
Conventions are documented in the README section "Numeric answers".
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.numeric import figure_labels, polarity
from pytest_llmeval.metrics.numeric.agreement import (
    Interp,
    Reading,
    currency_as_expected,
    gold_interpretations,
    read_against,
    reading_difference,
    values_agree,
)
from pytest_llmeval.metrics.numeric.candidates import Candidate, extract_values, zero_phrases
from pytest_llmeval.metrics.numeric.explanation import (
    NumericMatch,
    format_value,
    tolerance_text,
    units_match,
)
from pytest_llmeval.metrics.numeric.gold import (
    Gold,
    QuestionHints,
    kind_of_gold,
    parse_gold,
    question_hints,
    response_scale,
)
from pytest_llmeval.metrics.numeric.roles import Asserted, co_asserted_in, role_among
from pytest_llmeval.metrics.numeric.selection import (
    CATEGORY_SYNONYMS,
    COMPARED_YEAR_RE,
    Q_CHANGE_RE,
    Q_YEAR_RE,
    conclude,
    register_category,
    segment_of,
    select_category,
    select_concluding,
)

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
    partial_credit: bool = False,
) -> NumericMatch:
    """Compare the value stated in ``response`` with ``expected`` after normalisation.

    See the README section "Numeric answers" for the conventions (scale, sign, percent, rounding).
    ``locale`` ("nb-NO", "de") decides an ambiguous decimal mark; without it the response's
    own words decide. Bad option values raise ``ValueError``; no response string makes it raise.
    A figure outside the tolerance scores 0 unless ``partial_credit`` asks for credit that falls
    with the distance (``0.9 * exp(-20 * relative difference)``); the explanation always gives
    the percentage difference.
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
        bool(partial_credit),
    )


_SENTENCE_END_RE = re.compile(r"[.!?]\s|\n")


def _part_of_whole(
    text: str, seg: tuple[int, int], cands: list[Candidate], whole: Candidate
) -> Candidate | None:
    """The stated figure next to a whole: the one before "of the $X", else the one after."""
    stated = [
        c
        for c in cands
        if seg[0] <= c.span[0] < seg[1] and c is not whole and c.role in ("value", "result")
    ]
    before = [c for c in stated if c.span[1] <= whole.span[0]]
    if before and text[before[-1].span[1] : whole.span[0]].strip().lower().startswith(
        ("of", "out")
    ):
        return before[-1]
    after = [c for c in stated if c.span[0] >= whole.span[1]]
    return after[0] if after else (before[-1] if before else None)


def _select_figures(
    response: str,
    cands: list[Candidate],
    gold: Gold,
    hints: QuestionHints,
    category: str | None,
    question: str | None,
    match: str,
) -> tuple[list[Candidate], list[Asserted], str]:
    """Selection stage: the figures stated as the answer, the figures asserted beside them in
    other roles (a change beside its endpoints, a total before its parts), and how they were found.
    """
    allow = {"year"} if gold.yearish else set()
    extras: list[Asserted] = []
    if match == "any":
        chosen = [c for c in cands if not c.ignored or c.role in allow]
        how = "any value in the answer (match='any')"
    elif match in ("first", "last"):
        pool = [c for c in cands if c.role in ("value", "result", "range") or c.role in allow]
        chosen = [pool[0] if match == "first" else pool[-1]] if pool else []
        how = f"the {match} stated value"
    else:
        chosen, extras, how = _select_stated(
            response, cands, gold, hints, category, question, allow
        )
    if chosen and chosen[0].role == "range":
        # "between $29 billion and $30 billion", "5-10%": a range states no single value.
        return [], [], "a range, not a value"
    return chosen, extras, how


def _select_stated(
    response: str,
    cands: list[Candidate],
    gold: Gold,
    hints: QuestionHints,
    category: str | None,
    question: str | None,
    allow: set[str],
) -> tuple[list[Candidate], list[Asserted], str]:
    """match='concluding': the year asked for, else the figure tied to the category, else the
    concluding figure with the figures asserted beside it."""
    primary, how = _select_year(response, cands, gold, question)
    if primary is not None:
        return [primary], [], how
    if category:
        primary, how = select_category(response, cands, category, question)
        if primary is not None:
            return [primary], [], how
    chosen, extras, roles_how = _select_by_roles(
        response, cands, gold, hints, category, question, allow
    )
    return chosen, extras, how if roles_how is None else roles_how


def _select_year(
    response: str, cands: list[Candidate], gold: Gold, question: str | None
) -> tuple[Candidate | None, str]:
    """ "In which year ...?": the answer is a year; the one stated, not one it is compared with.
    Only for a gold that is a year."""
    if not gold.yearish:
        return None, ""
    years = [c for c in cands if c.role == "year"]
    asks_year = bool(question and Q_YEAR_RE.search(question[:2000]))
    if years and not asks_year and any(c.role in ("value", "result") for c in cands):
        years = []  # "1950" may be an amount ("$1,950 million in 2019"): use the stated figures
    if not years:
        return None, ""
    pool = [
        dataclasses.replace(c, role="value")
        if c.role == "year"
        and not COMPARED_YEAR_RE.search(response, max(0, c.span[0] - 30), c.span[0])
        else dataclasses.replace(c, role="aside")
        for c in cands
    ]
    picked, _alts, how = select_concluding(response, pool, question, set(), "plain")
    primary = next((c for c in cands if picked is not None and c.span == picked.span), None)
    if primary is not None:
        how = how.replace("the concluding figure", "the concluding year")
    return primary, how


def _primary_role(
    response: str,
    seg: tuple[int, int],
    in_seg: list[Candidate],
    primary: Candidate,
    extras: list[Asserted],
    asks_change: bool | None,
) -> str | None:
    """The role of the concluding figure, read only as far as it can change the selection: an
    endpoint matters beside a stated change that may answer, a whole beside a stated part in
    its sentence (``in_seg``); None when neither can."""
    if extras and asks_change is not False:
        for a in extras:
            if a.role in ("change", "difference"):
                return role_among(response, seg[0], in_seg, primary)
    if len(in_seg) > 1:
        for c in in_seg:
            if c is not primary and c.role in ("value", "result"):
                return role_among(response, seg[0], in_seg, primary, whole_only=True)
    return None


def _select_by_roles(
    response: str,
    cands: list[Candidate],
    gold: Gold,
    hints: QuestionHints,
    category: str | None,
    question: str | None,
    allow: set[str],
) -> tuple[list[Candidate], list[Asserted], str | None]:
    """The concluding figure and the figures its sentence asserts beside it; the part stated
    beside a whole answers, an endpoint beside a stated change does not (how is None: none found)."""
    primary, alts, how2, seg = conclude(response, cands, question, allow, kind_of_gold(gold, hints))
    if primary is None:
        return [], [], None
    chosen = [primary, *alts]
    how = (f"no value tied to category {category!r}; " if category else "") + how2
    if not seg[0] <= primary.span[0] < seg[1]:
        # A restatement in the asked kind may sit in the next sentence: find the sentence again
        # (sentences are disjoint, so the one read that holds the figure is its sentence).
        seg = segment_of(response, primary)
    asks_change = bool(Q_CHANGE_RE.search(question[:2000])) if question else None
    # The figures of the answer sentence, read once for the role stage. A sentence that is the
    # whole answer holds every figure (each starts inside the text): no test per figure.
    if seg[0] == 0 and seg[1] == len(response):
        in_seg = list(cands)
    else:
        in_seg = [c for c in cands if seg[0] <= c.span[0] < seg[1]]
    extras = co_asserted_in(response, seg[0], in_seg, chosen, asks_change)
    primary_role = _primary_role(response, seg, in_seg, primary, extras, asks_change)
    if primary_role == "whole":
        # "$206.7 million of the $1,344.1 million", "Of the $5.0 billion facility,
        # $1.8 billion was drawn": the part is the answer.
        part = _part_of_whole(response, seg, cands, primary)
        if part is not None:
            chosen = [part]
            how = f"the part stated beside its whole ({how2})"
    elif (
        primary_role == "endpoint"
        and asks_change is not False
        and any(a.role in ("change", "difference") for a in extras)
    ):
        # "rose by $59 million, from $3,475 million to $3,534 million": the change
        # is asserted; the endpoint the sentence ends on is an input.
        chosen = []
        how = f"an endpoint of the stated change, not the answer ({how2})"
    return chosen, extras, how


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
    partial_credit: bool = False,
) -> NumericMatch:
    """Read the gold, read the answer's figures, select the one stated as the answer, compare."""
    gold = polarity.labelled_fall(parse_gold(expected, question), expected)
    cands = _read_figures(response, gold, question, locale)
    exp_repr = expected if isinstance(expected, str) else repr(expected)
    if gold is None:
        return _not_numeric(cands, exp_repr)
    hints = question_hints(question)
    # the question's words in any language
    if not hints.magnitude_ok and polarity.asks_for_a_fall(question):
        hints = dataclasses.replace(hints, magnitude_ok=True)
    resp_scale = response_scale(response)
    exp_currency = gold.currency or hints.currency
    gold_interps = gold_interpretations(gold, hints, percent_mode)
    exp_desc = _expected_description(gold, gold_interps[0], exp_repr)
    chosen, extras, how = _select_figures(response, cands, gold, hints, category, question, match)
    if not chosen and not extras:
        return _no_figure_chosen(gold, cands, exp_desc, how, exp_repr)

    def compare(c: Candidate) -> Reading:
        return read_against(gold, c, hints, resp_scale, tol, mode, percent_mode, gold_interps)

    selected = _compare_selected(compare, chosen, extras, how)
    ok, found, reading, how = (
        selected if match == "any" else _asked_label(compare, response, cands, question, selected)
    )
    found_val, note = reading.value, reading.note
    found_currency = currency_as_expected(found, exp_currency)
    unit_match = units_match(gold, found, exp_currency, found_currency)
    currency_note = _currency_note(found, exp_currency, found_currency, require_currency)
    currency_failed = bool(require_currency and exp_currency and found_currency != exp_currency)
    if currency_failed or (percent_mode == "strict" and gold.percent != found.percent):
        ok = False
    sign_conflict = _sign_conflict(response, found, cands, gold, expected, question) if ok else None
    if sign_conflict:
        ok = False
    pdiff = reading_difference(reading)
    score = _score(ok, pdiff, partial_credit)
    found_desc = f'found {format_value(found_val, found.percent, found.currency)} (from "{found.raw}", {how})'
    if note:
        found_desc += f" [{note}]"
    verdict = _verdict_text(ok, pdiff, tol, mode, currency_failed, sign_conflict)
    return NumericMatch(
        passed=ok,
        score=round(score, 6),
        expected_value=gold.value,
        found_value=found_val,
        percentage_difference=pdiff if math.isfinite(pdiff) else None,
        unit_match=unit_match,
        candidates=cands,
        found=found,
        explanation=f"{exp_desc}, {found_desc}: {verdict}{currency_note}.",
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


def _no_figure_chosen(
    gold: Gold, cands: list[Candidate], exp_desc: str, how: str, exp_repr: Any
) -> NumericMatch:
    """No figure the answer states reads as its answer: a fail that says what it did state."""
    return NumericMatch(
        passed=False,
        score=0.0,
        expected_value=gold.value,
        candidates=cands,
        explanation=f"{exp_desc}; {_nothing_stated(cands)}.",
        details={"selection": how, "expected_raw": str(exp_repr)},
    )


def _asked_label(
    compare: Callable[[Candidate], Reading],
    response: str,
    cands: list[Candidate],
    question: str | None,
    selected: tuple[bool, Candidate, Reading, str],
) -> tuple[bool, Candidate, Reading, str]:
    """ "- Revenue: 1.5B\n- Profit: 500M" for "What was revenue?": the figure tied to what was
    asked is graded where the selected one is tied to another label."""
    found = selected[1]
    asked = figure_labels.asked_figure(response, cands, found, question)
    if asked is None:
        return selected
    return _compare_selected(
        compare,
        [asked],
        [],
        f"the figure tied to the question's words, not {found.raw!r} tied to another label",
    )


def _sign_conflict(
    response: str,
    found: Candidate,
    cands: list[Candidate],
    gold: Gold,
    expected: Any,
    question: str | None,
) -> str | None:
    """The answer's own polarity words stand: a sign read from the question or the gold never
    overrules them, so they can only turn a match into a contradiction (why, or None)."""
    wanted = polarity.expected(gold, expected if isinstance(expected, str) else None, question)
    said = (
        None
        if wanted is None
        else polarity.contradiction(polarity.stated(response, found, cands), wanted)
    )
    if said is None and isinstance(expected, str):
        # "Revenue fell 5% to $10 million" vs "rose 5% to $10 million": a figure beside the answer
        said = polarity.restated_conflict(expected, response, cands)
    return said


def _not_numeric(cands: list[Candidate], exp_repr: Any) -> NumericMatch:
    """The result for a gold that holds no number: nothing to compare, never a pass."""
    return NumericMatch(
        passed=False,
        score=0.0,
        candidates=cands,
        explanation=f"expected {str(exp_repr)[:80]!r} holds no number, so there is nothing to compare; "
        "use a text grader for non-numeric golds",
        details={"error": "expected_not_numeric"},
    )


def _score(ok: bool, pdiff: float, partial_credit: bool) -> float:
    """1 for a match; else 0, or credit falling with the distance when ``partial_credit`` asks."""
    if ok:
        return 1.0
    if partial_credit and math.isfinite(pdiff):
        # Closeness is credit only where the gold asks for it: out of tolerance is wrong.
        return 0.9 * math.exp(-20.0 * pdiff / 100.0)
    return 0.0


def _read_figures(
    response: str, gold: Gold | None, question: str | None, locale: str | None
) -> list[Candidate]:
    """Every figure of the answer; number words count when a small count is expected, and
    "no change" states zero when zero is expected."""
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
    if gold is not None and gold.value == 0 and not gold.yearish:
        # "so there was no difference" states 0 when 0 is expected.
        # A zero phrase followed by another figure in its sentence is not the answer
        # ("no change in policy; revenue was $5 million").
        zeros = [
            z
            for z in zero_phrases(response)
            if not any(
                not c.ignored
                and c.span[0] > z.span[1]
                and not _SENTENCE_END_RE.search(response, z.span[1], c.span[0])
                for c in cands
            )
        ]
        cands = sorted([*cands, *zeros], key=lambda c: c.span[0])
    return cands


def _expected_description(gold: Gold, first: Interp, exp_repr: Any) -> str:
    """'expected 0.66 (from "0.66")', with the gold's first reading (``first``) when it is not
    literal."""
    exp_desc = f'expected {format_value(gold.value, gold.percent, gold.currency)} (from "{str(exp_repr)[:60]}")'
    if first.note:
        exp_desc += (
            f", i.e. {format_value(first.value, first.percent, gold.currency)} with {first.note}"
        )
    return exp_desc


def _nothing_stated(cands: list[Candidate]) -> str:
    """Why no figure was compared: none at all, or only figures in roles that are not answers."""
    if not cands:
        return "no numeric value found in the answer"
    seen = ", ".join(f'"{c.raw}" ({c.role})' for c in cands[:6])
    return f"no stated value found (values seen: {seen})"


def _compare_selected(
    compare: Callable[[Candidate], Reading],
    chosen: list[Candidate],
    extras: list[Asserted],
    how: str,
) -> tuple[bool, Candidate, Reading, str]:
    """Compare the stated figures, then the figures asserted beside them, with the gold:
    (agrees, figure reported, its reading, how it was found)."""
    found = chosen[0] if chosen else extras[0].cand
    reading: Reading | None = None
    for c in chosen:
        r = compare(c)
        if r.ok:
            return True, c, r, how
        if reading is None:
            reading = r
    if reading is None:
        reading = compare(found)
        how = f"{extras[0].description}, {how}"
    # The gold asserted in another role of the answer sentence (a change beside its
    # endpoints, the level it leads to, a total before its parts) answers too.
    for a in extras:
        r = compare(a.cand)
        if r.ok:
            return True, a.cand, r, f"{a.description}, beside {how}"
    return False, found, reading, how


def _currency_note(
    found: Candidate, exp_currency: str | None, found_currency: str | None, required: bool
) -> str:
    """What the explanation says about currency: a different one, or none where one is required."""
    if exp_currency and found_currency and exp_currency != found_currency:
        return f"; currency differs ({found.currency} vs expected {exp_currency})"
    if exp_currency and not found.currency and required:
        return f"; the answer states no currency (expected {exp_currency})"
    return ""


def _verdict_text(
    ok: bool,
    pdiff: float,
    tol: float,
    mode: str,
    currency_failed: bool,
    sign_conflict: str | None = None,
) -> str:
    """The closing clause of the explanation: within tolerance, by how much not, currency, or
    the answer's own sign word."""
    if sign_conflict:
        return f"{sign_conflict} (difference {pdiff:.4g}% as sizes)"
    if ok:
        return f"match within {tolerance_text(tol, mode)} (difference {pdiff:.4g}%)"
    if currency_failed:
        return "currency required to match (require_currency=True)"
    shown = f"{pdiff:.4g}" if math.isfinite(pdiff) else "inf"
    return f"difference {shown}% exceeds {tolerance_text(tol, mode)}"


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
    partial_credit: bool = False,
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
        partial_credit=partial_credit,
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
    "partial_credit",
    "extractor",
)
EXTRACTORS = ("heuristic", "llm")


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
    if parse_gold(gold, ctx.question) is None:
        raise GraderError(
            f"numeric grader: expected answer {str(ctx.expected)[:80]!r} holds no number"
        )
    if "locale" not in settings and ctx.sample is not None:
        # The sample's metadata.locale decides an ambiguous decimal mark ("1,070" in Norwegian).
        loc = ctx.sample.metadata.get("locale")
        if isinstance(loc, str):
            settings = {**settings, "locale": loc}
    extractor = settings.get("extractor")  # heuristic | llm: see numeric_llm
    settings = {k: v for k, v in settings.items() if k != "extractor"}
    try:
        result = numeric_match(ctx.response, gold, question=ctx.question, **settings)
    except (TypeError, ValueError) as exc:
        raise GraderError(f"eval_criteria.numeric: {exc}") from exc
    if resolve_extractor(ctx, extractor) != "llm":
        return result
    from pytest_llmeval.metrics.numeric.llm_reading import apply_extractor

    return apply_extractor(ctx, result, gold, settings)


def resolve_extractor(ctx: GradeContext, setting: Any) -> str:
    """``eval_criteria.numeric.extractor`` > ``llm_numeric_extractor`` > heuristic."""
    if setting is None:
        run = getattr(ctx, "settings", None)
        value = getattr(run, "numeric_extractor", None) if run is not None else None
        setting = getattr(value, "value", value) or "heuristic"
    if setting not in EXTRACTORS:
        raise GraderError(
            f"eval_criteria.numeric.extractor must be one of {', '.join(EXTRACTORS)}; got {setting!r}"
        )
    return str(setting)


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
    leftover = [w for w in re.findall(r"[^\W\d_]{2,}", rest) if w.lower() not in _figure_words()]
    return len(leftover) <= 1


@lru_cache(maxsize=1)
def _figure_words() -> frozenset[str]:
    """Words of any language's tables that only say what a figure is: scale, percent, currency,
    sign and polarity words ("Et underskudd på 12 millioner kroner" is a figure)."""
    from pytest_llmeval.metrics.numeric.locale_tables import LANGUAGES

    words: set[str] = set()
    for t in LANGUAGES.values():
        words.update(t.scales, t.percent, t.points, t.currency_words, t.negative_after)
        words.update(w for phrase in t.negative_before for w in phrase.split())
    for p in polarity.TABLES.values():
        words.update(p.up, p.down, p.filler)
    return frozenset(w.lower().rstrip(".") for w in words)
