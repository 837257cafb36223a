"""Stage 4: field-by-field comparison of the answer's JSON with the gold.

Each gold leaf gets a verdict; the score is weighted field agreement (agreeing weight / total
weight). Lists are matched order-free by best assignment unless their rule says ``ordered``;
a missing item costs its gold fields, an invented one its own fields.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.metrics.structured.assign import best_assignment
from pytest_llmeval.metrics.structured.rules import default_comparison, rule_for, show_path

if TYPE_CHECKING:
    from pytest_llmeval.metrics.base import MetricResult

MATCH_FLOOR = 0.5  # below this agreement a gold item and an answer item are not the same line
# n x m item comparisons before a list is compared in order instead (100 x 100 lines take ~1 s;
# an answer inventing 50 000 lines must not take minutes). One bound for the whole comparison:
# each pair of an outer list compares the lists inside it, so nested lists (a table's rows of
# cells) share what is left rather than each taking the full amount.
MAX_PAIRS = 20_000
_NUMBER_EPS = 1e-9


@dataclass
class Verdict:
    """One field's verdict: its path, whether it agrees, how it was compared and why."""

    path: str
    ok: bool
    how: str
    expected: Any = None
    got: Any = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "how": self.how,
            "expected": _short(self.expected),
            "got": _short(self.got),
            **({"note": self.note} if self.note else {}),
        }

    def line(self) -> str:
        if self.how in ("missing", "invented"):
            return f"{self.path}: {self.note}"
        text = f"{self.path}: expected {_short(self.expected)!r}, got {_short(self.got)!r} ({self.how})"
        return f"{text}; {self.note}" if self.note else text


@dataclass
class ListStats:
    """How the items of one gold list were matched: line precision, recall and F1."""

    path: str
    gold: int
    answer: int
    matched: int
    exact: int
    in_order: bool = (
        False  # compared position by position (``ordered``, or too many items to match)
    )

    def to_dict(self) -> dict[str, Any]:
        precision = self.exact / self.answer if self.answer else (1.0 if not self.gold else 0.0)
        recall = self.exact / self.gold if self.gold else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "path": self.path,
            "gold": self.gold,
            "answer": self.answer,
            "matched": self.matched,
            "exact": self.exact,
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "in_order": self.in_order,
        }


@dataclass
class Comparison:
    agree: float = 0.0
    total: float = 0.0
    verdicts: list[Verdict] = field(default_factory=list)
    lists: list[ListStats] = field(default_factory=list)

    @property
    def score(self) -> float:
        return 1.0 if self.total <= 0 else self.agree / self.total

    def add(self, other: Comparison) -> None:
        self.agree += other.agree
        self.total += other.total
        self.verdicts.extend(other.verdicts)
        self.lists.extend(other.lists)


def _short(value: Any, limit: int = 120) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    return value


