"""Agreement stage of the numeric grader: does a found figure state the expected value?

Reads both sides in every frame the conventions allow (a scale from the question, a gold without
a unit read in table units, percent from the question) and compares with the tolerance and the
rounding of the coarser display; applies the sign conventions (worded signs, magnitudes when the
question asks for an outflow).
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from pytest_llmeval.metrics.numeric.candidates import Candidate
from pytest_llmeval.metrics.numeric.explanation import format_number
from pytest_llmeval.metrics.numeric.gold import Gold, QuestionHints, decimals_of_float

# --------------------------------------------------------------------------- agreement


def _digits_ulp(x: float) -> float:
    """One unit in the last significant digit of a float's shortest repr (1500 -> 100, 8.74 -> 0.01)."""
    if x == 0 or not math.isfinite(x):
        return 0.0
    d = decimals_of_float(x)
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
    # Which side is coarser is decided once, by the ulps (not by `is` on floats: the identity of
    # two equal numbers says nothing).
    coarse, ulp, fine = (a, ua, b) if ua >= ub else (b, ub, a)
    return _sig_digits(coarse, ulp) >= 2 and _rounds_to(coarse, fine, diff, 0.5 * ulp)


def _agree(
    unit: float, gv: float, gulp: float, cv: float, culp: float, csig: int, tol: float, mode: str
) -> bool:
    """Does the answer value ``cv`` state the expected ``gv``? ``unit``: one expected unit (absolute mode)."""
    if not (math.isfinite(gv) and math.isfinite(cv)):
        return False  # inf <= 1e-9 * inf would hold
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


class Interp(NamedTuple):
    """One reading of a figure: its value, rounding unit and percent flag in some frame, and
    the note saying which frame (a tuple: several are built for every figure compared)."""

    value: float
    ulp: float
    percent: bool
    note: str


def gold_interpretations(g: Gold, hints: QuestionHints, percent_mode: str) -> list[Interp]:
    """The gold's readings to compare against: scaled by the question's unit, as the percentage the
    question asks for, and as written (unless the question's scale applies to a bare gold)."""
    out = []
    if g.bare and hints.scale and not g.yearish:
        out.append(
            Interp(
                g.value * hints.scale,
                g.ulp * hints.scale,
                False,
                f"scale x{format_number(hints.scale)} from the question",
            )
        )
    if g.bare and not g.percent and (hints.percent_strong or percent_mode == "number"):
        out.append(Interp(g.value / 100.0, g.ulp / 100.0, True, "percent from the question"))
    if not out or not (g.bare and hints.scale):
        # With a question scale the unscaled reading is dropped: a bare answer gets the same scale.
        out.append(Interp(g.value, g.ulp, g.percent, ""))
    return out


def _cand_interps(
    c: Candidate, hints: QuestionHints, resp_scale: float | None, percent_mode: str, g: Gold
) -> list[Interp]:
    out = [Interp(c.value, c.ulp, c.percent, "")]
    unscaled = c.scale_word is None and not c.percent
    if not hints.scale and not g.percent and not c.percent:
        # Only one side states a scale and nothing else gives one: the scale is unknown, so the
        # numbers as written are compared ("56" vs "$56 million", "1.5 million" vs "1.5").
        if g.bare and c.scale_word and c.scale > 1:
            out.append(
                Interp(c.value / c.scale, c.ulp / c.scale, False, "expected states no scale")
            )
            # A gold without a unit is compatible with a stated scale when it reads like a
            # figure in table units ("$1577.00" asked in millions vs "$1.6 billion").
            if _in_table_units(g):
                out.extend(_table_unit_readings(c))
        elif g.bare and unscaled and abs(c.value) >= 1e6 and _in_table_units(g):
            # "USD 32,780,000,000" for "$32780.00" (asked in millions): an amount written out
            # in full states its scale as plainly as a scale word does; millions and billions
            # are the table units of such golds.
            out.extend(_table_unit_readings(c)[1:])
        elif not g.bare and g.display_unit > 1 and unscaled and not resp_scale:
            out.append(
                Interp(
                    c.value * g.display_unit,
                    c.ulp * g.display_unit,
                    False,
                    "answer states no scale",
                )
            )
    if unscaled and hints.scale:
        out.append(Interp(c.value * hints.scale, c.ulp * hints.scale, False, "question scale"))
    if unscaled and resp_scale and resp_scale != hints.scale:
        out.append(
            Interp(c.value * resp_scale, c.ulp * resp_scale, False, "scale stated in the answer")
        )
    if unscaled and not c.currency and (hints.percent_strong or percent_mode == "number"):
        out.append(Interp(c.value / 100.0, c.ulp / 100.0, True, "percent from the question"))
    if percent_mode == "number" and c.percent:
        out.append(Interp(c.value * 100.0, c.ulp * 100.0, False, "percent sign ignored"))
    return out


_GROUPED_RE = re.compile(r"\d,\d{3}(?!\d)")


def _in_table_units(g: Gold) -> bool:
    """Does a gold without a unit read like a figure in table units: a computed value
    ("-2757.233", "1041531.0") or an amount such as FinanceBench's "$1577.00" (asked in millions)?
    A plain integer ("3456789") or an amount written out with thousands separators ("$64,000":
    it states its own scale) is a full amount."""
    whole_with_separators = _GROUPED_RE.search(g.raw) is not None and "." not in g.raw
    return (g.currency is not None or "." in g.raw) and not whole_with_separators


def _table_unit_readings(c: Candidate) -> list[Interp]:
    """The figure read in thousands, millions and billions (a gold in table units)."""
    return [
        Interp(c.value / unit, c.ulp / unit, False, f"expected states no scale, read in {name}")
        for unit, name in ((1e3, "thousands"), (1e6, "millions"), (1e9, "billions"))
    ]


