"""The in-process half of extractive match: cases sympy is not needed for.

Most graded answers are a plain number or a choice letter, often wrapped in
``$...$`` or ``\\boxed{}``. Extraction (regexes, stdlib only) runs here with the
worker's own loop, and a parser that reads integers, decimals, ``\\frac{p}{q}``,
``p/q`` and letters exactly; any other candidate is kept :class:`Unread`.
Numbers are compared by math-verify's rules (exact for integers and fractions,
rounded to ``float_rounding`` places against a decimal), and two answers with the
same LaTeX text pass. Whatever only sympy can decide (an unread answer against
another, a rounding tie, a path that depends on whether a candidate parses)
raises :class:`NeedsSympy` and goes to the bounded worker process. Plain numbers
therefore never leave the process.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from pytest_llmeval.metrics.extractive import worker as engine

# Longer digit strings and finer rounding go to sympy: its Float precision, not ours, decides there.
MAX_DIGITS = 60
MAX_FLOAT_ROUNDING = 12

_LATEX_GROUP = re.compile(r"(first|next\d+)_latex")
_INTEGER_OR_DECIMAL = re.compile(r"(-?)(\d+)(?:\.(\d+))?")
_THOUSANDS = re.compile(r"(-?)(\d{1,3}(?:,\d{3})+)")
# \frac{7}{4}, \dfrac{-2}{5}, \frac74, \frac4{2}: what latex2sympy reads as a rational.
_FRACTION = re.compile(r"(-?)\\[dt]?frac(?:\{(-?\d+)\}|(\d))(?:\{(\d+)\}|(\d))")
_PLAIN_FRACTION = re.compile(r"(-?)(\d+)\s*/\s*(\d+)")


class NeedsSympy(Exception):
    """A candidate only sympy can read (or a comparison only it can decide)."""


# How sympy holds each written form, which decides how math-verify compares it:
INTEGER, RATIONAL, QUOTIENT, DECIMAL = "integer", "rational", "quotient", "decimal"
# Parts of fractions read here: beyond these, math-verify's relative check of unevaluated
# quotients could call two different values equal, and sympy must decide.
MAX_QUOTIENT_DIGITS = 3
MAX_FRACTION_DIGITS = 6


@dataclass(frozen=True)
class PlainNumber:
    """An exact value and its form: ``integer`` (sympy Integer), ``rational`` (a LaTeX
    ``\\frac``, sympy Rational), ``quotient`` ("7/4" in plain text, an unevaluated
    division) or ``decimal`` (written with a point, a sympy Float)."""

    value: Fraction
    form: str

    def __str__(self) -> str:
        return str(float(self.value)) if self.form == DECIMAL else str(self.value)


def _number(sign: str, integer: str, fraction_digits: str | None) -> PlainNumber:
    if len(integer) + len(fraction_digits or "") > MAX_DIGITS:
        raise NeedsSympy
    value = Fraction(f"{integer}.{fraction_digits}" if fraction_digits else integer)
    return PlainNumber(
        -value if sign else value, DECIMAL if fraction_digits is not None else INTEGER
    )


def _fraction(sign: str, numerator: str, denominator: str, *, form: str) -> PlainNumber:
    limit = MAX_QUOTIENT_DIGITS if form == QUOTIENT else MAX_FRACTION_DIGITS
    if max(len(numerator.lstrip("-")), len(denominator)) > limit or int(denominator) == 0:
        raise NeedsSympy
    value = Fraction(int(numerator), int(denominator))
    if form == RATIONAL and value.denominator == 1:
        form = INTEGER  # latex2sympy evaluates \frac{4}{2} to the Integer 2
    return PlainNumber(-value if sign else value, form)


def _unbox(text: str) -> str:
    """The content of one ``\\boxed{...}`` spanning the whole text, else the text."""
    if not (text.startswith("\\boxed{") and text.endswith("}")):
        return text
    inner, depth = text[len("\\boxed{") : -1], 0
    for char in inner:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return text  # "\\boxed{1} + \\boxed{2}": not one box
    return inner.strip() if depth == 0 else text


def _latex_number(text: str) -> tuple[PlainNumber, str]:
    """Read one LaTeX answer that is a plain number or fraction, as math-verify would."""
    text = _unbox(text.strip())
    found = _INTEGER_OR_DECIMAL.fullmatch(text)
    if found:
        return _number(*found.groups()), text
    found = _THOUSANDS.fullmatch(text)
    if found:
        return _number(found.group(1), found.group(2).replace(",", ""), None), text
    found = _FRACTION.fullmatch(text)
    if found:
        sign, numerator, numerator_digit, denominator, denominator_digit = found.groups()
        numerator, denominator = numerator or numerator_digit, denominator or denominator_digit
        return _fraction(
            sign, numerator, denominator, form=RATIONAL
        ), f"{sign}\\frac{{{numerator}}}{{{denominator}}}"
    raise NeedsSympy


def _mixed(m: re.Match[str]) -> tuple[PlainNumber | None, str]:
    """A mixed number ("4 4/9") as the worker reads it: an unevaluated sum, like a quotient;
    no value at all when its fraction is not a proper one ("4 4/0")."""
    parts = engine.mixed_number(m)
    if parts is None or m.groupdict().get("mixed_percent"):
        raise NeedsSympy
    sign, whole, numerator, denominator = parts
    raw = m.group("mixed")
    if denominator == 0:
        return None, raw
    value = whole + Fraction(numerator, denominator)
    return PlainNumber(-value if sign else value, QUOTIENT), raw


@dataclass(frozen=True)
class Unread:
    """A candidate only sympy can read, kept with everything its reading depends on.

    The worker's parse of a match is a function of the match's named groups (and the
    options, equal for both sides), so two candidates with equal ``groups`` read the same.
    """

    kind: str
    groups: tuple[tuple[str, str], ...]
    text: str

    def __str__(self) -> str:
        return self.text


def _read(m: re.Match[str], kind: str) -> tuple[Any, str]:
    groups = m.groupdict()
    if kind == "latex":
        latex = [
            (name, value) for name, value in groups.items() if value and _LATEX_GROUP.match(name)
        ]
        if len(latex) != 1:
            raise NeedsSympy  # a list of answers, or nothing: sympy's reading decides
        name, text = latex[0]
        if groups.get(f"{name.split('_')[0]}_percent"):
            raise NeedsSympy
        return _latex_number(text)
    if kind == "expr":
        if groups.get("mixed"):
            return _mixed(m)
        if groups.get("percent"):
            raise NeedsSympy
        digits = engine.number_text(m)
        if digits is None:  # an expression: only "p/q" is read here
            expr = (groups.get("expr") or "").strip()
            found = _PLAIN_FRACTION.fullmatch(expr)
            if not found:
                raise NeedsSympy
            return _fraction(*found.groups(), form=QUOTIENT), expr
        if "e" in digits:
            raise NeedsSympy
        found = _INTEGER_OR_DECIMAL.fullmatch(digits)
        if not found:
            raise NeedsSympy
        return _number(*found.groups()), digits
    choice = engine.read_choice(m, kind)
    if choice is None:
        raise NeedsSympy
    return choice


def parse(m: re.Match[str], kind: str) -> tuple[Any, str]:
    """The extraction loop's parser for this process: numbers and letters read exactly,
    anything else an :class:`Unread` that only the worker can compare (unless identical)."""
    try:
        return _read(m, kind)
    except NeedsSympy:
        return _unread(m, kind)


def _unread(m: re.Match[str], kind: str) -> tuple[Unread, str]:
    groups = {name: value for name, value in m.groupdict().items() if value}
    latex = [name for name in groups if _LATEX_GROUP.match(name)]
    if kind == "latex" and len(latex) == 1:
        # One LaTeX answer: math-verify normalises it the same way whether it came from
        # "$T$", "$\\boxed{T}$" or "\\boxed{T}" (the box is removed first), so T is the key.
        prefix = latex[0].split("_")[0]
        text = _unbox(groups[latex[0]].strip())
        if "\\boxed" not in text:
            key = (("latex", text), ("percent", groups.get(f"{prefix}_percent", "")))
            return Unread(kind, key, text), text
    text = " ".join(m.group(0).split())
    return Unread(kind, tuple(sorted(groups.items())), text), text


def _round_tie(value: Fraction, places: int) -> bool:
    scaled = value * 10**places
    return bool(scaled - math.floor(scaled) == Fraction(1, 2))


def _numbers_equal(gold: PlainNumber, pred: PlainNumber, float_rounding: int) -> tuple[bool, str]:
    """math-verify's verdict on two numbers, or :class:`NeedsSympy` where only sympy knows it."""
    forms = {gold.form, pred.form}
    if QUOTIENT in forms and any(
        abs(v.value) >= 1000 or v.value.denominator >= 1000 for v in (gold, pred)
    ):
        # math-verify checks unevaluated sums and divisions relatively (to 1e-12): only values
        # this small and coarse are sure to differ by more whenever they differ at all.
        raise NeedsSympy
    if DECIMAL not in forms:
        return gold.value == pred.value, "numeric (exact)"
    label = f"numeric (floats rounded to {float_rounding} places)"
    if QUOTIENT in forms:
        raise NeedsSympy  # an unevaluated division against a Float: sympy's relative check
    if INTEGER in forms:
        # sympy rounds an Integer to an Integer and a Float to a Float, which never compare
        # equal; only an exactly equal value passes (through math-verify's other checks).
        if gold.value == 0 or pred.value == 0:
            raise NeedsSympy  # sympy's Zero against 0.0
        return gold.value == pred.value, label
    if float_rounding > MAX_FLOAT_ROUNDING or any(
        _round_tie(v.value, float_rounding) for v in (gold, pred)
    ):
        raise NeedsSympy  # sympy's own rounding rule decides ties
    return round(gold.value, float_rounding) == round(pred.value, float_rounding), label


