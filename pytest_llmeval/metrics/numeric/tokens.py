"""Token stage of the numeric grader: numbers as written, before any unit, sign or role.

Digits with their separators (:func:`parse_number_text`: "1 248 208", "3.085.697", "12,5",
with the text's decimal convention), English number words (:func:`parse_word_number`), the
scale and currency words that may follow or precede them, and a one-pass index of context
keywords. The value stage (:mod:`pytest_llmeval.metrics.numeric.candidates`) builds candidates from these tokens.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from pytest_llmeval.metrics.numeric.locale_tables import (
    ENGLISH,
    NON_LETTER_BYTES_TO_SPACE,
    ascii_letter_runs,
    negative_words,
)

# The English table's scale words, without its bare "t" (as often a tonne as a trillion here),
# plus the case-sensitive abbreviations and "mio" that English filings write.
SCALE_WORDS: dict[str, float] = {
    **{word: scale for word, scale in ENGLISH.scales.items() if word != "t"},
    **dict.fromkeys(["K"], 1e3),
    **dict.fromkeys(["M", "MM", "mio"], 1e6),
    **dict.fromkeys(["B", "Bn", "BN"], 1e9),
    **dict.fromkeys(["T", "Tn"], 1e12),
    "Cr": 1e7,
}

# Fullwidth (CJK) and Arabic-Indic digits with their separators, one character for one so that
# offsets into the text stay valid: "１２．５％" and "١٢٫٥٪" read as "12.5%", "1٬500" as "1,500".
_NUMBER_FORMS = str.maketrans(
    {
        **{chr(base + i): str(i) for base in (0xFF10, 0x0660, 0x06F0) for i in range(10)},
        "．": ".",
        "，": ",",
        "％": "%",
        "＄": "$",
        "－": "-",
        "＋": "+",
        "（": "(",
        "）": ")",
        "\u066b": ".",
        "\u066c": ",",
        "\u066a": "%",  # Arabic decimal separator, thousands separator, percent
    }
)


def fold_number_forms(text: str) -> str:
    """Digits and number separators of other scripts as ASCII (same length, same offsets)."""
    if text.isascii() or _NUMBER_FORM_RE.search(text) is None:
        return text  # every character the table maps is outside ASCII; none is here
    return text.translate(_NUMBER_FORMS)


_NUMBER_FORM_RE = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_NUMBER_FORMS)) + "]")


CURRENCY_CODES = {
    "$": "USD",
    "US$": "USD",
    "U.S.$": "USD",
    "USD": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "€": "EUR",
    "EUR": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "£": "GBP",
    "GBP": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "¥": "JPY",
    "JPY": "JPY",
    "yen": "JPY",
    "CNY": "CNY",
    "RMB": "CNY",
    "yuan": "CNY",
    "NOK": "NOK",
    "SEK": "SEK",
    "DKK": "DKK",
    "kr": "NOK",
    "kr.": "NOK",
    "kroner": "NOK",
    "kronor": "SEK",
    "kronen": "DKK",
    "CHF": "CHF",
    "Fr.": "CHF",
    "CAD": "CAD",
    "C$": "CAD",
    "CA$": "CAD",
    "AUD": "AUD",
    "A$": "AUD",
    "HKD": "HKD",
    "HK$": "HKD",
    "S$": "SGD",
    "SGD": "SGD",
    "INR": "INR",
    "₹": "INR",
    "Rs": "INR",
    "Rs.": "INR",
    "rupees": "INR",
    "KRW": "KRW",
    "₩": "KRW",
    "won": "KRW",
    "BRL": "BRL",
    "R$": "BRL",
    "MXN": "MXN",
    "ZAR": "ZAR",
}

CUR_PREFIX = (
    r"U\.S\.\$|US\$|CA\$|HK\$|C\$|A\$|S\$|R\$|\$|€|£|¥|₹|₩|USD|EUR|GBP|JPY|CNY|RMB|NOK|SEK|DKK|CHF|CAD|AUD"
    r"|HKD|SGD|INR|KRW|BRL|MXN|ZAR|Rs\.?|kr\.?|Fr\."
)
CUR_SUFFIX = (
    r"USD|EUR|GBP|JPY|CNY|RMB|NOK|SEK|DKK|CHF|CAD|AUD|HKD|SGD|INR|KRW|BRL|MXN|ZAR|€|£|kr\.?"
    r"|dollars?|euros?|pounds?|yen|yuan|rupees|won|kroner|kronor|kronen"
)

# A number as written: plain digits, grouped digits (",", ".", "'", thin/nbsp spaces) with an optional
# decimal part, or a leading-dot decimal. Groups are fixed-width, so no backtracking blow-up.
NUM_RE = re.compile(
    # The pattern opens with the character class of its first character (a digit or "."), so
    # the engine skips to candidate positions in C before trying anything. The two lookbehinds
    # then test the character before that first one (hence the "." they end with: it is the
    # first character itself), and the alternatives continue after it: "."-led decimals, or
    # the digit-led forms with one digit fewer at their start. The matches are those of
    # (?<![\w.,'’])(?<![\w][-–])(?:A|B|C|\.\d+) with A, B, C the three digit-led forms.
    r"[\d.]"
    # ... except a currency code glued to the figure ("USD1.5bn", "EUR200m")
    r"(?:(?<![\w.,'’].)|(?<=(?<![A-Za-z])(?:USD|EUR|GBP|NOK|SEK|DKK|CHF|AUD|CAD|JPY)\d))"
    r"(?<![\w][-–].)"
    r"(?:(?<=\.)\d+"  # ".5"
    r"|(?<!\.)(?:\d{0,2}(?:(?P<sep>[,.'’\u00a0\u202f\u2009])\d{3})(?:(?P=sep)\d{3})*(?![\d])(?:[.,]\d+)?"
    r"|\d{0,2}(?: \d{3})+(?![\d])(?:,\d+)?"  # "1 500,5", "12 429": plain-space grouping
    r"|\d*(?:[.,]\d+)?))"
)


def _ascii_form(pattern: str) -> re.Pattern[str]:
    """``pattern`` (which uses ``\\d`` and ``\\w`` but no ``\\s``, ``\\b`` or IGNORECASE) for ASCII
    text: its digits as ``[0-9]`` and its ``\\w`` in ASCII mode. On an ASCII text both name the
    same characters, so the matches are the same; the engine tests a digit in a byte table
    instead of the Unicode database, at every position it skips."""
    ascii_pattern = pattern.replace(r"[\d.]", "[0-9.]").replace(r"[\d]", "[0-9]")
    return re.compile(ascii_pattern.replace(r"\d", "[0-9]"), re.ASCII)


_NUM_RE_ASCII = _ascii_form(NUM_RE.pattern)


def number_matches(text: str) -> list[re.Match[str]]:
    """Every number as written in ``text`` (:data:`NUM_RE`), in order."""
    return list((_NUM_RE_ASCII if text.isascii() else NUM_RE).finditer(text))


WORD_NUMS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
WORD_SCALES = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NW = "|".join([*WORD_NUMS, *WORD_SCALES, "point"])
WORDNUM_RE = re.compile(rf"\b(?:{_NW})\b(?:(?:[ \t-]+|[ \t]+and[ \t]+)(?:{_NW})\b)*", re.IGNORECASE)

_KW_EXACT: dict[str, str] = {
    **dict.fromkeys(
        [
            "loss",
            "losses",
            "deficit",
            "fell",
            "fall",
            "falls",
            "falling",
            "drop",
            "dropped",
            "drops",
            "down",
            "lower",
            "negative",
            "shrank",
            "shrunk",
            "shortfall",
            "used",
            "repaid",
            "widened",
            "deepened",
            # Sign verbs ("lost", "slipped", ...) come from the language tables.
            *negative_words(),
        ],
        "neg",
    ),
    **dict.fromkeys(["divided", "times", "plus", "sum", "average"], "op"),
    **dict.fromkeys(
        [
            "from",
            "vs",
            "versus",
            "against",
            "relative",
            "than",
            "prior",
            "previous",
            "previously",
            "last",
            "year",
            "rather",
            "instead",
            "before",
            "preceding",
        ],
        "cmp",
    ),
    **dict.fromkeys(["about", "around", "roughly", "nearly", "almost"], "apx"),
}
_KW_PREFIX: dict[str, str] = {
    "decrea": "neg",
    "declin": "neg",
    "reduc": "neg",
    "contra": "neg",
    "outflo": "neg",
    "shrin": "neg",
    "multip": "op",
    "compar": "cmp",
    "approx": "apx",
}
_KW_TOKEN_RE = re.compile(r"[^\W\d_]+|[~≈]")


_LOSS_COMPOUND_ENDS = ("verlust", "förlust", "förlusten", "tap", "tapet", "underskud", "underskudd")


def _keyword_families(word: str) -> tuple[str, ...]:
    """The keyword families one lower-case token belongs to ("minus" is both an operator and a sign)."""
    fam = _KW_EXACT.get(word) or _KW_PREFIX.get(word[:6]) or _KW_PREFIX.get(word[:5])
    if fam is not None:
        return (fam,)
    if word in ("~", "≈"):
        return ("apx",)
    if word == "minus":
        return ("op", "neg")
    if word.endswith(_LOSS_COMPOUND_ENDS):
        return ("neg",)  # compounds: "Nettoverlust", "nettotapet", "rörelseförlust"
    return ()


# Families of the words seen so far: a pure function of the word, so a word met before costs
# nothing (set operations in C skip it); cleared when it grows past a bound (hostile texts of
# unique words). _KW_WORDS holds the cached words that belong to some family.
_KW_FAMILY_CACHE: dict[str, tuple[str, ...]] = {}
_KW_WORDS: set[str] = set()
_KW_FAMILY_CACHE_MAX = 50_000
# More distinct keywords than this in one text: one pass over its tokens beats a search per word
# (which would make the cost grow with words x length).
_KW_SEARCH_MAX = 16

_LETTER_RUN_RE = re.compile(r"[^\W\d_]+")


def _letter_runs(low: str) -> set[str]:
    """The distinct runs of letters of ``low`` (what ``_LETTER_RUN_RE`` finds), split in C."""
    if low.isascii():
        return set(ascii_letter_runs(low))
    # Only the tokens with a non-ASCII character (letters or not) need the letter pattern.
    raw = low.encode("utf-8", "surrogatepass").translate(NON_LETTER_BYTES_TO_SPACE)
    runs = set(raw.decode("utf-8", "surrogatepass").split())
    mixed = {t for t in runs if not t.isascii()}
    if mixed:
        runs -= mixed
        runs.update(_LETTER_RUN_RE.findall(" ".join(mixed)))
    return runs


def _keyword_words(runs: set[str]) -> set[str]:
    """The runs that belong to a keyword family; words never seen before are classified once."""
    cache = _KW_FAMILY_CACHE
    new = runs.difference(cache)
    if new:
        if len(cache) + len(new) > _KW_FAMILY_CACHE_MAX:
            cache.clear()
            _KW_WORDS.clear()
            new = runs  # the words met before are forgotten too
        for w in new:
            fams = cache[w] = _keyword_families(w)
            if fams:
                _KW_WORDS.add(w)
    return runs & _KW_WORDS


def _is_letter(ch: str) -> bool:
    """Is ``ch`` a letter as ``_LETTER_RUN_RE`` sees it (alphanumeric, not a decimal digit)?"""
    return ch.isalnum() and not ch.isdecimal()


def _run_ends(low: str, word: str) -> list[int]:
    """End offsets of ``word`` (letters only) where it stands as a whole run of letters."""
    ends: list[int] = []
    n = len(low)
    i = low.find(word)
    while i >= 0:
        j = i + len(word)
        if (i == 0 or not _is_letter(low[i - 1])) and (j == n or not _is_letter(low[j])):
            ends.append(j)
        # A whole run cannot start inside this occurrence (its letters would precede it).
        i = low.find(word, j)
    return ends


def read_words(text: str) -> tuple[str, set[str], dict[str, list[int]]]:
    """``text`` lower-cased, its runs of letters and the end positions of its context keywords
    (checked per value by bisect), all from one lower-casing.

    The runs answer "is any number word / other-language word written here?" for later stages.
    Keywords are few: each one found among the runs is searched for (in C) instead of walking
    every token of the text in Python.
    """
    low = text.lower()
    runs = _letter_runs(low)
    hits = _keyword_words(runs)
    if len(hits) > _KW_SEARCH_MAX:
        return low, runs, _keyword_scan(low)
    idx: dict[str, list[int]] = {"neg": [], "op": [], "cmp": [], "apx": []}
    for w in hits:
        ends = _run_ends(low, w)
        for fam in _KW_FAMILY_CACHE[w]:
            idx[fam].extend(ends)
    for sym in ("~", "≈"):  # tokens of their own, whatever stands around them
        i = low.find(sym)
        while i >= 0:
            idx["apx"].append(i + 1)
            i = low.find(sym, i + 1)
    for positions in idx.values():
        positions.sort()
    return low, runs, idx


def _keyword_scan(low: str) -> dict[str, list[int]]:
    """:func:`read_words`' keyword index by one pass over every token of ``low``."""
    idx: dict[str, list[int]] = {"neg": [], "op": [], "cmp": [], "apx": []}
    for m in _KW_TOKEN_RE.finditer(low):
        w = m.group(0)
        fams = _KW_FAMILY_CACHE.get(w)
        if fams is None:
            fams = _keyword_families(w)
        if fams:
            end = m.end()
            for fam in fams:
                idx[fam].append(end)
    return idx


