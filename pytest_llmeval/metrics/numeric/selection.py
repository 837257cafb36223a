"""Selection stage of the numeric grader: which figure of the response is its answer.

Splits the response into sentences, scores them by conclusion cues, the question's words and
years, the kind of figure expected, and picks the concluding figure in the best sentence
(:func:`select_concluding`), or the figure tied to a named metric (:func:`select_category`).
The other figures of the answer sentence are read by role in :mod:`pytest_llmeval.metrics.numeric.roles`.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from pytest_llmeval.metrics.numeric.candidates import STATED_ROLES, Candidate
from pytest_llmeval.metrics.numeric.roles import gate_lower, may_hold

# Category -> phrases that name it in prose. Extend with register_category().
CATEGORY_SYNONYMS: dict[str, list[str]] = {
    "revenue": [
        "total net revenue",
        "net revenues",
        "net revenue",
        "total revenues",
        "total revenue",
        "revenues",
        "revenue",
        "net sales",
        "total sales",
        "sales",
        "turnover",
        "top line",
        "top-line",
    ],
    "net income": [
        "net income",
        "net profit",
        "net earnings",
        "profit after tax",
        "earnings",
        "profit",
        "bottom line",
        "net loss",
    ],
    "operating income": [
        "operating income",
        "operating profit",
        "income from operations",
        "operating loss",
        "ebit",
    ],
    "gross profit": ["gross profit", "gross margin"],
    "ebitda": ["adjusted ebitda", "adj. ebitda", "ebitda"],
    "eps": ["diluted eps", "diluted earnings per share", "earnings per share", "eps"],
    "capex": [
        "capital expenditures",
        "capital expenditure",
        "capex",
        "capital spending",
        "purchases of property, plant and equipment",
        "purchases of property and equipment",
    ],
    "operating cash flow": [
        "net cash provided by operating activities",
        "cash from operations",
        "operating cash flow",
        "cash flow from operations",
        "cash flows from operating activities",
    ],
    "free cash flow": ["free cash flow", "fcf"],
    "cash": ["cash and cash equivalents", "cash and equivalents", "cash"],
    "debt": ["total debt", "long-term debt", "borrowings", "debt"],
    "total assets": ["total assets", "assets"],
    "total liabilities": ["total liabilities", "liabilities"],
    "equity": ["shareholders' equity", "stockholders' equity", "total equity", "equity"],
    "dividends": [
        "dividends paid",
        "cash dividends",
        "dividend per share",
        "dividends",
        "dividend",
    ],
    "cost of sales": ["cost of goods sold", "cost of sales", "cost of revenue", "cogs"],
    "operating expenses": [
        "operating expenses",
        "opex",
        "sg&a",
        "selling, general and administrative",
    ],
    "r&d": ["research and development", "r&d"],
    "inventory": ["inventories", "inventory"],
    "accounts receivable": ["accounts receivable", "receivables"],
    "accounts payable": ["accounts payable", "payables"],
    "margin": ["operating margin", "net margin", "gross margin", "margin"],
    "growth": ["growth rate", "growth", "increase", "change"],
    "tax rate": ["effective tax rate", "tax rate"],
    "share price": ["share price", "stock price", "price per share"],
}


def register_category(name: str, synonyms: list[str]) -> None:
    """Add or extend a category (e.g. ``register_category("arr", ["annual recurring revenue", "ARR"])``)."""
    key = name.strip().lower()
    existing = CATEGORY_SYNONYMS.setdefault(key, [])
    for s in synonyms:
        if s.lower() not in existing:
            existing.append(s.lower())
    _category_phrases.cache_clear()
    _category_regex.cache_clear()


Q_PAREN_RE = re.compile(r"\([^()]{0,300}\)")

# --------------------------------------------------------------------------- concluding selection

# Each gate "(?=[...])" names the characters a match can start with: most positions fail there
# at once, before the branches are tried (same matches, a fraction of the work).
# A sentence break: newlines, or the space (after closing quotes) that follows ".", "!" or "?".
# The match starts at the mark or newline, a class the engine scans for in C; the break itself
# starts at group 1 after a mark (the mark stays in its sentence).
_SEG_RE = re.compile(r"[.!?\n](?:(?<=\n)\n*|(\n+|[\"”')\]*]*\s+))")
_STRONG_CUE_RE = re.compile(
    r"\b(?=[thcisfaTHCISFA])(?:therefore|thus|hence|consequently|in\s+conclusion|in\s+summary|to\s+summari[sz]e|so,?\s+(?:the|\w+'s)|"
    r"the\s+(?:final\s+)?answer|final\s+answer|answer\s*:|as\s+a\s+result|in\s+total)\b",
    re.IGNORECASE,
)
# A word each phrase of _STRONG_CUE_RE holds, and of _DERIVE_CUE_RE.
_STRONG_TEXT = "therefore thus hence consequently conclusion summary summari answer result total so"
_STRONG_WORDS = tuple(_STRONG_TEXT.split())
_DERIVE_WORDS = ("this", "come", "work", "total", "round")
# Derivation cues: a computed figure, but not necessarily the one asked for.
_DERIVE_CUE_RE = re.compile(
    r"\b(?=[tcwrTCWR])(?:this\s+(?:gives|means|results|represents|amounts)|"
    r"this\s+(?:is|was)\s+an?\s+(?:increase|decrease|change|growth|decline|gain|loss|total|difference|drop|rise)|"
    r"comes?\s+(?:out\s+)?to|works?\s+out\s+to|totals?\s+\$|rounded|rounding|round(?:s|ed)?\s+to)\b",
    re.IGNORECASE,
)
_REFUSAL_RE = re.compile(
    r"\b(?=[ncudiwylfeshagpNCUDIWYLFESHAGP])(?:not\s+(?:explicitly\s+)?(?:provided|stated|available|included|given|mentioned|disclosed|possible)|cannot|can't|can\s+not|"
    r"unable|don't\s+have|do\s+not\s+have|doesn't\s+(?:provide|include|contain)|does\s+not\s+(?:provide|include|contain)|"
    r"no\s+information|if\s+you\s+(?:can\s+)?provide|would\s+need|you\s+would|let\s+me\s+know|for\s+example|e\.g\.|such\s+as|"
    r"hypothetical|assume|assuming|suppose|expects?|guidance|forecast|projected?)\b",
    re.IGNORECASE,
)
_ALT_LINK_RE = re.compile(
    r"^\s*(?:,?\s*or\b|\(|,?\s*i\.e\.,?|,?\s*which\s+is|,?\s*equivalent\s+to|/|,?\s*that\s+is,?)\s*(?:about|approximately|roughly)?\s*[$€£¥]?",
    re.IGNORECASE,
)
_STOP_TEXT = """
what which when where does have been were with from that this than then them they their there
these those into over under about above below based using used provided information statement
statements answer question following primarily details shown response round rounded decimal
places units percents percent millions billions thousands calculate compute company give please
only assume your respond perspective analyst financial metric metrics help basing address
adopting clearly utilizing items line reported year fiscal total the was and for its are has how
did per any all our you who why can not but had
"""
_STOP = frozenset(_STOP_TEXT.split())


_STATED_WORDS = frozenset(
    [
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "totaled",
        "totalled",
        "totals",
        "equals",
        "equal",
        "equaled",
        "reached",
        "of",
        "at",
        "by",
        "to",
        "reported",
        "recorded",
        "generated",
        "earned",
        "paid",
        "spent",
        "had",
        "has",
        "gives",
        "giving",
        "yields",
        "yielding",
        "amounted",
        "amounts",
        "stood",
        "came",
        "=",
    ]
)
_STATED_FILLERS = frozenset(
    [
        "approximately",
        "about",
        "around",
        "roughly",
        "nearly",
        "almost",
        "an",
        "a",
        "the",
        "just",
        "over",
        "under",
        "negative",
        "total",
        "~",
        "**",
        "*",
        ":",
        "-",
        "−",
    ]
)


def _is_stated(text: str, seg_start: int, c: Candidate) -> bool:
    """Is the value introduced as a statement ("... was $5 million", "= 0.66", "a total of 12")?"""
    # The last five words (rsplit stops after them; the rest stays one piece, dropped).
    toks = text[max(seg_start, c.span[0] - 40) : c.span[0]].lower().rsplit(None, 5)[-5:]
    while toks and (toks[-1].strip("*:~(") in _STATED_FILLERS or not toks[-1].strip("*:~($€£¥")):
        toks.pop()
    if not toks:
        return False
    last = toks[-1].strip("*:~(,")
    return last in _STATED_WORDS or toks[-1].endswith(":")


_Segments = tuple[tuple[int, int], ...]


@lru_cache(maxsize=8)
def _segments(text: str) -> _Segments:
    """Sentences of ``text`` as (start, end); the selection and role stages share one split
    (a tuple: the callers read it, none may change the shared copy)."""
    return tuple(_split_segments(text))


def segment_of(text: str, c: Candidate) -> tuple[int, int]:
    """The sentence holding a figure (the whole text when none does)."""
    segs = _segments(text)
    # Sentences are sorted and disjoint: only the last one starting at or before it can hold it.
    i = bisect.bisect_right(segs, c.span[0], key=itemgetter(0)) - 1
    if i >= 0 and c.span[0] < segs[i][1]:
        return segs[i]
    return (0, len(text))


def _split_segments(text: str) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    pos = 0
    for m in _SEG_RE.finditer(text):
        start = m.start(1)
        if start < 0:
            start = m.start()  # a run of newlines
        if start > pos:
            pieces.append((pos, start))
        pos = m.end()
    if pos < len(text):
        pieces.append((pos, len(text)))
    if len(pieces) < 2:
        return pieces  # one sentence: nothing to join
    return _join_pieces(text, pieces)


def _join_pieces(text: str, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces between sentence breaks, each joined to the one before when it continues it
    (one loop, no call per piece: most answers have a handful of sentences)."""
    merged = [pieces[0]]
    prev_start, prev_end = pieces[0]
    for start, end in pieces[1:]:
        if (
            # A lead-in ending with ":" belongs to what follows ("... is:\n\n$1,577 million");
            # most sentences end on their mark, not on one of " *:".
            end - start < 200
            and text[prev_end - 1] in " *:"
            and _ends_with_colon(text, prev_start, prev_end)
        ) or (
            # "10 088 mrd. kroner", "ca. 5", "e.g. the": a sentence does not start in lower case.
            text[start].islower() and text.find("\n", prev_end, start) < 0
        ):
            merged[-1] = (prev_start, end)
        else:
            merged.append((start, end))
            prev_start = start
        prev_end = end
    return merged


