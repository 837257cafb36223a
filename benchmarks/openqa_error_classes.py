"""NQ-open verdict errors by class, in-sample and cross-validated by question.

Usage:  python benchmarks/openqa_error_classes.py --data ../shared/data [--folds 5] [--seed 13] [--show CLASS]

Grades every dev set as ``risk_coverage.py`` does (the default rubric; weights and abstention bands
fitted on all dev rows for the in-sample column, refitted per fold for the cross-validated one, folds
grouped by question) and sorts the NQ-open rows the grade gets wrong into classes: false fails
(people call the answer right, the gate does not count it as a pass) and false passes. A row's class
is the first whose test holds for any of its acceptable answers, in the order of ``CLASSES``; the
tests read the answer's surface (lists, hedges, number words, demonyms, acronyms, dates, name parts,
shared words) and are written from general forms, not from rows. Classes are ranked by their
cross-validated size; ``(r)`` counts the ones that are needs review rather than decided fails.
``--show CLASS`` prints that class's rows (question, golds, answer, in-sample and CV outcome).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_verdicts import default_settings
from risk_coverage import Outcome, Row, fit, folds_of, grade_rows, load
from shared_data import data_file

from pytest_llmeval.components import ComponentRegistry
from pytest_llmeval.metrics.freetext import naming as nm
from pytest_llmeval.metrics.freetext.fuzzy import _in_stems, content_words
from pytest_llmeval.metrics.freetext.naming_tables import CARDINALS, COUNTRIES, ORDINALS
from pytest_llmeval.metrics.freetext.periods import identities, relation
from pytest_llmeval.registry import GraderRegistry
from pytest_llmeval.rubric import Rubric

Test = Callable[[str, str, str], bool]  # (question, gold, answer) -> the class applies

_NUMBER_WORD_RE = re.compile(
    r"\b(?:" + "|".join(sorted({*CARDINALS, *ORDINALS}, key=len, reverse=True)) + r")\b", re.I
)
_DIGITS_RE = re.compile(r"\d")
_ACRONYM_RE = re.compile(r"\b[A-Z]{2,6}\b")
_FIGURE_RE = re.compile(r"-?\d+(?:[.,]\d+)*")


def _keys(question: str, gold: str) -> list[str]:
    asked = set(content_words(question))
    words = [w for w in content_words(gold) if not _DIGITS_RE.search(w)]
    return [w for w in words if w not in asked] or words


def _said(answer: str) -> list[str]:
    return content_words(answer)


def listed(q: str, g: str, a: str) -> bool:
    found = nm.naming(a, g, q)
    return found is not None and bool(found.not_answer)


def hedged_or_negated(q: str, g: str, a: str) -> bool:
    opening = nm.opening_sentence(a)
    shares = any(_in_stems(k, _said(a)) for k in _keys(q, g))
    return shares and bool(nm._HEDGE_RE.search(opening) or nm._NEGATION_RE.search(opening))


def number_words(q: str, g: str, a: str) -> bool:
    return bool(
        (_NUMBER_WORD_RE.search(g) and _DIGITS_RE.search(a))
        or (_DIGITS_RE.search(g) and _NUMBER_WORD_RE.search(a))
    )


def _country_forms(country: str) -> list[str]:
    aliases, demonyms = COUNTRIES[country]
    return [country, *aliases, *demonyms]


def demonym(q: str, g: str, a: str) -> bool:
    plain_g, plain_a = f" {nm._plain(g)} ", f" {nm._plain(a)} "
    for country in COUNTRIES:
        forms = [f" {nm._plain(f)} " for f in _country_forms(country)]
        in_g = [f for f in forms if f in plain_g]
        in_a = [f for f in forms if f in plain_a]
        if in_g and in_a and set(in_g) != set(in_a):
            return True
    return False


def acronym(q: str, g: str, a: str) -> bool:
    def expands(short: str, text: str) -> bool:
        words = [
            w
            for w in re.findall(r"[^\W_]+", text.casefold())
            if w not in ("of", "the", "and", "for")
        ]
        spelled = "".join(w[0] for w in words)
        return short.casefold() in spelled

    return any(expands(s, a) for s in _ACRONYM_RE.findall(g)) or any(
        expands(s, g) for s in _ACRONYM_RE.findall(a)
    )


def _dates(text: str) -> list:  # type: ignore[type-arg]
    return [i for i in identities(text)[0] if i.kind == "date"]


def date_granularity(q: str, g: str, a: str) -> bool:
    return any(relation(gi, ai) in ("coarser", "finer") for gi in _dates(g) for ai in _dates(a))


def date_other(q: str, g: str, a: str) -> bool:
    return bool(_dates(g)) and bool(_dates(a))


def _figures(text: str) -> list[float]:
    out = []
    for raw in _FIGURE_RE.findall(text):
        try:
            out.append(float(raw.replace(",", "")))
        except ValueError:
            continue
    return out


def figure_near(q: str, g: str, a: str) -> bool:
    return any(x and abs(x - y) / abs(x) <= 0.1 for x in _figures(g) for y in _figures(a))


def figure_other(q: str, g: str, a: str) -> bool:
    return bool(_figures(g)) and bool(_figures(a))


def partial_name(q: str, g: str, a: str) -> bool:
    words = g.split()
    if not (2 <= len(words) <= 4 and all(w[:1].isupper() for w in words)):
        return False
    keys, said = _keys(q, g), _said(a)
    hits = [k for k in keys if k in said]
    return bool(hits) and len(hits) < len(keys)


def partial_phrase(q: str, g: str, a: str) -> bool:
    keys, said = _keys(q, g), _said(a)
    hits = [k for k in keys if _in_stems(k, said)]
    return bool(hits) and len(hits) < len(keys)


def stated_in_full(q: str, g: str, a: str) -> bool:
    keys, said = _keys(q, g), _said(a)
    return bool(keys) and all(k in said for k in keys)


def same_stem_only(q: str, g: str, a: str) -> bool:
    keys, said = _keys(q, g), _said(a)
    return bool(keys) and all(_in_stems(k, said) for k in keys)


def other_answer(q: str, g: str, a: str) -> bool:
    return True


# Ordered: the first class whose test holds for any acceptable answer is the row's class.
CLASSES: dict[str, Test] = {
    "not as the answer (listed among others, rejected)": listed,
    "hedged or negated answer naming the gold": hedged_or_negated,
    "number words / ordinals vs digits": number_words,
    "country vs demonym or short form": demonym,
    "acronym vs its words": acronym,
    "date: coarser or finer than the gold's": date_granularity,
    "date: another date than the gold's": date_other,
    "figure: within 10% of the gold's": figure_near,
    "figure: another figure": figure_other,
    "partial name (surname, given name)": partial_name,
    "partial phrase (some of the gold's words)": partial_phrase,
    "gold stated word for word": stated_in_full,
    "gold's words by stem only": same_stem_only,
    "another answer (no gold word)": other_answer,
}


def classify(row: Row) -> str:
    question = str(row.record.get("question") or "")
    golds = [str(g) for g in row.record["expected"]]
    for name, test in CLASSES.items():
        if any(test(question, g, row.response) for g in golds):
            return name
    return "another answer (no gold word)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="the dev data folder (../shared/data)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument(
        "--seed", type=int, default=13, help="shuffle of the questions dealt to folds (default 13)"
    )
    ap.add_argument("--show", help="print the rows of this class (a prefix of its name)")
    args = ap.parse_args()
    for name in ("financebench_dev.jsonl", "openqa_dev.jsonl", "numeric_dev.jsonl"):
        data_file(args.data, name, script="openqa_error_classes.py")
    rubric = Rubric(
        default_settings(), GraderRegistry(), judge=None, components=ComponentRegistry()
    )
    rows = [
        r for name in ("financebench", "openqa", "numeric") for r in load(name, args.data, rubric)
    ]
    fold = folds_of(rows, args.folds, args.seed)
    everything = list(range(len(rows)))
    in_sample = grade_rows(rows, everything, rubric, fit(rows, everything, 0.08, 0.8, False))
    cv: dict[int, Outcome] = {}
    for f in range(args.folds):
        train = [k for k in everything if fold[k] != f]
        test = [k for k in everything if fold[k] == f and rows[k].set == "openqa"]
        cv.update(grade_rows(rows, test, rubric, fit(rows, train, 0.08, 0.8, False)))

    openqa = [k for k in everything if rows[k].set == "openqa"]
    counts: dict[str, dict[str, int]] = {name: {} for name in CLASSES}
    shown: list[str] = []
    for k in openqa:
        row = rows[k]
        errors = []
        for label, outs in (("in", in_sample), ("cv", cv)):
            out = outs[k]
            if row.human and not out.passed:
                errors.append((f"ff_{label}", out.review))
            elif row.wrong and out.passed:
                errors.append((f"fp_{label}", False))
        if not errors:
            continue
        name = classify(row)
        for key, review in errors:
            counts[name][key] = counts[name].get(key, 0) + 1
            counts[name][key + "_r"] = counts[name].get(key + "_r", 0) + review
        if args.show and name.startswith(args.show):
            shown.append(
                f"  human {'right' if row.human else 'wrong'} | in-sample {_outcome(in_sample[k])} | CV {_outcome(cv[k])}\n"
                f"    Q: {row.record['question']}\n    gold: {row.record['expected']}\n    answer: {row.response[:240]!r}"
            )
    right = sum(rows[k].human for k in openqa)
    wrong = sum(rows[k].wrong for k in openqa)
    print(
        f"NQ-open dev: {len(openqa)} answers ({right} right, {wrong} wrong), {args.folds} folds grouped by question "
        f"(seed {args.seed}); counts of rows, (r) of them needs review"
    )
    print(f"  {'class':<50} {'false fails in':>14} {'CV':>9}   {'false passes in':>15} {'CV':>4}")
    ranked = sorted(counts.items(), key=lambda kv: -(kv[1].get("ff_cv", 0) + kv[1].get("fp_cv", 0)))
    for name, c in ranked:
        if not c:
            continue
        ff_in = f"{c.get('ff_in', 0)} ({c.get('ff_in_r', 0)}r)"
        ff_cv = f"{c.get('ff_cv', 0)} ({c.get('ff_cv_r', 0)}r)"
        print(
            f"  {name:<50} {ff_in:>14} {ff_cv:>9}   {c.get('fp_in', 0):>15} {c.get('fp_cv', 0):>4}"
        )
    total = {
        key: sum(c.get(key, 0) for c in counts.values())
        for key in ("ff_in", "ff_cv", "fp_in", "fp_cv")
    }
    print(
        f"  {'total':<50} {total['ff_in']:>14} {total['ff_cv']:>9}   {total['fp_in']:>15} {total['fp_cv']:>4}"
    )
    if shown:
        print("\n".join(["", *shown]))


def _outcome(out: Outcome) -> str:
    return "needs review" if out.review else ("pass" if out.passed else "fail")


if __name__ == "__main__":
    main()
