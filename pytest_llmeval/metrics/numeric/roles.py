"""Roles of the figures in the answer sentence: which of them the response asserts.

The selection stage (:mod:`pytest_llmeval.metrics.numeric.selection`) finds the sentence that answers and its concluding figure.
This stage reads the other figures of that sentence by their role, so a figure asserted in another
role can answer too:

- ``change``: "rose by $59 million", "a 150% increase", "falt med 6,1 prosent", "exceeded ... by $5";
- ``level``: the level a change leads to ("rose 12.8% to $1,617k", "økte ... til 10 914 mrd.");
- ``endpoint``: the levels a change runs between ("from $3,475 million to $3,534 million",
  "($26.0 million to $74.5 million)"): inputs, never the answer;
- ``total``: a total stated before its parts ("$8.4 billion in all: ...", "a total of ...");
- ``whole``: the whole a part is taken of ("$206.7 million of the $1,344.1 million").

:func:`co_asserted` returns the figures of the answer sentence asserted as a change, level or
total, and, when the concluding figure is of another kind than the expected answer (a dollar
amount where a percentage was asked), the stated figures of the expected kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_llmeval.metrics.numeric.candidates import IGNORED_ROLES, Candidate
from pytest_llmeval.metrics.numeric.locale_tables import LANGUAGES, first_char_gate

ROLE_DESCRIPTIONS = {
    "change": "the change stated beside its endpoints",
    "level": "the level the stated change leads to",
    "total": "the total before its parts",
    "difference": "the difference stated with 'by'",
}


def _alt(words: set[str]) -> str:
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


_Trie = dict[str, "_Trie"]  # a prefix-tree node: next unit -> child ("" marks a word's end)


def _trie(words: set[str]) -> str:
    """The same words as :func:`_alt`, written as a prefix tree ("decl(?:ine[ds]?|ining)"), so
    a failed attempt costs one path instead of every word. Only for patterns used as yes/no:
    it accepts the same texts, though not always the same word when two could match."""
    root: _Trie = {}
    for w in words:
        node = root
        for ch in w:  # as in _alt: each space is "\s+", every other character literal
            node = node.setdefault(r"\s+" if ch == " " else re.escape(ch), {})
        node[""] = {}
    return _trie_branch(root)


def _trie_branch(node: _Trie) -> str:
    """One node of :func:`_trie`: its children as an alternation, optional when a word ends here."""
    alts = [unit + _trie_branch(child) for unit, child in sorted(node.items()) if unit]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    return f"(?:{body})?" if "" in node else body


_CHANGE_WORDS = {
    "rose",
    "grew",
    "increased",
    "climbed",
    "gained",
    "jumped",
    "added",
    "fell",
    "dropped",
    "declined",
    "decreased",
    "slipped",
    "slid",
    "sank",
    "shrank",
    "lost",
    "up",
    "down",
    "moved up",
    "moved down",
    "went up",
    "went down",
    "improved",
    "expanded",
    "contracted",
    "widened",
    "narrowed",
    "increase of",
    "decrease of",
    "decline of",
    "drop of",
    "rise of",
    "gain of",
    "change of",
    "growth of",
    "reduction of",
}
for _t in LANGUAGES.values():
    _CHANGE_WORDS.update(_t.change_before)
    _CHANGE_WORDS.update(_t.negative_before)

# A change verb (or noun) right before the figure, with "by"/"med"/"um" and fillers between.
_CHANGE_BEFORE_RE = re.compile(
    # Each first_char_gate() below lets most word starts fail on one character test before a long
    # alternation is tried; these patterns are searched backwards over a window for every figure.
    r"(?<![^\W\d_])" + first_char_gate(_CHANGE_WORDS) + r"(?:" + _trie(_CHANGE_WORDS) + r")"
    r"(?:\s+(?:by|of|med|um|de|på|about|approximately|roughly|nearly|some|just|only|around|"
    r"rund|etwa|ca\.?|omkring|environ|fondet|the|an?))*[\s:]*"
    r"(?:[$€£¥]|(?:USD|EUR|NOK|SEK|DKK|GBP|CHF)\s*)?\s*[-−]?\s*$",
    re.IGNORECASE,
)
# "a 150.18% increase", "a 3.5% loss", "3,5 % tap".
_CHANGE_NOUNS = (
    "increase|decrease|decline|growth|rise|drop|gain|jump|fall|reduction|loss|improvement|"
    "økning|nedgang|tap|ökning|minskning|förlust|anstieg|rückgang|verlust|zuwachs|hausse|baisse|"
    "perte"
)
_CHANGE_AFTER_RE = re.compile(
    r"^\s*(?:\)\s*)?(?:year[- ]over[- ]year\s+|yoy\s+)?"
    + first_char_gate(_CHANGE_NOUNS.split("|"))
    + "(?:"
    + _CHANGE_NOUNS
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
# "exceeded X by $5 million", "higher by 2%": the difference.
_BY_BEFORE_RE = re.compile(
    r"\b"
    + first_char_gate(
        [
            "exceed",
            "outpac",
            "surpass",
            "higher",
            "lower",
            "more",
            "less",
            "greater",
            "smaller",
            "larger",
            "widened",
            "narrowed",
            "beat",
            "missed",
            "trailed",
        ]
    )
    + r"(?:exceed\w*|outpac\w*|surpass\w*|higher|lower|more|less|greater|smaller|larger|widened|"
    r"narrowed|beat|missed|trailed)\b(?:[^.;]|\.\d){0,80}?\bby\s+(?:about\s+|approximately\s+|roughly\s+)?"
    r"[$€£¥]?\s*$",
    re.IGNORECASE,
)
_TO_BEFORE_RE = re.compile(
    r"(?<![^\W\d_])(?=(?i:[tab\u00e0]))(?:to|til|till|auf|à|bis\s+auf)\s+(?:about\s+|approximately\s+|roughly\s+|rund\s+|"
    r"ca\.?\s+|omkring\s+|a\s+record\s+)?(?:[$€£¥]|(?:USD|EUR|NOK|SEK|DKK|GBP)\s*)?\s*$",
    re.IGNORECASE,
)
# "compared to", "relative to", "up to": not the level a change leads to.
_NOT_LEVEL_RE = re.compile(
    r"\b(?=(?i:[craedupsbogi]))(?:compared|relative|equal|due|according|close|up|similar|prior|adjusted|attributable|"
    r"belonging|related|owed|paid|sold|issued|granted)\s+to\s+(?:about\s+|approximately\s+)?"
    r"(?:[$€£¥]|(?:USD|EUR|NOK|SEK|DKK|GBP)\s*)?\s*$",
    re.IGNORECASE,
)
_CHANGE_VERB_WORDS = (
    "rose|grew|increased|climbed|gained|jumped|fell|dropped|declined|decreased|slipped|slid|sank|"
    "shrank|improved|expanded|contracted|moved|went|reduced|cut|raised|lifted|lowered|widened|"
    "narrowed|softened|strengthened|weakened|edged|ticked|surged|soared|plunged|tumbled|slumped|"
    "advanced|retreated|eased|dipped|"
    "økte|steg|falt|sank|vokste|gikk|auka|ökade|minskade|sjönk|föll|faldt|stieg|fiel|wuchs|"
    "erhöhte|verringerte|a augmenté|a diminué|a progressé|a reculé"
)
_CHANGE_VERBS = set(_CHANGE_VERB_WORDS.split("|"))
# Searched over the 120 characters before a figure: the gate and the prefix tree let most word
# starts fail on a character or two (a yes/no test: the tree accepts the same texts).
_CHANGE_VERB_RE = re.compile(
    r"(?<![^\W\d_])"
    + first_char_gate(_CHANGE_VERBS)
    + "(?:"
    + _trie(_CHANGE_VERBS)
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
_CLAUSE_SPLIT_RE = re.compile(r"[;]|,\s(?!from\b)|\s(?:while|whereas|but|and)\s", re.IGNORECASE)
# "raised its guidance ... by 1 percentage point, from 8% to 9%".
_BY_END_RE = re.compile(
    r"\b(?:by|med|um|de)\s+(?:about\s+|roughly\s+|approximately\s+)?[$€£¥]?\s*$", re.I
)
_FROM_AFTER_RE = re.compile(r"^\s*,?\s*(?:from|fra|från|von|de)\b", re.IGNORECASE)
_FROM_RE = re.compile(r"(?<![^\W\d_])(?:from|fra|från|frå|von|de|since)(?![^\W\d_])", re.IGNORECASE)
_TOTAL_BEFORE_RE = re.compile(
    r"(?:\b(?=(?i:[aitcos]))(?:a\s+total\s+of|in\s+total|total(?:led|ed|ing)?|totalt|insgesamt|au\s+total|"
    r"combined|altogether|overall|sum\s+of)\b)[^.;\d]{0,40}$",
    re.IGNORECASE,
)
_TOTAL_AFTER_RE = re.compile(
    r"^\s*(?:in\s+all|in\s+total|all\s+told|combined|altogether|totalt|insgesamt|au\s+total)\b"
    r"|^\s*(?:\([^()]{0,20}\)\s*)?:",
    re.IGNORECASE,
)
# "$206.7 million of the $1,344.1 million", "12 out of 40": the second figure is the whole.
_WHOLE_GAP_RE = re.compile(
    r"\s+(?:out\s+)?of\s+(?:the|a|its|their|our)?\s*(?:total\s+(?:of\s+)?)?[$€£¥]?\s*",
    re.IGNORECASE,
)
_OF_WHICH_AFTER_RE = re.compile(r"^[^.;\d]{0,40}?,?\s*of\s+which\b", re.IGNORECASE)
_OF_THE_LEAD_RE = re.compile(
    r"\s*[*\-•]*\s*(?:out\s+)?of\s+(?:the|its|their|a)\s+(?:total\s+(?:of\s+)?)?[$€£¥]?\s*",
    re.IGNORECASE,
)
_PAREN_RANGE_RE = re.compile(r"\(\s*[^()]{0,40}\b(?:to|til|till|bis|à)\b[^()]{0,40}\)")


@dataclass(frozen=True)
class Asserted:
    """A figure the response asserts in a role other than the concluding figure's."""

    cand: Candidate
    role: str

    @property
    def description(self) -> str:
        return ROLE_DESCRIPTIONS.get(self.role, self.role)