def _pair_equal(gold: Any, pred: Any, float_rounding: int) -> tuple[bool, str]:
    if isinstance(gold, str) and isinstance(pred, str):
        return bool(gold.strip()) and gold.strip() == pred.strip(), "string equality"
    if isinstance(gold, PlainNumber) and isinstance(pred, PlainNumber):
        return _numbers_equal(gold, pred, float_rounding)
    return False, "none"  # a number against a string is never equal (math-verify's rule)


def compare(gold: list[Any], pred: list[Any], req: dict[str, Any]) -> tuple[bool, str, int, int]:
    """Pair by pair like the worker's ``compare``; the first equal pair decides.

    An :class:`Unread` answer is decided here only when both sides' answers are the same
    match text and the raw texts are compared too (``fallback_mode="first_match"``): the
    worker then reads them alike, or compares the same fallback text, and passes.
    """
    if gold and pred and (isinstance(gold[0], Unread) or isinstance(pred[0], Unread)):
        if gold[0] == pred[0] and req["fallback_mode"] == "first_match":
            return True, "identical answers, in-process", 0, 0
        raise NeedsSympy
    first_label = "none"
    for gi, pi in product(range(len(gold)), range(len(pred))):
        equal, label = _pair_equal(gold[gi], pred[pi], req["float_rounding"])
        if (gi, pi) == (0, 0):
            first_label = label
        if equal:
            return True, f"{label}, in-process", gi, pi
    return False, f"{first_label}, in-process", 0, 0