def any_within(positions: list[int], lo: int, hi: int) -> bool:
    """Is any of the sorted ``positions`` within ``lo``..``hi``?"""
    i = bisect.bisect_left(positions, lo)
    return i < len(positions) and positions[i] <= hi


def parse_number_text(
    text: str, decimal_comma: bool = False, padding: bool = True
) -> tuple[float, int, int] | None:
    """Digits with separators -> (magnitude, decimals shown, significant digits).

    ``decimal_comma``: the text writes "12,5" for 12.5 and "16.284" for 16,284 (a single
    separator is read the European way). ``padding``: trailing decimal zeros are formatting
    (golds such as "$8.70"), not precision.
    """
    if len(text) <= 32:
        # Figures recur ("2022", "1,500", "0.5"): short ones are parsed once.
        return parse_short_number(text, decimal_comma, padding)
    return _parse_number_uncached(text, decimal_comma, padding)


@lru_cache(maxsize=8192)
def parse_short_number(
    text: str, decimal_comma: bool, padding: bool
) -> tuple[float, int, int] | None:
    """:func:`parse_number_text` of a short figure, remembered (a pure function of its text)."""
    return _parse_number_uncached(text, decimal_comma, padding)


def _parse_number_uncached(
    text: str, decimal_comma: bool, padding: bool
) -> tuple[float, int, int] | None:
    """The body of :func:`parse_number_text`."""
    t = text.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ").replace("’", "'")
    t = t.replace("'", "").replace(" ", "")
    if not t:
        return None
    has_comma, has_dot = "," in t, "." in t
    if has_comma and has_dot:
        if t.rfind(",") > t.rfind("."):  # 1.500,5
            int_part, _, frac = t.rpartition(",")
            int_part = int_part.replace(".", "")
        else:  # 1,500.5
            int_part, _, frac = t.rpartition(".")
            int_part = int_part.replace(",", "")
    elif has_comma:
        parts = t.split(",")
        # Thousands grouping when every group after the first has three digits ("1,500", "12,345,678");
        # otherwise a decimal comma ("12,5", "1500,25").
        if len(parts) > 2 or (
            not decimal_comma
            and len(parts[-1]) == 3
            and 1 <= len(parts[0]) <= 3
            and parts[0] != "0"
        ):
            int_part, frac = "".join(parts), ""
        else:
            int_part, frac = parts[0], parts[1]
    elif has_dot:
        parts = t.split(".")
        if len(parts) > 2 or (
            decimal_comma and len(parts[-1]) == 3 and 1 <= len(parts[0]) <= 3 and parts[0] != "0"
        ):  # 1.500.000; "16.284" in a German text
            int_part, frac = "".join(parts), ""
        else:
            int_part, frac = parts[0], parts[1]
    else:
        int_part, frac = t, ""
    if not (int_part or frac) or not (int_part + frac).isdigit():
        return None
    try:
        value = float(f"{int_part or '0'}.{frac or '0'}")
    except ValueError:
        return None
    # Trailing decimal zeros are formatting, not precision ("$8.70", "$1616.00").
    if padding:
        frac = frac.rstrip("0")
    digits = (int_part + frac).lstrip("0")
    if not frac:
        digits = digits.rstrip("0") or digits
    return value, len(frac), max(1, len(digits))


