"""Explanation stage of the numeric grader: how values and verdicts are written."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pytest_llmeval.metrics.numeric.candidates import Candidate

if TYPE_CHECKING:
    from pytest_llmeval.metrics.numeric.gold import _Gold

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


def _unit_match(
    gold: _Gold, found: Candidate, exp_currency: str | None, found_currency: str | None
) -> bool:
    if exp_currency and found_currency and exp_currency != found_currency:
        return False
    if gold.percent and not found.percent and found.currency:
        return False
    return not (found.percent and gold.currency)