# The roles whose figures figure_role reads at once as "endpoint" or None.
_NOT_ASSERTED = IGNORED_ROLES | {"operand", "comparison"}


def figure_role(text: str, seg_start: int, cands: list[Candidate], i: int) -> str | None:
    """The role of ``cands[i]`` within its sentence (``seg_start`` is where the sentence starts)."""
    c = cands[i]
    if c.role in _NOT_ASSERTED:  # an operand, a comparison, an ignored figure
        return "endpoint" if c.role == "comparison" else None
    after = text[c.span[1] : c.span[1] + 40]
    role = _range_or_whole(text, seg_start, cands, i, after)
    if role is not None:
        return role
    return _stated_role(text, seg_start, cands, i, after)


def _stated_role(
    text: str, seg_start: int, cands: list[Candidate], i: int, after: str
) -> str | None:
    """:func:`figure_role` after the range and whole readings: a difference, a change, an
    endpoint or level after "to", a total."""
    c = cands[i]
    prev_end = cands[i - 1].span[1] if i > 0 and cands[i - 1].span[1] > seg_start else seg_start
    before = text[max(prev_end, c.span[0] - 60) : c.span[0]]
    by_window = text[max(seg_start, c.span[0] - 100) : c.span[0]]
    if _may_end_with_by(by_window) and _BY_BEFORE_RE.search(by_window):
        return "difference"
    low = gate_lower(before)  # for the word gates below
    tail = _tail_start(before)
    # The anchored tests first: they fail at once, the searches read the whole window.
    if (
        _CHANGE_AFTER_RE.match(after)
        or (_FROM_AFTER_RE.match(after) and _BY_END_RE.search(before, tail))
        or _CHANGE_BEFORE_RE.search(before, tail)
    ):
        return "change"
    if (
        may_hold(low, ("to", "til", "auf", "à"))
        and _TO_BEFORE_RE.search(before, tail)
        and not _NOT_LEVEL_RE.search(before, tail)
    ):
        # "to X" after "from Y" is an endpoint; after a change it is the level reached.
        clause = text[max(seg_start, c.span[0] - 120) : c.span[0]]
        own = _CLAUSE_SPLIT_RE.split(clause)[-1]
        if _FROM_RE.search(own[-60:]):
            return "endpoint"
        if _CHANGE_VERB_RE.search(clause):
            return "level"
    if _TOTAL_AFTER_RE.match(after) and any(
        j > i and cands[j].span[0] - c.span[1] < 200 for j in range(i + 1, len(cands))
    ):
        return "total"
    if may_hold(low, _TOTAL_WORDS) and _TOTAL_BEFORE_RE.search(before):
        return "total"
    return None


