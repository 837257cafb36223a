"""Candidate extraction for the numeric grader: every value stated in a text, normalised.

A :class:`Candidate` carries the value as a float with scale, sign and percent applied
("$(1,657) million" -> -1.657e9, "12.5%" -> 0.125), the precision it was written with (so a
rounded display can be compared fairly), and a *role* saying whether it is an answer-like value
or something to ignore (year, date, note number, list marker, operand of a calculation...).

Every regex here is anchored to small windows or uses unambiguous repetition, so extraction is
linear in the input length.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pytest_llmeval.metrics.numeric.locale_tables import (
    ENGLISH,
    LANGUAGES,
    NumberLanguage,
    all_scale_words,
    all_scaled_currencies,
    detect_language,
    first_char_gate,
    language_for_locale,
    names_a_loss_subject,
    negative_after_pattern,
    negative_before_pattern,
    negative_split_patterns,
    percent_suffix_pattern,
    percent_suffix_words,
)
from pytest_llmeval.metrics.numeric.tokens import (
    CUR_PREFIX,
    CUR_SUFFIX,
    CURRENCY_CODES,
    SCALE_WORDS,
    WORD_NUMS,
    WORD_SCALES,
    WORDNUM_RE,
    any_within,
    fold_number_forms,
    number_matches,
    parse_number_text,
    parse_short_number,
    parse_word_number,
    read_words,
    rounding_unit,
)

# Roles that never count as a stated value.
IGNORED_ROLES = frozenset({"year", "date", "reference", "marker", "descriptor", "name"})
# Roles a concluding answer can have ("aside", "operand" and "comparison" are context for it).
STATED_ROLES = frozenset({"value", "result", "range"})

_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)

_PREFIX_RE = re.compile(
    rf"(?P<sign1>[-−–+]|\()?[ \u00a0]?(?P<cur>{CUR_PREFIX})?[ \u00a0]?(?P<sign2>[-−–+]|\()?$"
)
_ENGLISH_SCALE_RE = r"thousands?|millions?|billions?|trillions?|mn|mln|mm|MM|bn|bln|Bn|BN|tn|Tn|lakhs?|lacs?|crores?|cr|Cr|thou"


def _other_scale_word_list() -> list[str]:
    """Scale words of the other language tables ("mrd", "Mio", "tusen"), longest first."""
    english = set(ENGLISH.scales)
    words = {w for w in all_scale_words() if len(w) >= 2 and w not in english}
    return sorted(words, key=len, reverse=True)


def _other_scale_words() -> str:
    """Scale words of the other language tables ("mrd", "Mio", "tusen"), written with an optional dot."""
    return "|".join(re.escape(w) for w in _other_scale_word_list())


def _scaled_currency_words() -> str:
    words = all_scaled_currencies()
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_SUFFIX_RE = re.compile(
    r"(?P<close>\))?"
    r"(?P<pct>[ \u00a0]?(?=%|(?i:[bpv]))(?:%|percent(?:age)?\s+points?|per\s*cent|percent|pct\.?|pp\b|p\.p\.|bps\b|basis\s+points?"
    rf"|{first_char_gate(percent_suffix_words())}(?i:{percent_suffix_pattern()})(?![^\W\d_])))?"
    r"(?:[ \u00a0]?"
    + first_char_gate(_ENGLISH_SCALE_RE.split("|"), ignore_case=False)
    + r"(?P<scale>"
    + _ENGLISH_SCALE_RE
    + r")(?![\w])"
    + rf"|[ \u00a0]?{first_char_gate(all_scaled_currencies())}(?P<scur>(?i:{_scaled_currency_words()}))(?![^\W\d_])"
    + rf"|[ \u00a0]?{first_char_gate(_other_scale_word_list())}(?P<lscale>(?i:{_other_scale_words()}))(?:\.|(?![^\W\d_]))"
    r"|(?P<letter>[kKmMbBT])(?![\w]))?"
    r"(?P<close2>\))?"
    rf"(?:[ \u00a0]?{first_char_gate(CUR_SUFFIX.split('|'), ignore_case=False)}(?P<cur>{CUR_SUFFIX})(?![\w])"
    r"(?:[ \u00a0]?(?P<scale2>thousands?|millions?|billions?|trillions?|mn|bn)(?![\w]))?)?"
    r"(?P<pct2>[ \u00a0]?(?=[%p])(?:%|percent|per\s*cent))?"
)
_MONTH_AFTER_RE = re.compile(rf"^(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b", re.IGNORECASE)
_DESCRIPTOR_AFTER_RE = re.compile(
    r"^(?:-(?:year|yr|month|day|week|quarter|k\b|q\b|for-|to-|step|fold|point)|\s(?:year|month|week|quarter)\s+(?!ago|earlier|later|before|after)[a-z])",
    re.IGNORECASE,
)
_ORDINAL_AFTER_RE = re.compile(r"^(?:st|nd|rd|th)\b", re.IGNORECASE)
# Each "\b(?=[...])" below is the class of the first letters of the alternation after it: the
# search fails at most positions on that one test (it never changes what matches).
# The gap between the noun and its verb may name a year ("net loss for 2023 amounted to"), never
# another figure.
_NEG_NOUN_BEFORE_RE = re.compile(
    r"\b(?=[nldosc])(?:net\s+)?(?:loss(?:es)?(?!\s+(?:ratio|rate|reserves?|provisions?|allowance|adjustment))|deficit|shortfall"
    r"|outflows?|(?:net\s+)?cash\s+used)\b"
    r"(?:[^.;\d$€£¥]|(?<!\d)(?:19|20)\d\d(?!\d)){0,40}?"
    # a verb, or the colon of a label ("Net loss attributable to shareholders: $84.6 million")
    r"(?:\b(?:was|were|is|are|of|totall?(?:ed|ing)|amount(?:ed|ing)\s+to|came\s+to|stood\s+at|at|reached)|(?<=\w):)\s*:?\s*"
    r"(?:(?:approximately|about|around|roughly|nearly|some|almost|an?|the|just)\s+)*"
    r"(?:" + CUR_PREFIX + r")?\s*$",
    re.IGNORECASE,
)
# "The decline in operating cash flow was $213 million": the subject names a change downwards; the
# value is the first one its verb states (not "the drop in sales was offset by savings of $5 million").
_NEG_CHANGE_SUBJECT_RE = re.compile(
    r"\b(?=[drf])(?:decrease|decline|reduction|drop|fall)\s+(?:in\s+(?:(?!(?:was|were|is|are|of|by)\b)[\w'&-]+\s+){1,8}?)?"
    r"(?:was|were|is|are|amounted\s+to|totall?ed|came\s+to)\s*:?\s*"
    r"(?:(?:approximately|about|around|roughly|nearly|some|almost|an?|the|just)\s+)*"
    r"(?:" + CUR_PREFIX + r")?\s*$",
    re.IGNORECASE,
)
_NEG_WORD_BEFORE_RE = re.compile(
    r"\b(?=[nldofrscmap])(?:net\s+loss(?:es)?|loss(?:es)?\s+of|deficit\s+of|shortfall\s+of|outflows?\s+of|decrease[sd]?|decline[sd]?|fell|falls?|drop(?:ped|s)?|down"
    r"|reduc(?:ed|tion)|shr[au]nk|contract(?:ed|ion)|lower"
    # "negative growth of 3%": the adjective turns the change noun after it into a fall
    r"|(?:negative|minus)(?:\s+(?:growth|returns?|change|result|earnings|net\s+income))?(?:,?\s+at)?"
    r"|activities\s+used|repaid|paid\s+down)"
    r"(?:,?\s+(?:of|by|approximately|about|around|roughly|nearly|some|almost|an?|the|just|over|only|\w+ly)\b)*"
    r"[\s:]*(?:" + CUR_PREFIX + r")?\s*$",
    re.IGNORECASE,
)
_NEG_VERB_BY_RE = re.compile(
    r"\b(?=[dfrlcs])(?:decreas\w*|declin\w*|fell|drop\w*|reduc\w*|lowered|cut|shr[aiu]nk\w*|contract\w*)"
    r"(?:\s+[\w'’]+,?){0,4}?\s+by\s+(?:(?:approximately|about|around|roughly|nearly|some|almost|just|over|only)\s+)*"
    r"(?:" + CUR_PREFIX + r")?\s*$",
    re.IGNORECASE,
)
# A loss or deficit that grows is a fall ("net losses widened by 703"); one that shrinks is not.
_LOSS_CHANGE_RE = re.compile(
    r"(?<![^\W\d_])(?:net\s+)?(?:loss(?:es)?|deficits?|shortfalls?|\w*verlust\w*|(?:netto)?tap(?:et)?|"
    r"underskud\w*|förlust(?:en)?|underskott(?:et)?|tab(?:et)?|pertes?)\s+(?:[^\W\d_]+\s+){0,3}?"
    r"(?:(?P<worse>widen\w*|deepen\w*|worsen\w*|gr[eo]w\w*|increas\w*|rose|risen|expand\w*|"
    r"stieg|wuchs|økte|steg|ökade|voksede|auka)"
    r"|narrow\w*|shr[aiu]nk\w*|decreas\w*|declin\w*|fell|dropped|reduc\w*|improv\w*|"
    r"sank|fiel|falt|sjönk|minskade|faldt)"
    r"(?:\s+(?:by|um|med|with))?\s+(?:(?:approximately|about|around|roughly|nearly|some|almost|just|over|only)\s+)*"
    r"(?:" + CUR_PREFIX + r")?\s*$",
    re.IGNORECASE,
)
_NEG_WORD_AFTER_RE = re.compile(
    r"^[\s,]*(?:year[- ](?:on|over)[- ]year\s+|annual\s+|yoy\s+)?(?:net\s+)?"
    r"(?:loss(?:es)?|decrease|decline|drop|reduction|contraction|deficit|lower|outflow)\b"
    r"|^[\s,]*\(\s*an?\s+(?:decrease|decline|reduction|drop|loss)\s*\)"
    # "3.8% down on last year"; after a comma ("$96 million, down on last year") it is a level
    r"|^\s*down\s+(?:on|year)\b"
    r"|^[\s,]*in\s+(?:net\s+)?losses\b|^[\s,]*less\s+than\b|^[\s,]*(?:below\s+zero|in\s+the\s+red)\b"
    r"|^[\s,]*net\s+expense\b",
    re.IGNORECASE,
)
_COMPARE_BEFORE_RE = re.compile(
    r"\b(?=[fcvartpludibFCVARTPLUDIB])(?:from|compared\s+(?:to|with)|vs\.?|versus|against|relative\s+to|than|prior(?:\s+year)?|previous(?:ly)?|last\s+year|a\s+year\s+(?:earlier|ago)|up\s+from|down\s+from|rather\s+than|instead\s+of|before|preceding)"
    r"(?:\s+(?:the|a|an|its|of|about|approximately|around|roughly|nearly|just|only|fy\s*'?\d{2,4}|\d{4}(?:'s)?|'s|year's|year|figure|level|total|amount|value)\b)*"
    r"[\s:,]*(?:" + CUR_PREFIX + r")?[\s(]*$",
    re.IGNORECASE,
)
_COMPARE_AFTER_RE = re.compile(
    r"^[\s,]*(?:in\s+(?:the\s+)?(?:prior|previous|preceding)\s+(?:fiscal\s+)?year|a\s+year\s+(?:earlier|ago|before)|last\s+year|previously)\b",
    re.IGNORECASE,
)
# A "-", "*" or "+" that opens the next line is a bullet of a list, not an operator.
_NO_BULLET_NEXT = r"(?![ \t]*\n[ \t]*[-−–*•+][ \t])"
_OPERATOR_AFTER_RE = re.compile(
    "^"
    + _NO_BULLET_NEXT
    + r"(?:\s*(?:[+/×÷^=]|\*(?!\*)|divided\s+by|multiplied\s+by)|\s+[-−–]\s|\s+(?:x|times|minus|plus)\s+[$€£¥(]?\s*\d)",
    re.IGNORECASE,
)
_OPERATOR_BEFORE_RE = re.compile(
    r"(?=[+/×÷^*\d)%mbtdspaMBTDSPA])(?:[+/×÷^]|(?<![\n*])\*|(?:[\d)%]|million|billion|thousand|bn|mn)[^\S\n]*[-−–]\s+|divided\s+by|multiplied\s+by|\btimes|\bminus|\bplus|\bsum\s+of|\baverage\s+of)\s*[$€£¥(\[]*\s*$",
    re.IGNORECASE,
)
_RESULT_BEFORE_RE = re.compile(
    r"(?:=|≈|≅|~=|->|→|\\approx|\\boxed\{|\\approx\s*\\boxed\{)\s*\\?[$€£¥]?\s*[-−(]?\s*\\?[$€£¥]?\s*$"
)
_LATEX_OPERAND_BEFORE_RE = re.compile(
    r"(?:\\[dt]?frac\{|\}\{|\\times|\\cdot|\\div)\s*\\?[$€£¥]?\s*$"
)
_LIST_MARKER_AFTER_RE = re.compile(r"^(?:[.)]\s|[.)]$|\.\s*$)")
_DIGIT_SLASH_RE = re.compile(r"^/\s?\d")
_GLUED_RE = re.compile(r"[A-Za-z][\w&]*")
_ISO_DATE_AFTER_RE = re.compile(r"[-/]\d{1,2}(?:\b|[-/])")
_FY_SHORT_RE = re.compile(r"(?:fy|cy|'|’)\s?$", re.IGNORECASE)
# A range's dash stays on its figure's line: one that opens the next line is a bullet or a sign.
_RANGE_AFTER_RE = re.compile(r"[^\S\n]*(?:[-–]|to)\s*[$€£¥]?\s*\d")
_DASH_RANGE_AFTER_RE = re.compile(r"[^\S\n]*[-–]\s*\d")
_APPROX_RE = re.compile(
    r"(?:approx(?:imately|\.)?|about|around|roughly|nearly|almost|~|≈)\s*[$€£¥]?\s*$"
)
_PREFIX_CHARS = frozenset("$€£¥₹₩-−–+(ABCDEFGHIJKLMNOPQRSTUVWXYZkrs.")
# Every character _PREFIX_RE can consume (signs, brackets, spaces, currency symbols and codes),
# and "\n", since "$" also matches before a final newline.
_PREFIX_RUN_CHARS = "".join(sorted(_PREFIX_CHARS)) + " \u00a0\n"
_ONE_CHAR_PREFIXES = frozenset("$€£¥₹₩-−–+(")
# A character every result marker _RESULT_BEFORE_RE reads holds: "=", "≈", "≅", "→", the ">" of
# "->", the backslash of "\\approx" and "\\boxed{".
_RESULT_CHARS = frozenset("=≈≅→>\\")
_OP_CHARS = frozenset("+*/×÷^-−–")
_REF_WORDS = frozenset(
    [
        "note",
        "notes",
        "item",
        "items",
        "section",
        "sections",
        "part",
        "exhibit",
        "rule",
        "article",
        "form",
        "schedule",
        "chapter",
        "page",
        "pages",
        "pp",
        "p",
        "table",
        "figure",
        "fig",
        "footnote",
        "step",
        "phase",
        "level",
        "tier",
        "class",
        "series",
        "line",
        "row",
        "column",
        "option",
        "question",
        "q",
        "no",
        "number",
        "version",
        "v",
        "topic",
        "asc",
        "ias",
        "ifrs",
        "sfas",
        "fasb",
        "paragraph",
        "para",
        "appendix",
        "s&p",
        "fortune",
        "russell",
        "nasdaq",
        "ftse",
        "stoxx",
        "dax",
        "nikkei",
        "covid",
    ]
)
_MONTH_WORDS = frozenset(
    [
        "jan",
        "january",
        "feb",
        "february",
        "mar",
        "march",
        "apr",
        "april",
        "may",
        "jun",
        "june",
        "jul",
        "july",
        "aug",
        "august",
        "sep",
        "sept",
        "september",
        "oct",
        "october",
        "nov",
        "november",
        "dec",
        "december",
    ]
)
# The role the word right before a bare number gives it ("Note 12", "March 5").
_ROLE_OF_WORD_BEFORE = {
    **dict.fromkeys(_MONTH_WORDS, "date"),
    **dict.fromkeys(_REF_WORDS, "reference"),  # a reference word wins, as it is tested first
}
# First characters of an ordinal suffix ("5th of March"), in both cases.
_ORDINAL_FIRST = frozenset("sSnNrRtT")
# Parenthesised amount right after a noun is an aside; after a verb, "=", ":" or in a table it is a negative.
_ASIDE_LEAD_RE = re.compile(r"[A-Za-z][\w'’.-]*\s*$")
# A bracket that opens a label's value or a table cell ("Net income: ($3.2 million)") restates
# nothing: it is the value, and negative; one that opens a formula's operand is grouping.
_LABEL_END_RE = re.compile(r"(?:[:=|]|^|\n)[ \t]*$")
_VALUE_END_RE = re.compile(r"[ \t]*(?:[.;,|\n]|$)")
_NEG_LEAD_RE = re.compile(
    r"(?:\b(?:is|was|were|are|be|been|of|at|to|by|as|totall?ed|totals|totaling|amounted|equals?|reported|recorded|reached|showing|shows|"
    r"minus|negative|loss|net|change|usd|eur|gbp|dollars|in\s+(?:thousands|millions|billions))|[=:|])\s*$",
    re.IGNORECASE,
)


@dataclass(eq=False, slots=True)
class Candidate:
    """One value found in a text.

    ``value`` is normalised: scale, sign and percent applied ("$(1.5) million" -> -1.5e6,
    "12%" -> 0.12). ``ulp`` is one unit in the last digit as written, in normalised units
    (used to accept rounded displays). ``role`` is "value", "result", "operand", "comparison",
    "range", or an ignored role ("year", "date", "reference", "marker", "descriptor", "name").
    """

    span: tuple[int, int]
    raw: str
    value: float
    number: float
    scale: float = 1.0
    scale_word: str | None = None
    currency: str | None = None
    percent: bool = False
    basis_points: bool = False
    negative: bool = False
    sign_source: str | None = None  # "symbol", "parentheses", "word"
    role: str = "value"
    decimals: int = 0
    ulp: float = 1.0
    sig_digits: int = 1
    approximate: bool = False
    # Why the sign may be read as a size: a decrease verb ("shrank by 39,185"), or brackets that
    # only mark a deduction or outflow line ("capex $(1,577) million").
    decrease_verb: bool = False
    outflow_line: bool = False

    @property
    def sign(self) -> int:
        return -1 if self.value < 0 else 1

    @property
    def ignored(self) -> bool:
        return self.role in IGNORED_ROLES


# Figures read from one text at most; beyond, the first quarter and the last three quarters.
MAX_FIGURES = 4_000

_LINE_START_RE = re.compile(r"(?:^|\n)[ \t>*•\-–]*(?:\*\*)?[ \t]*$")


def extract_values(
    text: str,
    *,
    question: str | None = None,
    count_words: bool = False,
    locale: str | None = None,
    padding: bool = True,
) -> list[Candidate]:
    """Every numeric value stated in ``text``, in order, with scale/sign/percent applied.

    ``question`` lets identifiers that also appear in the question ("3M") be read as names.
    ``count_words`` also reads unit-less number words ("three segments") as values.
    ``locale`` ("nb-NO", "de") names the number language; without it the text's own words
    decide (see :mod:`pytest_llmeval.metrics.numeric.locale_tables`). ``padding``: trailing decimal zeros are formatting.
    Never raises; non-string input is converted with ``str``.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = fold_number_forms(text)
    out: list[Candidate] = []
    q_tokens = _question_alnum_tokens(question)
    n = len(text)
    low, letter_runs, kw = read_words(text)
    lang = language_for_locale(locale) or detect_language(text, letter_runs=letter_runs, low=low)
    matches = number_matches(text)
    if len(matches) > MAX_FIGURES:
        # Number soup (tables pasted whole, hostile input): the opening figures and the
        # closing ones, where conclusions are, keep the work bounded.
        matches = matches[: MAX_FIGURES // 4] + matches[-(MAX_FIGURES - MAX_FIGURES // 4) :]
    decimal_comma = lang.decimal_comma
    append = out.append
    for m in matches:
        raw_num = m.group(0)
        # Short figures (nearly all) go to the remembered parse directly: one call fewer.
        if len(raw_num) <= 32:
            parsed = parse_short_number(raw_num, decimal_comma, padding)
        else:
            parsed = parse_number_text(raw_num, decimal_comma, padding)
        if parsed is None:
            continue
        s, e = m.span()
        number, decimals, sig = parsed
        cand = _build_candidate(text, s, e, number, decimals, sig, raw_num, q_tokens, kw, lang)
        # A run of 309 digits overflows to inf (so does a long one before "billion"): not a
        # figure anyone stated, and inf would "agree" with every gold.
        if math.isfinite(cand.value) and math.isfinite(cand.number):
            append(cand)
    _share_range_units(text, out)
    if (count_words and n < 200_000) or _has_word_number_hint(text, n, letter_runs, low):
        out.extend(_word_candidates(text, count_words))
        out.sort(key=lambda c: c.span[0])
    if lang.numbers and n < 200_000:
        words = _other_word_candidates(text, lang, out)
        if words:
            out.extend(words)
            out.sort(key=lambda c: c.span[0])
    return [c for c in out if math.isfinite(c.value)]


_WORD_HINT_RE = re.compile(
    r"\b(?:point|hundred|thousand|million|billion|trillion|percent\w*|per cent)\b", re.IGNORECASE
)


_WORD_NUM_SET = frozenset(WORD_NUMS)
_WORD_UNIT_SET = frozenset(
    [
        "point",
        "hundred",
        "thousand",
        "million",
        "billion",
        "trillion",
        "percent",
        "dollars",
        "euros",
        "pounds",
        "yen",
        "usd",
        "eur",
        "gbp",
        "per",
        "cent",
        "cents",
        "times",
        "half",
        "third",
        "quarter",
        "fifth",
        "thirds",
        "quarters",
        "fourths",
        "fifths",
        "sixths",
        "eighths",
        "tenths",
    ]
)


_RANGE_LINK_RE = re.compile(r"\s*(?:-|–|to|and|og|och|und|et|bis|til)\s*[$€£¥]?\s*", re.IGNORECASE)
# "between $29 billion and $30 billion", "mellom 19 og 20 prosent": a range, never the answer.
_BETWEEN_BEFORE_RE = re.compile(
    r"(?<![^\W\d_])(?:between|mellom|mellan|imellem|zwischen|entre)\s+(?:about\s+|approximately\s+|"
    r"roughly\s+|rund\s+|etwa\s+|ca\.?\s+)?[$€£¥]?\s*$",
    re.IGNORECASE,
)


def _share_range_units(text: str, cands: list[Candidate]) -> None:
    """'$1.7 to $1.9 billion', '5 to 10%': the first figure takes the unit written after the second."""
    for a, b in itertools.pairwise(cands):
        # gate: most neighbours are further apart than a link can be (tests cost nothing here).
        if b.span[0] - a.span[1] > 8 or a.role in IGNORED_ROLES or b.role in IGNORED_ROLES:
            continue
        link = text[a.span[1] : b.span[0]]
        if not _RANGE_LINK_RE.fullmatch(link):
            continue
        if _BETWEEN_BEFORE_RE.search(text, max(0, a.span[0] - 30), a.span[0]):
            a.role = b.role = "range"
        if a.scale_word or a.percent:
            continue
        if b.scale_word and not b.percent:
            a.value *= b.scale
            a.ulp *= b.scale
            a.scale, a.scale_word = b.scale, b.scale_word
        elif b.percent and not a.currency:
            div = 10000.0 if b.basis_points else 100.0
            a.value /= div
            a.ulp /= div
            a.percent, a.basis_points = True, b.basis_points
        if b.currency and not a.currency:
            a.currency = b.currency


_LETTER_RUN_RE = re.compile(r"[a-z]+")


def _has_word_number_hint(
    text: str, n: int, letter_runs: set[str] | None = None, low: str | None = None
) -> bool:
    """Is a number word followed closely by a scale, "point" or a unit ("two point five billion")?

    ``letter_runs``: the text's lower-case runs of letters, and ``low`` the text lower-cased,
    when already known.
    """
    if n >= 200_000:
        return _WORD_HINT_RE.search(text) is not None
    # Cheap token check first: the phrase regex is only worth running when a number word is
    # followed closely by a scale, "point" or a unit.
    # Hyphens split too: "ninety-four cents", "four-fifths", "Thirty-six percent".
    # A number-word token is a whole run of letters (its neighbours are spaces, hyphens or the
    # punctuation stripped below), so no run of letters being one means no hint.
    if letter_runs is not None and _WORD_NUM_SET.isdisjoint(letter_runs):
        return False
    if low is None:
        low = text.lower()
    if letter_runs is None and _WORD_NUM_SET.isdisjoint(_LETTER_RUN_RE.findall(low)):
        return False
    # A unit token below is a whole run of letters too, or starts with "percent": without
    # either, no number word can be followed by one.
    if letter_runs is not None and _WORD_UNIT_SET.isdisjoint(letter_runs) and "percent" not in low:
        return False
    toks = _hint_tokens(low)
    # The positions of number words, found in C (most tokens are not one).
    for i in itertools.compress(range(len(toks)), map(_WORD_NUM_SET.__contains__, toks)):
        for u in toks[i + 1 : i + 6]:
            if u in _WORD_UNIT_SET or u.startswith("percent"):
                return True
    return False


def _hint_tokens(low: str) -> list[str]:
    """``low`` split at runs of spaces and hyphens, each token stripped of the punctuation around
    it, all in C. (str.split() splits at the characters regex ``\\s`` matches; it drops the
    empty token a leading or trailing separator gives, which is neither a number nor a unit.)"""
    words = low.replace("-", " ").replace("–", " ").split()
    return list(map(str.strip, words, itertools.repeat(".,;:()*\"'")))


_AND_A_HALF_RE = re.compile(r"[ \t]+and[ \t]+a[ \t]+half\b", re.IGNORECASE)
_CENTS_RE = re.compile(r"[ \t]*cents?\b", re.IGNORECASE)
_TIMES_RE = re.compile(r"[ \t]*times\b", re.IGNORECASE)
_FRACTIONS = {
    "half": 2.0,
    "halve": 2.0,
    "third": 3.0,
    "quarter": 4.0,
    "fourth": 4.0,
    "fifth": 5.0,
    "sixth": 6.0,
    "seventh": 7.0,
    "eighth": 8.0,
    "ninth": 9.0,
    "tenth": 10.0,
}
_FRACTION_RE = re.compile(
    r"[ \t-](halves|halve|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)\b",
    re.IGNORECASE,
)


def _word_candidates(text: str, count_words: bool = False) -> list[Candidate]:
    out: list[Candidate] = []
    for m in WORDNUM_RE.finditer(text):
        s, e = m.span()
        phrase = m.group(0)
        parsed = parse_word_number(phrase)
        if parsed is None:
            continue
        number, decimals, has_scale = parsed
        after = text[e : e + 40]
        half = _AND_A_HALF_RE.match(after)
        if half:
            number += 0.5
            e += half.end()
            after = text[e : e + 40]
            decimals = max(decimals, 1)
        pm = re.match(r"\s*(percent(?:age points?)?|per\s*cent|%)", after, re.IGNORECASE)
        cm = re.match(r"\s*(dollars|euros|pounds|yen|USD|EUR|GBP)\b", after, re.IGNORECASE)
        cents = _CENTS_RE.match(after) if not (pm or cm) else None
        frac = _FRACTION_RE.match(after) if not (pm or cm or cents or half) else None
        times = _TIMES_RE.match(after) if not (pm or cm or cents) else None
        has_point = "point" in phrase.lower()
        low_words = set(re.split(r"[\s-]+", phrase.lower()))
        if not low_words & WORD_NUMS.keys():
            continue  # a bare "million" after digits belongs to the digit candidate
        # "one of the", "two segments": not an amount, but a count when a count is expected.
        if frac and number >= _FRACTIONS[frac.group(1).lower().rstrip("s")]:
            frac = None
        if not (has_scale or pm or cm or has_point or cents or times or half or frac) and (
            not count_words or number > 1000 or after.lstrip().lower().startswith("of ")
        ):
            continue
        before = text[max(0, s - 12) : s]
        pre = re.search(rf"(?P<cur>{CUR_PREFIX})\s?$", before)
        currency = None
        if pre:
            currency = CURRENCY_CODES.get(pre.group("cur"))
        elif cm:
            currency = CURRENCY_CODES.get(cm.group(1).lower(), CURRENCY_CODES.get(cm.group(1)))
        end = e + (pm.end() if pm else 0) + (cm.end() if cm and not pm else 0)
        value = number / 100.0 if pm else number
        ulp = 10.0 ** (-decimals) if decimals else 1.0
        if cents:
            # "ninety-four cents a share" = $0.94
            end = e + cents.end()
            value, number, currency = number / 100.0, number / 100.0, currency or "USD"
            ulp, decimals = 0.01, 2
        elif times:
            end = e + times.end()
        elif frac and number < _FRACTIONS[frac.group(1).lower().rstrip("s")]:
            # "four-fifths", "two thirds"; not "four quarters" (periods).
            end = e + frac.end()
            value = number = number / _FRACTIONS[frac.group(1).lower().rstrip("s")]
            ulp, decimals = 0.01, 2
        scale_part = 1.0
        if has_scale:
            # the integer before the scale word was exact to the scale's precision
            for w, sc in WORD_SCALES.items():
                if w in phrase.lower() and sc > 100:
                    scale_part = max(scale_part, sc)
            ulp *= scale_part
        if pm:
            ulp /= 100.0
        out.append(
            _word_candidate(
                text,
                (s, end),
                value=value,
                number=number,
                scale=scale_part,
                currency=currency,
                percent=bool(pm),
                decimals=decimals,
                ulp=ulp,
                sig_digits=2,
            )
        )
    return out


def _word_candidate(text: str, span: tuple[int, int], **fields: Any) -> Candidate:
    """A figure written in words ("two thirds", "tre komma fem prosent"): an answer value, signed
    by the words before it as a figure in digits is ("fell by three point eight percent")."""
    before = text[max(0, span[0] - 60) : span[0]].rsplit("\n", 1)[-1]
    if _signed_before(before):
        fields.update(sign_source="word", decrease_verb=_names_a_decrease(before))
    return Candidate(span=span, raw=text[span[0] : span[1]], role="value", **fields)


_TOKEN_RE = re.compile(r"\b\d+[A-Za-z][\w&]*")


def _question_alnum_tokens(question: str | None) -> frozenset[str]:
    if not question:
        return frozenset()
    return frozenset(t.lower() for t in _TOKEN_RE.findall(question[:5000]))


def _build_candidate(
    text: str,
    s: int,
    e: int,
    number: float,
    decimals: int,
    sig: int,
    raw_num: str,
    q_tokens: frozenset[str],
    kw: dict[str, list[int]],
    lang: NumberLanguage = ENGLISH,
) -> Candidate:
    """The figure at ``text[s:e]`` read with its words, in stages: a glued identifier ("3M's"),
    currency/sign/bracket before, units after, brackets, value, a sign in words, then its role."""
    before = text[s - 60 if s > 60 else 0 : s]
    after = text[e : e + 60]
    # Each stage below is skipped where the characters around the figure rule it out: most
    # figures have no glued word, no currency or sign before and no unit after.
    first = after[:1]
    if first in _NOT_GLUED:  # gate: the commonest characters after a figure glue nothing
        role = "value"
    elif first.isalpha() or first == "-" or first == "–":
        role, after = _identifier_role(after, raw_num, q_tokens)
    else:
        role = "value"
    pm, pre_len, (currency, negative, sign_source, open_paren) = _prefix_reading(before)
    sm, (pct_text, scale_word, currency, suffix_end, close, close2) = _suffix_reading(
        after, currency, lang
    )
    scale_word, pre_len = _scaled_currency_before(before, pre_len, currency, scale_word)
    if not negative and _trailing_minus(text, e + suffix_end):
        negative, sign_source, suffix_end = True, "symbol", suffix_end + 1
    # What follows the figure and its units, spaces skipped: every pattern that reads it
    # (footnote bracket, sign noun, operator, comparison, range) can only start with its head.
    rest = after[suffix_end:].lstrip()
    head = rest[:1]
    # Which of those patterns can start at the head: one look-up instead of a test per pattern.
    hb = _HEAD_BITS.get(head, _HEAD_ALL)
    outflow_line = decrease_verb = False
    if open_paren and (close or close2) and not negative:
        role, negative, outflow_line = _bracket_reading(
            before, pm, sm, raw_num, role, currency, pct_text, scale_word, close, close2, after
        )
        if negative:
            sign_source = "parentheses"
    if head == "]" and role == "value" and before.rstrip().endswith("["):
        role = "marker"  # footnote "[2]"
    if pct_text or scale_word:
        value, ulp, scale, percent, bps = _magnitude(
            number, decimals, sig, pct_text, scale_word, lang
        )
    else:  # most figures: the number as written (what _magnitude gives them; rounding_unit inline)
        value, scale, percent, bps = number, 1.0, False, False
        ulp = 10.0**-decimals if decimals > 0 else 1.0
    # Word-implied sign ("a loss of $5 million", "revenue decreased by 3%"): soft, see numeric.py.
    # gate: a sign keyword near, or a head a sign word after the figure can start with.
    neg = kw["neg"]
    if (
        not negative
        and (hb & _HEAD_NEG or (neg and any_within(neg, s - 60, s)))
        and _word_signed(before, after, s, suffix_end, rest, neg, hb)
    ):
        sign_source = "word"
        decrease_verb = _names_a_decrease(before, rest)
    if negative:
        value = -value
    # Roles: things that are not stated values.
    if role == "value":
        bare = currency is None and scale_word is None and not percent
        role = _classify(before, after, s, number, raw_num, bare, suffix_end, rest, hb, kw)
    apx = kw["apx"]
    approximate = _approximate(before, s, apx) if apx else False
    start = s - pre_len
    end = e + suffix_end
    raw = text[start:end].strip() if pre_len or suffix_end else raw_num
    # Positional, in field order: keyword arguments cost more here than the rest of the figure.
    return Candidate(
        (start, end), raw, value, number, scale, scale_word, currency, percent, bps, negative,
        sign_source, role, decimals, ulp, sig, approximate, decrease_verb, outflow_line,
    )  # fmt: skip


_CENTS = "cents"
_DIGIT_CENTS_RE = re.compile(r"[ \u00a0]?(?:cents?(?![^\W\d_])|¢)", re.IGNORECASE)
_TRAILING_MINUS = frozenset("-−")
# at the end of a line that no figure continues ("2019-\n2020" is a range)
_TRAILING_MINUS_RE = re.compile(r"[-−](?=[.;]?[ \t]*(?:\n(?![ \t]*\d)|$))")
_GLUED_SCALE_RE = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,3}$")


