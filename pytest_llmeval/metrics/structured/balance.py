"""Stage 5 (postings only): debits equal credits, per currency.

A line states its amount as ``debit``/``credit`` fields, as ``side`` + ``amount``, or as a signed
``amount`` (debit positive). Words for the sides live in a table per language.
"""

from __future__ import annotations

import math
from typing import Any

from pytest_llmeval.errors import GraderError

SIDE_WORDS: dict[str, dict[str, int]] = {
    "en": {"debit": 1, "dr": 1, "d": 1, "credit": -1, "cr": -1, "c": -1},
    "nb": {"debet": 1, "kredit": -1, "k": -1},
}
_SIDES = {word: sign for table in SIDE_WORDS.values() for word, sign in table.items()}
LINE_KEYS = ("lines", "postings", "posteringer", "linjer", "entries")
DEFAULTS = {
    "lines": None,
    "amount": "amount",
    "debit": "debit",
    "credit": "credit",
    "side": "side",
    "currency": "currency",
    "tolerance": 0.005,
}


def settings(value: Any) -> dict[str, Any] | None:
    """``balance: true`` or an object naming the fields; None when not asked for."""
    if value in (None, False):
        return None
    if value is True:
        return dict(DEFAULTS)
    if not isinstance(value, dict) or set(value) - set(DEFAULTS):
        raise GraderError(
            f"eval_criteria.structured.balance must be true or an object with {', '.join(DEFAULTS)}; got {str(value)[:100]}"
        )
    return {**DEFAULTS, **value}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.replace("\u00a0", "").replace(" ", "").replace(",", ".")
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def check(answer: Any, options: dict[str, Any]) -> tuple[bool, str, dict[str, float]]:
    """(balanced, reason, net per currency) of the answer's posting lines."""
    if not isinstance(answer, dict):
        return False, "balance: the answer is not an object with posting lines", {}
    key = options["lines"] or next(
        (k for k in LINE_KEYS if isinstance(answer.get(k), list)), "lines"
    )
    lines = answer.get(key)
    if not isinstance(lines, list) or not lines:
        return False, f"balance: no posting lines under {key!r}", {}
    default_currency = str(answer.get(options["currency"]) or "-")
    net: dict[str, float] = {}
    for index, line in enumerate(lines):
        if not isinstance(line, dict):
            return False, f"balance: {key}[{index}] is not an object", {}
        signed = _signed_amount(line, options)
        if signed is None:
            return False, f"balance: {key}[{index}] has no readable amount", {}
        currency = str(line.get(options["currency"]) or default_currency)
        net[currency] = net.get(currency, 0.0) + signed
    off = {c: round(v, 6) for c, v in net.items() if abs(v) > float(options["tolerance"])}
    if off:
        shown = ", ".join(
            f"{'' if c == '-' else c + ': '}debits - credits = {v:g}"
            for c, v in sorted(off.items())
        )
        return False, f"balance: posting does not balance ({shown})", net
    named = ", ".join(sorted(c for c in net if c != "-"))
    return True, f"balance: debits equal credits{f' ({named})' if named else ''}", net


def _signed_amount(line: dict[str, Any], options: dict[str, Any]) -> float | None:
    debit, credit = line.get(options["debit"]), line.get(options["credit"])
    if debit is not None or credit is not None:
        d = _number(debit) if debit is not None else 0.0
        c = _number(credit) if credit is not None else 0.0
        return None if d is None or c is None else d - c
    amount = _number(line.get(options["amount"]))
    if amount is None:
        return None
    side = line.get(options["side"])
    if side is None:
        return amount
    sign = _SIDES.get(str(side).strip().casefold())
    return None if sign is None else sign * abs(amount)
