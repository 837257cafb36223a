"""Reading identities: dates, years, fiscal periods, quarters, centuries, seasons and ordinals.

:func:`identities` finds them in a text, :func:`identity_only` says whether a gold is nothing else,
and :func:`conflicting_identity` whether an answer names another one than a gold; the identity
grader (:mod:`.identity`) and the offline judge's contradiction checks (:mod:`.contradiction`)
read them here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pytest_llmeval.metrics.freetext.calendar import MONTH_ALTERNATION, MONTHS
from pytest_llmeval.metrics.freetext.naming_tables import (
    TEEN_ORDINALS,
    TEENS,
    TEN_ORDINALS,
    TENS,
    UNIT_ORDINALS,
    UNITS,
)

# "the second quarter", "two halves": number and ordinal words up to twenty (the naming tables')
_NUMBER_WORDS = {w: n for n, w in enumerate((*UNITS, *TEENS, TENS[2]))}
_ORDINAL_WORDS = {w: n for n, w in enumerate((*UNIT_ORDINALS, *TEEN_ORDINALS, TEN_ORDINALS[2]))}
_ORDINAL = r"(?:\d{1,3}(?:st|nd|rd|th)|" + "|".join(_ORDINAL_WORDS) + r")"


@dataclass(frozen=True)
class PeriodWords:
    """The words of one language that name a quarter, a half-year or a fiscal year. Lower case."""

    quarter: tuple[str, ...]
    half: tuple[str, ...]
    fiscal_year: tuple[str, ...]
    ordinals: tuple[tuple[str, ...], ...]  # first to fourth, each a tuple of its forms
    filler: tuple[str, ...] = ()  # words that may surround a period in a gold that is only one


PERIOD_TABLES: dict[str, PeriodWords] = {
    "nb": PeriodWords(
        ("kvartal", "kvartalet"),
        ("halvår", "halvåret"),
        ("regnskapsåret", "regnskapsår"),
        (("første",), ("andre",), ("tredje",), ("fjerde",)),
        ("i", "på", "den", "året", "år"),
    ),
    "sv": PeriodWords(
        ("kvartal", "kvartalet"),
        ("halvår", "halvåret"),
        ("räkenskapsåret", "räkenskapsår"),
        (("första",), ("andra",), ("tredje",), ("fjärde",)),
        ("i", "under", "den", "året", "år"),
    ),
    "da": PeriodWords(
        ("kvartal",),
        ("halvår", "halvåret"),
        ("regnskabsåret", "regnskabsår"),
        (("første",), ("andet", "anden"), ("tredje",), ("fjerde",)),
        ("i", "på", "den", "året", "år"),
    ),
    "de": PeriodWords(
        ("quartal",),
        ("halbjahr",),
        ("geschäftsjahr", "geschäftsjahres"),
        (
            ("erste", "ersten", "erstes"),
            ("zweite", "zweiten", "zweites"),
            ("dritte", "dritten", "drittes"),
            ("vierte", "vierten", "viertes"),
        ),
        ("im", "am", "zum", "bis", "des", "der", "jahr"),
    ),
    "fr": PeriodWords(
        ("trimestre",),
        ("semestre",),
        ("exercice",),
        (
            ("premier", "1er"),
            ("deuxième", "second", "2e"),
            ("troisième", "3e"),
            ("quatrième", "4e"),
        ),
        ("au", "le", "la", "en", "du", "de", "année"),
    ),
}
# any language's period ordinal -> its number
_PERIOD_ORDINALS = {
    form: n
    for t in PERIOD_TABLES.values()
    for n, forms in enumerate(t.ordinals, 1)
    for form in forms
}


_PERIOD_FILLER = frozenset(w for t in PERIOD_TABLES.values() for w in t.filler)


def _alternation(words: set[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_QUARTER_WORDS = _alternation({w for t in PERIOD_TABLES.values() for w in t.quarter})
_HALF_WORDS = _alternation({w for t in PERIOD_TABLES.values() for w in t.half})
_FISCAL_WORDS = _alternation({w for t in PERIOD_TABLES.values() for w in t.fiscal_year})
_PERIOD_ORDINAL = r"(?:[1-4]\.|" + _alternation(set(_PERIOD_ORDINALS)) + r")"
_COUNT = r"(?:\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")"
_SERIAL = (
    r"(?:season|episode|series|chapter|volume|book|part|round|stage|act|week|game|title|edition)"
)
_YEAR = r"(?<![\d$€£.,])(1[0-9]{3}|20[0-9]{2}|21[0-9]{2})(?![\d%]|[.,]\d|\s*(?:million|billion|thousand|m\b|bn\b))"

# Longest forms first: a full date is one identity, not a day, a month and a year.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ymd", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    (
        "mdy",
        re.compile(rf"\b({MONTH_ALTERNATION})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})\b"),
    ),
    (
        "dmy",
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?({MONTH_ALTERNATION})\.?\s*,?\s*(\d{{4}})\b"
        ),
    ),
    ("m/d/y", re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")),
    (
        "d.m.y",
        re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b"),
    ),  # "30.06.2023", the Nordic and German order
    ("my", re.compile(rf"\b({MONTH_ALTERNATION})\.?\s*,?\s+(\d{{4}})\b")),
    ("fiscal", re.compile(rf"\b(?:fy|fiscal(?:\s+year)?|{_FISCAL_WORDS})\s*'?(\d{{4}}|\d{{2}})\b")),
    (
        "quarter",
        re.compile(
            rf"(?:\b(?:q([1-4])|([1-4])q|({_ORDINAL})\s+quarter)|(?<!\w)({_PERIOD_ORDINAL})\s*(?:{_QUARTER_WORDS}))\b"
        ),
    ),
    (
        "half",
        re.compile(
            rf"(?:\b(?:h([12])|([12])h|(first|second|1st|2nd)\s+half)|(?<!\w)({_PERIOD_ORDINAL})\s*(?:{_HALF_WORDS}))\b"
        ),
    ),
    ("century", re.compile(rf"\b({_ORDINAL})[\s-]+century(?:\s+(bce|bc|ce|ad))?\b")),
    ("serial", re.compile(rf"\b(?:{_SERIAL}\s+({_COUNT})|({_ORDINAL})\s+({_SERIAL}))\b")),
    ("year", re.compile(_YEAR)),
    ("ordinal", re.compile(rf"\b({_ORDINAL})\b")),
)
# Words that may surround identities in a gold that is only an identity ("in late 1968", "the 5th").
_FILLER = re.compile(
    r"\b(?:the|in|on|of|from|to|and|or|by|since|until|during|around|about|circa|ca|c|early|mid|late|between|"
    r"end|beginning|start|year|years|date|day|month|ad|ce|bce|bc|s|it|was|is|premiere|finale|quarter|half|"
    r"season|episode|series|chapter|volume|book|part|round|stage|act|week|game|fiscal|fy)\b"
)


@dataclass(frozen=True)
class Identity:
    """One stated identity: ``kind`` and its value (dates: year, month or 0, day or 0)."""

    kind: (
        str  # "date", "fiscal", "quarter", "half", "century", "season" (any serial word), "ordinal"
    )
    value: tuple[int, ...]  # dates: year, month or 0, day or 0; centuries: number, 1 when BCE
    raw: str

    def describe(self) -> str:
        return f"{self.kind} {self.raw!r}"


def _number(token: str) -> int:
    token = token.lower()
    if token in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[token]
    if token in _PERIOD_ORDINALS:
        return _PERIOD_ORDINALS[token]
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token]
    return int(re.sub(r"\D", "", token))


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return re.sub(r"\s+", " ", text)


def _read(kind: str, m: re.Match[str]) -> Identity | None:
    g = m.groups()
    raw = m.group(0)
    if kind == "ymd":
        return _date(int(g[0]), int(g[1]), int(g[2]), raw)
    if kind == "mdy":
        return _date(int(g[2]), MONTHS[g[0]], int(g[1]), raw)
    if kind == "dmy":
        return _date(int(g[2]), MONTHS[g[1]], int(g[0]), raw)
    if kind == "m/d/y":
        return _date(int(g[2]), int(g[0]), int(g[1]), raw)
    if kind == "d.m.y":
        return _date(int(g[2]), int(g[1]), int(g[0]), raw)
    if kind == "my":
        return Identity("date", (int(g[1]), MONTHS[g[0]], 0), raw)
    if kind == "year":
        return Identity("date", (int(g[0]), 0, 0), raw)
    if kind == "fiscal":
        year = int(g[0])
        return Identity("fiscal", (year + 2000 if year < 100 else year,), raw)
    if kind in ("quarter", "half"):
        return Identity(kind, (int(g[0] or g[1]) if g[0] or g[1] else _number(g[2] or g[3]),), raw)
    if kind == "century":
        return Identity("century", (_number(g[0]), int(g[1] in ("bce", "bc"))), raw)
    if kind == "serial":
        word = re.match(r"[a-z]+", raw).group(0) if g[0] else g[2]  # type: ignore[union-attr]
        return Identity(word, (_number(g[0] or g[1]),), raw)
    return Identity("ordinal", (_number(g[0]),), raw)


def _date(year: int, month: int, day: int, raw: str) -> Identity | None:
    return (
        Identity("date", (year, month, day), raw) if 1 <= month <= 12 and 1 <= day <= 31 else None
    )


def identities(text: str) -> tuple[list[Identity], str]:
    """Identities stated in ``text`` (longest forms first) and the text left once they are cut out."""
    rest = _normalise(text)
    found: list[tuple[int, Identity]] = []
    for kind, regex in _PATTERNS:
        for m in regex.finditer(rest):
            ident = _read(kind, m)
            if ident is not None:
                found.append((m.start(), ident))
        rest = regex.sub(lambda m: " " * len(m.group(0)), rest)
    return [ident for _, ident in sorted(found, key=lambda pair: pair[0])], rest


def leads_period(text: str) -> bool:
    """Does ``text`` open with a quarter, a half-year or a day of a date ("3. kvartal", "2nd half",
    "30. juni 2023")? Its number is the period's, not a figure."""
    head = _normalise(text[:40])
    return any(regex.match(head) for kind, regex in _PATTERNS if kind in ("quarter", "half", "dmy"))


