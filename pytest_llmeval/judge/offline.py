"""The offline judge: claims by sentence/clause segmentation, matching by embeddings,
number agreement, direction/negation polarity and word overlap. Deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from pytest_llmeval.errors import MissingExtraError
from pytest_llmeval.judge.matching import ClaimLink, Matching

# Two claims are close enough to match when (1 - LEXICAL_WEIGHT) * cosine + LEXICAL_WEIGHT *
# idf-weighted word overlap (+ NUMBER_BONUS) reaches MATCH_THRESHOLD; they then match if
# they are each other's best match or one covers COVERAGE_MATCH of the other's wording.
# Values are for the bundled all-MiniLM-L6-v2 (see judge_note.md).
MATCH_THRESHOLD = 0.55
FUZZY_MATCH_THRESHOLD = 0.6  # token_set_ratio / 100 stands in for the cosine without embeddings
COVERAGE_MATCH = 0.75
LEXICAL_WEIGHT = 0.5
NUMBER_BONUS = 0.1  # agreeing numbers are strong evidence two claims state the same fact
NUMBERS_ONLY_MATCH = (
    0.9  # closeness of an all-numbers claim ("$5409.00") to one stating its numbers
)

_ABBREVIATIONS_WORDS = """
inc corp co ltd llc plc mr mrs ms dr st vs etc e.g i.e no approx jan feb mar apr jun jul aug
sep sept oct nov dec fig u.s u.k est avg mln bn yr fy
"""
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_WORDS.split())
_BOUNDARY_RE = re.compile(r"([.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9$])")
_BULLET_RE = re.compile(r"^\s*(?:[-*\u2022\u25cf]+|\d{1,2}[.)]|[a-z][.)]|#+)\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; list items and lines are sentences of their own."""
    sentences: list[str] = []
    for raw_line in text.splitlines():
        line = _BULLET_RE.sub("", raw_line).strip()
        if not line:
            continue
        start = 0
        for m in _BOUNDARY_RE.finditer(line):
            before = line[start : m.start()].rsplit(None, 1)
            word = before[-1].lower().rstrip(".") if before else ""
            # "U.S." / "Inc." / "3.5" / single initials do not end a sentence
            if (
                word in _ABBREVIATIONS
                or re.fullmatch(r"[a-z]", word)
                or re.fullmatch(r"(?:[a-z]\.)+[a-z]", word)
            ):
                continue
            sentences.append(line[start : m.start() + 1].strip())
            start = m.end()
        tail = line[start:].strip()
        if tail:
            sentences.append(tail)
    return [s for s in sentences if re.search(r"\w", s)]


_PAREN_RE = re.compile(r"\s*\(([^()]{12,})\)")
_CLAUSE_RE = re.compile(r"\s*;\s*|,\s+(?=(?:while|whereas|but|although)\s)", re.I)
_AND_CLAUSE_RE = re.compile(
    r",\s+(?=(?:and|or)\s+\S+\s+\S+)", re.I
)  # a clause, not a last list item
_LEADING_CONJ_RE = re.compile(r"^(?:and|or|but|while|whereas|although|i\.e\.,?|e\.g\.,?)\s+", re.I)
_RELATIVE_RE = re.compile(
    r"^(?P<subj>.{3,80}?\s(?:is|are|was|were)\s(?P<np>(?:an?|the)?\s?[\w-]+(?:\s[\w-]+){0,3}))\s(?:that|which)\s(?P<rest>.{8,})$",
    re.I,
)
_ITEM_MAX_WORDS = 3


