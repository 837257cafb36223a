"""Polarity stage of the numeric grader: the sign an answer's own words give its figure.

"a net profit of $3.2 million", "500M profit", "fell 5%", "et underskudd på 12 mill.": words beside
a figure state whether it is a gain or a loss, a rise or a fall. The comparison may read a sign
from the question or the gold where the answer states none; where the answer states one, it
stands, so this stage can only turn a match into a contradiction (:func:`contradiction`), never
the other way. The words live in one table per language (:data:`TABLES`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from pytest_llmeval.metrics.numeric.agreement import values_agree
from pytest_llmeval.metrics.numeric.candidates import Candidate, extract_values

if TYPE_CHECKING:
    from pytest_llmeval.metrics.numeric.gold import Gold


@dataclass(frozen=True)
class PolarityWords:
    """The words of one language that give a figure beside them a sign. Lower case, whole words."""

    code: str
    # A gain, a rise: profit, surplus, increase, rose, up.
    up: frozenset[str]
    # A loss, a fall: loss, deficit, decrease, fell, down.
    down: frozenset[str]
    # After a direction word these make the figure an endpoint ("rose to", "down from"), not its size.
    endpoint: frozenset[str]
    # Before a polarity word these cancel it ("no loss", "ikke tap").
    negation: frozenset[str]
    # Comparatives ("higher", "lavere") are no polarity words: "lower at 3.0%" compares, it does not sign.
    # Words that may stand between a figure and the polarity noun after it ("$3.2 million in losses").
    filler: frozenset[str]
    # The polarity words a question may use to ask for a gain or a loss (no "up"/"down": they
    # are particles there as often as directions).
    asked_up: frozenset[str]
    asked_down: frozenset[str]
    # Signed adjectives that qualify the change noun after them: "negative growth" is a fall.
    qualifier: dict[str, int] = field(default_factory=dict)
    # Nouns of a loss: a direction word with one as its subject turns round ("the loss increased
    # by 5" is a fall, "the deficit decreased by 5" a rise).
    loss_nouns: frozenset[str] = frozenset()


def _w(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _q(down: str, up: str) -> dict[str, int]:
    return {**dict.fromkeys(up.split(), 1), **dict.fromkeys(down.split(), -1)}


TABLES: dict[str, PolarityWords] = {
    t.code: t
    for t in (
        PolarityWords(
            code="en",
            up=_w(
                "profit profits profitable earned gain gains gained surplus increase increased increases "
                "profit-making "
                "rise rises rose risen grew growth climbed jumped expanded up positive"
            ),
            down=_w(
                "loss losses lost deficit deficits shortfall decrease decreased decreases decline "
                "unprofitable loss-making "
                "declined declines fell fall falls fallen drop dropped drops shrank shrunk slipped slid "
                "sank plunged tumbled contracted contraction reduction down negative dipped eased retreated "
                "weakened slumped sagged"
            ),
            endpoint=_w("to from than since"),
            negation=_w("no not never without"),
            filler=_w("in of a an net total"),
            asked_up=_w(
                "profit profits gain gains surplus surpluses increase increased growth grew rise rose"
            ),
            asked_down=_w(
                "loss losses deficit deficits shortfall decrease decreased decline declined drop dropped "
                "fall fell reduction shrank lose lost"
            ),
            qualifier=_q("negative", "positive"),
            loss_nouns=_w("loss losses deficit deficits shortfall shortfalls"),
        ),
        PolarityWords(
            code="nb",
            up=_w(
                "overskudd overskuddet gevinst gevinsten fortjeneste tjente økning økningen økte økt steg "
                "stigning vekst veksten vokste opp positiv positive"
            ),
            down=_w(
                "underskudd underskuddet tap tapet tapte nedgang nedgangen falt fall fallet sank "
                "redusert reduserte reduksjon ned negativ negative negativt svekket"
            ),
            endpoint=_w("til fra enn"),
            negation=_w("ikke ingen uten"),
            filler=_w("i av et en netto på"),
            asked_up=_w("overskudd overskuddet gevinst gevinsten økning økningen vekst veksten"),
            asked_down=_w(
                "underskudd underskuddet tap tapet tapte nedgang nedgangen reduksjon fall fallet falt sank"
            ),
            qualifier=_q("negativ negative", "positiv positive"),
            loss_nouns=_w("tap tapet underskudd underskuddet"),
        ),
        PolarityWords(
            code="nn",
            up=_w("overskot overskotet gevinst auke auken auka steig vekst opp positiv"),
            down=_w("underskot underskotet tap tapet tapa nedgang fall fallet sokk ned negativ"),
            endpoint=_w("til frå enn"),
            negation=_w("ikkje ingen utan"),
            filler=_w("i av eit ein netto på"),
            asked_up=_w("overskot overskotet gevinst auke auken vekst"),
            asked_down=_w("underskot underskotet tap tapet nedgang fall fallet"),
        ),
        PolarityWords(
            code="sv",
            up=_w(
                "vinst vinsten tjänade överskott ökning ökningen ökade ökat steg upp positiv tillväxt"
            ),
            down=_w(
                "förlust förlusten underskott minskning minskningen minskade minskat sjönk föll ned negativ "
                "tappade"
            ),
            endpoint=_w("till från än"),
            negation=_w("inte ingen utan"),
            filler=_w("i av ett en netto på"),
            asked_up=_w("vinst vinsten tjänade överskott ökning ökningen tillväxt"),
            asked_down=_w("förlust förlusten underskott minskning minskningen"),
            qualifier=_q("negativ negativa", "positiv positiva"),
            loss_nouns=_w("förlust förlusten underskott underskottet"),
        ),
        PolarityWords(
            code="da",
            up=_w("overskud overskuddet gevinst tjente stigning steg øgning øget op positiv vækst"),
            down=_w("underskud underskuddet tab tabet fald faldet faldt nedgang ned negativ"),
            endpoint=_w("til fra end"),
            negation=_w("ikke ingen uden"),
            filler=_w("i af et en netto på"),
            asked_up=_w("overskud overskuddet gevinst tjente stigning vækst"),
            asked_down=_w("underskud underskuddet tab tabet fald faldet nedgang"),
            qualifier=_q("negativ negative", "positiv positive"),
            loss_nouns=_w("tab tabet underskud underskuddet"),
        ),
        PolarityWords(
            code="de",
            up=_w(
                "gewinn gewinne verdiente überschuss anstieg stieg gestiegen zuwachs wachstum erhöhung positiv"
            ),
            down=_w(
                "verlust verluste defizit fehlbetrag rückgang sank gesunken fiel gefallen negativ"
            ),
            endpoint=_w("auf als"),  # "von" is "of" after a noun as often as "from"
            negation=_w("kein keine keinen nicht ohne"),
            filler=_w("an im in ein einen einem netto"),
            asked_up=_w("gewinn gewinne verdiente überschuss anstieg zuwachs wachstum"),
            asked_down=_w("verlust verluste defizit fehlbetrag rückgang"),
            qualifier=_q(
                "negativ negatives negativer negative", "positiv positives positiver positive"
            ),
            loss_nouns=_w("verlust verluste defizit fehlbetrag"),
        ),
        PolarityWords(
            code="fr",
            up=_w(
                "bénéfice bénéfices excédent hausse augmentation progression positif positive augmenté augmente "
                "augmentée progressé progresse grimpé bénéficiaire"
            ),
            down=_w(
                "perte pertes déficit baisse diminution recul négatif négative diminué diminue diminuée "
                "baissé reculé recule chuté déficitaire"
            ),
            endpoint=_w("à que"),
            negation=_w("pas aucun aucune sans"),
            filler=_w("de d en net nette"),
            asked_up=_w("bénéfice excédent hausse augmentation progression"),
            asked_down=_w("perte déficit baisse diminution recul"),
            qualifier=_q("négatif négative", "positif positive"),
            loss_nouns=_w("perte pertes déficit"),
        ),
    )
}


@dataclass(frozen=True)
class _Lexicon:
    """Every table merged: a word's sign, and the words of each role in any language."""

    sign: dict[str, int]
    asked: dict[str, int]
    endpoint: frozenset[str]
    negation: frozenset[str]
    filler: frozenset[str]
    qualifier: dict[str, int]
    loss_nouns: frozenset[str]


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    sign: dict[str, int] = {}
    asked: dict[str, int] = {}
    qualifier: dict[str, int] = {}
    for t in TABLES.values():
        qualifier.update(t.qualifier)
        sign.update(dict.fromkeys(t.up, 1))
        sign.update(dict.fromkeys(t.down, -1))
        asked.update(dict.fromkeys(t.asked_up, 1))
        asked.update(dict.fromkeys(t.asked_down, -1))
    return _Lexicon(
        sign=sign,
        asked=asked,
        endpoint=frozenset().union(*(t.endpoint for t in TABLES.values())),
        negation=frozenset().union(*(t.negation for t in TABLES.values())),
        filler=frozenset().union(*(t.filler for t in TABLES.values())),
        qualifier=qualifier,
        loss_nouns=frozenset().union(*(t.loss_nouns for t in TABLES.values())),
    )