def _trailing_minus(text: str, at: int) -> bool:
    """A ledger-style minus right after a figure at the end of its line ("1.234-")."""
    return text[at : at + 1] in _TRAILING_MINUS and _TRAILING_MINUS_RE.match(text, at) is not None


def _scaled_currency_before(
    before: str, pre_len: int, currency: str | None, scale_word: str | None
) -> tuple[str | None, int]:
    """A scale glued to the currency code before a figure that has none after it ("MNOK 1 500",
    "TEUR 12"): the scaled currency word of the tables and the prefix length with its scale
    letters, else (``scale_word``, ``pre_len``) unchanged."""
    if not currency or scale_word or not pre_len:
        return scale_word, pre_len
    head = before[: len(before) - pre_len]
    m = _GLUED_SCALE_RE.search(head) if head[-1:].isalpha() else None
    if m is None:
        return None, pre_len
    word = m.group(0) + before[len(before) - pre_len :].strip(" \u00a0-−–+(")
    if word.lower() in all_scaled_currencies():
        return word, pre_len + len(m.group(0))
    return None, pre_len


# Characters after a figure that glue no identifier to it (no letter, no dash).
_NOT_GLUED = frozenset(" \n%.,/):;")
# _read_prefix of no prefix: (currency, negative, sign source, bracket opened).
_NO_PREFIX: tuple[str | None, bool, str | None, bool] = (None, False, None, False)
_NO_PREFIX_READING: tuple[None, int, tuple[str | None, bool, str | None, bool]] = (
    None,
    0,
    _NO_PREFIX,
)
_UNIT_ABBREVIATIONS = frozenset(
    ["x", "pct", "bps", "bp", "pp", "ppt", "ppts", "mn", "bn", "mm", "tn", "mln", "bln"]
)