def parse_word_number(text: str) -> tuple[float, int, bool] | None:
    """'one point five billion' -> (1.5e9, decimals, has_scale). None if not a number phrase."""
    words = [w for w in re.split(r"[\s-]+", text.lower()) if w and w != "and"]
    total, current = 0.0, 0.0
    frac_digits: list[int] = []
    in_frac, seen, has_scale = False, False, False
    for w in words:
        if w == "point":
            if in_frac:
                return None
            in_frac = True
            continue
        if w in WORD_NUMS:
            n = WORD_NUMS[w]
            if in_frac:
                if n > 9:
                    return None
                frac_digits.append(n)
            else:
                current += n
            seen = True
        elif w in WORD_SCALES:
            scale = WORD_SCALES[w]
            if in_frac:
                current += float("0." + "".join(map(str, frac_digits))) if frac_digits else 0.0
                frac_digits, in_frac = [], False
            if not seen and current == 0:
                current = 1.0
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = 0.0
                has_scale = True
            seen = True
        else:
            return None
    if in_frac:
        current += float("0." + "".join(map(str, frac_digits))) if frac_digits else 0.0
    if not seen:
        return None
    return total + current, len(frac_digits), has_scale


def rounding_unit(decimals: int, number: float, sig: int) -> float:
    """The rounding unit of a figure written with ``decimals`` decimal places (1 for a whole number)."""
    if decimals > 0:
        return 10.0 ** (-decimals)
    # An integer with trailing zeros ("1,500") is still exact to the unit: writers rarely round
    # to hundreds without a scale word, and "1,500 million" is covered by the scale.
    return 1.0
