"""Does an answer name a short gold? Word for word, or in another of its usual written forms.

A short factual gold ("Judi Dench", "the Gospel of Luke", "France", "Eight") is named by an answer
whose opening sentence states every key word of it as one phrase. Forms that say the same thing
count: a number as digits or words ("8", "eight"; "21st", "twenty-first"), a plural or possessive,
accents left out, a name with a title before it, initials for given names ("B. R. Ambedkar") or
without its middle name ("Taylor Momsen" for "Taylor Michel Momsen"), an acronym for its words or
the words for an acronym ("DMV", "Department of Motor Vehicles"), a country by its short form or
demonym ("a French village" for "France"). Tables are in :mod:`.naming_tables`.

The answer's own words can only take the naming away: a negated or hedged opening is not a
naming, nor is one in an answer that corrects or concedes ("actually", "although"); a gold named
as one of several listed candidates or alternatives ("Paris, Lyon and Nice", "Paris or Lyon") or
only to be rejected ("Paris, not Lyon") is reported as not the answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pytest_llmeval.metrics.freetext.fuzzy import STOPWORDS
from pytest_llmeval.metrics.freetext.naming_tables import CARDINALS, COUNTRIES, ORDINALS

__all__ = ["Naming", "naming"]

MAX_OPENING_CHARS = 600  # the opening sentence read; longer ones are cut (bounded work)
PHRASE_SLACK = 3  # answer words allowed between the gold's words beyond the gold's own length
LIST_ITEM_WORDS = 4  # an enumeration's inner items are short; a longer one is a clause
# An item opening with one of these starts a phrase of its own ("..., with advances in ..."), not a list item.
_PHRASE_OPENERS = frozenset(
    {
        "with",
        "in",
        "at",
        "on",
        "for",
        "from",
        "by",
        "to",
        "after",
        "before",
        "during",
        "while",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "since",
        "because",
        "although",
        "though",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
    }
)

_WORD_RE = re.compile(r"[^\W_]+")
# A sentence ends at . ! ? before a capital, not after an initial or a title ("Hugh S. Johnson", "Dr. Who")
_SENTENCE_END_RE = re.compile(
    r"(?<!\b[A-Z]\.)(?<!\b(?:Mr|Ms|Dr|St|Jr|Sr|vs)\.)(?<!\bMrs\.)(?<=[.!?])\s+(?=[A-Z\"'(\d])|\n+"
)
_PREAMBLE_RE = re.compile(r"^(?:based on|according to|from)[^,]{0,160},\s*", re.IGNORECASE)
_PAREN_RE = re.compile(r"\([^()]*\)")
_NEGATION_RE = re.compile(
    r"\b(?:not|never|no|nor|neither|none|rather than|instead of|unlike|other than|except)\b|n't\b",
    re.IGNORECASE,
)
_HEDGE_RE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might be|may be|could be|i think|i believe|i guess|not sure|unsure|"
    r"unclear|uncertain)\b",
    re.IGNORECASE,
)
# A correction or concession anywhere in the answer's head: the named gold may be what it argues against.
_CORRECTION_RE = re.compile(
    r"\b(?:actually|in fact|correction|i mean|rather|however|although|though|whereas|but|instead|mistaken\w*|"
    r"misconception|contrary|commonly (?:believed|thought)|often confused|wait)\b",
    re.IGNORECASE,
)
_SEPARATOR_RE = re.compile(
    r"\s*[,;]\s*(?:(?:and|or)\b|&)?\s*|\s+(?:and|or|&)\s+|\s*/\s*", re.IGNORECASE
)
_ACRONYM_SKIP = frozenset({"of", "the", "and", "for", "&", "in", "on", "to", "a", "an"})


@dataclass(frozen=True)
class Naming:
    """How the opening sentence of an answer names a short gold (``how``), or why it does not count."""

    named: bool
    how: str = ""
    not_answer: str = ""  # why it is named but not as the answer: listed among others, rejected


@dataclass(frozen=True)
class _Token:
    key: str  # compared form: folded, singular, numbers as "#8" / "#8th"
    raw: str  # as written
    start: int
    end: int


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _number_key(word: str) -> str | None:
    if word.isdigit():
        return f"#{int(word)}"
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", word)
    if m:
        return f"#{int(m.group(1))}th"
    if word in CARDINALS:
        return f"#{CARDINALS[word]}"
    if word in ORDINALS:
        return f"#{ORDINALS[word]}th"
    return None


def _tokens(text: str) -> list[_Token]:
    """Words of ``text`` in compared form; "twenty one" / "twenty-first" are one number."""
    text = re.sub(r"'s\b", "  ", text)  # same length: offsets stay those of the text
    out: list[_Token] = []
    for m in _WORD_RE.finditer(text):
        word = _fold(m.group())
        key = _number_key(word) or _singular(word)
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.key.startswith("#")
            and not prev.key.endswith("th")
            and prev.raw.isalpha()
            and int(prev.key[1:]) % 10 == 0
            and int(prev.key[1:]) >= 20
            and key.startswith("#")
            and m.group().isalpha()
            and 0 < int(key[1:].removesuffix("th")) < 10
            and m.start() - prev.end <= 1
        ):
            value = int(prev.key[1:]) + int(key[1:].removesuffix("th"))
            out[-1] = _Token(
                f"#{value}" + ("th" if key.endswith("th") else ""),
                text[prev.start : m.end()],
                prev.start,
                m.end(),
            )
            continue
        out.append(_Token(key, m.group(), m.start(), m.end()))
    return out


def _is_acronym(raw: str) -> bool:
    return 2 <= len(raw) <= 6 and raw.isalpha() and raw.isupper()


def _initials(tokens: list[_Token]) -> str:
    return "".join(t.key[0] for t in tokens if t.key not in _ACRONYM_SKIP)


def _person_name(tokens: list[_Token]) -> bool:
    """A gold written as a person's name: 2-4 capitalised words (initials allowed), no digits."""
    return 2 <= len(tokens) <= 4 and all(t.raw[:1].isupper() and t.raw.isalpha() for t in tokens)