def _identifier_role(after: str, raw_num: str, q_tokens: frozenset[str]) -> tuple[str, str]:
    """ "value", unless letters glued after the number make it a name ("3M's", "5G") or a
    descriptor ("2nd", "10-K", "3-year"); with ``after`` as the unit readers see it (a
    hyphenated scale, "$1.5-billion deal", reads as "$1.5 billion")."""
    if _HYPHEN_SCALE_RE.match(after):
        return "value", " " + after[1:]
    role = "value"
    glued = _GLUED_RE.match(after) if after[:1].isalpha() else None
    if glued:
        word = glued.group(0)
        token = (raw_num + word).lower()
        if (
            token in q_tokens
            or word.endswith("'s")
            or after[len(word) : len(word) + 2] in ("'s", "’s")
        ):
            role = "name"
        elif _ORDINAL_AFTER_RE.match(after):
            role = "descriptor"
        elif word not in SCALE_WORDS and word.lower() not in _UNIT_ABBREVIATIONS:
            role = "name"  # "5G", "4K", "10Q": product or form identifiers
    if role == "value" and after[:1] in "-–" and after[1:2].isalpha():
        role = "descriptor"  # "10-K", "3-year", "5-day"
    return role, after


_HYPHEN_SCALE_RE = re.compile(r"[-–](?:thousand|million|billion|trillion)(?![^\W\d_])")


