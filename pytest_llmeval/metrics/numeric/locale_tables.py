"""Locale tables of the numeric grader: how each language writes figures, one table a language.

A new language is a new :class:`NumberLanguage` in :data:`LANGUAGES`, not a new code branch. Each
table says how the language writes figures: scale words ("mrd." = 1e9), percent words
("prosent"), words that make the figure after them negative ("tapte", "fiel um"), number words
("fjorten komma fem"), whether a comma is the decimal mark, and a few common function words used
to recognise the language of a text when no ``locale`` is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True)
class NumberLanguage:
    """How one language writes figures. Words are lower case; a trailing "." is optional in text."""

    code: str
    decimal_comma: bool
    # Scale words and abbreviations -> multiplier ("mrd" -> 1e9). Written with or without a dot.
    scales: dict[str, float]
    # Words that follow a number and make it a percentage / percentage points / basis points.
    percent: tuple[str, ...] = ()
    points: tuple[str, ...] = ()
    basis_points: tuple[str, ...] = ()
    # Currency-with-scale tokens ("MUSD" = million USD, "mkr" = million kroner).
    scaled_currency: dict[str, tuple[float, str]] = field(default_factory=dict)
    # Currency words after a number.
    currency_words: dict[str, str] = field(default_factory=dict)
    # What "kr" means in this language.
    krone: str = "NOK"
    # Words right before a figure that make it negative ("tapte 485 milliarder", "fiel um 3 %").
    negative_before: tuple[str, ...] = ()
    # Nouns right after a figure that make it negative ("3,5 % tap").
    negative_after: tuple[str, ...] = ()
    # Verbs split around the figure, (stem before it, particle ending its clause after it), that
    # make it negative: "gab um 1,2 Prozent nach", "ging um 3 % zurück".
    negative_split: tuple[tuple[str, str], ...] = ()
    # Change words before a figure ("økte med"); the figure is a change, not a level.
    change_before: tuple[str, ...] = ()
    # Number words (units and tens), the decimal word ("komma"), and the multipliers.
    numbers: dict[str, int] = field(default_factory=dict)
    decimal_word: str = ""
    number_scales: dict[str, float] = field(default_factory=dict)
    # Frequent function words: evidence that a text is written in this language.
    markers: frozenset[str] = frozenset()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NORDIC_NUMBERS = {
    "null": 0,
    "en": 1,
    "ett": 1,
    "ein": 1,
    "eitt": 1,
    "et": 1,
    "to": 2,
    "två": 2,
    "tre": 3,
    "fire": 4,
    "fyra": 4,
    "fem": 5,
    "seks": 6,
    "sex": 6,
    "sju": 7,
    "syv": 7,
    "åtte": 8,
    "åtta": 8,
    "otte": 8,
    "ni": 9,
    "nio": 9,
    "ti": 10,
    "tio": 10,
    "elleve": 11,
    "elva": 11,
    "tolv": 12,
    "tretten": 13,
    "tretton": 13,
    "fjorten": 14,
    "fjorton": 14,
    "femten": 15,
    "femton": 15,
    "seksten": 16,
    "sexton": 16,
    "sytten": 17,
    "sjutton": 17,
    "atten": 18,
    "arton": 18,
    "nitten": 19,
    "nitton": 19,
    "tjue": 20,
    "tjugo": 20,
    "tyve": 20,
    "tretti": 30,
    "trettio": 30,
    "førti": 40,
    "fyrtio": 40,
    "femti": 50,
    "femtio": 50,
    "seksti": 60,
    "sextio": 60,
    "sytti": 70,
    "sjuttio": 70,
    "åtti": 80,
    "åttio": 80,
    "nitti": 90,
    "nittio": 90,
}


def _compounds(numbers: dict[str, int], pattern: str) -> dict[str, int]:
    """Written-together tens and units: "tjueen" (nb), "tjugoett" (sv), "einundzwanzig" (de)."""
    tens = {w: n for w, n in numbers.items() if n >= 20 and n % 10 == 0}
    units = {w: n for w, n in numbers.items() if 1 <= n <= 9}
    out = dict(numbers)
    for tw, tn in tens.items():
        for uw, un in units.items():
            out.setdefault(pattern.format(tens=tw, unit=uw), tn + un)
    return out


_NORDIC_NUMBERS = _compounds(_NORDIC_NUMBERS, "{tens}{unit}")
_NORDIC_NUMBER_SCALES = {"hundre": 100.0, "hundra": 100.0, "tusen": 1e3, "tusind": 1e3}

ENGLISH = NumberLanguage(
    code="en",
    decimal_comma=False,
    scales={
        "thousand": 1e3,
        "thousands": 1e3,
        "thou": 1e3,
        "k": 1e3,
        "million": 1e6,
        "millions": 1e6,
        "mn": 1e6,
        "mln": 1e6,
        "mm": 1e6,
        "m": 1e6,
        "billion": 1e9,
        "billions": 1e9,
        "bn": 1e9,
        "bln": 1e9,
        "b": 1e9,
        "trillion": 1e12,
        "trillions": 1e12,
        "tn": 1e12,
        "t": 1e12,
        "lakh": 1e5,
        "lakhs": 1e5,
        "lac": 1e5,
        "lacs": 1e5,
        "crore": 1e7,
        "crores": 1e7,
        "cr": 1e7,
    },
    percent=("%", "percent", "per cent", "pct"),
    points=("percentage points", "percentage point", "pp", "p.p.", "ppts", "ppt"),
    basis_points=("bps", "bp", "basis points", "basis point"),
    scaled_currency={"musd": (1e6, "USD"), "meur": (1e6, "EUR"), "busd": (1e9, "USD")},
    negative_before=(
        "lost",
        "loses",
        "lose",
        "slipped",
        "slid",
        "sank",
        "shed",
        "plunged",
        "tumbled",
        "dipped",
        "eased",
        "retreated",
        "weakened",
        "slumped",
        "sagged",
        "cut by",
        "lowered by",
        "trimmed by",
    ),
    change_before=("rose", "grew", "increased", "climbed", "gained", "jumped", "added"),
    markers=_words(
        "the and was were is are of to in for with from by its that this which a an at on as has had "
        "be it net sales income revenue million billion thousand percent fiscal year total reported "
        "rose fell grew increased decreased compared than"
    ),
)

NORWEGIAN_BOKMAL = NumberLanguage(
    code="nb",
    decimal_comma=True,
    scales={
        "tusen": 1e3,
        "mill": 1e6,
        "mln": 1e6,
        "millioner": 1e6,
        "million": 1e6,
        "mio": 1e6,
        "mrd": 1e9,
        "milliarder": 1e9,
        "milliard": 1e9,
        "mia": 1e9,
        "billioner": 1e12,
        "billion": 1e12,
        "bill": 1e12,
    },
    percent=("prosent",),
    points=("prosentpoeng", "prosentenheter"),
    basis_points=("basispunkter", "basispoeng"),
    scaled_currency={
        "mnok": (1e6, "NOK"),
        "mrdnok": (1e9, "NOK"),
        "mnkr": (1e6, "NOK"),
        "mkr": (1e6, "NOK"),
        "tkr": (1e3, "NOK"),
        "mrdkr": (1e9, "NOK"),
    },
    currency_words={"kroner": "NOK", "kr": "NOK"},
    krone="NOK",
    negative_before=(
        "tapte",
        "taper",
        "tap på",
        "tap",
        "falt med",
        "falt",
        "sank med",
        "sank",
        "redusert med",
        "reduserte med",
        "ned med",
        "gikk ned med",
        "gikk ned",
        "svekket seg med",
        "svekket seg",
        "nedgang på",
        "minus",
        "underskudd på",
        "negativ avkastning på",
        "negativt resultat på",
        "negativ med",
        "negativ på",
    ),
    negative_after=("tap", "nedgang", "underskudd", "lavere"),
    change_before=("økte med", "økning på", "steg med", "vokste med", "opp med"),
    numbers=_NORDIC_NUMBERS,
    decimal_word="komma",
    number_scales=_NORDIC_NUMBER_SCALES,
    markers=_words(
        "og er var ble ved til med fra av på som det den fondet etter året årets ikke har "
        "utgjorde avkastningen verdien kroner"
    ),
)

NORWEGIAN_NYNORSK = NumberLanguage(
    code="nn",
    decimal_comma=True,
    scales=NORWEGIAN_BOKMAL.scales,
    percent=("prosent",),
    points=("prosentpoeng", "prosenteiningar"),
    basis_points=("basispunkt",),
    scaled_currency=NORWEGIAN_BOKMAL.scaled_currency,
    currency_words={"kroner": "NOK", "kr": "NOK"},
    krone="NOK",
    negative_before=(
        "tapte",
        "tapa",
        "tap på",
        "fall med",
        "fall",
        "fall på",
        "gjekk ned med",
        "gjekk ned",
        "nedgang på",
        "minus",
        "underskot på",
    ),
    negative_after=("tap", "nedgang", "underskot", "lågare"),
    change_before=("auka med", "steig med", "gjekk opp med"),
    numbers=_NORDIC_NUMBERS,
    decimal_word="komma",
    number_scales=_NORDIC_NUMBER_SCALES,
    markers=_words("og er var vart ikkje ved til med frå av på for som det fondet eit"),
)

SWEDISH = NumberLanguage(
    code="sv",
    decimal_comma=True,
    scales={
        "tusen": 1e3,
        "miljon": 1e6,
        "miljoner": 1e6,
        "mkr": 1e6,
        "mn": 1e6,
        "milj": 1e6,
        "miljard": 1e9,
        "miljarder": 1e9,
        "mdr": 1e9,
        "mdkr": 1e9,
        "md": 1e9,
        "biljon": 1e12,
        "biljoner": 1e12,
    },
    percent=("procent",),
    points=("procentenheter", "procentenhet"),
    basis_points=("baspunkter",),
    scaled_currency={
        "msek": (1e6, "SEK"),
        "mdsek": (1e9, "SEK"),
        "tkr": (1e3, "SEK"),
        "mkr": (1e6, "SEK"),
        "mdkr": (1e9, "SEK"),
    },
    currency_words={"kronor": "SEK", "kr": "SEK"},
    krone="SEK",
    negative_before=(
        "förlorade",
        "tappade",
        "föll med",
        "föll",
        "sjönk med",
        "sjönk",
        "minskade med",
        "minskade",
        "minskat med",
        "minskning på",
        "minskning med",
        "förlust på",
        "förlust om",
        "gick ned med",
        "gick ned",
        "nedgång på",
        "minus",
    ),
    negative_after=("förlust", "minskning", "nedgång", "lägre"),
    change_before=("ökade med", "steg med", "växte med", "ökning på"),
    numbers=_NORDIC_NUMBERS,
    decimal_word="komma",
    number_scales=_NORDIC_NUMBER_SCALES,
    markers=_words(
        "och är var med till av på för som det den år året årets att inte uppgick blev kronor under"
    ),
)

DANISH = NumberLanguage(
    code="da",
    decimal_comma=True,
    scales={
        "tusind": 1e3,
        "t": 1e3,
        "mio": 1e6,
        "million": 1e6,
        "millioner": 1e6,
        "mia": 1e9,
        "milliard": 1e9,
        "milliarder": 1e9,
        "mrd": 1e9,
        "billion": 1e12,
        "billioner": 1e12,
    },
    percent=("procent", "pct"),
    points=("procentpoint",),
    basis_points=("basispoint",),
    scaled_currency={
        "mdkk": (1e6, "DKK"),
        "tdkk": (1e3, "DKK"),
        "mkr": (1e6, "DKK"),
        "tkr": (1e3, "DKK"),
    },
    currency_words={"kroner": "DKK", "kr": "DKK"},
    krone="DKK",
    negative_before=(
        "tabte",
        "faldt med",
        "faldt",
        "fald på",
        "gik ned med",
        "gik ned",
        "nedgang på",
        "tab på",
        "underskud på",
        "reduceret med",
        "minus",
    ),
    negative_after=("tab", "fald", "underskud", "lavere"),
    change_before=("steg med", "voksede med", "øgedes med", "stigning på"),
    numbers=_NORDIC_NUMBERS,
    decimal_word="komma",
    number_scales=_NORDIC_NUMBER_SCALES,
    markers=_words("og er var blev med til af på for som det den året ikke udgjorde tjente"),
)

GERMAN = NumberLanguage(
    code="de",
    decimal_comma=True,
    scales={
        "tsd": 1e3,
        "tausend": 1e3,
        "mio": 1e6,
        "million": 1e6,
        "millionen": 1e6,
        "mrd": 1e9,
        "milliarde": 1e9,
        "milliarden": 1e9,
        "bio": 1e12,
        "billion": 1e12,
        "billionen": 1e12,
    },
    percent=("prozent", "v. h."),
    points=("prozentpunkte", "prozentpunkten", "prozentpunkt"),
    basis_points=("basispunkte", "basispunkten", "basispunkt"),
    scaled_currency={"teur": (1e3, "EUR"), "meur": (1e6, "EUR"), "mrdeur": (1e9, "EUR")},
    currency_words={"euro": "EUR", "dollar": "USD", "us-dollar": "USD"},
    krone="DKK",
    negative_before=(
        "verlor",
        "verloren",
        "sank um",
        "sank",
        "fiel um",
        "fiel",
        "ging um",
        "verringerte sich um",
        "verringert um",
        "rückgang um",
        "rückgang von",
        "verlust von",
        "verlust in höhe von",
        "fehlbetrag von",
        "minus",
    ),
    negative_after=("verlust", "rückgang", "minus", "niedriger"),
    negative_split=(
        *((stem, "nach") for stem in ("gab", "gaben", "gibt", "geben")),
        *((stem, "zurück") for stem in ("ging", "gingen", "geht", "gehen")),
        *((stem, "ab") for stem in ("nahm", "nahmen", "nimmt", "sackte", "sackten", "rutschte")),
        *((stem, "ein") for stem in ("brach", "brachen", "bricht", "büßte", "büßten", "büßt")),
    ),
    change_before=("stieg um", "wuchs um", "erhöhte sich um", "zuwachs von", "anstieg um"),
    numbers=_compounds(
        {
            "null": 0,
            "eins": 1,
            "ein": 1,
            "eine": 1,
            "zwei": 2,
            "drei": 3,
            "vier": 4,
            "fünf": 5,
            "sechs": 6,
            "sieben": 7,
            "acht": 8,
            "neun": 9,
            "zehn": 10,
            "elf": 11,
            "zwölf": 12,
            "zwanzig": 20,
            "dreißig": 30,
            "vierzig": 40,
            "fünfzig": 50,
            "sechzig": 60,
            "siebzig": 70,
            "achtzig": 80,
            "neunzig": 90,
        },
        "{unit}und{tens}",
    ),
    decimal_word="komma",
    number_scales={"hundert": 100.0, "tausend": 1e3},
    markers=_words(
        "der die das und ist war bei lag im von mit auf für den dem des sich belief beliefen "
        "betrug um ende geschäftsjahr geschäftsjahres"
    ),
)

FRENCH = NumberLanguage(
    code="fr",
    decimal_comma=True,
    scales={
        "mille": 1e3,
        "k": 1e3,
        "million": 1e6,
        "millions": 1e6,
        "m": 1e6,
        "milliard": 1e9,
        "milliards": 1e9,
        "md": 1e9,
        "mds": 1e9,
        "mrd": 1e9,
        "billion": 1e12,
        "billions": 1e12,
    },
    percent=("pour cent", "pourcent"),
    points=("points de pourcentage", "point de pourcentage"),
    basis_points=("points de base", "point de base"),
    scaled_currency={"m€": (1e6, "EUR"), "md€": (1e9, "EUR"), "k€": (1e3, "EUR")},
    currency_words={"euros": "EUR", "euro": "EUR", "dollars": "USD"},
    krone="DKK",
    negative_before=(
        "a perdu",
        "perdu",
        "perte de",
        "baisse de",
        "recul de",
        "a reculé de",
        "a diminué de",
        "diminué de",
        "a chuté de",
        "en baisse de",
        "moins",
    ),
    negative_after=("perte", "baisse", "recul"),
    change_before=("hausse de", "a augmenté de", "progression de", "a progressé de"),
    numbers={
        "zéro": 0,
        "un": 1,
        "une": 1,
        "deux": 2,
        "trois": 3,
        "quatre": 4,
        "cinq": 5,
        "six": 6,
        "sept": 7,
        "huit": 8,
        "neuf": 9,
        "dix": 10,
        "onze": 11,
        "douze": 12,
        "vingt": 20,
        "trente": 30,
        "quarante": 40,
        "cinquante": 50,
        "soixante": 60,
    },
    decimal_word="virgule",
    number_scales={"cent": 100.0, "mille": 1e3},
    markers=_words("le la les du des et est était à au aux en pour sur par une un été s'est"),
)

LANGUAGES: dict[str, NumberLanguage] = {
    t.code: t
    for t in (ENGLISH, NORWEGIAN_BOKMAL, NORWEGIAN_NYNORSK, SWEDISH, DANISH, GERMAN, FRENCH)
}
# Locale spellings that name a table ("no", "nb-NO", "de_DE", "sv-SE"...).
_LOCALE_ALIASES = {
    "no": "nb",
    "nob": "nb",
    "nno": "nn",
    "swe": "sv",
    "dan": "da",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "eng": "en",
}


def language_for_locale(locale: str | None) -> NumberLanguage | None:
    """The table for a locale string ("nb-NO", "de_DE", "sv"), or None when unknown."""
    if not locale or not isinstance(locale, str):
        return None
    code = re.split(r"[-_.@]", locale.strip().lower(), maxsplit=1)[0]
    return LANGUAGES.get(_LOCALE_ALIASES.get(code, code))


_WORD_TOKEN_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# ASCII bytes that are not letters, as spaces: in an ASCII text the runs of letters are then
# what split() returns.
NON_LETTER_BYTES_TO_SPACE = bytes(c if chr(c).isalpha() or c > 127 else 0x20 for c in range(256))


def ascii_letter_runs(text: str) -> list[str]:
    """The runs of letters of an ASCII ``text`` in order (what ``[^\\W\\d_]+`` finds), split
    in C."""
    return text.encode("ascii").translate(NON_LETTER_BYTES_TO_SPACE).decode("ascii").split()


def _word_tokens(low: str) -> list[str]:
    """The words of a lower-case text as detect_language counts them (:data:`_WORD_TOKEN_RE`):
    in an ASCII text without an apostrophe, its runs of letters."""
    if low.isascii() and "'" not in low:
        return ascii_letter_runs(low)
    return _WORD_TOKEN_RE.findall(low)


@lru_cache(maxsize=1)
def _marker_owner() -> dict[str, tuple[str, ...]]:
    owner: dict[str, list[str]] = {}
    for t in LANGUAGES.values():
        for w in t.markers:
            owner.setdefault(w, []).append(t.code)
        # A scale or percent word is evidence only where English does not share it.
        for w in (*t.scales, *t.percent, *t.points, *t.scaled_currency):
            if (
                len(w) >= 3
                and t.code != "en"
                and w not in ENGLISH.scales
                and w not in ENGLISH.markers
            ):
                owner.setdefault(w, []).append(t.code)
    return {w: tuple(dict.fromkeys(c)) for w, c in owner.items()}


@lru_cache(maxsize=1)
def _other_language_words() -> frozenset[str]:
    """Words that are evidence for some language other than English."""
    return frozenset(w for w, codes in _marker_owner().items() if any(c != "en" for c in codes))


@lru_cache(maxsize=1)
def _run_gate() -> frozenset[str]:
    """Runs of letters one of which a text holds whenever one of its words is evidence for
    another language: the plain words themselves, and the last run of a word with an apostrophe
    ("s'est" is a word only where "est" is a run). Words with spaces or symbols are never words.
    A plain word English also owns ("for") is left out: it adds to English as much as to any other
    language, so English still wins (ties go to English) when no other word is there."""
    owner = _marker_owner()
    out: set[str] = set()
    for w in _other_language_words():
        if _PLAIN_RUN_RE.fullmatch(w):
            if "en" not in owner[w]:
                out.add(w)
        elif _WORD_TOKEN_RE.fullmatch(w):
            out.add(re.split(r"['’]", w)[-1])
    return frozenset(out)


_PLAIN_RUN_RE = re.compile(r"[^\W\d_]+")


def detect_language(
    text: str, limit: int = 4000, letter_runs: set[str] | None = None, low: str | None = None
) -> NumberLanguage:
    """The table whose function words the text uses most (English on a tie or no evidence).

    Looks at the first ``limit`` characters only, so the cost is bounded. ``letter_runs``: the
    lower-case runs of letters of the whole text, when already collected; without an apostrophe
    in a text within ``limit`` they are this function's words, so no other language's word among
    them answers English without a second tokenisation. ``low``: ``text.lower()``, when known.
    """
    if letter_runs is not None and len(text) <= limit and _run_gate().isdisjoint(letter_runs):
        return ENGLISH
    # ``low`` serves only a text within the limit: lower-casing can change lengths ("İ"), so a
    # longer text is cut first, as always.
    if low is None or len(text) > limit:
        low = text[:limit].lower()
    words = _word_tokens(low)
    if _other_language_words().isdisjoint(words):
        return ENGLISH  # only English evidence, or none: the count below could only say English
    owner = _marker_owner()
    score: dict[str, float] = {}
    # In text order (the sums are of floats), over the marker words only (filtered in C).
    for word in filter(owner.__contains__, words):
        codes = owner[word]
        for c in codes:
            score[c] = score.get(c, 0.0) + 1.0 / len(codes)
    if not score:
        return ENGLISH
    best = max(score.items(), key=lambda kv: (kv[1], kv[0] == "en"))
    if best[0] != "en" and best[1] <= score.get("en", 0.0):
        return ENGLISH
    return LANGUAGES[best[0]]


@lru_cache(maxsize=1)
def all_scale_words() -> dict[str, float]:
    """Every scale word of every table (English meanings win where languages disagree)."""
    out: dict[str, float] = {}
    for t in reversed(list(LANGUAGES.values())):
        out.update(t.scales)
    return out


@lru_cache(maxsize=1)
def all_scaled_currencies() -> dict[str, tuple[float, str]]:
    out: dict[str, tuple[float, str]] = {}
    for t in reversed(list(LANGUAGES.values())):
        out.update(t.scaled_currency)
    return out


def _alternation(words: set[str]) -> str:
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


@lru_cache(maxsize=1)
def percent_suffix_words() -> frozenset[str]:
    """Every percent / points / basis-point word of every table, "%" aside."""
    words: set[str] = set()
    for t in LANGUAGES.values():
        words.update(w for w in (*t.percent, *t.points, *t.basis_points) if w != "%")
    return frozenset(words)


@lru_cache(maxsize=1)
def percent_suffix_pattern() -> str:
    """Regex alternation of every percent / points / basis-point word (case-insensitive use)."""
    return _alternation(set(percent_suffix_words()))


def first_char_gate(words: Iterable[str], *, ignore_case: bool = True) -> str:
    """A lookahead on the first characters of ``words`` (case-insensitive unless
    ``ignore_case`` is False), placed before their alternation so most positions fail on one
    character test; it never changes what matches."""
    chars = "".join(sorted({re.escape(w[0]) for w in words if w}))
    return f"(?=(?i:[{chars}]))" if ignore_case else f"(?=[{chars}])"


@lru_cache(maxsize=1)
def basis_point_words() -> frozenset[str]:
    return frozenset(w for t in LANGUAGES.values() for w in t.basis_points)


@lru_cache(maxsize=1)
def negative_before_pattern() -> re.Pattern[str]:
    """A figure right after one of these words is negative ("tapte 485", "fiel um 3 %")."""
    english = set(ENGLISH.negative_before)
    # A word English shares ("sank") keeps the gap of the verb-second languages that use it.
    others = {w for t in LANGUAGES.values() if t.code != "en" for w in t.negative_before}
    # Verb-second languages put the subject between the verb and the figure ("I 2018 tapte
    # fondet 485 milliarder", "fiel der Kurs um 4,2 Prozent", "sank 2023 um 4,7 Prozent"): up to
    # three words, never "til"/"auf", or a year before the preposition of the change ("falt i 2023
    # med"; "minus 2015: 1542" subtracts).
    gap = (
        r"(?:\s+(?:(?!(?:til|till|auf|à|to|på|i|im|in)\b)[^\W\d_]+"
        r"|(?:(?:i|im|in|under|während)\s+)?(?:19|20)\d\d(?=\s+(?:um|med|by|mit|på|de)\b))){0,3}?"
    )
    return re.compile(
        r"(?<![^\W\d_])"
        + first_char_gate(others | english)
        + r"(?:(?:"
        + _alternation(others)
        + r")"
        + gap
        + "|"
        + _alternation(english)
        + r")"
        r"(?:\s+(?:by|about|approximately|roughly|nearly|some|rund|ca\.?|cirka|omkring|knapt|nesten|"
        r"drøyt|environ|près\s+de|etwa|knapp|gut|runt|ungefär|the|an?|its|fondet|der|die|das))*"
        r"[\s:]*(?:[$€£¥]|(?:USD|EUR|NOK|SEK|DKK|GBP|CHF|kr\.?)\s*)?\s*$",
        re.IGNORECASE,
    )


@lru_cache(maxsize=1)
def negative_after_pattern() -> re.Pattern[str]:
    words = {w for t in LANGUAGES.values() if t.code != "en" for w in t.negative_after}
    # "312 millioner kroner i tap": the noun may follow a preposition
    return re.compile(
        r"^[\s,]*(?:(?:i|in|im)\s+)?(?:" + _alternation(words) + r")(?![^\W\d_])", re.IGNORECASE
    )


@lru_cache(maxsize=1)
def negative_words() -> frozenset[str]:
    """Single tokens that may start a negative phrase (cheap gate before the regex)."""
    out: set[str] = set()
    for t in LANGUAGES.values():
        for phrase in (*t.negative_before, *t.negative_after, *(v for v, _ in t.negative_split)):
            toks = phrase.split()
            out.update(w for w in toks if len(w) >= 4)
            if len(toks[0]) >= 3:
                out.add(toks[0])
    return frozenset(out)


@lru_cache(maxsize=1)
def negative_split_patterns() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    """(before, after) pattern pairs of every table's split verbs, one pair a particle: the stem
    a few words before the figure within its clause, the particle a few words after it, ending
    the clause."""
    stems: dict[str, set[str]] = {}
    for t in LANGUAGES.values():
        for stem, particle in t.negative_split:
            stems.setdefault(particle, set()).add(stem)
    return tuple(
        (
            re.compile(
                r"(?<![^\W\d_])(?:" + _alternation(words) + r")"
                r"(?:\s+(?:[^\W\d_]+|(?:19|20)\d\d)){0,5}?\s*(?:[$€£¥]\s*)?$",
                re.IGNORECASE,
            ),
            re.compile(
                r"^\s*(?:[^\W\d_]+\s+){0,4}?"
                + re.escape(particle)
                + r"(?![^\W\d_])\s*(?:[.,;:!?)]|$)",
                re.IGNORECASE,
            ),
        )
        for particle, words in sorted(stems.items())
    )


@lru_cache(maxsize=1)
def change_words() -> frozenset[str]:
    return frozenset(w for t in LANGUAGES.values() if t.code != "en" for w in t.change_before)


@lru_cache(maxsize=1)
def loss_subject_pattern() -> re.Pattern[str]:
    """A loss named as the subject, its figure after the verb: "Der Nettoverlust belief sich auf",
    "tapet ble", "förlusten uppgick till", "la perte nette s'est élevée à", "the operating loss
    narrowed to"."""
    return re.compile(
        r"(?<![^\W\d_])(?:[^\W\d_]*verlust\w*|(?:netto)?tap(?:et)?|förlust(?:en)?|underskud\w*|"
        r"perte(?:\s+nette)?|(?:net\s+|operating\s+)?loss)"
        r"(?:\s+[^\W\d_]+){0,4}?\s+"
        r"(?:belief\s+sich\s+auf|betrug|lag\s+bei|var|ble|vart|uppgick\s+till|blev|udgjorde|"
        r"s'est\s+élevée\s+à|était\s+de|atteint|(?:narrowed|widened|shrank|grew|rose|fell|increased|"
        r"decreased|declined|improved|deepened)\s+to|came\s+in\s+at)"
        r"\s*(?:about\s+|approximately\s+|rund\s+|etwa\s+|ca\.?\s+)?"
        r"(?:[$€£¥]|(?:USD|EUR|NOK|SEK|DKK|GBP)\s*)?\s*$",
        re.IGNORECASE,
    )


# Every loss noun of loss_subject_pattern() that ASCII text can hold: in ASCII text the
# case-insensitive pattern can only meet them as written ("förlust" never).
_ASCII_LOSS_NOUNS = ("loss", "tap", "verlust", "underskud", "perte")


def names_a_loss_subject(text: str) -> bool:
    """Does :func:`loss_subject_pattern` find a loss named as the subject in ``text``? An ASCII
    text without any of its loss nouns is answered without running the pattern."""
    if text.isascii():
        low = text.lower()
        if not any(noun in low for noun in _ASCII_LOSS_NOUNS):
            return False
    return loss_subject_pattern().search(text) is not None