_ISO_KINDS = ("ymd", "mdy", "dmy", "m/d/y", "d.m.y")


def iso_dates(text: str) -> str:
    """``text`` (normalised: case folded, single spaces) with each full date written as an ISO date
    ("30 June 2023" -> "2023-06-30"), so two writings of one date share their words."""
    text = _normalise(text)
    if not any(ch.isdigit() for ch in text):
        return text
    for kind, regex in _PATTERNS:
        if kind not in _ISO_KINDS:
            continue

        def iso(m: re.Match[str], kind: str = kind) -> str:
            ident = _read(kind, m)
            return m.group(0) if ident is None else "{:04d}-{:02d}-{:02d}".format(*ident.value)

        text = regex.sub(iso, text)
    return text


def identity_only(gold: str) -> bool:
    """True when a gold answer is nothing but identities ("2007", "fiscal 2022", "season two")."""
    if not isinstance(gold, str) or len(gold) > 80:
        return False
    found, rest = identities(gold)
    if not found:
        return False
    leftover = [
        w for w in re.findall(r"[^\W\d_]+", _FILLER.sub(" ", rest)) if w not in _PERIOD_FILLER
    ]
    return not leftover


def _date_relation(gold: tuple[int, ...], said: tuple[int, ...]) -> str:
    """ "same", "finer" (the answer names a day or month inside the gold's period), "coarser" or "different"."""
    gold_known = [v for v in gold if v]
    said_known = [v for v in said if v]
    shared = min(len(gold_known), len(said_known))
    if list(gold)[:shared] != list(said)[:shared]:
        return "different"
    if len(said_known) == len(gold_known):
        return "same"
    return "finer" if len(said_known) > len(gold_known) else "coarser"