# Characters that can stand right before a final "$" inside a _PREFIX_RE match: the end of a
# longer code ("US$", "U.S.$", "HK$", "CA$", "C$", "A$", "S$", "R$"), the optional space, a sign
# or an opening bracket.
_BEFORE_DOLLAR = frozenset(".SAKCR \u00a0-−–+(")
_SIGN_OPENERS = frozenset("-−–+(")
_PREFIX_RUN_SET = frozenset(_PREFIX_RUN_CHARS)
# The reading of a lone "$" (no code, no sign, no bracket): _read_prefix of its match.
_DOLLAR_ONLY: tuple[str | None, bool, str | None, bool] = ("USD", False, None, False)


def _prefix_reading(
    before: str,
) -> tuple[re.Match[str] | None, int, tuple[str | None, bool, str | None, bool]]:
    """Currency and sign before a figure: (the _PREFIX_RE match or None, how many characters of
    ``before`` the figure's raw text takes, the _read_prefix reading)."""
    c1 = before[-1:]
    if c1 == "$":
        # fast path: the commonest prefix, "$" alone or after one space ("was $5"), where the
        # match can only be "$" (or " $", its space not part of the raw text): _read_prefix of
        # it is _DOLLAR_ONLY.
        c2 = before[-2:-1]
        if c2 not in _BEFORE_DOLLAR or (
            (c2 == " " or c2 == "\u00a0") and before[-3:-2] not in _SIGN_OPENERS
        ):
            return None, 1, _DOLLAR_ONLY
    # gate: a match reads only the last run of prefix characters (see _prefix_match); no run, or
    # a run of one space or line break, reads nothing.
    if c1 == " " or c1 == "\n" or c1 == "\u00a0":
        if before[-2:-1] not in _PREFIX_RUN_SET:
            return _NO_PREFIX_READING
    elif c1 not in _PREFIX_RUN_SET:
        return _NO_PREFIX_READING
    pm = _prefix_match(before[-8:])
    if pm is None:
        return _NO_PREFIX_READING
    return pm, len(pm.group(0).lstrip()), _read_prefix(before, pm)