def _expand_enumeration(clause: str) -> list[str]:
    """'sets the amounts, prices and dates of sales' -> one clause per item.

    Only lists of 3+ short items without digits are expanded: longer comma runs are
    usually separate clauses, and numbers in lists belong to their item.
    """
    parts = [p.strip() for p in clause.split(",")]
    if len(parts) < 2:
        return [clause]
    last = parts[-1]
    conj = (
        re.match(r"^(?:(?:and|or)\s+)?(.*?)\s+(and|or)\s+(.*)$", last)
        if not re.match(r"^(and|or)\s", last)
        else None
    )
    if conj is not None:  # "... prices and dates of sales"
        penultimate, final_rest = conj.group(1), conj.group(3)
        middle = [*parts[1:-1], penultimate]
    else:  # Oxford comma: "... prices, and dates of sales"
        m = re.match(r"^(?:and|or)\s+(.*)$", last)
        if m is None or len(parts) < 3:
            return [clause]
        middle, final_rest = parts[1:-1], m.group(1)
    if not middle:
        return [clause]
    width = len(middle[0].split())
    if width > _ITEM_MAX_WORDS or any(len(item.split()) != width for item in middle):
        return [clause]
    head_words, rest_words = parts[0].split(), final_rest.split()
    if len(head_words) <= width or len(rest_words) < width:
        return [clause]
    items = [" ".join(head_words[-width:]), *middle, " ".join(rest_words[:width])]
    if len(items) < 3 or any(re.search(r"\d|\$|%", item) for item in items):
        return [clause]
    prefix, suffix = " ".join(head_words[:-width]), " ".join(rest_words[width:])
    return [" ".join(x for x in (prefix, item, suffix) if x) for item in items]


def _split_relative(clause: str) -> list[str]:
    """'X are written documents that preestablish Y' -> 'X are written documents', 'X preestablish Y'."""
    rel = _RELATIVE_RE.match(clause)
    if rel is None:
        return [clause]
    subject = rel.group("subj").rsplit(" ", len(rel.group("np").split()) + 1)[0]
    return [rel.group("subj"), f"{subject} {rel.group('rest')}"]


def split_claims(text: str) -> list[str]:
    """Offline claims: sentences, split at clause boundaries, parentheticals and enumerations."""
    claims: list[str] = []
    for sentence in split_sentences(text):
        sentence = sentence.rstrip(" .!?")
        if sentence.endswith(":"):  # "Here are the key points:" introduces, it does not claim
            continue
        asides = [a.strip() for a in _PAREN_RE.findall(sentence)]
        main = _PAREN_RE.sub("", sentence)
        for clause in _CLAUSE_RE.split(main):
            clause = _LEADING_CONJ_RE.sub("", clause.strip(" ,"))
            if not clause:
                continue
            for piece in _split_relative(clause):
                # ", and" ends a list ("amounts, prices, and dates") or joins two clauses
                items = _expand_enumeration(piece)
                if len(items) > 1:
                    claims.extend(items)
                    continue
                for part in _AND_CLAUSE_RE.split(piece):
                    part = _LEADING_CONJ_RE.sub("", part.strip(" ,"))
                    if part:
                        claims.extend(_expand_enumeration(part))
        claims.extend(_LEADING_CONJ_RE.sub("", a) for a in asides)
    return [c for c in (" ".join(c.split()) for c in claims) if len(_content_words(c)) >= 1]


_STOPWORDS_WORDS = """
a an the of to in on at for by with from as is are was were be been being it its this that
these those and or but if then than so such which who whom whose what when where while also
has have had do does did will would can could may might shall should must their there they
them he she his her we our you your i me my into over under about per each any all some more
most other
"""
_STOPWORDS = frozenset(_STOPWORDS_WORDS.split())
_WORD_RE = re.compile(r"[a-z0-9$%][a-z0-9$%.\-']*", re.I)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _content_words(text: str) -> set[str]:
    words = (w.strip(".'-").lower() for w in _WORD_RE.findall(text))
    return {_stem(w) for w in words if w and w not in _STOPWORDS}


_UP_WORDS = """
increase increased increases increasing rose rise rises rising grew grow grows growing
growth higher up gain gained gains improve improved improvement expand expanded expansion
climbed surged jumped
"""
_UP = frozenset(_UP_WORDS.split())
_DOWN_WORDS = """
decrease decreased decreases decreasing fell fall falls falling declined decline declines
declining dropped drop drops lower down loss reduced reduce reduction shrank shrink
contracted contraction worsened slid plunged
"""
_DOWN = frozenset(_DOWN_WORDS.split())
_NEGATIONS = frozenset(["not", "no", "never", "none", "neither", "nor", "without", "cannot", "n't"])


def direction(text: str) -> int:
    """+1 for increase words, -1 for decrease words, 0 for none or both."""
    words = {w.lower() for w in re.findall(r"[A-Za-z']+", text)}
    up, down = bool(words & _UP), bool(words & _DOWN)
    return 0 if up == down else (1 if up else -1)