class Comparer:
    """Compares one gold value with one answer value under the sample's rules."""

    def __init__(
        self,
        rules: dict[str, dict[str, Any]],
        *,
        text_judge: Any = None,
        question: str | None = None,
    ) -> None:
        self.rules = rules
        self.text_judge = text_judge
        self.question = question
        self._rules: dict[
            str, dict[str, Any]
        ] = {}  # path -> rule: n x m pairs ask for the same paths
        self.pairs_left = MAX_PAIRS
        # While a list's n x m pairs are scored for the assignment, prose is compared offline
        # (by shared words when an LLM judge will rule): the judge sees only the pairs kept, one
        # request per gold item, not one per pair.
        self._offline_text = False
        self._llm_judge = text_judge is not None and text_judge != "offline"
        # fields whose text grader left its verdict undecided (needs review), with why
        self.review_notes: list[str] = []

    def rule(self, path: str) -> dict[str, Any]:
        found = self._rules.get(path)
        if found is None:
            found = self._rules[path] = rule_for(self.rules, path) if self.rules else {}
        return found

    def compare(self, gold: Any, got: Any, parts: tuple[str | int, ...] = ()) -> Comparison:
        path = show_path(parts)
        rule = self.rule(path)
        weight = float(rule.get("weight", 1.0))
        if rule.get("compare") == "ignore":
            return Comparison()
        if isinstance(gold, dict):
            return self._object(gold, got, parts, path)
        if isinstance(gold, list):
            return self._list(gold, got, parts, path, rule)
        key = next((p for p in reversed(parts) if isinstance(p, str)), None)
        how = str(rule.get("compare") or default_comparison(gold, key))
        ok, note = LEAF_COMPARISONS[how](self, gold, got, rule)
        return Comparison(weight if ok else 0.0, weight, [Verdict(path, ok, how, gold, got, note)])

    def _object(
        self, gold: dict[str, Any], got: Any, parts: tuple[str | int, ...], path: str
    ) -> Comparison:
        result = Comparison()
        if not isinstance(got, dict):
            size = leaf_weight(gold, self, parts)
            result.total += size
            result.verdicts.append(
                Verdict(path, False, "missing", gold, got, f"expected an object, got {_kind(got)}")
            )
            return result
        for key, value in gold.items():
            child = (*parts, key)
            if key not in got:
                size = leaf_weight(value, self, child)
                if size:
                    result.total += size
                    result.verdicts.append(
                        Verdict(
                            show_path(child),
                            False,
                            "missing",
                            value,
                            None,
                            "missing from the answer",
                        )
                    )
                continue
            result.add(self.compare(value, got[key], child))
        return result

    def _judged_pairs(
        self,
        gold: list[Any],
        got: list[Any],
        parts: tuple[str | int, ...],
        matrix: list[list[float]],
        compared: dict[tuple[int, int], Comparison],
    ) -> list[tuple[int, int]]:
        """With an LLM judge: each gold item meets the answer item the offline scores (shared words
        breaking ties) say is closest, the judge rules on that pair, and it stays a pair if it
        agrees enough: at most one request per gold item, and a paraphrase is not lost to words."""
        gold_words = [_words(json.dumps(g, ensure_ascii=False)) for g in gold]
        got_words = [_words(json.dumps(a, ensure_ascii=False)) for a in got]
        closeness = [
            [score + 1e-3 * _jaccard(gold_words[i], got_words[j]) for j, score in enumerate(row)]
            for i, row in enumerate(matrix)
        ]
        kept = []
        for i, j in best_assignment(closeness):
            compared[(i, j)] = self.compare(gold[i], got[j], (*parts, i))  # now with the judge
            if compared[(i, j)].score >= MATCH_FLOOR:
                kept.append((i, j))
        return kept

    def _list(
        self,
        gold: list[Any],
        got: Any,
        parts: tuple[str | int, ...],
        path: str,
        rule: dict[str, Any],
    ) -> Comparison:
        result = Comparison()
        if not isinstance(got, list):
            result.total += leaf_weight(gold, self, parts)
            result.verdicts.append(
                Verdict(path, False, "missing", gold, got, f"expected a list, got {_kind(got)}")
            )
            return result
        cost = len(gold) * len(got)
        in_order = bool(rule.get("ordered")) or cost > self.pairs_left
        if not in_order:
            self.pairs_left -= cost
        if in_order:
            pairs = [(i, i) for i in range(min(len(gold), len(got)))]
            compared = {p: self.compare(gold[p[0]], got[p[1]], (*parts, p[0])) for p in pairs}
            kept = pairs
        else:
            outer_offline, self._offline_text = self._offline_text, True
            try:
                compared = {
                    (i, j): self.compare(g, a, (*parts, i))
                    for i, g in enumerate(gold)
                    for j, a in enumerate(got)
                }
            finally:
                self._offline_text = outer_offline
            matrix = [[compared[(i, j)].score for j in range(len(got))] for i in range(len(gold))]
            if self._llm_judge and not outer_offline:
                kept = self._judged_pairs(gold, got, parts, matrix, compared)
            else:
                kept = [(i, j) for i, j in best_assignment(matrix) if matrix[i][j] >= MATCH_FLOOR]
        exact = 0
        for pair in kept:
            result.add(compared[pair])
            exact += compared[pair].score >= 1.0
        matched_gold = {i for i, _ in kept}
        matched_got = {j for _, j in kept}
        for i, value in enumerate(gold):
            if i not in matched_gold:
                result.total += leaf_weight(value, self, (*parts, i))
                result.verdicts.append(
                    Verdict(
                        show_path((*parts, i)),
                        False,
                        "missing",
                        value,
                        None,
                        f"gold item missing from the answer: {_short(value)}",
                    )
                )
        for j, value in enumerate(got):
            if j not in matched_got:
                result.total += max(1.0, leaf_weight(value, self, (*parts, j)))
                result.verdicts.append(
                    Verdict(
                        f"{path}[answer {j}]",
                        False,
                        "invented",
                        None,
                        value,
                        f"answer item {j} matches no gold item: {_short(value)}",
                    )
                )
        result.lists.append(ListStats(path, len(gold), len(got), len(kept), exact, in_order))
        return result


def leaf_weight(value: Any, comparer: Comparer, parts: tuple[str | int, ...]) -> float:
    """Total weight of the leaves under ``value`` (what a missing or invented item costs)."""
    rule = comparer.rule(show_path(parts))
    if rule.get("compare") == "ignore":
        return 0.0
    if isinstance(value, dict):
        return sum(leaf_weight(v, comparer, (*parts, k)) for k, v in value.items())
    if isinstance(value, list):
        return sum(leaf_weight(v, comparer, (*parts, i)) for i, v in enumerate(value))
    return float(rule.get("weight", 1.0))


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"a {type(value).__name__}"


# -- leaf comparisons: (gold, got, rule) -> (agrees, note) ----------------------------------------