def _ends_with_colon(text: str, start: int, end: int) -> bool:
    """``text[start:end].rstrip(" *").endswith(":")`` without copying the sentence."""
    if text[end - 1] not in " *:":
        return False  # most sentences end on their mark
    i = end - 1
    while i >= start and text[i] in " *":
        i -= 1
    return i >= start and text[i] == ":"


def _question_stems(question: str | None) -> frozenset[str]:
    if not question:
        return frozenset()
    words = re.findall(r"[A-Za-z][A-Za-z&'-]{2,}", question[:2000].lower())
    return frozenset(w[:5] for w in words if w not in _STOP and len(w) >= 3)


_BULLET_RE = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")


def _is_change_value(text: str, seg_start: int, c: Candidate) -> bool:
    if _CHANGE_AFTER_RE.match(text, c.span[1]):
        return True  # the anchored test first: it fails at once
    before = text[max(seg_start, c.span[0] - 40) : c.span[0]]
    # No change phrase holds a digit or one of these marks: one ends the text before the figure
    # only after the last of them (the search still sees the text before for its "\b").
    stop = _LAST_STOP_RE.match(before)
    return bool(_CHANGE_BEFORE_RE.search(before, stop.end() if stop else 0))


_LAST_STOP_RE = re.compile(r".*[\d,;:.()%/'\"]", re.DOTALL)


_WORD_RE = re.compile(r"[A-Za-z][A-Za-z&'-]{2,}")


_STRONG_GATE = frozenset(
    [
        "therefore",
        "thus",
        "hence",
        "consequently",
        "conclusion",
        "summary",
        "summarize",
        "summarise",
        "answer",
        "result",
        "total",
        "so",
    ]
)
_REFUSAL_GATE = frozenset(
    [
        "not",
        "cannot",
        "can't",
        "unable",
        "don't",
        "doesn't",
        "information",
        "provide",
        "would",
        "you",
        "let",
        "example",
        "such",
        "hypothetical",
        "assume",
        "assuming",
        "suppose",
        "expect",
        "expects",
        "guidance",
        "forecast",
        "projected",
        "project",
        "e.g",
    ]
)
_DERIVE_GATE = frozenset(
    [
        "this",
        "comes",
        "come",
        "works",
        "work",
        "totals",
        "total",
        "rounded",
        "rounding",
        "round",
        "rounds",
    ]
)
_GATE_TOKENS = _STRONG_GATE | _REFUSAL_GATE | _DERIVE_GATE
# A token of letters, "&", "'", "." and "-" without its trailing dots ("e.g." is "e.g"): the
# tokens the gates compare, read in one pass with no per-token strip.
_TOKEN_RE = re.compile(r"[a-z](?:[a-z&'.-]*[a-z&'-])?")