def negated(text: str) -> bool:
    lowered = text.lower().replace("n't", " n't")
    return any(w in _NEGATIONS for w in re.findall(r"[a-z']+", lowered))


def _numeric_engine(
    question: str | None = None,
) -> tuple[Callable[[str], list[Any]], Callable[[Any, Any], bool]]:
    try:
        from pytest_llmeval.metrics.numeric.match import extract_values, values_agree
    except ImportError:  # the numeric engine is optional while it is being built
        return _simple_values, _simple_agree

    def values(text: str) -> list[Any]:
        # identifiers such as "Rule 10b5-1" or "3M" name things; they are not amounts
        found = extract_values(text, question=question) if question else extract_values(text)
        return [c for c in found if getattr(c, "role", "value") != "name"]

    def agree(a: Any, b: Any) -> bool:
        if a.percent != b.percent:
            return False
        if values_agree(a.value, b.value):
            return True
        # "$5409.00" (the question says "in USD millions") vs "$5,409 million": a bare
        # number agrees with the same digits at any stated scale
        return (a.scale_word is None) != (b.scale_word is None) and bool(
            values_agree(a.number, b.number)
        )

    return values, agree


_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_NUMBER_RE = re.compile(
    r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)\s*(%|percent|thousand|million|billion|trillion|bn|mn|mm|k|m|b)?\b",
    re.I,
)


def _simple_values(text: str) -> list[tuple[float, bool]]:
    values = []
    for m in _NUMBER_RE.finditer(text):
        number = float(m.group(1).replace(",", ""))
        unit = (m.group(2) or "").lower()
        value = number * _SCALES.get(unit, 1.0)
        if math.isfinite(value):  # 309 digits read as inf: no figure
            values.append((value, unit in ("%", "percent")))
    return values


def _simple_agree(a: tuple[float, bool], b: tuple[float, bool]) -> bool:
    if a[1] != b[1] or not (math.isfinite(a[0]) and math.isfinite(b[0])):
        return False
    return abs(a[0] - b[0]) <= 0.01 * max(abs(a[0]), abs(b[0]), 1e-9)


def _numbers_covered(a: list[Any], b: list[Any], agree: Callable[[Any, Any], bool]) -> bool:
    return all(any(agree(x, y) for y in b) for x in a)


def _similarities(
    left: Sequence[str], right: Sequence[str], model: str | None
) -> tuple[list[list[float]], list[list[float]] | None, str | None]:
    """Raw cosines, cosines of per-side centred embeddings (None if a side is too small), fallback note."""
    try:
        from pytest_llmeval.metrics.freetext.semantic import encode

        both = encode([*left, *right], model=model)  # one batch for both sides
        emb_left, emb_right = both[: len(left)], both[len(left) :]
    except MissingExtraError as exc:
        from rapidfuzz import fuzz

        sims = [[fuzz.token_set_ratio(a, b) / 100.0 for b in right] for a in left]
        return sims, None, f"rapidfuzz token-set ratio instead of embeddings ({exc})"
    raw = (emb_left @ emb_right.T).tolist()
    # Claims of one answer share its topic and wording; removing each side's mean leaves
    # what tells its claims apart (needs a few claims per side to mean anything).
    if len(left) >= 3 and len(right) >= 3:
        return raw, (_centred(emb_left) @ _centred(emb_right).T).tolist(), None
    return raw, None, None


def _kind(value: Any) -> str:
    if isinstance(value, tuple):  # the simple fallback parser: (value, is_percent)
        return "percent" if value[1] else "amount"
    if getattr(value, "percent", False):
        return "percent"
    return "year" if getattr(value, "role", "") == "year" else "amount"