class Reading(NamedTuple):
    """A found figure read against the gold: does it agree, its signed value in the frame compared,
    the note naming the frame, and the gold's value in that frame (``reference``). ``magnitude``:
    they agree as sizes only (the sign came from the question or the gold)."""

    ok: bool
    value: float
    note: str
    reference: float
    magnitude: bool = False


def reading_difference(r: Reading) -> float:
    """|value - reference| as a percentage of |reference|: the two values compared (sizes when
    they agree as sizes); 0 or infinity when the reference is zero."""
    a, b = (abs(r.value), abs(r.reference)) if r.magnitude else (r.value, r.reference)
    if b:
        return abs(a - b) / abs(b) * 100.0
    return 0.0 if a == b else math.inf


def _match_candidate(
    g: Gold,
    c: Candidate,
    hints: QuestionHints,
    resp_scale: float | None,
    tol: float,
    mode: str,
    percent_mode: str,
    gis: list[Interp] | None = None,
) -> tuple[bool, float, str]:
    """(agrees, signed value used, note): :func:`read_against` without the gold's frame."""
    r = read_against(g, c, hints, resp_scale, tol, mode, percent_mode, gis)
    return r.ok, r.value, r.note


def read_against(
    g: Gold,
    c: Candidate,
    hints: QuestionHints,
    resp_scale: float | None,
    tol: float,
    mode: str,
    percent_mode: str,
    gis: list[Interp] | None = None,
) -> Reading:
    """The figure read against the gold, applying the sign conventions. ``gis``: the gold's
    readings when the caller already has them (they depend on the gold and question only)."""
    if gis is None:
        gis = gold_interpretations(g, hints, percent_mode)
    cis = _cand_interps(c, hints, resp_scale, percent_mode, g)
    signs = _sign_readings(g, c, hints)
    magnitude = hints.magnitude_ok or g.word_sign
    if c.sign_source == "parentheses" and c.outflow_line and g.value >= 0:
        # Brackets that only mark an expense or outflow line: its positive size matches.
        magnitude = True
    strict = percent_mode == "strict"
    for gi in gis:
        unit = g.display_unit * (gi.ulp / g.ulp) if g.ulp > 0 else g.display_unit
        for ci in cis:
            # Percent against money never agrees ('$0.40' vs '40%'); strict mode wants the same kind.
            if strict:
                if gi.percent != ci.percent:
                    continue
            elif (g.currency and ci.percent) or (gi.percent and c.currency):
                continue
            # A percentage rounded to whole points ("down 3%" for -2.8%) is a normal display.
            csig = max(c.sig_digits, 2) if ci.percent else c.sig_digits
            for sgn, snote in signs:
                cv = sgn * ci.value
                ok = _agree(unit, gi.value, gi.ulp, cv, ci.ulp, csig, tol, mode)
                sizes = False
                if not ok and magnitude:
                    ok = sizes = _agree(
                        unit, abs(gi.value), gi.ulp, abs(cv), ci.ulp, csig, tol, mode
                    )
                    if ok:
                        snote = (
                            "sign read from the question's direction"
                            if hints.magnitude_ok
                            else "sign read from the expected answer's words"
                        )
                if ok:
                    notes = [n for n in (gi.note, ci.note, snote) if n]
                    return Reading(True, cv, "; ".join(notes), gi.value, sizes)
    return Reading(False, _nearest_reading(gis[0], cis, signs, c.value), "", gis[0].value)


# The sign as written: the only reading of a figure whose sign no word states.
_AS_WRITTEN: tuple[tuple[float, str], ...] = ((1.0, ""),)


def _sign_readings(g: Gold, c: Candidate, hints: QuestionHints) -> tuple[tuple[float, str], ...]:
    """The signs a figure may be read with, each with its note: as written, or negative when
    words state a loss or decrease (and then positive too where the question or gold allows)."""
    if not (c.sign_source == "word" and c.value > 0):
        return _AS_WRITTEN
    if hints.magnitude_ok:
        return ((-1.0, "negative from wording"), (1.0, ""))
    if c.decrease_verb and g.value > 0 and not g.word_sign and not hints.asked:
        # Without a question, a positive gold may be the size of an asked decrease
        # ("shrank by 39,185"); a question that asks for a change decides otherwise.
        return (
            (-1.0, "negative from wording"),
            (1.0, "the expected is the size of the worded decrease"),
        )
    return ((-1.0, "negative from wording"),)


def _nearest_reading(
    gi0: Interp, cis: list[Interp], signs: tuple[tuple[float, str], ...], default: float
) -> float:
    """Not agreeing: the figure's value in the gold's most likely frame (its first reading)."""
    best = None
    for ci in cis:
        for sgn, _ in signs:
            d = abs(gi0.value - sgn * ci.value)
            if best is None or d < best[0]:
                best = (d, sgn * ci.value)
    return default if best is None else best[1]


_KRONER = frozenset({"NOK", "SEK", "DKK"})
_KRONE_CODE_RE = re.compile(r"NOK|SEK|DKK")


def currency_as_expected(found: Candidate, expected: str | None) -> str | None:
    """A bare "kr" names whichever krone the gold names: the text's language can tell Danish
    from Norwegian only roughly ("83,7 mia. kr." for DKK)."""
    if (
        expected in _KRONER
        and found.currency in _KRONER
        and "kr" in found.raw.lower()
        and not _KRONE_CODE_RE.search(found.raw)
    ):
        return expected
    return found.currency