def _flags_of(seg_text: str) -> set[str]:
    """Which cue families occur in the sentence's text; a token check gates each regex. A
    derivation is looked for only without a strong cue: the score counts it only then."""
    # The gate words among the tokens, found in one pass over the token list (no set of all
    # tokens is built); most sentences hold none.
    toks = _GATE_TOKENS.intersection(_TOKEN_RE.findall(seg_text.lower()))
    flags: set[str] = set()
    if not toks:
        return flags
    if not toks.isdisjoint(_STRONG_GATE) and _STRONG_CUE_RE.search(seg_text):
        flags.add("strong")
    if not toks.isdisjoint(_REFUSAL_GATE) and _REFUSAL_RE.search(seg_text):
        flags.add("refusal")
    if (
        "strong" not in flags
        and not toks.isdisjoint(_DERIVE_GATE)
        and _DERIVE_CUE_RE.search(seg_text)
    ):
        flags.add("derive")
    return flags


def _score_segment(seg_text: str, q_stems: frozenset[str], flags: set[str] | None = None) -> float:
    if flags is None:
        flags = _flags_of(seg_text)
    score = 0.0
    if "strong" in flags:
        score += 3.0
    elif "derive" in flags:
        score += 1.5
    if q_stems:
        words = {w[:5] for w in _WORD_RE.findall(seg_text.lower())}
        score += min(len(words & q_stems), 4) * 0.5
    if "refusal" in flags:
        score -= 3.0
    if "strong" not in flags and _BULLET_RE.match(seg_text):
        score -= 0.5  # a bullet in a list of inputs
    return score


# A word each phrase of _CLAUSE_CUE_RE holds.
_CLAUSE_CUE_TEXT = "so therefore thus hence which giving resulting this total overall"
_CLAUSE_CUE_WORDS = tuple(_CLAUSE_CUE_TEXT.split())
_CLAUSE_CUE_RE = re.compile(
    # Every word branch starts at a word boundary: testing it once, before the branches, rejects
    # the letters inside words without trying each branch (the matches are the same).
    r",\s*so\b|\b(?=[sthwgrio])(?:so\s+(?:the|its|this)\b|therefore\b|thus\b|hence\b|which\s+(?:gives|yields|results\s+in|equals|comes\s+to)|"
    r"giving\b|resulting\s+in\b|this\s+(?:gives|yields|means)\b|in\s+total\b|overall\b)",
    re.IGNORECASE,
)


def _pick_in_segment(
    text: str,
    seg: tuple[int, int],
    cands: list[Candidate],
    q_stems: frozenset[str] = frozenset(),
    q_years: frozenset[str] = frozenset(),
    q_change: bool = False,
    gold_kind: str | None = None,
    promoted: frozenset[int] = frozenset(),
    label_stems: frozenset[str] | None = None,
) -> Candidate | None:
    """The answer among the figures of one sentence: what follows its last "so"/"therefore", a
    result ("= 0.66") first, else the stated value whose clause speaks of what was asked."""
    if len(cands) > 1:  # a single figure is what follows any cue
        cands = _after_last_cue(text, seg, cands)
    results = [c for c in cands if c.role == "result"]
    if results:
        if gold_kind:
            fitting = [c for c in results if _kind(c) in _COMPATIBLE_KINDS[gold_kind]]
            if fitting:
                return fitting[-1]
        return results[-1]
    values = [c for c in cands if c.role in ("value", "range") or id(c) in promoted]
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    if len(values) > 64:  # keep the work linear on pathological sentences
        values = values[:32] + values[-32:]
    return _best_stated_value(text, seg, values, q_stems, q_years, q_change, gold_kind, label_stems)


def _after_last_cue(text: str, seg: tuple[int, int], cands: list[Candidate]) -> list[Candidate]:
    """Within a sentence, what follows the last "so"/"therefore"/"which gives" is the conclusion."""
    cue_pos = -1
    if may_hold(gate_lower(text[seg[0] : seg[1]]), _CLAUSE_CUE_WORDS):
        for m in _CLAUSE_CUE_RE.finditer(text, seg[0], seg[1]):
            cue_pos = m.end()
    if cue_pos >= 0:
        after = [c for c in cands if c.span[0] >= cue_pos]
        if after:
            return after
    return cands


def _best_stated_value(
    text: str,
    seg: tuple[int, int],
    values: list[Candidate],
    q_stems: frozenset[str],
    q_years: frozenset[str],
    q_change: bool,
    gold_kind: str | None,
    label_stems: frozenset[str] | None,
) -> Candidate:
    """Several stated values in one sentence: the one whose clause speaks of what was asked
    ("... in 2022", "a change of ..."), then the first one stated with "is/was/of"."""
    asks_change = bool(q_change)
    best: tuple[float, float, int] | None = None
    hypothetical, clause_words, clause_years, df = _clause_evidence(
        text, seg, values, q_stems, q_years
    )
    # Years only discriminate when some clause names a year other than the question's.
    years_discriminate = len(q_years) == 1 and any(ys and not ys & q_years for ys in clause_years)
    wanted = q_stems if label_stems is None else label_stems
    base: list[float] = []
    for i, c in enumerate(values):
        sc = 0.5 * sum(1.0 / df[w] for w in clause_words[i]) if clause_words[i] else 0.0
        label_sc = _label_score(text, seg, values, i, wanted, df) if wanted else 0.0
        years = clause_years[i]
        if len(q_years) == 1 and years:
            if not years & q_years:
                sc -= 1.0
            elif years_discriminate:
                sc += 1.0
        if hypothetical[i]:
            sc -= 1.0
        if _is_change_value(text, seg[0], c):
            sc += 1.5 if asks_change else -1.5
        if _is_stated(text, seg[0], c):
            sc += 0.25
        # A restatement ("$780 million, or 7.8%") is the same answer in another form: it inherits
        # what the sentence says about the figure it restates; the kind then decides.
        # (The link is read only when the inherited score would raise this one.)
        if i and base[i - 1] > sc and c.span[0] - values[i - 1].span[1] <= 40:
            link = text[values[i - 1].span[1] : c.span[0]]
            lm = _ALT_LINK_RE.match(link)
            if lm and not link[lm.end() :].strip():
                sc = base[i - 1]
        base.append(sc)
        if gold_kind:
            k = _kind(c)
            if k == gold_kind or (gold_kind == "money" and k == "money-unscaled"):
                sc += 0.5
            elif k not in _COMPATIBLE_KINDS[gold_kind]:
                sc -= 0.5
        key = (round(sc, 6), label_sc, -i)
        if best is None or key > best:
            best = key
    assert best is not None
    return values[-best[2]]


