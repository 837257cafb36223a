"""Explanation stage of the numeric grader: how values and verdicts are written, and the verdict
itself (:class:`NumericMatch`), which the judge's second reading and :mod:`.match` both return."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_llmeval.metrics.base import MetricResult
from pytest_llmeval.metrics.numeric.candidates import Candidate

if TYPE_CHECKING:
    from pytest_llmeval.metrics.numeric.gold import Gold

# --------------------------------------------------------------------------- the verdict


@dataclass(kw_only=True)
class NumericMatch(MetricResult):
    """Result of :func:`~pytest_llmeval.metrics.numeric.match.numeric_match`. Values are normalised floats (scale, sign, percent applied)."""

    metric: str = "numeric"
    expected_value: float | None = None
    found_value: float | None = None
    percentage_difference: float | None = None
    unit_match: bool | None = None
    candidates: list[Candidate] = field(default_factory=list)
    found: Candidate | None = None


# --------------------------------------------------------------------------- formatting


def format_number(v: float | None) -> str:
    """A number as explanations write it: 10 significant digits from 1 up to 1e6, else 6 (exponent
    form below 1e-4 and from 1e6)."""
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


def format_value(v: float | None, percent: bool, currency: str | None) -> str:
    """A normalised value as explanations write it: a ratio as a percentage, the currency code after."""
    if v is None:
        return "none"
    s = f"{format_number(v * 100)}%" if percent else format_number(v)
    return f"{s} {currency}" if currency else s


def tolerance_text(tol: float, mode: str) -> str:
    """The tolerance a verdict names ("relative tolerance 1% (plus rounding of the coarser display)")."""
    if mode == "relative":
        return (
            f"relative tolerance {format_number(tol * 100)}% (plus rounding of the coarser display)"
        )
    if mode == "absolute":
        return f"absolute tolerance {format_number(tol)} expected units (plus rounding of the coarser display)"
    if mode == "rounding":
        return f"rounding tolerance (half a unit in the last shown digit{f' + {format_number(tol)} units' if tol else ''})"
    return "exact match"


def units_match(
    gold: Gold, found: Candidate, exp_currency: str | None, found_currency: str | None
) -> bool:
    """Do the units agree: no two different currencies, no percentage against an amount of money."""
    if exp_currency and found_currency and exp_currency != found_currency:
        return False
    if gold.percent and not found.percent and found.currency:
        return False
    return not (found.percent and gold.currency)