# What may follow the "by" that ends a _BY_BEFORE_RE match (none of it holds a "by").
_BY_TAIL_RE = re.compile(r"by\s+(?:about\s+|approximately\s+|roughly\s+)?[$€£¥]?\s*", re.IGNORECASE)


def _may_end_with_by(window: str) -> bool:
    """gate for _BY_BEFORE_RE: its "by" is the window's last one ("b" and "y" match no other
    letter in any case), followed only by what _BY_TAIL_RE allows; most windows with a "by"
    hold it earlier ("rose by 5%, from $3 to")."""
    low = window.lower()
    at = low.rfind("by")
    if at < 0:
        return False
    if len(low) != len(window):
        return True  # lower-casing moved the positions: no gate
    return _BY_TAIL_RE.fullmatch(window, at) is not None


def _range_or_whole(
    text: str, seg_start: int, cands: list[Candidate], i: int, after: str
) -> str | None:
    """The roles read first: an endpoint inside "(A to B)", the whole a part is taken of."""
    c = cands[i]
    lo = max(seg_start, c.span[0] - 60)
    hi = min(len(text), c.span[1] + 60)
    # gate: the range (a case-sensitive pattern) needs a bracket and one of its words; most
    # windows hold no bracket, found without copying the window
    if text.find("(", lo, hi) >= 0 and _has_range_word(text[lo:hi]):
        for m in _PAREN_RANGE_RE.finditer(text, lo, hi):
            if m.start() <= c.span[0] and c.span[1] <= m.end():
                return "endpoint"
    if i > 0 and _WHOLE_GAP_RE.fullmatch(text, cands[i - 1].span[1], c.span[0]):
        return "whole"
    # "w" and "h" match no other letter in any case: without "wh" there is no "which".
    if ("wh" in after.lower() and _OF_WHICH_AFTER_RE.match(after)) or _OF_THE_LEAD_RE.fullmatch(
        text, seg_start, c.span[0]
    ):
        return "whole"  # "$2.5 billion buyback, of which ...", "Of the $5.0 billion facility, ..."
    return None