def _clause_evidence(
    text: str,
    seg: tuple[int, int],
    values: list[Candidate],
    q_stems: frozenset[str],
    q_years: frozenset[str],
) -> tuple[list[bool], list[set[str]], list[set[str]], dict[str, int]]:
    """Of each value's clause: whether it is hypothetical, the question words and years in it;
    and in how many clauses each question word occurs (a word found in every clause says
    little; in a single one, a lot). Years count only when the question names one year."""
    # Every clause lies in this stretch: when it holds no hypothetical word and the question
    # asks nothing of the clauses, they need not be cut out.
    stretch = text[seg[0] : max(seg[1], max(c.span[1] for c in values))]
    may_hypothesise = may_hold(gate_lower(stretch), _HYPOTHETICAL_WORDS)
    if not (may_hypothesise or q_stems or len(q_years) == 1):
        return [False] * len(values), [set() for _ in values], [set() for _ in values], {}
    bounds = _clause_bounds(text, seg)
    clauses = [_clause_around(text, bounds, c) for c in values]
    hypothetical = [may_hypothesise and bool(_HYPOTHETICAL_RE.search(cl)) for cl in clauses]
    if q_stems:
        clause_words = [{w[:5] for w in _WORD_RE.findall(cl.lower())} & q_stems for cl in clauses]
    else:
        clause_words = [set() for _ in clauses]  # no question words to find
    if len(q_years) == 1:
        clause_years = [set(_YEAR_RE.findall(cl)) for cl in clauses]
    else:
        clause_years = [set() for _ in clauses]
    df: dict[str, int] = {}
    for ws in clause_words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    return hypothetical, clause_words, clause_years, df


def _label_score(
    text: str,
    seg: tuple[int, int],
    values: list[Candidate],
    i: int,
    wanted: frozenset[str],
    df: dict[str, int],
) -> float:
    """Tie-break: how well the label right before the figure ("net income of $99.8 billion")
    names what was asked; the nearest of its last three content words weighs most."""
    if not wanted:
        return 0.0  # no question words: no label can score
    c = values[i]
    # The label runs back to the previous value, not to the previous digit: a year inside
    # it ("operating income for fiscal 2022 was $119.4 billion") is part of the label.
    label_start = max(seg[0], c.span[0] - 60, values[i - 1].span[1] if i else seg[0])
    label = _LABEL_TAIL_RE.search(text, label_start, c.span[0])
    label_sc = 0.0
    if label:
        content = [
            w
            for w in _WORD_RE.findall(label.group(0).lower())
            if w not in _STOP and w not in _STATED_WORDS
        ]
        for weight, w in zip((1.0, 0.75, 0.5), reversed(content[-3:]), strict=False):
            if w[:5] in wanted:
                label_sc += weight / df.get(w[:5], 1)
    # "500M profit on 1.5B revenue": a label right after its figure names it as well
    after = _LABEL_HEAD_RE.match(
        text, c.span[1], values[i + 1].span[0] if i + 1 < len(values) else seg[1]
    )
    if after:
        w = after.group(1).lower()
        if w not in _STOP and w[:5] in wanted:
            label_sc += 1.0 / df.get(w[:5], 1)
    return label_sc