def _plain(text: str) -> str:
    return " ".join(_WORD_RE.findall(_fold(text)))


def _country(gold: str) -> str | None:
    """The country a gold is the name of ("France", "the United Kingdom", "U.S."), or None."""
    words = _plain(gold).removeprefix("the ")
    for country, (aliases, _) in COUNTRIES.items():
        if words == country or words in {_plain(a).removeprefix("the ") for a in aliases}:
            return country
    return None


def _country_spans(tokens: list[_Token], country: str) -> list[tuple[int, int, str]]:
    """(first, last token index, form) of every naming of ``country``: name, short form, demonym."""
    aliases, demonyms = COUNTRIES[country]
    forms = [
        (country, "its name"),
        *((a, "a short form") for a in aliases),
        *((d, "its demonym") for d in demonyms),
    ]
    keys = [t.key for t in tokens]
    spans = []
    for form, what in forms:
        parts = [_number_key(w) or _singular(w) for w in _WORD_RE.findall(_fold(form))]
        for i in range(len(keys) - len(parts) + 1):
            if keys[i : i + len(parts)] == parts:
                spans.append((i, i + len(parts) - 1, what))
    return spans


def _hits(g: _Token, said: list[_Token], name: bool) -> tuple[list[tuple[int, int]], str]:
    """Spans of the answer's tokens that state the gold word ``g``, and how."""
    spans = [(i, i) for i, t in enumerate(said) if t.key == g.key]
    if spans:
        return spans, "word for word"
    if _is_acronym(g.raw):
        letters = g.raw.casefold()
        for i in range(len(said)):
            spelled = ""
            for j in range(i, min(len(said), i + 2 * len(letters) + 2)):
                if said[j].key in _ACRONYM_SKIP:
                    continue
                spelled += said[j].key[0]
                if spelled == letters:
                    spans.append((i, j))
                if not letters.startswith(spelled) or spelled == letters:
                    break
        return spans, f"the words of the acronym {g.raw}"
    if (
        name and len(g.key) == 1
    ):  # the gold's initial, a given name in the answer ("Hugh Samuel Johnson")
        return [
            (i, i) for i, t in enumerate(said) if t.key[0] == g.key and t.raw.isalpha()
        ], "initials for given names"
    if name:  # the answer's initial for the gold's given name ("B. R. Ambedkar")
        return [
            (i, i) for i, t in enumerate(said) if len(t.key) == 1 and t.key == g.key[0]
        ], "initials for given names"
    return [], ""


MAX_ANCHORS = 20  # occurrences of the gold's first word tried as the start of the phrase