_WORD_RE = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
# Where a figure's clause ends: a sentence mark, a semicolon, a line break.
_CLAUSE_END_RE = re.compile(r"[.!?;](?:\s|$)|\n")
_WINDOW = 120  # characters read on either side of a figure
_LEFT_WORDS = 5  # words read back from a figure ("a net loss of", "fell by about")
_BULLET_RE = re.compile(r"[-−–]\s")  # "- 737": a list dash, not a minus
_RIGHT_WORDS = 3  # words read after it (a noun right after: "500M profit", "3,5 % tap")


@dataclass(frozen=True)
class Polarity:
    """A sign stated in words and the word that states it."""

    sign: int
    word: str


def stated(text: str, found: Candidate, cands: list[Candidate]) -> Polarity | None:
    """The sign the answer's own words give ``found``: the nearest polarity word of its clause,
    before it ("a net loss of", "fell") or right after it ("500M profit"); None when none does."""
    if (
        found.negative
        and found.sign_source in ("symbol", "parentheses")
        and not _BULLET_RE.match(found.raw)
    ):
        return Polarity(-1, found.raw)  # "growth of (0.9)%": the written sign states it
    start, end = found.span
    lo, hi = max(0, start - _WINDOW), min(len(text), end + _WINDOW)
    for c in cands:
        # a word before an earlier figure belongs to that figure, and one after a later figure to it
        if c.span[1] <= start:
            lo = max(lo, c.span[1])
        elif c.span[0] >= end:
            hi = min(hi, c.span[0])
    left = text[lo:start]
    cut = None
    for m in _CLAUSE_END_RE.finditer(left):
        cut = m.end()
    if cut is not None:
        left = left[cut:]
    right = text[end:hi]
    stop = _CLAUSE_END_RE.search(right)
    if stop is not None:
        right = right[: stop.start()]
    before, after = _before(left), _after(right)
    if before is None or after is None:
        hit = before or after
        return hit[0] if hit is not None else None
    # a word on each side: the nearer one states it
    return after[0] if after[1] < before[1] else before[0]