# The word right after a figure, before any mark or digit ("1.5B revenue", "500M in profit").
_LABEL_HEAD_RE = re.compile(r"[^\S\n]+(?:in[^\S\n]+)?([A-Za-z][\w&'-]*)")
# The words between the previous number and this one (its label).
_LABEL_TAIL_RE = re.compile(r"(?:[^\d]|(?<![\d.,])(?:19|20)\d\d(?![\d.,]))+$")
# A word each phrase of _HYPOTHETICAL_RE holds.
_HYPOTHETICAL_WORDS = ("assum", "suppos", "hypothetical", "if", "example", "e.g.", "such", "would")
_HYPOTHETICAL_RE = re.compile(
    r"\b(?=[ashifew])(?:assum\w*|suppos\w*|hypothetical\w*|if\s+(?:we|you|the|it|payables|revenue)|for\s+example|e\.g\.|such\s+as|would\s+be)\b",
    re.IGNORECASE,
)
# Starts with the class of its first character, which the engine scans for in C; the
# lookbehinds then tell a comma's break from a word's.
_CLAUSE_SPLIT_RE = re.compile(
    r"[,;\s](?:(?<=[,;])\s|(?<=\s)(?:and|while|whereas|but|compared|og|mens|och|medan|und|während)\s)",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")
# Searched backwards over the 40 characters before a figure: the gate lets a word start fail on
# one character test before the branches are tried (the class ignores case as the words do).
_CHANGE_BEFORE_RE = re.compile(
    r"\b(?=[cdefgijrsuv])(?:change|increase|decrease|difference|decline|growth|rise|drop|fall|gain|up|down|grew|rose|fell|"
    r"increased|decreased|declined|dropped|improved|expanded|contracted|reduction|reduced|cut|jump|jumped|"
    r"surged?|climbed|slipped|variance)"
    r"(?:\s+(?:of|by|approximately|about|around|roughly|nearly|some|an?|the|just|only))*\s*[$€£¥]?\s*[-−]?\s*$",
    re.IGNORECASE,
)
_CHANGE_AFTER_RE = re.compile(
    r"\s*(?:\)\s*)?(?:year[- ]over[- ]year\s+|yoy\s+)?(?=[idgrjfhl])"
    r"(?:increase|decrease|decline|growth|rise|drop|gain|jump|fall|reduction|higher|lower)\b",
    re.IGNORECASE,
)
Q_YEAR_RE = re.compile(
    r"\b(?:which|what)\s+(?:fiscal\s+|calendar\s+)?years?\b|\bwhen\b|\byears?\s+(?:in\s+which|when)\b",
    re.IGNORECASE,
)
COMPARED_YEAR_RE = re.compile(
    r"\b(?:than|from|compared\s+(?:to|with)|vs\.?|versus|over|since|prior|previous)\s+(?:in\s+)?(?:fy\s*)?$",
    re.IGNORECASE,
)
Q_CHANGE_RE = re.compile(
    r"\b(?:change|changed|increase|decrease|difference|decline|growth|grow|grew|rise|drop|fall|by\s+how\s+much|"
    r"increased|decreased|declined|variance|cagr)\b",
    re.IGNORECASE,
)


def _clause_bounds(text: str, seg: tuple[int, int]) -> list[int]:
    bounds = [seg[0]]
    for m in _CLAUSE_SPLIT_RE.finditer(text, seg[0], seg[1]):
        bounds.append(m.end())
    bounds.append(seg[1])
    return bounds


# A clause reaches at most this far either side of its figure: beyond, it is not one clause
# but run-on text, and reading all of it for every figure would make the work quadratic.
CLAUSE_REACH = 300


def _clause_around(text: str, bounds: list[int], c: Candidate) -> str:
    i = max(0, bisect.bisect_right(bounds, c.span[0]) - 1)
    end = bounds[i + 1] if i + 1 < len(bounds) else bounds[-1]
    start = max(bounds[i], c.span[0] - CLAUSE_REACH)
    return text[start : min(max(end, c.span[1]), c.span[1] + CLAUSE_REACH)]


_COMPATIBLE_KINDS = {
    "money": frozenset({"money", "money-unscaled", "plain"}),
    "percent": frozenset({"percent", "plain"}),
    "plain": frozenset({"plain", "percent", "money-unscaled"}),
}


def _kind(c: Candidate) -> str:
    if c.percent:
        return "percent"
    if c.scale_word:
        return "money"
    if c.currency:
        return "money-unscaled" if c.value < 1e5 else "money"
    return "plain"


def _restates(a: Candidate, b: Candidate) -> bool:
    """Is ``b`` the same figure as ``a`` in another form ("0.66 or 66%", "$0.389 billion ($389 million)")?"""
    # "$(4,625) million, which is $4.625 billion": the sign of an accounting line is not restated.
    diff = abs(abs(a.value) - abs(b.value))
    return diff <= 0.02 * max(abs(a.value), abs(b.value)) or diff < 0.5 * max(a.ulp, b.ulp)


_YEAR_CLAUSE_AFTER_RE = re.compile(r"[^.;,\n]{0,30}")


def _promoted_comparisons(
    text: str, cands: list[Candidate], q_years: frozenset[str], question: str | None
) -> frozenset[int]:
    """Comparison figures tied to the question's year ("21.3% in 2019, compared to 23.1% in 2018"
    asked about 2018): the figure asked for, even though the sentence states it as the reference."""
    if len(q_years) != 1 or not question or Q_YEAR_RE.search(question[:2000]):
        return frozenset()
    out = set()
    for c in cands:
        if c.role != "comparison":
            continue
        # The year that follows in the same clause ("compared to 23.1% in 2018").
        after = _YEAR_CLAUSE_AFTER_RE.match(text, c.span[1])
        years = set(_YEAR_RE.findall(after.group(0))) if after else set()
        if years and years <= q_years:
            out.add(id(c))
    return frozenset(out)


def select_concluding(
    text: str,
    cands: list[Candidate],
    question: str | None,
    allow_roles: set[str],
    gold_kind: str | None = None,
) -> tuple[Candidate | None, list[Candidate], str]:
    """The figure stated as the answer, its restatements ("0.66 or 66%"), and why it was chosen.

    ``gold_kind`` ("money", "percent", "plain") prefers sentences stating a figure of the same kind
    as the expected answer: a payout ratio is not the dollar amount next to it.
    """
    primary, alts, how, _seg = conclude(text, cands, question, allow_roles, gold_kind)
    return primary, alts, how


def conclude(
    text: str,
    cands: list[Candidate],
    question: str | None,
    allow_roles: set[str],
    gold_kind: str | None = None,
) -> tuple[Candidate | None, list[Candidate], str, tuple[int, int]]:
    """:func:`select_concluding`, with the sentence it read (``(0, 0)`` when none)."""
    q_years = frozenset(_YEAR_RE.findall(question[:2000])) if question else frozenset()
    promoted = _promoted_comparisons(text, cands, q_years, question) if q_years else frozenset()
    ok_roles = STATED_ROLES | allow_roles if allow_roles else STATED_ROLES
    if promoted:
        eligible = [c for c in cands if c.role in ok_roles or id(c) in promoted]
    else:
        eligible = [c for c in cands if c.role in ok_roles]
    if not eligible:
        return None, [], "no stated value (only operands, comparisons, years or references)", (0, 0)
    segs = _segments(text)
    q_stems = _question_stems(question)
    by_seg = _group_by_segment(eligible, segs)
    q_change = bool(question and Q_CHANGE_RE.search(question[:2000]))
    if len(by_seg) == 1:
        idx = next(iter(by_seg))  # one sentence states figures: no ranking to do
    else:
        cues = _QuestionCues(question, q_stems, q_years, q_change, gold_kind)
        idx = _best_segment(text, segs, by_seg, cues)
    seg = segs[idx] if idx < len(segs) else (0, len(text))
    group = by_seg[idx]
    # What the question asks about, without its parenthesised definition or unit.
    label_stems = _question_stems(Q_PAREN_RE.sub(" ", question[:2000])) if question else q_stems
    if len(group) == 1:
        primary = group[0]  # whatever its role, the sentence's one figure is the pick
    else:
        primary = (
            _pick_in_segment(
                text, seg, group, q_stems, q_years, q_change, gold_kind, promoted, label_stems
            )
            or group[0]
        )
    primary, pos = _restatement_in_asked_kind(text, cands, primary, gold_kind)
    alts = _restatements(text, cands, primary, pos)
    return primary, alts, f'the concluding figure, in "{_snippet(text, seg)}"', seg


def _snippet(text: str, seg: tuple[int, int]) -> str:
    """The sentence with each run of white space one space, cut to 120 characters. A long one
    is read only as far as needed: the words of a prefix are a prefix of the sentence's words."""
    start, end = seg
    if end - start > 480:
        head = " ".join(text[start : start + 480].split())
        if len(head) > 120:
            return head[:117] + "..."
    snippet = text[start:end]
    if not _single_spaced(snippet):
        snippet = " ".join(snippet.split())
    if len(snippet) > 120:
        snippet = snippet[:117] + "..."
    return snippet


def _single_spaced(s: str) -> bool:
    """Is ``" ".join(s.split()) == s``? Every white-space character but the space is not
    printable, so a printable text is already joined when no space leads, ends or doubles
    (most sentences: no word list is built and joined)."""
    return s.isprintable() and "  " not in s and s[:1] != " " and s[-1:] != " "


def _best_segment(
    text: str,
    segs: _Segments,
    by_seg: dict[int, list[Candidate]],
    cues: _QuestionCues,
) -> int:
    """The index of the sentence that reads most as the answer; the last one wins ties and
    gets a bonus, as does the first when several sentences state figures.

    Sentences are read from the last: one whose figures leave it no chance to beat a later
    sentence, even with every cue of its text, is not read (the scores are sums of halves,
    exact in any order, so the pick is the same)."""
    last_idx, first_idx = max(by_seg), min(by_seg)
    text_most = _text_score_most(cues)
    low = gate_lower(text)  # for the cue bound
    best_sc = 0.0
    best_idx = -1
    for idx in sorted(by_seg, reverse=True):
        group = by_seg[idx]
        sc = _figures_score(group, cues)
        if idx == last_idx:
            sc += 1.5
        if idx == first_idx and len(by_seg) > 1:
            sc += 0.5
        if best_idx >= 0 and sc + text_most <= best_sc:
            continue  # an earlier sentence wins only with a higher score
        seg = segs[idx] if idx < len(segs) else (0, len(text))
        stated: bool | None = None
        if best_idx >= 0:
            most = sc + text_most - 3.0 + _cue_most(low, seg)
            if most <= best_sc:
                continue  # nor without the words a conclusion cue needs
            # Nor without a figure stated ("is $5 million"): its point is read before the words.
            stated = _any_stated(text, seg[0], group)
            if not stated and most - 1.0 <= best_sc:
                continue
        sc += _text_score(text, seg, group, cues, stated)
        if best_idx < 0 or sc > best_sc:
            best_sc, best_idx = sc, idx
    return best_idx


class _QuestionCues(NamedTuple):
    """What the question tells the sentence scorer: its words, years, whether it asks a change
    (a named tuple: built for every answer of several sentences, cheaper than a dataclass)."""

    question: str | None
    q_stems: frozenset[str]
    q_years: frozenset[str]
    q_change: bool
    gold_kind: str | None


def _group_by_segment(eligible: list[Candidate], segs: _Segments) -> dict[int, list[Candidate]]:
    """The eligible figures of each sentence, keyed by the sentence's index."""
    if len(segs) <= 1:
        return {0: eligible}  # one sentence (or none: the whole text) holds them all
    by_seg: dict[int, list[Candidate]] = {}
    si = 0
    last = len(segs) - 1
    for c in eligible:
        while si < last and c.span[0] >= segs[si][1]:
            si += 1
        by_seg.setdefault(si, []).append(c)
    return by_seg


def _figures_score(group: list[Candidate], cues: _QuestionCues) -> float:
    """What a sentence's figures say of it: one of the expected kind, a result."""
    sc = 0.0
    gold_kind = cues.gold_kind
    if gold_kind:
        compatible = _COMPATIBLE_KINDS[gold_kind]
        same = fits = False
        for c in group:
            k = _kind(c)
            if k == gold_kind or (gold_kind == "money" and k == "money-unscaled"):
                same = True
                break
            fits = fits or k in compatible
        if same:
            sc += 1.0
        elif not fits:
            sc -= 1.0
    for c in group:
        if c.role == "result":
            sc += 2.0
            break
    return sc


def _any_stated(text: str, seg_start: int, group: list[Candidate]) -> bool:
    """Does the sentence state one of its figures ("is $5 million")?"""
    return any(_is_stated(text, seg_start, c) for c in group)


def _text_score(
    text: str,
    seg: tuple[int, int],
    group: list[Candidate],
    cues: _QuestionCues,
    stated: bool | None = None,
) -> float:
    """What a sentence's words say of it: conclusion cues, the question's words and year, a
    figure stated ("is $5 million", ``stated`` when already read); refusals, asides and changes
    not asked for count against."""
    seg_text = text[seg[0] : seg[1]]
    sc = _score_segment(seg_text, cues.q_stems, _flags_of(seg_text))
    if cues.question and all(_is_change_value(text, seg[0], c) for c in group):
        # Only changes stated here ("an increase of 5%"): the answer when a change was asked.
        sc += 1.0 if cues.q_change else -2.0
    if len(cues.q_years) == 1:
        years = set(_YEAR_RE.findall(seg_text))
        if years:
            sc += 1.0 if years & cues.q_years else -0.5
    if _any_stated(text, seg[0], group) if stated is None else stated:
        sc += 1.0
    return sc


def _cue_most(low: str | None, seg: tuple[int, int]) -> float:
    """The most the conclusion cues can add to a sentence's score: 3 for a strong cue, 1.5 for
    a derivation, nothing when the sentence holds no word either kind of cue needs. ``low`` is
    the answer from :func:`gate_lower` (None: no gate)."""
    if low is None:
        return 3.0
    part = low[seg[0] : seg[1]]
    if may_hold(part, _STRONG_WORDS):
        return 3.0
    if may_hold(part, _DERIVE_WORDS):
        return 1.5
    return 0.0


def _text_score_most(cues: _QuestionCues) -> float:
    """The highest :func:`_text_score` any sentence can reach with these question cues."""
    most = 3.0 + min(len(cues.q_stems), 4) * 0.5 + 1.0  # a strong cue, question words, stated
    if cues.question and cues.q_change:
        most += 1.0
    if len(cues.q_years) == 1:
        most += 1.0
    return most


def _restatement_in_asked_kind(
    text: str, cands: list[Candidate], primary: Candidate, gold_kind: str | None
) -> tuple[Candidate, int]:
    """ "$612 million (25%)" asked as a percentage: the restatement in the asked kind answers.
    Returns the figure and its index in ``cands`` (-1 when not found)."""
    pos = _index_of(cands, primary)
    if (
        gold_kind
        and 0 <= pos < len(cands) - 1
        and _kind(primary) not in _COMPATIBLE_KINDS[gold_kind]
    ):
        nxt = cands[pos + 1]
        link = text[primary.span[1] : nxt.span[0]]
        lm = _ALT_LINK_RE.match(link)
        if (
            nxt.role in ("value", "result", "aside")
            and _kind(nxt) == gold_kind
            and len(link) <= 40
            and (
                (lm is not None and not link[lm.end() :].strip())
                or (not link.strip() and nxt.raw.startswith("("))
            )
        ):
            return nxt, pos + 1
    return primary, pos


def _index_of(cands: list[Candidate], c: Candidate) -> int:
    """Where ``c`` is in ``cands`` (-1 when absent). Candidates compare by identity
    (``eq=False``), so ``list.index`` finds this very figure."""
    try:
        return cands.index(c)
    except ValueError:
        return -1


def _restatements(
    text: str, cands: list[Candidate], primary: Candidate, pos: int
) -> list[Candidate]:
    """The figures right after the answer that restate it ("0.66, or 66%", "$1.5B (1,500 million)")."""
    alts = []
    while 0 <= pos < len(cands) - 1:
        nxt = cands[pos + 1]
        link = text[cands[pos].span[1] : nxt.span[0]]
        if (
            len(link) <= 40
            and _ALT_LINK_RE.match(link)
            and not nxt.ignored
            and _restates(primary, nxt)
        ):
            alts.append(nxt)
            pos += 1
        else:
            break
    return alts


# A year also when glued to "FY" ("FY2022").
_ANY_YEAR_RE = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_CAT_YEAR_RE = re.compile(r"(?i)\b(?:fiscal\s+(?:year\s+)?|fy\s*'?|cy\s*)?(?:19|20)\d\d\b|\bfy\b")
# Between a figure and a label that names it afterwards: "$1,036.5 million for AMS".
# "$1,036.5 million for AMS", "1.5B revenue": a label right after its figure (bare, or after a preposition).
_LABEL_AFTER_RE = re.compile(r"[^\S\n]*(?:(?:for|in|at|from)\s+(?:the\s+|its\s+)?)?", re.IGNORECASE)
# "sales of $18 billion", "revenue was $5 million": the figure right after the label is its own.
_STATED_LINK_RE = re.compile(
    r"\s*(?:of|was|were|is|are|:|=|totall?ed|reached|came\s+to|at)?\s*(?:about\s+|approximately\s+)?"
    r"[$€£¥]?\s*",
    re.IGNORECASE,
)
_GAP_SPLIT_RE = re.compile(r"[,;]|\b(?:and|while|whereas|but|og|und|och|et)\b", re.IGNORECASE)
# Words that name a change, for a category such as "change in total debt".
_CHANGE_STEMS = frozenset(
    {"chang", "incre", "decre", "decli", "growt", "rise", "drop", "fall", "reduc"}
)


def _years_near(text: str, eligible: list[Candidate], i: int, seg: tuple[int, int]) -> set[str]:
    """Years written in a figure's own stretch of text: "$1,480 million in 2022"."""
    c = eligible[i]
    lo = max(seg[0], c.span[0] - 30, eligible[i - 1].span[1] if i else seg[0])
    hi = min(seg[1], c.span[1] + 30)
    if i + 1 < len(eligible):
        hi = min(hi, eligible[i + 1].span[0])
    if i and lo == eligible[i - 1].span[1]:
        lo = _gap_split(text, lo, c.span[0])
    if i + 1 < len(eligible) and hi == eligible[i + 1].span[0]:
        hi = _gap_split(text, c.span[1], hi)
    return set(_ANY_YEAR_RE.findall(text[lo : c.span[0]] + " " + text[c.span[1] : hi]))


def _figure_of_year(
    text: str,
    eligible: list[Candidate],
    pick: Candidate,
    seg: tuple[int, int],
    years: frozenset[str],
    memo: dict[tuple[int, int], Candidate | None] | None = None,
) -> Candidate:
    """Among the figures of the sentence, the one written with the category's year
    ("Capex was $1,210 million in 2021 and $1,480 million in 2022" for "2022 capex").
    ``memo`` keeps, per sentence, the one figure written with the year (None: not one)."""
    if len(eligible) > 2000:
        return pick
    i = _index_of(eligible, pick)
    if i < 0:
        return pick
    if _years_near(text, eligible, i, seg) & years:
        return pick
    if memo is not None and seg in memo:
        only = memo[seg]
    else:
        same = [
            c
            for j, c in enumerate(eligible)
            if seg[0] <= c.span[0] < seg[1] and _years_near(text, eligible, j, seg) & years
        ]
        only = same[0] if len(same) == 1 else None
        if memo is not None:
            memo[seg] = only
    return pick if only is None else only


def _gap_split(text: str, lo: int, hi: int) -> int:
    """Where the text between two figures stops describing the first and starts the second."""
    last = None
    for m in _GAP_SPLIT_RE.finditer(text, lo, hi):
        last = m
    return last.start() if last else lo


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _WORD_RE.findall(text.lower()) if w not in _STOP or w == "total"}


