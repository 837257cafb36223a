"""Month names and abbreviations, shared by the identity grader and the offline judge's date reader."""

from __future__ import annotations

# name or abbreviation -> month number
MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ],
        1,
    )
    for name in names
}
MONTH_ALTERNATION = "|".join(sorted(MONTHS, key=len, reverse=True))