def _before(left: str) -> tuple[Polarity, int] | None:
    lex = _lexicon()
    words = list(_WORD_RE.finditer(left))[-_LEFT_WORDS:]
    for i in range(len(words) - 1, -1, -1):
        w = words[i].group(0).lower()
        sign = lex.sign.get(w)
        if sign is None:
            continue
        nxt = words[i + 1].group(0).lower() if i + 1 < len(words) else None
        if nxt in lex.endpoint:
            continue  # "rose to $5 million", "down from 3.8%": an endpoint, not the change
        prev = words[i - 1].group(0).lower() if i > 0 else None
        if prev in lex.negation:
            return None
        if prev in lex.qualifier and w not in lex.qualifier:
            # "negative growth of 3%": the adjective signs the change noun it qualifies
            word = f"{words[i - 1].group(0)} {words[i].group(0)}"
            return Polarity(lex.qualifier[prev] * sign, word), len(left) - words[i].end()
        subject = _loss_subject(left, words, i, lex)
        if subject is not None:
            return Polarity(-sign, f"{subject} {words[i].group(0)}"), len(left) - words[i].end()
        return Polarity(sign, words[i].group(0)), len(left) - words[i].end()
    return None


def _loss_subject(left: str, words: list[re.Match[str]], i: int, lex: _Lexicon) -> str | None:
    """The loss noun whose change the direction word at ``i`` states ("the operating loss
    increased by"): up to three words before it with only words between; else None."""
    if words[i].group(0).lower() in lex.loss_nouns:
        return None
    for j in range(i - 1, max(-1, i - 4), -1):
        if _GAP_BREAK_RE.search(left, words[j].end(), words[i].start()):
            return None  # a figure or punctuation between: another clause or item
        if words[j].group(0).lower() in lex.loss_nouns:
            return words[j].group(0)
    return None