def _exact(self: Comparer, gold: Any, got: Any, rule: dict[str, Any]) -> tuple[bool, str]:
    if gold is None or isinstance(gold, bool) or isinstance(got, bool) or got is None:
        return gold is got, ""
    # account 1920 and "1920" are the same identity; "NOK" and "nok" too
    if isinstance(gold, float) and gold.is_integer():
        gold = int(gold)
    if isinstance(got, float) and got.is_integer():
        got = int(got)
    if isinstance(got, dict | list):
        return False, f"expected a value, got {_kind(got)}"
    return " ".join(str(gold).split()).casefold() == " ".join(str(got).split()).casefold(), ""


def _number(self: Comparer, gold: Any, got: Any, rule: dict[str, Any]) -> tuple[bool, str]:
    tolerance = float(rule.get("tolerance", 0.0))
    mode = str(rule.get("tolerance_mode", "absolute"))
    if isinstance(got, int | float) and not isinstance(got, bool) and isinstance(gold, int | float):
        allowed = tolerance * abs(gold) if mode == "relative" else tolerance
        diff = abs(float(got) - float(gold))
        ok = math.isfinite(diff) and diff <= allowed + _NUMBER_EPS * max(1.0, abs(gold))
        return ok, "" if ok else f"differs by {diff:g} (tolerance {allowed:g})"
    if isinstance(got, str):
        from pytest_llmeval.metrics.numeric.match import numeric_match

        result = numeric_match(
            got,
            gold,
            tolerance=tolerance,
            tolerance_mode=mode,
            require_currency=bool(rule.get("require_currency", False)),
        )
        return result.passed, "" if result.passed else result.explanation[:160]
    return False, f"expected a number, got {_kind(got)}"


_DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%Y/%m/%d")


def _as_date(value: Any) -> dt.date | None:
    if not isinstance(value, str):
        return None
    text = value.strip()[:40]
    text = re.sub(r"[T ].*$", "", text)  # a timestamp's date part
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _date(self: Comparer, gold: Any, got: Any, rule: dict[str, Any]) -> tuple[bool, str]:
    want, have = _as_date(gold), _as_date(got)
    if have is None:
        return False, "not a date"
    return want == have, ""


def _text(self: Comparer, gold: Any, got: Any, rule: dict[str, Any]) -> tuple[bool, str]:
    if isinstance(got, int | float) and not isinstance(got, bool) and math.isfinite(got):
        got = str(
            got
        )  # a JSON number for a figure given as text ("3,600"): the figure's grader reads it
    if not isinstance(got, str):
        return False, f"expected text, got {_kind(got)}"
    if " ".join(got.split()).casefold() == " ".join(str(gold).split()).casefold():
        return True, ""
    # One grading path: the grader a sample with this gold would get (dates and periods by the
    # identity grader, figures by the numeric grader, prose by answer correctness).
    from pytest_llmeval.registry import choose_accuracy_grader

    name = choose_accuracy_grader({}, str(gold), "answer_correctness")
    if name == "answer_correctness" and self._offline_text and self._llm_judge:
        # choosing pairs for the judge: shared words are enough, the judge rules on the pairs kept
        return _shared_words(str(gold), got) >= _SHARED_WORDS_FLOOR, ""
    verdict = TEXT_GRADERS.get(name, _correctness)(self, str(gold), got)
    if verdict.details.get("needs_review") and not self._offline_text:
        # undecided as a sample would be: the field needs review too (one grading path)
        self.review_notes.append(f"{name}: {verdict.details.get('review_reason') or 'undecided'}")
    return verdict.passed, "" if verdict.passed else f"{name}: {verdict.explanation[:160]}"


def _correctness(self: Comparer, gold: str, got: str) -> MetricResult:
    from pytest_llmeval.metrics.freetext.correctness import answer_correctness

    return answer_correctness(got, gold, question=self.question, judge=self.text_judge or "offline")


def _identity(self: Comparer, gold: str, got: str) -> MetricResult:
    from pytest_llmeval.metrics.freetext.identity import identity_match

    return identity_match(got, gold)


def _numeric(self: Comparer, gold: str, got: str) -> MetricResult:
    from pytest_llmeval.metrics.numeric.match import numeric_match

    return numeric_match(got, gold, question=self.question)


TEXT_GRADERS = {"answer_correctness": _correctness, "identity": _identity, "numeric": _numeric}


_SHARED_WORDS_FLOOR = 0.5
_WORD_RE = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD_RE.findall(text[:2000].casefold()))


def _jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    return len(left & right) / len(left | right) if left or right else 1.0


def _shared_words(a: str, b: str) -> float:
    """Jaccard overlap of the casefolded words of ``a`` and ``b`` (first 2,000 characters)."""
    return _jaccard(_words(a), _words(b))


LEAF_COMPARISONS = {"exact": _exact, "number": _number, "date": _date, "text": _text}