def _number_veto(
    a: list[Any], b: list[Any], pool: list[Any], agree: Callable[[Any, Any], bool], *, strict: bool
) -> str | None:
    """Why claim ``a`` (values) cannot be stated by claim ``b``, number-wise.

    strict (is a gold claim stated?): every number of ``a`` must be in ``b``.
    lenient (is a response claim supported?): every number of ``a`` must be somewhere in
    the gold answer (``pool``) and must not clash with a number of the same kind in ``b``,
    so "revenue rose 5% to $10.2 billion" is supported by "revenue rose 5%" plus
    "revenue was $10.2 billion".
    """
    for x in a:
        if (
            _kind(x) == "year"
        ):  # "FY2023" is often not read as a year: only a different year clashes
            years = [y for y in b if _kind(y) == "year"]
            if years and not any(agree(x, y) for y in years):
                return "years disagree"
            continue
        if strict:
            if not any(agree(x, y) for y in b):
                return "numbers disagree" if b else "the other claim states no number"
            continue
        if not any(agree(x, y) for y in pool):
            return "a number is not in the gold answer"
        same_kind = [y for y in b if _kind(y) == _kind(x)]
        if same_kind and not any(agree(x, y) for y in same_kind):
            return "numbers disagree"
    return None


def _numbers_shared(a: list[Any], b: list[Any], agree: Callable[[Any, Any], bool]) -> bool:
    """Both claims state numbers and all of one's numbers agree with the other's."""
    return bool(a and b) and (_numbers_covered(a, b, agree) or _numbers_covered(b, a, agree))


def _weighted_coverage(words: set[str], other: set[str], idf: dict[str, float]) -> float:
    total = sum(idf[w] for w in words)
    return sum(idf[w] for w in words & other) / total if total else 0.0


def _link_side(
    own: Sequence[str],
    other: Sequence[str],
    gate: list[list[float]],
    rank: list[list[float]],
    cover: list[list[float]],
    threshold: float,
    feats_own: list[dict[str, Any]],
    feats_other: list[dict[str, Any]],
    agree: Callable[[Any, Any], bool],
    *,
    strict_numbers: bool,
) -> list[ClaimLink]:
    """For each own claim, the other-side claim stating it (or None), with the reason.

    ``gate`` (symmetric) says whether two claims are close enough at all; ``rank`` picks
    the counterpart; a pair counts when it is a mutual best under ``rank`` or the other
    claim shares most of this claim's wording (``cover``), so one broad claim can state
    several narrow ones.
    """
    veto: list[list[str | None]] = []  # why own claim i can never be stated by other claim j
    pool = [v for fb in feats_other for v in fb["values"]]
    for fa in feats_own:
        row: list[str | None] = []
        for fb in feats_other:
            number_veto = _number_veto(
                fa["values"], fb["values"], pool, agree, strict=strict_numbers
            )
            if number_veto:
                row.append(number_veto)
            elif fa["dir"] and fb["dir"] and fa["dir"] != fb["dir"]:
                row.append("direction (increase/decrease) differs")
            elif fa["neg"] != fb["neg"]:
                row.append("negation differs")
            else:
                row.append(None)
        veto.append(row)
    links: list[ClaimLink] = []
    for i in range(len(own)):
        closest = max(range(len(other)), key=lambda j: (gate[i][j], -j))
        candidates = [
            j for j in range(len(other)) if veto[i][j] is None and gate[i][j] >= threshold
        ]
        if not candidates:
            why = f"closest #{closest + 1} scores {gate[i][closest]:.2f}"
            why += f" but {veto[i][closest]}" if veto[i][closest] else f" < {threshold}"
            links.append(ClaimLink(i, None, why, round(gate[i][closest], 4)))
            continue
        best = max(candidates, key=lambda j: (rank[i][j], -j))
        score = round(gate[i][best], 4)
        detail = f"#{best + 1} scores {score:.2f} ({cover[i][best]:.0%} of its wording shared)"
        rivals = [
            k for k in range(len(own)) if veto[k][best] is None and gate[k][best] >= threshold
        ]
        mutual = max(rivals, key=lambda k: (rank[k][best], -k)) == i
        if mutual or cover[i][best] >= COVERAGE_MATCH:
            links.append(
                ClaimLink(i, best, detail + (", mutual best match" if mutual else ""), score)
            )
        else:
            links.append(ClaimLink(i, None, f"{detail} but states another claim better", score))
    return links


def _centred(vectors: Any) -> Any:
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    norms = (centred * centred).sum(axis=1, keepdims=True) ** 0.5
    return centred / (norms + 1e-12)


