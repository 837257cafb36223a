"""Month names and abbreviations, shared by the identity grader and the offline judge's date reader.

One table per language; names are lower case. Abbreviations that are words of another language
("des", "dez") are left out: a month name counts only beside a day or a year, but a French "des 2000"
must not be December 2000.
"""

from __future__ import annotations

# language -> the names of the twelve months in order, each a tuple of its spellings
MONTH_TABLES: dict[str, list[tuple[str, ...]]] = {
    "en": [
        ("january", "jan"),
        ("february", "feb"),
        ("march", "mar"),
        ("april", "apr"),
        ("may",),
        ("june", "jun"),
        ("july", "jul"),
        ("august", "aug"),
        ("september", "sep", "sept"),
        ("october", "oct"),
        ("november", "nov"),
        ("december", "dec"),
    ],
    "nb": [
        ("januar",),
        ("februar",),
        ("mars",),
        ("april",),
        ("mai",),
        ("juni",),
        ("juli",),
        ("august",),
        ("september",),
        ("oktober", "okt"),
        ("november",),
        ("desember",),
    ],
    "sv": [
        ("januari",),
        ("februari",),
        ("mars",),
        ("april",),
        ("maj",),
        ("juni",),
        ("juli",),
        ("augusti",),
        ("september",),
        ("oktober", "okt"),
        ("november",),
        ("december",),
    ],
    "da": [
        ("januar",),
        ("februar",),
        ("marts",),
        ("april",),
        ("maj",),
        ("juni",),
        ("juli",),
        ("august",),
        ("september",),
        ("oktober", "okt"),
        ("november",),
        ("december",),
    ],
    "de": [
        ("januar", "jänner"),
        ("februar",),
        ("märz",),
        ("april",),
        ("mai",),
        ("juni",),
        ("juli",),
        ("august",),
        ("september",),
        ("oktober", "okt"),
        ("november",),
        ("dezember",),
    ],
    "fr": [
        ("janvier",),
        ("février",),
        ("mars",),
        ("avril",),
        ("mai",),
        ("juin",),
        ("juillet",),
        ("août",),
        ("septembre",),
        ("octobre",),
        ("novembre",),
        ("décembre",),
    ],
}

# name or abbreviation -> month number
MONTHS = {
    name: number
    for table in MONTH_TABLES.values()
    for number, names in enumerate(table, 1)
    for name in names
}
MONTH_ALTERNATION = "|".join(sorted(MONTHS, key=len, reverse=True))