def _has_range_word(window: str) -> bool:
    return "to" in window or "til" in window or "bis" in window or "à" in window


# No phrase that _BY_END_RE, _CHANGE_BEFORE_RE, _TO_BEFORE_RE or _NOT_LEVEL_RE finds at the end
# of the text before a figure holds a digit or one of these characters.
_LAST_STOP_RE = re.compile(r".*[\d,;()%/'\"]", re.DOTALL)


def _tail_start(before: str) -> int:
    """Where a phrase ending ``before`` can start at the earliest: after its last digit, comma,
    bracket... Searching from there finds the same phrases (the lookbehinds still see the text
    before it) without trying every earlier position."""
    m = _LAST_STOP_RE.match(before)
    return m.end() if m else 0


# A word each phrase of _TOTAL_BEFORE_RE holds.
_TOTAL_WORDS = ("total", "insgesamt", "combined", "altogether", "overall", "sum")


# The only characters outside ASCII that match an ASCII letter when case is ignored: "ſ" an
# "s", "ı" and "İ" an "i", the Kelvin sign a "k".
_CASE_TWINS = ("\u017f", "\u0131", "\u0130", "\u212a")


def gate_lower(text: str) -> str | None:
    """``text`` lower-cased for word gates: a case-blind search for a word matches only where
    the lower-cased text shows it. None when ``text`` holds a character that matches an ASCII
    letter without lower-casing to it: then no gate applies."""
    if not text.isascii():
        for ch in _CASE_TWINS:
            if ch in text:
                return None
    return text.lower()