def _known(found: engine.Candidates) -> engine.Candidates:
    """``found``, when it is certain whether its answer parses; else :class:`NeedsSympy`."""
    if any(isinstance(value, Unread) for value in found.values):
        raise NeedsSympy  # the worker's path (read it whole as LaTeX or not) depends on sympy
    return found


# Shapes that make the answer patterns scan to the end of the text from every start, so
# that extraction is quadratic: many maths openers with no closer after them, and long
# runs of digits and operators. Such texts go to the worker, whose deadline bounds them.
_OPENERS = (("\\[", "\\]"), ("\\(", "\\)"), ("$$", "$$"))
MAX_UNCLOSED = 8
_LONG_RUN = re.compile(r"[\d.\s+\-*×/^()÷,]{160}")


def quick_to_extract(text: str) -> bool:
    """True when the extraction regexes stay linear on ``text`` (checked in linear time)."""
    for opener, closer in _OPENERS:
        last_close = text.rfind(closer) if closer != opener else -1
        if text.count(opener, max(0, last_close)) > MAX_UNCLOSED:
            return False
    return text.count("$") <= 400 and _LONG_RUN.search(text) is None


def evaluate(req: dict[str, Any]) -> dict[str, Any] | None:
    """The worker's reply for ``req`` computed here, or None when sympy is needed."""
    if not (quick_to_extract(req["gold"]) and quick_to_extract(req["prediction"])):
        return None
    try:
        return engine.evaluate(req, parser=parse, comparer=compare, known=_known)
    except NeedsSympy:
        return None