_GAP_BREAK_RE = re.compile(r"[^\w\s'’-]|\d")


def _after(right: str) -> tuple[Polarity, int] | None:
    lex = _lexicon()
    pos = 0
    for k, m in enumerate(_WORD_RE.finditer(right)):
        if k >= _RIGHT_WORDS or right[pos : m.start()].strip(" \u00a0\u202f%"):
            return None  # punctuation or a sign between: the word is no longer the figure's
        w = m.group(0).lower()
        sign = lex.sign.get(w)
        if sign is not None:
            rest = _WORD_RE.match(right, m.end() + 1) if m.end() < len(right) else None
            nxt = (
                rest.group(0).lower()
                if rest is not None and not right[m.end() : rest.start()].strip()
                else None
            )
            if nxt in lex.endpoint:
                return None  # "5% higher than", "$3.2 million up from": a comparison
            return Polarity(sign, m.group(0)), m.start()
        if w not in lex.filler:
            return None
        pos = m.end()
    return None


def expected(gold: Gold, expected_text: str | None, question: str | None) -> Polarity | None:
    """The sign the gold states (a minus, brackets, its own words) or, for a gold that is a bare
    size, the sign its question asks for ("What was the net loss?")."""
    lex = _lexicon()
    own = _one_sided(expected_text[:2000], lex.sign) if expected_text else None
    if gold.value < 0:
        return own if own is not None and own.sign < 0 else Polarity(-1, gold.raw)
    if own is not None:
        return own
    if question and gold.value > 0 and not gold.raw.lstrip().startswith("+"):
        return _one_sided(question[:2000], lex.asked)
    return None


def _one_sided(text: str, table: dict[str, int]) -> Polarity | None:
    """The sign of a text's polarity words when they all agree ("net loss"); None when it has
    none or both ("income (loss)", "increase or decrease")."""
    found: Polarity | None = None
    for m in _WORD_RE.finditer(text):
        sign = table.get(m.group(0).lower())
        if sign is None:
            continue
        if found is not None and found.sign != sign:
            return None
        found = found or Polarity(sign, m.group(0))
    return found


@lru_cache(maxsize=1)
def sign_stems() -> frozenset[str]:
    """The five-letter stems of every polarity word (the label stage's stems)."""
    return frozenset(w[:5] for w in _lexicon().sign)


def expected_words(text: str) -> Polarity | None:
    """The sign a text's own polarity words state when they all agree, or None."""
    return _one_sided(text[:2000], _lexicon().sign)


_LABEL_WORDS = 8  # a gold this short is one figure and its label ("Decrease in revenue: 3.4%")


def labelled_fall(gold: Gold | None, expected_text: object) -> Gold | None:
    """A short gold whose own polarity words all state a loss or fall, wherever they stand
    ("Fehlbetrag: 12 Millionen Euro"): its figure is the size of that loss (signed by its words)."""
    if (
        gold is None
        or gold.value <= 0
        or gold.word_sign
        or not isinstance(expected_text, str)
        or len(expected_text.split()) > _LABEL_WORDS
    ):
        return gold
    said = expected_words(expected_text)
    if said is None or said.sign > 0:
        return gold
    return dataclasses.replace(gold, value=-gold.value, word_sign=True)