def _claim_features(claim: str, extract: Any) -> dict[str, Any]:
    """What matching compares: figures, direction, negation, content words."""
    words = _content_words(claim)
    return {
        "values": list(extract(claim)),
        "dir": direction(claim),
        "neg": negated(claim),
        "words": words,
        # "$5409.00" or "87%": a claim that is all numbers is judged by its numbers
        "numeric_only": not any(re.search(r"[a-z]", w) for w in words - {"$", "%"}),
    }


def _gate(
    fr: list[dict[str, Any]],
    fg: list[dict[str, Any]],
    raw: list[list[float]],
    cover_r: list[list[float]],
    cover_g: list[list[float]],
    shared: list[list[bool]],
) -> list[list[float]]:
    """Symmetric closeness of each pair: cosine plus the better of the two wording overlaps, plus a
    bonus for agreeing numbers; numbers alone decide for an all-numbers claim."""
    gate = [[0.0] * len(fg) for _ in fr]
    for i in range(len(fr)):
        for j in range(len(fg)):
            closeness = (
                LEXICAL_WEIGHT * max(cover_r[i][j], cover_g[j][i])
                + (1 - LEXICAL_WEIGHT) * raw[i][j]
            )
            if shared[i][j]:
                closeness += NUMBER_BONUS
                if fr[i]["numeric_only"] or fg[j]["numeric_only"]:
                    closeness = max(closeness, NUMBERS_ONLY_MATCH)
            gate[i][j] = closeness
    return gate


def match_claims_offline(
    response_claims: Sequence[str],
    gold_claims: Sequence[str],
    *,
    question: str | None = None,
    model: str | None = None,
) -> tuple[Matching, dict[str, Any]]:
    """Match claims both ways offline. Returns the matching and details (fallback used, if any)."""
    if not response_claims or not gold_claims:
        return (
            Matching(
                response=[
                    ClaimLink(i, None, "no gold claims to match")
                    for i in range(len(response_claims))
                ],
                gold=[
                    ClaimLink(j, None, "the response has no claims")
                    for j in range(len(gold_claims))
                ],
            ),
            {},
        )
    extract, agree = _numeric_engine(question)
    fr = [_claim_features(c, extract) for c in response_claims]
    fg = [_claim_features(c, extract) for c in gold_claims]
    raw, centred, fallback = _similarities(response_claims, gold_claims, model)
    threshold = MATCH_THRESHOLD if fallback is None else FUZZY_MATCH_THRESHOLD
    claims_words = [f["words"] for f in (*fr, *fg)]
    idf = {
        w: math.log(1 + len(claims_words) / sum(w in ws for ws in claims_words))
        for w in set().union(*claims_words)
    }
    cover_r = [[_weighted_coverage(a["words"], b["words"], idf) for b in fg] for a in fr]
    cover_g = [[_weighted_coverage(b["words"], a["words"], idf) for a in fr] for b in fg]
    shared = [[_numbers_shared(a["values"], b["values"], agree) for b in fg] for a in fr]
    gate = _gate(fr, fg, raw, cover_r, cover_g, shared)
    base = centred if centred is not None else raw
    n_r, n_g = len(fr), len(fg)
    bonus = [[NUMBER_BONUS if shared[i][j] else 0.0 for j in range(n_g)] for i in range(n_r)]
    rank_r = [
        [(base[i][j] + cover_r[i][j]) / 2 + bonus[i][j] for j in range(n_g)] for i in range(n_r)
    ]
    rank_g = [
        [(base[i][j] + cover_g[j][i]) / 2 + bonus[i][j] for i in range(n_r)] for j in range(n_g)
    ]
    gate_t = [list(col) for col in zip(*gate, strict=False)]
    matching = Matching(
        response=_link_side(
            response_claims,
            gold_claims,
            gate,
            rank_r,
            cover_r,
            threshold,
            fr,
            fg,
            agree,
            strict_numbers=False,
        ),
        gold=_link_side(
            gold_claims,
            response_claims,
            gate_t,
            rank_g,
            cover_g,
            threshold,
            fg,
            fr,
            agree,
            strict_numbers=True,
        ),
    )
    details: dict[str, Any] = {"match_threshold": threshold}
    if fallback:
        details["fallback"] = fallback
    return matching, details