def _prefix_match(b8: str) -> re.Match[str] | None:
    """The currency and sign characters that end ``b8`` (the 8 characters before a number), or
    None when there are none (a match that reads no currency and no sign reads nothing, as None
    does)."""
    # A prefix match consumes only prefix characters: start the search after the last other one.
    start = len(b8.rstrip(_PREFIX_RUN_CHARS))
    # gate: what the match could read, spaces aside. One character reads something only when
    # it is a sign or a currency symbol (every currency code or abbreviation has two or more):
    # "was 5" ends in the run "s ", which reads nothing.
    core = b8[start:].strip(" \u00a0\n")
    if len(core) < 2 and core not in _ONE_CHAR_PREFIXES:
        return None
    return _PREFIX_RE.search(b8, start)


def _opens_line(before: str, at: int) -> bool:
    """Does ``before[at]`` open its line (only spaces before it since a line break)?"""
    head = before[:at].rstrip(" \t")
    return head.endswith("\n") or (not head and len(before) < 60)


def _read_prefix(
    before: str, pm: re.Match[str] | None
) -> tuple[str | None, bool, str | None, bool]:
    """Currency, minus sign and opening bracket just before the number: (currency, negative,
    sign source, bracket opened). A hyphen inside "2020-2022" or "a - b" is not a sign."""
    if not pm:
        return None, False, None, False
    currency = None
    negative = False
    sign_source: str | None = None
    open_paren = False
    sign1, cur, sign2 = pm.groups()  # in pattern order; by position, not by name (cheaper)
    if cur:
        currency = CURRENCY_CODES.get(cur) or CURRENCY_CODES.get(cur.rstrip("."))
    if not sign1 and not sign2:
        return currency, negative, sign_source, open_paren
    for g, sg in (("sign2", sign2), ("sign1", sign1)):
        if not sg:
            continue
        if sg == "(":
            # "* (43,762.5)" groups an operand; it is not an accounting negative.
            open_paren = before[: len(before) - len(pm.group(0)) + pm.start(g)].rstrip()[
                -1:
            ] not in ("*", "/", "×", "÷", "+")
        elif sg in "-−–":
            start = pm.start(g) + len(before) - len(before[-8:])
            prev = before[start - 1] if start >= 1 else " "
            nxt = before[start + 1] if start + 1 < len(before) else ""
            if prev.isalnum() or prev in ").%":
                continue  # "2020-2022", "10-15", "COVID-19": a range or identifier, not a sign
            if (sg == "–" or _opens_line(before, start)) and nxt == " ":
                continue  # an en dash before a space, a list bullet ("\n- 4.5 bn"): not signs
            if prev == " " and nxt == " " and _looks_like_expression_before(before[:start]):
                continue  # "a - b" subtraction
            negative = True
            sign_source = "symbol"
    return currency, negative, sign_source, open_paren


# The words _SUFFIX_RE reads after a figure: written in one case, and case-insensitive.
_SUFFIX_EXACT_WORDS = (
    *["percent", "per", "pct", "pp", "p.p.", "bps", "basis"],
    *_ENGLISH_SCALE_RE.split("|"),
    *CUR_SUFFIX.split("|"),
)
_SUFFIX_FOLDED_WORDS = (
    *percent_suffix_words(),
    *all_scaled_currencies(),
    *_other_scale_word_list(),
)


def _suffix_starts() -> frozenset[str]:
    """ASCII characters a non-empty _SUFFIX_RE match can begin with after its optional space:
    ")", "%" and the first letters of its words (the case-insensitive ones in both cases)."""
    exact = [*"%)kKmMbBT", *_SUFFIX_EXACT_WORDS]
    folded = _SUFFIX_FOLDED_WORDS
    firsts = {w[0] for w in exact} | {c for w in folded for c in (w[0].lower(), w[0].upper())}
    return frozenset(c for c in firsts if c.isascii())


_SUFFIX_STARTS = _suffix_starts()


def _suffix_match(after: str) -> re.Match[str] | None:
    """Percent, scale and currency words right after a number (:data:`_SUFFIX_RE`), or None when
    none can start there (an empty match reads nothing, as None does)."""
    spaced = after[:1] == " " or after[:1] == "\u00a0"
    pair = after[1:3] if spaced else after[:2]
    first = pair[:1]
    # gate: most figures are followed by punctuation or a plain word. Any non-ASCII character
    # may be a currency sign or fold to a letter of a case-insensitive word, so it always may.
    if first not in _SUFFIX_STARTS and (not first or first.isascii()):
        return None
    # gate: ... and a plain word ("to", "was") rarely starts like a unit word ("th", "mi", "pe").
    low = pair.lower()
    if (
        low not in _SUFFIX_PAIRS
        and low[:1] not in (_SUFFIX_ANY_SPACED if spaced else _SUFFIX_ANY_DIRECT)
        and pair.isascii()
    ):
        return None
    return _SUFFIX_RE.match(after)


