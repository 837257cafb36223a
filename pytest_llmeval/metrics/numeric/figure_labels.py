"""Label stage of the numeric grader: the words each figure of an answer is tied to, on either side.

"We booked 1.5B revenue, 500M profit", "revenue of 1.5B", "Revenue: 1.5B", "| Revenue | 1.5B |",
"$3.1 billion in net income on $12.4 billion of revenue": a figure's label is the words right after
it (bare or after "in"/"of") or the words of its own clause before it (a table's cell before it).
Where the figure the selection reports is tied to a label the question does not ask for, and
exactly one other value of its kind is tied to a label made only of the question's words, that
value is the one the answer gives for what was asked (:func:`asked_figure`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_llmeval.metrics.numeric.candidates import Candidate

_WORD_RE = re.compile(r"[^\W\d_][\w&'’-]*")
# Where a label stops: a clause mark, a line break, a conjunction that starts another clause.
_BREAK_RE = re.compile(
    r"[,;.!?()](?=\s|$)|\n|\b(?:and|while|whereas|but|compared|versus|vs|og|mens|och|medan|und|während|et)\b",
    re.IGNORECASE,
)
# Words that link a label to its figure or fill a sentence; never label words themselves.
_FILLER_TEXT = """
    a an the of in on at to for from by as is was were are be been being has had have reached reaching
    came come amounted amounts stood stands totalled totaled totaling totalling equal equals equaled
    about approximately around roughly nearly some just only we our it its their they this that these
    company company's group firm business reported reports booked posted recorded generated achieved
    delivered showed shows had made earned what which how much many did does do answer per filing
    value amount figure number usd eur nok sek dkk gbp dollars million billion thousand
    year years fiscal fy q quarter with or nor respectively ie eg i e so thus therefore which equal
"""
_FILLER = frozenset(_FILLER_TEXT.split())
_RIGHT_LINK = frozenset({"in", "of"})
_LABEL_WORDS = 3  # content words a label holds at most
_RIGHT_CHARS = 40  # characters read after a figure for its label


def _stem(word: str) -> str:
    return word.lower().replace("’", "'")[:5]


def _content(words: list[str]) -> list[str]:
    # words with digits ("FY2022", "Q3") name periods, not what a figure is
    return [
        w
        for w in words
        if w.lower() not in _FILLER and len(w) > 1 and not any(ch.isdigit() for ch in w)
    ]


def _right_label(text: str, end: int, limit: int) -> tuple[list[str], int]:
    """Label words right after a figure ("1.5B revenue", "$3.1 billion in net income") and where they end."""
    tail = text[end : min(limit, end + _RIGHT_CHARS)]
    stop = _BREAK_RE.search(tail)
    if stop is not None:
        tail = tail[: stop.start()]
    words: list[str] = []
    pos = 0
    for k, m in enumerate(_WORD_RE.finditer(tail)):
        if tail[pos : m.start()].strip(" \u00a0\t:"):
            break  # a mark or a figure between: not the figure's label any more
        w = m.group(0)
        if k == 0 and w.lower() in _RIGHT_LINK:
            pos = m.end()
            continue
        if not _content([w]):
            break
        words.append(w)
        pos = m.end()
        if len(words) == _LABEL_WORDS:
            break
    return words, end + pos


def _left_label(text: str, start: int, begin: int) -> list[str]:
    """Label words of the figure's own clause before it ("revenue of", "Revenue:", "| Revenue |")."""
    head = text[begin:start]
    cut = 0
    for m in _BREAK_RE.finditer(head):
        cut = m.end()
    head = head[cut:]
    if "|" in head:  # a table row: the nearest cell with words
        cells = [cell for cell in head.split("|") if _WORD_RE.search(cell)]
        head = cells[-1] if cells else ""
    return _content(_WORD_RE.findall(head))[-_LABEL_WORDS:]


def tie(text: str, cands: list[Candidate]) -> dict[int, frozenset[str]]:
    """The label stems of each figure of ``text`` (by index in ``cands``); figures without one are left out."""
    order = sorted(range(len(cands)), key=lambda k: cands[k].span)
    labels: dict[int, frozenset[str]] = {}
    begin = 0
    for n, k in enumerate(order):
        c = cands[k]
        limit = cands[order[n + 1]].span[0] if n + 1 < len(order) else len(text)
        left = _left_label(text, c.span[0], begin)
        right, right_end = _right_label(text, c.span[1], limit)
        words = _content(left) + right
        if words:
            labels[k] = frozenset(_stem(w) for w in words)
        begin = max(c.span[1], right_end)  # words that label this figure are not the next one's
    return labels


def _asked(question: str) -> frozenset[str]:
    """The content stems of the question's asking sentence (up to its question mark)."""
    asking = question[:300].split("?", 1)[0]
    return frozenset(_stem(w) for w in _content(_WORD_RE.findall(asking)))


def asked_figure(
    text: str, cands: list[Candidate], found: Candidate, question: str | None
) -> Candidate | None:
    """The figure tied to what the question asks when the reported one (``found``) is tied to
    something else: ``found`` has a label not made of the question's words, and the values whose
    labels are all question words, and more of them than ``found``'s label holds, are one value.
    None otherwise."""
    if not question:
        return None
    asked = _asked(question)
    if not asked:
        return None
    eligible = [c for c in cands if not c.ignored]
    if found not in eligible:
        return None
    labels = tie(text, eligible)
    own = labels.get(eligible.index(found))
    if not own or own <= asked:
        return None
    # named by the question's words, and by one the reported figure's label lacks
    # of the reported figure's kind ("5.4%" growth is not the "$99.8 billion" net income it grew to),
    # and naming more of what was asked than the reported figure's label does
    named = [
        eligible[k]
        for k, label in labels.items()
        if label <= asked
        and label - own
        and len(label) > len(own & asked)
        and eligible[k].percent == found.percent
        and bool(eligible[k].currency) == bool(found.currency)
    ]
    values = {round(c.value, 9) for c in named}
    if len(values) != 1 or round(found.value, 9) in values:
        return None
    return named[0]