def _mentions(
    gold_keys: list[_Token], said: list[_Token], name: bool, limit: int
) -> Iterator[tuple[list[int], str]]:
    """Token indexes of the answer that state the gold's key words in order as one phrase (at most
    ``limit`` tokens long), and how, for each place that does; a name's middle words may be left out."""
    found = [_hits(g, said, name) for g in gold_keys]
    for anchor in found[0][0][:MAX_ANCHORS]:
        positions, hows, after = [anchor[0], anchor[1]], [found[0][1]], anchor[1]
        width = anchor[1] - anchor[0]  # an acronym's words take more tokens than the acronym
        for n, (spans, how) in enumerate(found[1:], start=1):
            nxt = next((span for span in spans if span[0] > after), None)
            if nxt is None and name and n < len(gold_keys) - 1:
                hows.append("without the middle name")
                continue
            if nxt is None:
                break
            positions.extend(nxt)
            width += nxt[1] - nxt[0]
            hows.append(how)
            after = nxt[1]
        else:
            if max(positions) - min(positions) < limit + width:
                ways = [h for h in dict.fromkeys(hows) if h != "word for word"]
                yield positions, ", ".join(ways) or "word for word"


def _other_neighbour(
    gold_tokens: list[_Token],
    keys: list[_Token],
    said: list[_Token],
    positions: list[int],
    asked: set[str],
) -> str:
    """Why the answer puts another word where the gold has one the question states, or "": "southern
    Colorado" for "southern New Mexico" asked about New Mexico, "Kanawha County" for "Kanawha River"
    asked about a river. Leaving the word out ("Kanawha") or a word put before it ("local licensing
    authority" for "local authorities") is no replacement, nor is a word the answer states elsewhere
    ("Omsättningen steg ... under 2023" for "Under 2023 steg omsättningen ...": the order differs)."""
    stated = {t.key for t in said}
    sides = (
        (gold_tokens.index(keys[0]) - 1, min(positions) - 1, -1),
        (gold_tokens.index(keys[-1]) + 1, max(positions) + 1, 1),
    )
    for g, a, step in sides:
        if (
            not (0 <= g < len(gold_tokens) and 0 <= a < len(said))
            or gold_tokens[g].key not in asked
        ):
            continue
        if gold_tokens[g].key in stated:
            continue
        near = {said[a + k * step].key for k in range(3) if 0 <= a + k * step < len(said)}
        if (
            said[a].key not in STOPWORDS and gold_tokens[g].key not in near
        ):  # "local licensing authority"
            return f"the response says {said[a].raw!r} where the expected answer has {gold_tokens[g].raw!r}"
    return ""


def _acronym_for_gold(gold_keys: list[_Token], said: list[_Token]) -> list[int] | None:
    """The answer's acronym of the gold's words ("DMV" for "Department of Motor Vehicles")."""
    if len(gold_keys) < 2:
        return None
    letters = _initials(gold_keys)
    hits = [i for i, t in enumerate(said) if _is_acronym(t.raw) and t.key == letters]
    return hits[:1] or None


def _listed(sentence: str, start: int, end: int, gold_keys: set[str]) -> str:
    """Why the span [start, end) of ``sentence`` (the gold) is one of several listed candidates, or "".

    A list is "A, B and C" (three or more items, commas then a final "and"/"or"); alternatives are
    "A or B" / "A/B" of short items. Separators inside the gold's span ("Key West, Florida") are the
    gold's own; items that state a gold word are parts of the gold, not other candidates.
    """
    cuts = [m for m in _SEPARATOR_RE.finditer(sentence) if m.end() <= start or m.start() >= end]
    bounds = [0, *(c for m in cuts for c in (m.start(), m.end())), len(sentence)]
    segments = [sentence[bounds[k] : bounds[k + 1]] for k in range(0, len(bounds), 2)]
    joints = [
        m.group().strip().casefold() for m in cuts
    ]  # joint k sits between segments k and k + 1
    here = next(
        (k for k in range(len(segments)) if bounds[2 * k] <= start < bounds[2 * k + 1]), None
    )
    if here is None:
        return ""

    def short(k: int) -> bool:
        words = segments[k].split()
        return len(words) <= LIST_ITEM_WORDS and not (
            words and words[0].casefold() in _PHRASE_OPENERS
        )

    def other(k: int) -> bool:  # an item that is no part of the gold
        return not any(t.key in gold_keys for t in _tokens(segments[k]))

    def conjunction(joint: str) -> bool:
        return joint.endswith(("and", "or", "&"))

    for k, joint in (
        (here - 1, joints[here - 1] if here else ""),
        (here + 1, joints[here] if here < len(joints) else ""),
    ):
        alternative = joint.endswith("or") or joint == "/"
        if alternative and short(here) and short(k) and other(k):
            return "the response offers it as one of several alternatives"
    # the list around the gold: comma-separated short items closed by a conjunction
    for last in range(here, len(segments)):
        if last > here and not short(last - 1) and last - 1 != here:
            break
        if last < len(joints) and not conjunction(joints[last]) and joints[last] not in (",", ";"):
            break
        if last == 0 or not conjunction(joints[last - 1]):
            continue
        first = last - 1
        while first > 0 and joints[first - 1] in (",", ";") and short(first):
            first -= 1
        items = range(first, last + 1)
        if first <= here and len(items) >= 3 and any(other(k) for k in items if k != here):
            return f"the response lists it among {len(items)} items"
        break
    return ""