def _select_by_label_words(
    text: str,
    eligible: list[Candidate],
    key: str,
    cat_years: frozenset[str],
    category: str,
) -> tuple[Candidate | None, str]:
    """The category's phrase is not written: the figure whose label words (between it and its
    neighbours) share most of the category's words ("a 36.5% margin on services" for
    "services gross margin")."""
    wanted = _stems(key)
    if not wanted or len(eligible) > 400:
        return None, ""
    need = max(1, (len(wanted) + 1) // 2)
    segs = _segments(text)
    seg_starts = [sg[0] for sg in segs]
    best: tuple[int, float, int] | None = None
    pick: Candidate | None = None
    seg_scores: dict[int, float] = {}  # each sentence is scored once
    for i, c in enumerate(eligible):
        si = max(0, bisect.bisect_right(seg_starts, c.span[0]) - 1)
        seg = segs[si] if segs else (0, len(text))
        lo = max(seg[0], c.span[0] - 80, eligible[i - 1].span[1] if i else 0)
        hi = min(seg[1], c.span[1] + 60)
        if i + 1 < len(eligible):
            hi = min(hi, eligible[i + 1].span[0])
        # A gap shared with a neighbour splits at its last connector: "a 36.5% margin on
        # products | and a 70.8% margin on services".
        if i and lo == eligible[i - 1].span[1]:
            lo = _gap_split(text, lo, c.span[0])
        if i + 1 < len(eligible) and hi == eligible[i + 1].span[0]:
            hi = _gap_split(text, c.span[1], hi)
        words = _stems(text[lo : c.span[0]]) | _stems(text[c.span[1] : hi])
        if "chang" in wanted and words & _CHANGE_STEMS:
            words.add("chang")
        score = len(words & wanted)
        if score < need or (best is not None and score < best[0]):
            continue  # fewer shared words never win: the sentence need not be scored
        year_sc = 0.0
        if cat_years:
            years = set(_ANY_YEAR_RE.findall(text[seg[0] : seg[1]]))
            year_sc = 1.0 if years & cat_years else (-1.0 if years else 0.0)
        if si not in seg_scores:
            seg_scores[si] = _score_segment(text[seg[0] : seg[1]], frozenset())
        key_t = (score, year_sc + seg_scores[si], c.span[0])
        if best is None or key_t > best:
            best, pick = key_t, c
    if pick is None:
        return None, ""
    return pick, f"the value whose label shares the words of category {category!r}"


@lru_cache(maxsize=256)
def _category_phrases(category: str) -> tuple[str, ...]:
    """The phrases that name a category in prose, longest first."""
    key = category.strip().lower().replace("_", " ")
    phrases = list(CATEGORY_SYNONYMS.get(key, []))
    if not phrases:
        # Not a table key: the phrase itself, or the group it belongs to when it is a synonym
        # ("profit" -> net income group); select_category tries the exact phrase first.
        for k, syns in CATEGORY_SYNONYMS.items():
            if key in syns:
                phrases.extend([k, *syns])
    if key not in phrases:
        phrases.append(key)
    return tuple(sorted({p for p in phrases if p}, key=len, reverse=True))


@lru_cache(maxsize=256)
def _category_regex(category: str) -> re.Pattern[str]:
    phrases = _category_phrases(category)
    return re.compile(
        r"(?<![\w])(?:" + "|".join(re.escape(p) for p in phrases) + r")(?![\w])", re.IGNORECASE
    )


@lru_cache(maxsize=256)
def _exact_regex(key: str) -> re.Pattern[str]:
    """The category key as written, a whole word (cached per key, as _category_regex)."""
    return re.compile(r"(?<![\w])" + re.escape(key) + r"(?![\w])", re.IGNORECASE)


@lru_cache(maxsize=256)
def _gate_words(phrases: tuple[str, ...]) -> tuple[str, ...] | None:
    """The phrases lower-cased for :func:`_case_blind_hits`'s gate; None when one is empty (it
    matches anywhere) or not ASCII (cached per category's phrases)."""
    if not all(p and p.isascii() for p in phrases):
        return None
    return tuple(p.lower() for p in phrases)


def _case_blind_hits(
    pattern: re.Pattern[str], text: str, low: str | None, phrases: tuple[str, ...]
) -> list[re.Match[str]]:
    """``list(pattern.finditer(text))`` for a case-blind pattern of these phrases, tried only
    where the lower-cased text (``low``, from :func:`gate_lower`) shows one of them: no match
    can start elsewhere, and a match tried at a place is the one the scan finds there."""
    words = _gate_words(phrases)
    if low is None or len(low) != len(text) or words is None:
        return list(pattern.finditer(text))
    hits: list[re.Match[str]] = []
    pos = 0
    while True:
        at = -1  # the first place where a phrase shows (a loop: no generator per step)
        for w in words:
            i = low.find(w, pos)
            if i >= 0 and (at < 0 or i < at):
                at = i
        if at < 0:
            return hits
        m = pattern.match(text, at)
        if m is None:
            pos = at + 1
        else:
            hits.append(m)
            pos = m.end()


def select_category(
    text: str,
    cands: list[Candidate],
    category: str,
    question: str | None,
) -> tuple[Candidate | None, str]:
    """The figure the answer ties to ``category`` ("net income") and why; ``(None, "")`` when none."""
    key = category.strip().lower().replace("_", " ")
    # A year in the category ("FY2022 effective tax rate") selects among the metric's figures.
    cat_years = frozenset(_ANY_YEAR_RE.findall(key))
    if cat_years:
        key = " ".join(_CAT_YEAR_RE.sub(" ", key).split()) or key
    hits: list[re.Match[str]] = []
    low = gate_lower(text)  # guides the case-blind searches of the whole answer
    if key not in CATEGORY_SYNONYMS:
        hits = _case_blind_hits(_exact_regex(key), text, low, (key,))
    if not hits:
        hits = _case_blind_hits(_category_regex(key), text, low, _category_phrases(key))
    eligible = [c for c in cands if c.role in STATED_ROLES]
    if not eligible:
        return None, ""
    if not hits:
        return _select_by_label_words(text, eligible, key, cat_years, category)
    hits = hits[:200]
    segs = _segments(text)
    seg_starts = [sg[0] for sg in segs]
    starts = [c.span[0] for c in eligible]
    q_stems = _question_stems(question)
    best: tuple[float, int, Candidate, str] | None = None
    seg_scores: dict[int, float] = {}
    of_year: dict[tuple[int, int], Candidate | None] = {}  # _figure_of_year's reading per sentence
    for m in hits:
        si = max(0, bisect.bisect_right(seg_starts, m.start()) - 1)
        seg = segs[si] if segs else (0, len(text))
        # The value tied to the phrase: the first stated value after it in the same sentence
        # (no ";" and not too far); otherwise the nearest one just before it.
        pick = None
        j = bisect.bisect_left(starts, m.end())
        stated_after = j < len(eligible) and _STATED_LINK_RE.fullmatch(
            text, m.end(), eligible[j].span[0]
        )
        if (
            not stated_after
            and j > 0
            and _LABEL_AFTER_RE.fullmatch(text, eligible[j - 1].span[1], m.start())
        ):
            pick = eligible[j - 1]  # "$1,036.5 million for AMS": the label follows its figure
        elif j < len(eligible) and eligible[j].span[0] < seg[1]:
            between = text[m.end() : eligible[j].span[0]]
            if ";" not in between and len(between) <= 150:
                pick = eligible[j]
        if pick is None and j > 0:
            prev = eligible[j - 1]
            if seg[0] <= prev.span[0] and m.start() - prev.span[1] < 60:
                pick = prev
        if pick is None:
            continue
        if cat_years:
            pick = _figure_of_year(text, eligible, pick, seg, cat_years, of_year)
        if si not in seg_scores:
            seg_text = text[seg[0] : seg[1]]  # one copy of the sentence for its three readings
            sc = _score_segment(seg_text, q_stems, _flags_of(seg_text))
            if cat_years:
                years = set(_ANY_YEAR_RE.findall(seg_text))
                sc += 2.0 if years & cat_years else (-2.0 if years else 0.0)
            seg_scores[si] = sc
        sc = seg_scores[si]
        dist = abs(pick.span[0] - m.end())
        rank = (sc - dist / 200.0, seg[0])
        if best is None or rank > (best[0], best[1]):
            best = (rank[0], rank[1], pick, m.group(0))
    if best is None:
        return None, ""
    return best[2], f'the value tied to "{best[3]}" (category {category!r})'