def may_hold(low: str | None, words: tuple[str, ...]) -> bool:
    """False only when none of ``words`` (lower case) occurs in ``low`` (from :func:`gate_lower`):
    a gate before a case-blind search that needs one of them. Always True when ``low`` is None."""
    if low is None:
        return True
    # A plain loop: for these few words cheaper than any() over a generator or a map.
    for w in words:  # noqa: SIM110
        if w in low:
            return True
    return False


def co_asserted(
    text: str,
    seg: tuple[int, int],
    cands: list[Candidate],
    chosen: list[Candidate],
    asks_change: bool | None,
) -> list[Asserted]:
    """Figures of the answer sentence asserted as a change, level, total or difference.

    ``asks_change``: None without a question (every role may answer); True when the question
    asks for a change (changes and differences answer, levels do not); False otherwise (levels
    and totals answer, changes do not).
    """
    in_seg = [c for c in cands if seg[0] <= c.span[0] < seg[1]]
    return co_asserted_in(text, seg[0], in_seg, chosen, asks_change)


def co_asserted_in(
    text: str,
    seg_start: int,
    in_seg: list[Candidate],
    chosen: list[Candidate],
    asks_change: bool | None,
) -> list[Asserted]:
    """:func:`co_asserted` for the figures of the sentence (``in_seg``), already picked out."""
    if len(in_seg) < 2 or len(in_seg) > 40:
        return []
    if asks_change is None:
        allowed: tuple[str, ...] = ("change", "level", "total", "difference")
    elif asks_change:
        allowed = ("change", "difference", "total")
    else:
        allowed = ("level", "total")
    out: list[Asserted] = []
    for i, c in enumerate(in_seg):
        # gate: an operand, comparison or ignored figure reads as "endpoint" or nothing, roles
        # never kept here; figure_role need not be called for it. Candidates compare by
        # identity (eq=False): ``in chosen`` is the identity test, on a list of one or two.
        if c.role in _NOT_ASSERTED or c in chosen:
            continue
        after = text[c.span[1] : c.span[1] + 40]
        role = _stated_role(text, seg_start, in_seg, i, after)
        # figure_role reads the range and whole first, roles never kept here: they are read
        # only to veto a role that would be kept (same result, most figures skip them).
        if role in allowed and _range_or_whole(text, seg_start, in_seg, i, after) is None:
            out.append(Asserted(c, role))
    return out


def role_among(
    text: str, seg_start: int, in_seg: list[Candidate], c: Candidate, *, whole_only: bool = False
) -> str | None:
    """The role of ``c`` among the figures of its sentence (``in_seg``, which starts at
    ``seg_start``). ``whole_only``: read only the roles tested before "whole" (the answer is
    "whole" exactly when the full reading's is)."""
    for i, x in enumerate(in_seg):
        if x is c:
            if whole_only:
                if c.role in _NOT_ASSERTED:  # the roles figure_role reads at once
                    return None
                after = text[c.span[1] : c.span[1] + 40]
                return _range_or_whole(text, seg_start, in_seg, i, after)
            return figure_role(text, seg_start, in_seg, i)
    return None