def asks_for_a_fall(question: str | None) -> bool:
    """Does the question ask for a loss or a fall in words of any table ("Hvor mye tapte fondet?",
    "Wie hoch war der Verlust?")? Then a worded decrease may be compared by its size."""
    said = _one_sided(question[:2000], _lexicon().asked) if question else None
    return said is not None and said.sign < 0


def contradiction(said: Polarity | None, wanted: Polarity | None) -> str | None:
    """Why the answer's own sign contradicts the expected one, or None."""
    if said is None or wanted is None or said.sign == wanted.sign:
        return None
    what = {1: "a gain or rise", -1: "a loss or fall"}
    return (
        f'the answer\'s own word "{said.word}" states {what[said.sign]}; '
        f'the expected answer is {what[wanted.sign]} ("{wanted.word}")'
    )


def _negated(words: list[str], i: int, negation: frozenset[str]) -> bool:
    """Is the word at ``i`` negated by one of the two words before it ("has not increased")?"""
    return any(w in negation or w.endswith(("n't", "n’t")) for w in words[max(0, i - 2) : i])


_SHORT_ANSWER_WORDS = 60


def words_conflict(gold: str, answer: str) -> str | None:
    """A gold and an answer whose polarity words all point one way each, and opposite ways
    ("made a loss" / "made a profit", "gikk ned" / "gikk opp"); negated words do not count."""
    lex = _lexicon()
    if len(answer.split()) > _SHORT_ANSWER_WORDS:
        return None  # a long answer holds polarity words about many things
    signs = []
    for text in (gold[:2000], answer):
        words = [m.group(0).lower() for m in _WORD_RE.finditer(text)]
        said = {
            (lex.sign[w], w)
            for i, w in enumerate(words)
            if w in lex.sign and not _negated(words, i, lex.negation)
        }
        if len({s for s, _ in said}) != 1:
            return None
        signs.append(min(said))
    (g_sign, g_word), (a_sign, a_word) = signs
    if g_sign == a_sign or _written_sign(gold) or _written_sign(answer):
        return None  # "growth of (0.9)%": a written minus turns the words around
    return f'the answer says "{a_word}" where the expected answer says "{g_word}"'


def _written_sign(text: str) -> bool:
    """Does a figure of ``text`` carry a written minus or brackets?"""
    return any(
        c.negative and c.sign_source in ("symbol", "parentheses") and not _BULLET_RE.match(c.raw)
        for c in extract_values(text)
    )


@lru_cache(maxsize=1024)
def _signed_figures(gold: str) -> tuple[tuple[Candidate, Polarity], ...]:
    """The figures of a gold that its own words sign ("fell 5%"), each with that sign."""
    if not any(m.group(0).lower() in _lexicon().sign for m in _WORD_RE.finditer(gold)) and not any(
        mark in gold for mark in "(-−"
    ):
        return ()  # no polarity word, minus or brackets: no figure of the gold is signed
    g_all = extract_values(gold)
    out = []
    for g in g_all:
        said = None if g.ignored else stated(gold, g, g_all)
        if said is not None:
            out.append((g, said))
    return tuple(out)


def restated_conflict(
    gold: str, answer: str, answer_figures: list[Candidate] | None = None
) -> str | None:
    """The answer restates a figure of the gold with the opposite polarity word beside it
    ("rose 5%" for "fell 5%", "økte 5 prosent" for "falt 5 prosent"), or None.
    ``answer_figures``: the answer's figures when the caller has read them."""
    gold = gold[:2000]
    a_all = answer_figures
    for g, g_said in _signed_figures(gold):
        if a_all is None:
            a_all = extract_values(answer[:20000])
        opposite: tuple[Polarity, Candidate] | None = None
        for a in a_all:
            if a.ignored or a.percent != g.percent or not values_agree(abs(a.value), abs(g.value)):
                continue
            a_said = stated(answer, a, a_all)
            if a_said is not None and a_said.sign == g_said.sign:
                break  # one restatement with the gold's sign: the answer says it too
            if a_said is not None and opposite is None:
                opposite = (a_said, a)
        else:
            if opposite is not None:
                return (
                    f'the answer says "{opposite[0].word}" beside "{opposite[1].raw}" where the '
                    f'expected answer says "{g_said.word}" beside "{g.raw}"'
                )
    return None