def relation(gold: Identity, said: Identity) -> str:
    """How ``said`` stands to ``gold``: "same", "finer", "coarser", "different", or "unrelated"
    (neither names nor contradicts the other)."""
    if gold.kind == "date" and said.kind == "date":
        return _date_relation(gold.value, said.value)
    if (gold.kind == "date" and said.kind == "fiscal") or (
        gold.kind == "fiscal" and said.kind == "date"
    ):
        # "fiscal 2022" and "2022" name the same year only when a bare year is all the date side says;
        # a fiscal year neither names nor contradicts a day ("fiscal 2021" beside "September 25, 2021")
        date = gold if gold.kind == "date" else said
        if date.value[1:] != (0, 0):
            return "unrelated"
        return "same" if gold.value[0] == said.value[0] else "different"
    if gold.kind == "date" and said.kind == "century":
        # "the 16th century" for "1524": a coarser period when the year falls inside it
        century, bce = said.value
        year = gold.value[0]
        return "coarser" if not bce and (century - 1) * 100 < year <= century * 100 else "different"
    if gold.kind == said.kind:
        return "same" if gold.value == said.value else "different"
    return "unrelated"


def conflicting_identity(gold: str, answer: str, question: str | None = None) -> str:
    """Why ``answer`` names another date or period than ``gold`` does, or "": a gold identity the
    question does not name already, of which the answer names only different ones of its kind
    (ordinals apart: "first" and "second" are as often words as identities)."""
    golds, _ = identities(gold)
    asked, _ = identities(question or "")
    said: list[Identity] | None = None
    for g in golds:
        if g.kind == "ordinal" or any(relation(g, q) == "same" for q in asked):
            continue
        if said is None:
            # a period the question names is the answer's setting ("in 2023" of "How did revenue
            # change in 2023?"), not a claim against the gold's ("compared with 2022")
            said = [
                s for s in identities(answer)[0] if not any(relation(s, q) == "same" for q in asked)
            ]
        relations = [(relation(g, s), s) for s in said]
        if any(rel in ("same", "finer", "coarser") for rel, _ in relations):
            continue
        other = [s for rel, s in relations if rel == "different"]
        if other:
            return f"names a different {other[0].kind} {other[0].raw!r} instead of {g.raw!r}"
    return ""