def _suffix_pairs() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The first two characters (lower case) of every word _SUFFIX_RE can read after its
    optional space; the first characters that may be followed by anything there: a
    one-character unit ("%", "€"), or a word whose second character is a space (any space
    matches there) or is not ASCII (it may fold to an ASCII letter); and those first characters
    with the ones that only follow the number directly, without a space (")", the letters of
    "5M", "10k")."""
    words = ["%", *_SUFFIX_EXACT_WORDS, *_SUFFIX_FOLDED_WORDS]
    pairs: set[str] = set()
    any_second: set[str] = set()
    for word in (w.lower() for w in words):
        if len(word) < 2 or word[1].isspace() or not word[1].isascii():
            any_second.add(word[0])
        else:
            pairs.add(word[:2])
    direct = any_second | {")", *"kmbt"}
    return frozenset(pairs), frozenset(any_second), frozenset(direct)


_SUFFIX_PAIRS, _SUFFIX_ANY_SPACED, _SUFFIX_ANY_DIRECT = _suffix_pairs()


def _common_suffix_readings() -> dict[str, tuple[str, str | None, int]]:
    """The commonest suffixes ("%", " million", " billion") as _SUFFIX_RE reads them alone:
    (percent text, scale word, end). Each reads no currency and no bracket."""
    out: dict[str, tuple[str, str | None, int]] = {}
    for lit in ("%", " million", " billion"):
        m = _SUFFIX_RE.match(lit)
        if (
            m is not None
        ):  # always (tests/unit/metrics/numeric/test_numeric_reading_gates.py checks the readings)
            out[lit] = (m.group("pct") or "", m.group("scale"), m.end())
    return out


_COMMON_SUFFIX = _common_suffix_readings()
# After a common suffix, a character that no later part of _SUFFIX_RE (a scale or currency word,
# a letter, ")", "%", "percent", or the word boundary after a scale) can start or continue ...
_SUFFIX_END_SAFE = frozenset(["", ",", ".", ";", ":", "!", "?", "\n", "\t", "\r"])


def _after_space_safe(lit: str) -> frozenset[str]:
    """... and after one space or no-break space, the ASCII characters that none of the parts
    left after ``lit`` can start with (their first-character gates: a scale word for "%", a
    currency word, "%" or "percent"), or the end of the window."""
    exact = [*CUR_SUFFIX.split("|"), "%", "p"]
    folded: list[str] = []
    if lit == "%":
        exact += _ENGLISH_SCALE_RE.split("|")
        folded += [*all_scaled_currencies(), *_other_scale_word_list()]
    starts = {w[0] for w in exact} | {c for w in folded for c in (w[0].lower(), w[0].upper())}
    return frozenset({""} | {chr(c) for c in range(128)} - starts)


_AFTER_SPACE_SAFE = {lit: _after_space_safe(lit) for lit in _COMMON_SUFFIX}


def _suffix_reading(
    after: str, currency: str | None, lang: NumberLanguage
) -> tuple[re.Match[str] | None, tuple[str, str | None, str | None, int, bool, bool]]:
    """Units after a figure: (the _SUFFIX_RE match, or None when none was needed, and the
    _read_suffix reading)."""
    first = after[:1]
    # gate: _suffix_match's test, first (most figures have no unit after them).
    start = after[1:2] if first == " " or first == "\u00a0" else first
    if start == "c" or start == "¢":
        cents = _DIGIT_CENTS_RE.match(after)
        if cents is not None:  # "45 cents", "45¢": hundredths of a dollar, a scale of 0.01
            return None, ("", _CENTS, currency or "USD", cents.end(), False, False)
    if start not in _SUFFIX_STARTS and start.isascii():
        return None, ("", None, currency, 0, False, False)
    if first == "%":
        lit = "%"
    elif first == " " and (after[1:8] == "million" or after[1:8] == "billion"):
        lit = after[:8]
    else:
        lit = ""
    if lit:
        # fast path: a common suffix followed by punctuation, or by a space and a character
        # nothing more can start with, is read as the pattern reads it alone.
        nxt = after[len(lit) : len(lit) + 2]
        if nxt[:1] in _SUFFIX_END_SAFE or (
            (nxt[:1] == " " or nxt[:1] == "\u00a0") and nxt[1:] in _AFTER_SPACE_SAFE[lit]
        ):
            pct_text, scale_word, end = _COMMON_SUFFIX[lit]
            return None, (pct_text, scale_word, currency, end, False, False)
    sm = _suffix_match(after)
    if sm:
        return sm, _read_suffix(sm, currency, lang)
    return None, ("", None, currency, 0, False, False)


def _read_suffix(
    sm: re.Match[str] | None, currency: str | None, lang: NumberLanguage
) -> tuple[str, str | None, str | None, int, bool, bool]:
    """Percent, scale and currency words after the number ("%", " million", "bn", " mrd. kr"):
    (percent text, scale word, currency, where the suffix ends, ")" closes, ")" after a scale)."""
    if not sm or not sm.end():
        # Every group needs a character: an empty match read nothing after the number.
        return "", None, currency, 0, False, False
    # In pattern order; by position, not by name (ten name lookups cost more than the rest).
    close_g, pct, scale, scur, lscale, letter, close2_g, cur_word, scale2, pct2 = sm.groups()
    close = bool(close_g)
    pct_text = pct or pct2 or ""
    scale_word = scale or lscale or letter or scale2
    scaled_cur = all_scaled_currencies().get(scur.lower()) if scur else None
    if scaled_cur is not None:
        scale_word = scur
        if not currency:
            code = scaled_cur[1]
            currency = (
                lang.krone if code in ("NOK", "SEK", "DKK") and "kr" in scale_word.lower() else code
            )
    if not currency and cur_word:
        if cur_word.lower().rstrip(".") == "kr":
            currency = lang.krone
        else:
            currency = CURRENCY_CODES.get(cur_word, CURRENCY_CODES.get(cur_word.lower()))
    close2 = bool(close2_g and scale_word)
    if close2_g and not scale_word:
        close = True  # "(12.5%)"
    return pct_text, scale_word, currency, sm.end(), close, close2


def _bracket_reading(
    before: str,
    pm: re.Match[str] | None,
    sm: re.Match[str] | None,
    raw_num: str,
    role: str,
    currency: str | None,
    pct_text: str,
    scale_word: str | None,
    close: bool,
    close2: bool,
    after: str = "",
) -> tuple[str, bool, bool]:
    """A number in brackets: (role, negative, on an outflow line). A restatement "(1.5 million)"
    and a prose aside "net income ($9,542)" are asides, "(1)" is a footnote, else a negative;
    ``after``: the text after the figure (a label's value ends its line, cell or sentence)."""
    paren_at = len(before) - len(pm.group(0)) if pm else len(before)
    lead = before[:paren_at]
    if (
        not close
        and close2
        and not (_LABEL_END_RE.search(lead) and _VALUE_END_RE.match(after, sm.end() if sm else 0))
    ):
        return ("aside" if role == "value" else role), False, False
    if (
        raw_num.isdigit()
        and len(raw_num) <= 2
        and not currency
        and not pct_text
        and close
        and not scale_word
    ):
        return ("marker" if role == "value" else role), False, False  # "(1)", "(12)": a label
    if (
        _ASIDE_LEAD_RE.search(lead[-40:])
        and not _NEG_LEAD_RE.search(lead[-40:])
        # "$(0.565) billion", "(14.7)%": the sign or unit outside the brackets makes it
        # an accounting negative, not a prose aside.
        and not (pm and pm.group("cur") and pm.group("sign2") == "(")
        and not (sm and sm.group("close") and (pct_text or scale_word))
    ):
        return ("aside" if role == "value" else role), False, False
    return role, True, bool(_OUTFLOW_LABEL_RE.search(before[-70:]))


def _magnitude(
    number: float,
    decimals: int,
    sig: int,
    pct_text: str,
    scale_word: str | None,
    lang: NumberLanguage,
) -> tuple[float, float, float, bool, bool]:
    """The value with scale and percent applied, and one unit in its last written digit:
    (value, ulp, scale, percent, basis points)."""
    percent = False
    bps = False
    if pct_text:
        lt = " ".join(pct_text.lower().split())
        if "bps" in lt or "basis" in lt or lt == "bp" or lt in _BASIS_POINT_WORDS:
            bps = True
        percent = True
    scale = _scale_of(scale_word, lang) if scale_word else 1.0
    value = number * scale
    ulp = rounding_unit(decimals, number, sig) * scale
    if percent:
        div = 10000.0 if bps else 100.0
        value /= div
        ulp /= div
    return value, ulp, scale, percent, bps


def _word_signed(
    before: str, after: str, s: int, suffix_end: int, rest: str, neg: list[int], hb: int
) -> bool:
    """Do the words around the figure state it as a loss or decrease ("a loss of", "fell by",
    "tapte", "Nettoverlust ... belief sich auf", "... decrease")? ``rest``: what follows the
    figure and its units, spaces skipped, ``hb`` its head's _HEAD_* flags; ``neg``: where sign
    keywords end in the text."""
    if neg and any_within(neg, s - 60, s):
        line = before.rsplit("\n", 1)[-1][-60:]
        if _signed_before(line) or _split_verb_signed(line, after[suffix_end : suffix_end + 60]):
            return True
    # gates on the first character, then the first two letters of the word after the units (the
    # patterns skip spaces and commas first; a tail of only spaces fails them whatever follows).
    if not hb & _HEAD_NEG:
        return False
    while rest[:1] == ",":
        rest = rest[1:].lstrip()
    start = rest[:2]
    if start.isascii() and start.lower() not in _NEG_AFTER_STARTS:
        return False
    return _NEG_AFTER_RE.match(after[suffix_end : suffix_end + 30]) is not None


_ASCII_SPACE = "".join(c for c in map(chr, range(128)) if c.isspace())
_ASCII_WORD = "".join(c for c in map(chr, range(128)) if c.isalnum()) + "_"
# Each sign pattern before a figure, the width of context it reads, and the ASCII characters a
# match of it can hold (its words, spaces, colons, currency signs and codes such as "U.S.$",
# "kr."). _NEG_NOUN_BEFORE_RE's gap takes any character but a digit, ";" or a currency sign.
_SIGN_BEFORE = (
    (_NEG_WORD_BEFORE_RE.search, 48, _ASCII_WORD + _ASCII_SPACE + ":.,$"),
    (_NEG_NOUN_BEFORE_RE.search, 60, "".join(c for c in map(chr, range(128)) if c != ";")),
    (_NEG_CHANGE_SUBJECT_RE.search, 60, _ASCII_WORD + _ASCII_SPACE + "'&-:.$"),
    (_NEG_VERB_BY_RE.search, 60, _ASCII_WORD + _ASCII_SPACE + "',.$"),
    (
        negative_before_pattern().search,
        48,
        "".join(c for c in _ASCII_WORD if c.isalnum()) + _ASCII_SPACE + ":.$",
    ),
    (names_a_loss_subject, 60, _ASCII_WORD + _ASCII_SPACE + "'.$"),
)


def _split_verb_signed(before: str, after: str) -> bool:
    """Does a verb split around the figure state a decrease ("gab um 1,2 Prozent nach")?"""
    return any(
        b.search(before) is not None and a.match(after) is not None
        for b, a in negative_split_patterns()
    )


def _signed_before(ctx: str) -> bool:
    """Do the words before a figure (``ctx``: its line's last 60 characters) state it as a loss
    or decrease ("a loss of", "fell by", "tapte", "Nettoverlust ... belief sich auf")?"""
    change = _LOSS_CHANGE_RE.search(ctx)
    if change is not None:
        return change.group("worse") is not None
    is_ascii = ctx.isascii()
    for search, width, allowed in _SIGN_BEFORE:
        window = ctx[-width:]
        if is_ascii:
            # gate: every match ends at the window's end and holds only ``allowed`` characters,
            # so it lies within the window's last run of them. Searched from the character before
            # that run, the first character of a match sees the same neighbour (the word boundary
            # and letter lookbehind every pattern opens with): same answer, fewer positions.
            k = len(window.rstrip(allowed))
            if k > 1:
                window = window[k - 1 :]
        if search(window):
            return True
    return False


def _names_a_decrease(before: str, rest: str = "") -> bool:
    """Does the sign word before a figure name a decrease ("shrank by") or an outflow ("net cash
    used in investing was") rather than a loss, or a comparative after it ("2.4% lower")? Its
    size may then match a positive gold."""
    ctx48 = before.rsplit("\n", 1)[-1][-60:][-48:]
    if _COMPARATIVE_AFTER_RE.match(rest):
        return not _LOSS_NOUN_RE.search(ctx48)
    return bool(
        (
            _DECREASE_VERB_RE.search(ctx48)
            or _OUTFLOW_WORD_RE.search(ctx48)
            or _split_verb_signed(ctx48, rest[:60])
        )
        and not _LOSS_NOUN_RE.search(ctx48)
    )


_COMPARATIVE_AFTER_RE = re.compile(
    r"(?:lower|less\s+than|lavere|lågare|lägre|niedriger)(?![^\W\d_])", re.IGNORECASE
)


def _approximate(before: str, s: int, apx: list[int]) -> bool:
    """Is the figure at ``s`` stated as approximate ("about", "~")? ``apx``: where the
    approximation keywords end in the text."""
    return any_within(apx, s - 20, s) and bool(_APPROX_RE.search(before[-20:].lower()))


@lru_cache(maxsize=1)
def _negative_after_first() -> frozenset[str]:
    """First non-space characters of a sign word after a figure (_NEG_WORD_AFTER_RE and
    every table's negative_after words), in both cases, and the "," both patterns skip."""
    words = [w for t in LANGUAGES.values() if t.code != "en" for w in t.negative_after]
    firsts = {w[0] for w in words if w} | set("nldrcoi(bya")
    return frozenset({",", *firsts, *(c.lower() for c in firsts), *(c.upper() for c in firsts)})


_NEGATIVE_AFTER_FIRST = _negative_after_first()
# The first two letters (lower case) of every sign word after a figure: _NEG_WORD_AFTER_RE's and
# every table's negative_after words. In ASCII text the case-insensitive patterns can only start
# with one of them.
_NEG_AFTER_STARTS = frozenset(
    w[:2]
    for w in (
        *("net", "loss", "decrease", "decline", "drop", "reduction", "contraction", "deficit"),
        *("lower", "outflow", "in", "i ", "im", "less", "(a", "below", "ye", "an", "yo", "do"),
        *(w for t in LANGUAGES.values() if t.code != "en" for w in t.negative_after),
    )
)
# A sign noun after the figure, English or any table's ("3,5 % tap"): one match for both.
_NEG_AFTER_RE = re.compile(
    f"(?:{_NEG_WORD_AFTER_RE.pattern})|(?:{negative_after_pattern().pattern})", re.IGNORECASE
)


_BASIS_POINT_WORDS = frozenset(
    w for t in LANGUAGES.values() for w in t.basis_points if " " in w or len(w) > 3
)


def _scale_of(word: str, lang: NumberLanguage) -> float:
    """Multiplier of a scale word; the text's language decides where languages disagree
    (Norwegian "billion" is 1e12)."""
    if word == _CENTS:
        return 0.01
    key = word.lower().rstrip(".")
    if key in lang.scales and len(key) > 1:
        return lang.scales[key]
    cur = all_scaled_currencies().get(key)
    if cur is not None:
        return cur[0]
    if word in SCALE_WORDS:
        return SCALE_WORDS[word]
    return SCALE_WORDS.get(key, all_scale_words().get(key, 1.0))


_OUTFLOW_LABEL_RE = re.compile(
    r"\b(?:expenses?|costs?|capex|capital\s+(?:expenditures?|spending)|outflows?|paid|payments?|"
    r"purchases?|dividends?|repurchases?|spending|deductions?|kostnader|aufwendungen|charges)\b",
    re.IGNORECASE,
)
_DECREASE_VERB_RE = re.compile(
    r"(?<![^\W\d_])(?:decreas\w*|declin\w*|fell|falls?|dropped|drops?|shr[aiu]nk\w*|slipped|slid|"
    r"dipped|eased|retreated|weakened|slumped|sagged|trimmed|repaid|paid\s+down|"
    r"reduc\w*|contract\w*|cut|lowered|down|falt|sank|sjönk|minskade|faldt|fiel|sank|verringert\w*|"
    r"baiss\w*|diminu\w*|recul\w*)(?![^\W\d_])",
    re.IGNORECASE,
)
_OUTFLOW_WORD_RE = re.compile(
    r"(?<![^\W\d_])(?:cash\s+used|activities\s+used|outflows?)(?![^\W\d_])", re.IGNORECASE
)
_LOSS_NOUN_RE = re.compile(
    r"(?<![^\W\d_])(?:loss\w*|lost|deficit|negative|minus|tap\w*|verlust\w*|perte|"
    r"förlust|underskud\w*|tabte)(?![^\W\d_])",
    re.IGNORECASE,
)


def _looks_like_expression_before(before: str) -> bool:
    tail = before.rstrip()[-12:]
    return bool(_OPERAND_END_RE.search(tail)) and not _ASSIGN_END_RE.search(tail)


# Compiled once (the module-level re functions look each pattern up in their cache per call).
_OPERAND_END_RE = re.compile(r"[\d)%]\s*(?:[a-zA-Z]+)?$")
_ASSIGN_END_RE = re.compile(r"[=:]\s*$")


def _classify(
    before: str,
    after: str,
    s: int,
    number: float,
    raw_num: str,
    bare: bool,
    suffix_end: int,
    rest: str,
    hb: int,
    kw: dict[str, list[int]],
) -> str:
    """The role of a figure read as a value: a year, date, reference or list marker (a bare
    number: no currency, scale or percent), an operand or result of a calculation, a
    comparison, a range, or a value. ``rest``: what follows the figure and its units, spaces
    skipped; ``hb``: the _HEAD_* flags of its first character."""
    if bare:
        role = _bare_role(before, after, number, raw_num)
        if role is not None:
            return role
    if "\\" in before[-12:] and _LATEX_OPERAND_BEFORE_RE.search(before[-12:]):
        return "operand"  # \frac{a}{b}
    if (
        bare
        and raw_num.isdigit()
        and after.lstrip(" ")[:1] == ":"
        and _LINE_START_RE.search(before[-16:])
    ):
        return "marker"
    return _structure_role(before, after, s, suffix_end, rest, hb, kw)


def _bare_role(before: str, after: str, number: float, raw_num: str) -> str | None:
    """A number without unit that is a reference ("Note 12"), a date, a year, a descriptor
    ("3-year") or a list marker ("1. Revenue"), or None."""
    # Identifiers glued before: "Q3", "FY2022", "H1" are excluded by the regex lookbehind; a letter
    # plus hyphen ("S-1", "COVID-19") too. References by keyword: "Note 12", "Item 7".
    last_char = before[-1:]
    if last_char.isspace() or last_char == "#":
        toks = before[-24:].split()
        if toks:  # the word before: "Note", "Item", "March" (one look-up for both lists)
            tok = toks[-1]
            named = _ROLE_OF_WORD_BEFORE.get(tok.strip("([{*.#:").lower())
            if named == "reference" or tok.endswith("#"):
                return "reference"
            if named == "date" or (
                len(toks) >= 2
                and tok.rstrip(",").isdigit()
                and toks[-2].strip("(.").lower() in _MONTH_WORDS
            ):
                return "date"
    plain_int = raw_num.isdigit()
    first = after[:1]
    # gate: the month pattern starts with an ordinal suffix or a space (a non-ASCII character
    # may be a space or fold to a letter).
    if (
        plain_int
        and number <= 31
        and (first in _ORDINAL_FIRST or first.isspace() or not first.isascii())
        and _MONTH_AFTER_RE.match(after)
    ):
        return "date"
    # gate: the slash pattern starts with "/".
    if (first == "/" and _DIGIT_SLASH_RE.match(after)) or (
        last_char == "/" and before[-2:-1].isdigit()
    ):
        return "date"
    if not plain_int:
        return None
    if len(raw_num) == 4 and 1900 <= number <= 2100:
        # gate: the ISO date pattern starts with "-" or "/".
        if (first == "-" or first == "/") and _ISO_DATE_AFTER_RE.match(after):
            return "date"
        return "year"
    if len(raw_num) == 2 and _FY_SHORT_RE.search(before[-4:]):
        return "year"
    # gate: the descriptor pattern starts with "-" or one space-like character.
    if (first == "-" or first.isspace() or not first.isascii()) and _DESCRIPTOR_AFTER_RE.match(
        after
    ):
        return "descriptor"
    if (
        len(raw_num) <= 2
        and _LIST_MARKER_AFTER_RE.match(after[:3])
        and _LINE_START_RE.search(before[-12:])
    ):
        return "marker"  # "1. Revenue ...", "2) ..."
    return None


def _structure_role(
    before: str,
    after: str,
    s: int,
    suffix_end: int,
    rest: str,
    hb: int,
    kw: dict[str, list[int]],
) -> str:
    """Calculation structure and context around a figure: "result" after "=", "operand" beside
    an operator, "comparison" after "from"/"compared to", "range" before "- 5", else "value"."""
    tail = after[suffix_end:]
    op_after = (
        bool(hb & _HEAD_OP)
        and _may_be_operator_after(rest)
        and _OPERATOR_AFTER_RE.match(tail) is not None
    )
    b8 = before[-8:]
    if not _RESULT_CHARS.isdisjoint(b8) and _RESULT_BEFORE_RE.search(b8) and not op_after:
        return "result"
    if op_after:
        return "operand"
    b16 = before[-16:]
    op = kw["op"]
    if (
        (not _OP_CHARS.isdisjoint(b16) or (op and any_within(op, s - 16, s)))
        and _may_end_operator(b16)
        and _OPERATOR_BEFORE_RE.search(b16)
    ):
        return "operand"
    cmp = kw["cmp"]
    if (cmp and any_within(cmp, s - 48, s) and _COMPARE_BEFORE_RE.search(before[-48:])) or (
        hb & _HEAD_CMP and _may_be_comparison_after(rest) and _COMPARE_AFTER_RE.match(tail)
    ):
        return "comparison"
    if hb & _HEAD_RANGE and _RANGE_AFTER_RE.match(tail) and "from" not in before[-12:].lower():
        return "range" if _DASH_RANGE_AFTER_RE.match(tail) else "value"
    return "value"


# Last characters of an operator _OPERATOR_BEFORE_RE reads: a symbol, a dash, "by", "times",
# "minus", "plus", "of" (and any non-ASCII character, which may fold to a letter).
_OP_BEFORE_LAST = frozenset("+/×÷^*-−–ysfYSF")


def _may_end_operator(b16: str) -> bool:
    """Can _OPERATOR_BEFORE_RE match at the end of ``b16``? Its operator may only be followed by
    spaces, one run of currency signs and brackets, and spaces: strip those, and the operator's
    last character must be what is left last."""
    last = b16.rstrip().rstrip("$€£¥([").rstrip()[-1:]
    return last in _OP_BEFORE_LAST or not last.isascii()


# First non-space characters _OPERATOR_AFTER_RE, _COMPARE_AFTER_RE and _RANGE_AFTER_RE can meet.
_OP_AFTER_FIRST = frozenset("+/×÷^=*-−–dDmMxXtTpP")
_CMP_AFTER_FIRST = frozenset(",iIaAlLpP")
_RANGE_AFTER_FIRST = frozenset("-–t")


# _HEAD_BITS: for each ASCII head (and no head), the flags of the patterns above (and the sign
# word after a figure) that can start there; _may_start(head, F) is `head's flags & F's flag`. A
# non-ASCII head may fold to an ASCII letter, so every pattern may start there (_HEAD_ALL).
_HEAD_NEG, _HEAD_OP, _HEAD_CMP, _HEAD_RANGE = 1, 2, 4, 8
_HEAD_ALL = _HEAD_NEG | _HEAD_OP | _HEAD_CMP | _HEAD_RANGE
_HEAD_SETS = (
    (_HEAD_NEG, _NEGATIVE_AFTER_FIRST),
    (_HEAD_OP, _OP_AFTER_FIRST),
    (_HEAD_CMP, _CMP_AFTER_FIRST),
    (_HEAD_RANGE, _RANGE_AFTER_FIRST),
)
_HEAD_BITS = {
    c: sum(flag for flag, chars in _HEAD_SETS if c in chars) for c in ["", *map(chr, range(128))]
}


# The second letters (lower case) of the word operators after a figure, by their first letter:
# "divided", "multiplied", "minus", "times", "plus".
_OP_AFTER_SECOND = {"d": "i", "m": "ui", "t": "i", "p": "l"}
# The same for the comparison words after a figure: "in the prior year", "last year",
# "previously" ("a year earlier" needs a space after its "a").
_CMP_AFTER_SECOND = {"i": "n", "l": "a", "p": "r"}


def _may_be_operator_after(rest: str) -> bool:
    """Can _OPERATOR_AFTER_RE match where ``rest`` (spaces skipped) follows? A word operator
    needs its second letter too; a non-ASCII one may fold to it."""
    second = _OP_AFTER_SECOND.get(rest[:1].lower())
    return second is None or rest[1:2].lower() in second or not rest[1:2].isascii()


def _may_be_comparison_after(rest: str) -> bool:
    """Can _COMPARE_AFTER_RE match where ``rest`` (spaces skipped) follows? Its words need their
    second character too ("in", "la", "pr", "a" and a space); a non-ASCII one may fold to it."""
    head = rest[:1].lower()
    second = rest[1:2]
    if not second.isascii():
        return True
    if head == "a":
        return second.isspace()
    want = _CMP_AFTER_SECOND.get(head)
    return want is None or second.lower() == want


def _may_start(head: str, first: frozenset[str]) -> bool:
    """Can a pattern whose first characters are ``first`` match where ``head`` follows? Any
    non-ASCII character may fold to an ASCII letter under IGNORECASE, so it always may."""
    return bool(head) and (head in first or not head.isascii())


@lru_cache(maxsize=16)
def _lang_word_regex(code: str) -> re.Pattern[str]:
    lang = LANGUAGES[code]
    words = [*lang.numbers, *lang.number_scales]
    if lang.decimal_word:
        words.append(lang.decimal_word)
    alt = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    # The class of first letters rejects most word starts before the long alternation is tried.
    first = "".join(sorted({re.escape(w[0]) for w in words}))
    return re.compile(
        rf"(?<![^\W\d_])(?=[{first}])(?:{alt})(?![^\W\d_])(?:[ \t-]+(?:{alt})(?![^\W\d_]))*",
        re.IGNORECASE,
    )


_PERCENT_AFTER_WORDS_RE = re.compile(rf"[ \t]*(?:%|(?i:{percent_suffix_pattern()}))(?![^\W\d_])")


def _other_word_candidates(
    text: str, lang: NumberLanguage, existing: list[Candidate]
) -> list[Candidate]:
    """Number words of the text's language followed by a unit ("fjorten komma fem prosent")."""
    pct_re = _PERCENT_AFTER_WORDS_RE
    taken = [c.span for c in existing]
    out: list[Candidate] = []
    for m in _lang_word_regex(lang.code).finditer(text):
        words = [w for w in re.split(r"[ \t-]+", m.group(0).lower()) if w]
        total, current, frac, in_frac, seen = 0.0, 0.0, "", False, False
        ok = True
        for w in words:
            if w == lang.decimal_word:
                if in_frac or not seen:
                    ok = False
                    break
                in_frac = True
            elif w in lang.numbers:
                n = lang.numbers[w]
                if in_frac:
                    if n > 9:
                        ok = False
                        break
                    frac += str(n)
                else:
                    current += n
                seen = True
            else:
                sc = lang.number_scales[w]
                if in_frac:
                    ok = False
                    break
                current = (current or 1.0) * sc if sc == 100 else 0.0 * total + (current or 1.0)
                if sc > 100:
                    total += current * sc
                    current = 0.0
                seen = True
        if not ok or not seen:
            continue
        number = total + current + (float("0." + frac) if frac else 0.0)
        s, e = m.span()
        after = text[e : e + 40]
        pm = pct_re.match(after)
        if not (pm or frac):
            continue  # "to år", "en del": words, not an amount
        if any(a < e and s < b for a, b in taken):
            continue
        end = e + (pm.end() if pm else 0)
        decimals = len(frac)
        ulp = 10.0**-decimals if decimals else 1.0
        value = number / 100.0 if pm else number
        out.append(
            _word_candidate(
                text,
                (s, end),
                value=value,
                number=number,
                percent=bool(pm),
                decimals=decimals,
                ulp=ulp / 100.0 if pm else ulp,
                sig_digits=max(2, len(str(int(number))) + decimals),
            )
        )
    return out


_ZERO_PHRASE_RE = re.compile(
    r"(?=[nuoiz])(?<![^\W\d_])(?:no\s+(?:difference|change)|unchanged|uendret|oförändrad|uændret|unverändert|"
    r"inchangée?s?|zero|nil)(?![^\W\d_])",
    re.IGNORECASE,
)


def zero_phrases(text: str) -> list[Candidate]:
    """Words that state zero ("no difference", "unchanged"): read only when zero is expected."""
    out = []
    for m in itertools.islice(_ZERO_PHRASE_RE.finditer(text[:200_000]), 50):
        out.append(Candidate(span=m.span(), raw=m.group(0), value=0.0, number=0.0, role="value"))
    return out
