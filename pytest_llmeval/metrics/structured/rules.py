"""Stage 2: which comparison each field gets. Per-field rules from ``eval_criteria.structured.fields``
(``{"lines[].amount": {"tolerance": 0.005}}``) over defaults by JSON type and field name.

Identities (accounts, VAT codes, ids, dates, currencies) are equal or not; only quantities get
tolerances. The key names that mark an identity live in a table per language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_llmeval.errors import GraderError

COMPARISONS = ("exact", "number", "date", "text", "ignore")
RULE_KEYS = ("compare", "tolerance", "tolerance_mode", "require_currency", "weight", "ordered")

# Field names whose values are identities, whatever their JSON type (account 1920 is no amount).
IDENTITY_KEYS: dict[str, frozenset[str]] = {
    "en": frozenset(
        {
            "account",
            "account_number",
            "code",
            "vat_code",
            "tax_code",
            "id",
            "currency",
            "type",
            "side",
            "name",
            "invoice_number",
            "org_number",
            "country",
            "unit",
            "period",
            "year",
            "month",
        }
    ),
    "nb": frozenset(
        {
            "konto",
            "kontonummer",
            "kode",
            "mva_kode",
            "mvakode",
            "avgiftskode",
            "valuta",
            "side",
            "fakturanummer",
            "orgnr",
            "org_nr",
            "organisasjonsnummer",
            "periode",
            "termin",
            "land",
        }
    ),
}
IDENTITY_SUFFIXES = ("_id", "_code", "_kode", "_nr", "_no", "_number", "_account", "_konto")
_ALL_IDENTITY_KEYS = frozenset().union(*IDENTITY_KEYS.values())
_INDEX_RE = re.compile(r"\[\d+\]")
_ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CODE_MAX = 32


def show_path(parts: Sequence[str | int]) -> str:
    """``("lines", 1, "account")`` -> ``lines[1].account`` (the root is ``<root>``)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "<root>"


def generic(path: str) -> str:
    """``lines[1].account`` -> ``lines[].account``: the form rules are written in."""
    return _INDEX_RE.sub("[]", path)


def is_identity_key(key: str | None) -> bool:
    if not key:
        return False
    name = key.lower()
    return name in _ALL_IDENTITY_KEYS or name.endswith(IDENTITY_SUFFIXES)


def check_rules(fields: Any) -> dict[str, dict[str, Any]]:
    """The ``fields`` rules, each checked; a bad one raises :class:`GraderError` naming it."""
    if fields is None:
        return {}
    if not isinstance(fields, dict):
        raise GraderError(
            f"eval_criteria.structured.fields must be an object, got {type(fields).__name__}"
        )
    for path, rule in fields.items():
        where = f"eval_criteria.structured.fields.{path}"
        if not isinstance(rule, dict):
            raise GraderError(f"{where}: must be an object with {', '.join(RULE_KEYS)}")
        unknown = sorted(set(rule) - set(RULE_KEYS))
        if unknown:
            raise GraderError(
                f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(RULE_KEYS)}"
            )
        if "compare" in rule and rule["compare"] not in COMPARISONS:
            raise GraderError(
                f"{where}.compare: {rule['compare']!r}; one of {', '.join(COMPARISONS)}"
            )
    return fields


def _figure_or_period(gold: str) -> bool:
    from pytest_llmeval.registry import choose_accuracy_grader

    return choose_accuracy_grader({}, gold, "exact") in ("numeric", "identity")


def rule_for(rules: dict[str, dict[str, Any]], path: str) -> dict[str, Any]:
    """The rule for a concrete path: its own entry over its generic (``[]``) entry."""
    return {**rules.get(generic(path), {}), **rules.get(path, {})}


def default_comparison(gold: Any, key: str | None) -> str:
    """exact for identities, bools and nulls; number for other numbers; date for ISO dates;
    exact for short code-like strings; text (the answer-correctness grader) for prose."""
    if gold is None or isinstance(gold, bool):
        return "exact"
    if isinstance(gold, int | float):
        return "exact" if is_identity_key(key) else "number"
    if isinstance(gold, str):
        if _ISO_DATE_RE.match(gold.strip()):
            return "date"
        if is_identity_key(key):
            return "exact"
        if len(gold) <= _CODE_MAX and not any(c.isspace() for c in gold.strip()):
            # a figure or a period ("3,600", "18.0%", "FY2023") is graded as a sample with that gold
            # would be (one grading path); other short strings are codes
            return "text" if _figure_or_period(gold) else "exact"
        return "text"
    return "exact"