def opening_sentence(response: str) -> str:
    """The answer's first sentence, without a "Based on the text," preamble."""
    text = unicodedata.normalize("NFKC", response.strip()[: MAX_OPENING_CHARS * 2]).replace(
        "\u2019", "'"
    )
    first = _SENTENCE_END_RE.split(text, maxsplit=1)[0] if text else ""
    return _PREAMBLE_RE.sub("", first.lstrip("*#-> "))[:MAX_OPENING_CHARS]


def naming(response: str, gold: str, question: str | None = None) -> Naming | None:
    """How the opening sentence of ``response`` names the short ``gold``; None when the gold has no
    key word the question does not already state (naming it is then no evidence)."""
    opening = opening_sentence(response)
    if _CORRECTION_RE.search(response[: MAX_OPENING_CHARS * 2]):
        opening = ""  # the answer argues: the weighing, not a naming, decides
    gold = unicodedata.normalize("NFKC", gold).replace("\u2019", "'")
    bare = _PAREN_RE.sub(" ", gold).strip() or gold  # "(ADP)", "(6)": an aside of the gold
    head = unicodedata.normalize("NFKC", response[: MAX_OPENING_CHARS * 2]).replace("\u2019", "'")
    if _rejected(head, bare, question):
        return Naming(False, not_answer="the response names it only to reject it")
    found = _named_in(opening, bare, question)
    short_form = _PAREN_RE.search(gold)
    if found is not None and not found.named and not found.not_answer and short_form:
        inner = short_form.group()[1:-1].strip()
        if _is_acronym(inner):  # "adenosine diphosphate (ADP)": the acronym is another name of it
            by_short_form = _named_in(opening, inner, question)
            if by_short_form is not None and by_short_form.named:
                return replace(by_short_form, how=f"its short form {inner}")
    return found


def _named_in(opening: str, bare: str, question: str | None) -> Naming | None:
    """:func:`naming` of a gold without asides in an opening sentence."""
    asked = {t.key for t in _tokens(question or "")}
    gold_tokens = [t for t in _tokens(bare) if t.key not in STOPWORDS]
    keys = [t for t in gold_tokens if t.key not in asked]
    if not keys:
        return None
    said = _tokens(opening)
    found: tuple[list[int], str] | None = None
    country = _country(bare)
    if country is not None:
        spans = _country_spans(said, country)
        if spans:
            first, last, what = spans[0]
            found = ([first, last], f"the country by {what}")
    if found is None:
        found = next(
            _mentions(keys, said, _person_name(gold_tokens), len(gold_tokens) + PHRASE_SLACK), None
        )
    if found is None:
        acronym = _acronym_for_gold(keys, said)
        found = (acronym, "the acronym of its words") if acronym else None
    if found is None or _NEGATION_RE.search(opening) or _HEDGE_RE.search(opening):
        return Naming(False)
    positions, how = found
    replaced = _other_neighbour(gold_tokens, keys, said, positions, asked)
    if replaced:
        return Naming(False, not_answer=replaced)
    listed = _listed(
        opening, said[min(positions)].start, said[max(positions)].end, {t.key for t in gold_tokens}
    )
    return Naming(not listed, how, listed)


# "not Lyon", "rather than Lyon", "never went to Lyon" (not "not only Lyon"): words that reject a mention
_REJECTION_RE = re.compile(
    r"(?:\bnot|n't|\bnever|\brather than|\binstead of|\bother than|\bunlike|\bexcept|\bnor|\bneither)"
    r"\W+(?:(?!only\b|just\b|merely\b|also\b)\w+\W+){0,2}$",
    re.IGNORECASE,
)


def _rejected(head: str, bare: str, question: str | None) -> bool:
    """Every mention of the gold in the answer's head is rejected by the words just before it."""
    asked = {t.key for t in _tokens(question or "")}
    gold_tokens = [t for t in _tokens(bare) if t.key not in STOPWORDS]
    keys = [t for t in gold_tokens if t.key not in asked]
    if not keys:
        return False
    said = _tokens(head)
    starts = [
        said[min(p)].start
        for p, _ in _mentions(
            keys, said, _person_name(gold_tokens), len(gold_tokens) + PHRASE_SLACK
        )
    ]
    return bool(starts) and all(_REJECTION_RE.search(head[max(0, at - 30) : at]) for at in starts)
