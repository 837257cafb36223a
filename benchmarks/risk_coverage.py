"""Risk-coverage of the offline judge, cross-validated by question, and the fit of its learned values.

Usage:  python benchmarks/risk_coverage.py --data ../shared/data [--folds 5] [--seed 13] [--target 0.08]
        [--confidence 0.9] [--refit-cuts] [--group-by question company type]

The offline judge (``answer_correctness``) learns the logistic weights of the evidence no rule
decides (``correctness.TEXT_WEIGHTS``, fitted on FinanceBench text rows) and the abstention bands
(``correctness.ABSTAIN_BANDS``, one pass threshold per kind of gold: short, descriptive): weighed
evidence from even odds up to the threshold is not decided (needs review, or the LLM judge). With
``--refit-cuts`` the rules' inclusion cuts (``correctness.INCLUSION_CUTS``) are chosen on the
fitting folds too. Tolerances are conventions and are not fitted.

Rows are grouped by question; each fold's questions are held out together, so no question both
fits and scores. ``--group-by`` adds harder splits of the FinanceBench questions (their company and
type come from ``financebench_dev_questions.jsonl``): ``company`` holds out every question of a
fold's companies together, ``type`` leaves one question type out at a time (the other sets' questions
are dealt into as many folds); each prints its FinanceBench figures beside the by-question ones. A
rule or weight that holds by question and not by company or type is tuned to the dev questions. Per fold the weights are fitted on the other folds' FinanceBench rows and the
thresholds are chosen on the other folds' rows of every set: the most decided whose false passes
among decided wrong answers stay at or under ``--target`` on each set with ``--confidence``
one-sided (Clopper-Pearson) confidence. The held-out fold is then graded by the default rubric
with that fold's values (as a gold-file run grades it).

Prints, per dev set (financebench, openqa, numeric), in-sample (fitted on every row) and
cross-validated figures side by side in the gate view (needs review is not a pass): agreement,
false-pass rate (share of wrong answers graded pass; FinanceBench: label "incorrect"), false-fail
rate, false passes among decided wrong answers, and the share decided; then the risk-coverage curve
with each row scored by the weights of the folds it is not in: the Pareto front of share decided
against false passes among decided over the threshold grid (the numeric grader learns nothing
here: one point).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_answer_correctness import fit_logistic
from eval_verdicts import SETS, default_settings
from shared_data import data_file, read_jsonl

from pytest_llmeval.components import ComponentRegistry, _alias_rank, _finer_alias_veto
from pytest_llmeval.metrics.base import MetricResult
from pytest_llmeval.metrics.freetext import correctness
from pytest_llmeval.models.base import Answer
from pytest_llmeval.registry import GraderRegistry, choose_accuracy_grader
from pytest_llmeval.rubric import MAX_GRADED_CHARS, Rubric
from pytest_llmeval.schema import normalise

Band = tuple[float, float]  # the pass threshold of short golds, of descriptive golds
GRID = [round(0.05 * k, 2) for k in range(10, 20)]  # pass thresholds 0.50 .. 0.95
EVEN = 0.5  # the logistic's even odds: below it a fail is more likely right than wrong


def as_bands(band: Band) -> dict[str, tuple[float, float]]:
    """The judge's per-kind abstention bands for pass thresholds (short, descriptive)."""
    return {"short": (EVEN, band[0]), "descriptive": (EVEN, band[1])}


def show(band: Band) -> str:
    return f"short [{EVEN:.2f}, {band[0]:.2f}) descriptive [{EVEN:.2f}, {band[1]:.2f})"


@dataclass
class Alias:
    """One acceptable answer of a sample: the offline judge's signals, or a fixed verdict of
    another grader (identity, numeric) that learns nothing."""

    signals: correctness.Signals | None
    fixed: MetricResult | None
    grader: str = "answer_correctness"


@dataclass
class Row:
    set: str
    group: str
    human: bool
    wrong: bool  # counts as a wrong answer for the false-pass rate
    record: dict[str, Any]
    response: str
    aliases: list[Alias]


def load(name: str, data: Path, rubric: Rubric) -> list[Row]:
    rows = []
    for line, (raw, record, group, human) in enumerate(SETS[name](data), start=1):
        sample = normalise(record, path=name, line=line, defaults={})
        response = str(raw["response"])[:MAX_GRADED_CHARS]
        aliases = []
        for gold in sample.golds:
            grader = choose_accuracy_grader(sample.criteria, gold, "answer_correctness")
            if grader == "answer_correctness" and isinstance(gold, str):
                aliases.append(Alias(correctness.analyse(response, gold, sample.question), None))
            else:
                single = normalise({**record, "expected": gold}, path=name, line=line, defaults={})
                graded = rubric.grade(single, Answer(text=response, source="response"))
                result = MetricResult(
                    passed=graded.tier in ("pass", "acceptable"),
                    score=graded.components["accuracy"].score,
                    details={"needs_review": bool(graded.record.get("needs_review"))},
                )
                aliases.append(Alias(None, result, grader))
        wrong = raw["label"] == "incorrect" if name == "financebench" else not human
        rows.append(Row(name, f"{name}:{group}", human, wrong, record, response, aliases))
    return rows


def folds_of(
    rows: list[Row], n: int, seed: int = 13, unit: Callable[[Row], str] | None = None
) -> list[int]:
    """Fold of each row: its unit's (its question by default), units shuffled once (``seed``) and dealt
    round-robin per set."""
    unit = unit or (lambda r: r.group)
    fold: dict[str, int] = {}
    for name in dict.fromkeys(r.set for r in rows):
        units = sorted({unit(r) for r in rows if r.set == name})
        random.Random(seed).shuffle(units)
        fold.update({u: i % n for i, u in enumerate(units)})
    return [fold[unit(r)] for r in rows]


GROUPINGS = ("question", "company", "type")


def financebench_questions(data: Path) -> dict[str, dict[str, str]]:
    """Company and question type of each FinanceBench dev question, by question id."""
    path = data_file(data, "financebench_dev_questions.jsonl", script="risk_coverage.py")
    return {
        str(q["id"]): {
            "company": str(q.get("company") or "?"),
            "type": str(q.get("question_type") or "?"),
        }
        for q in read_jsonl(path)
    }


def grouped_folds(
    rows: list[Row], grouping: str, n: int, questions: dict[str, dict[str, str]], seed: int = 13
) -> tuple[list[int], int]:
    """Folds of a grouping and their number: FinanceBench questions held out by question, by company
    (companies dealt into ``n`` folds) or one question type a fold; the other sets by question."""
    if grouping == "question":
        return folds_of(rows, n, seed), n

    def about(r: Row) -> str:
        return questions.get(r.group.split(":", 1)[1], {}).get(grouping, "?")

    if grouping == "company":
        return folds_of(
            rows, n, seed, lambda r: about(r) if r.set == "financebench" else r.group
        ), n
    types = sorted({about(r) for r in rows if r.set == "financebench"})
    others = folds_of(rows, len(types), seed)
    return [
        types.index(about(r)) if r.set == "financebench" else others[k] for k, r in enumerate(rows)
    ], len(types)


def cross_validate(
    rows: list[Row], fold: list[int], n: int, rubric: Rubric, args: argparse.Namespace
) -> tuple[dict[int, Outcome], list[Fit]]:
    """Each fold graded with the values fitted on the other folds: out-of-fold outcomes and the fits."""
    everything = range(len(rows))
    cv: dict[int, Outcome] = {}
    fits: list[Fit] = []
    for f in range(n):
        train = [k for k in everything if fold[k] != f]
        test = [k for k in everything if fold[k] == f]
        fits.append(fit(rows, train, args.target, args.confidence, args.refit_cuts))
        cv.update(grade_rows(rows, test, rubric, fits[-1]))
    return cv, fits


def fit_weights(rows: list[Row], ks: list[int]) -> tuple[float, ...]:
    """Logistic weights on the FinanceBench rows among ``ks`` that no rule decides."""
    xs, ys = [], []
    for k in ks:
        row = rows[k]
        if row.set != "financebench":
            continue
        signals = row.aliases[0].signals
        if signals is not None and correctness.ruling(signals) is None:
            xs.append(correctness.text_features(signals))
            ys.append(row.human)
    return fit_logistic(xs, ys)


@dataclass
class Outcome:
    passed: bool  # decided pass (the gate counts it)
    review: bool


_weighed: dict[
    tuple[int, tuple[float, ...], tuple[tuple[str, float], ...]], tuple[bool, float, list[str]]
] = {}


def offline_alias(
    signals: correctness.Signals, weights: tuple[float, ...], band: Band
) -> MetricResult:
    """The offline judge's verdict on one acceptable answer, as ``answer_correctness`` reaches it."""
    key = (id(signals), weights, tuple(sorted(correctness.INCLUSION_CUTS.items())))
    if key not in _weighed:  # the weighing does not depend on the band: once per fit
        _weighed[key] = correctness.decide(signals, weights_override=weights)
    correct, score, reasons = _weighed[key]
    if correctness.ruling(signals) is None:
        correct = score >= EVEN
    judged = correctness._offline_judgement((correct, score, reasons, signals), as_bands(band))
    return MetricResult(
        metric="answer_correctness",
        score=1.0 if judged.correct else correctness._partial_score(signals),
        passed=judged.correct,
        details={"needs_review": bool(judged.review_notes)},
    )


def outcome(row: Row, weights: tuple[float, ...], band: Band) -> Outcome:
    """The sample's verdict: its acceptable answers combined as the accuracy component combines them."""
    graded = [
        (a, offline_alias(a.signals, weights, band) if a.signals is not None else a.fixed)
        for a in row.aliases
    ]
    alias, result = max(
        ((a, g) for a, g in graded if g is not None), key=lambda ag: _alias_rank(ag[1])
    )
    if alias.grader == "identity" and result.passed and len(row.aliases) > 1:
        result = _finer_alias_veto(
            row.response, tuple(row.record["expected"]), result
        )  # as components.accuracy
    review = bool(result.details.get("needs_review"))
    return Outcome(bool(result.passed) and not review, review)


def figures(rows: list[Row], outs: list[Outcome]) -> dict[str, float]:
    wrong = [k for k, r in enumerate(rows) if r.wrong]
    right = [k for k, r in enumerate(rows) if r.human]
    decided_wrong = [k for k in wrong if not outs[k].review]
    nan = float("nan")
    return {
        "agreement": sum(outs[k].passed == r.human for k, r in enumerate(rows)) / len(rows),
        "false_pass": sum(outs[k].passed for k in wrong) / len(wrong) if wrong else nan,
        "false_fail": sum(not outs[k].passed for k in right) / len(right) if right else nan,
        "fp_decided": sum(outs[k].passed for k in decided_wrong) / len(decided_wrong)
        if decided_wrong
        else nan,
        "decided": sum(not o.review for o in outs) / len(rows),
    }


def bands() -> list[Band]:
    """The candidate pass thresholds (short, descriptive), lowest first: below even odds fails,
    from there to the threshold needs review, above it passes."""
    return sorted(((a, b) for a in GRID for b in GRID), key=lambda band: (sum(band), band))


def binomial_upper(k: int, n: int, confidence: float) -> float:
    """One-sided exact (Clopper-Pearson) upper bound of a rate seen k times in n: the p at which
    seeing k or fewer has probability 1 - confidence."""
    if n == 0 or k >= n:
        return 1.0

    def cdf(p: float) -> float:
        return sum(
            math.exp(
                math.lgamma(n + 1)
                - math.lgamma(i + 1)
                - math.lgamma(n - i + 1)
                + i * math.log(p)
                + (n - i) * math.log1p(-p)
            )
            for i in range(k + 1)
        )

    low, high = k / n, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) > 1 - confidence else (low, mid)
    return high


def choose_band(
    rows: list[Row], ks: list[int], weights: tuple[float, ...], target: float, confidence: float
) -> Band:
    """The pass thresholds that decide the most (mean share over sets; then agreement) among those at
    which, on every set, the false passes among decided wrong answers stay <= target with the given
    one-sided confidence (the margin a fit needs to hold on questions it has not seen)."""
    sets = sorted({rows[k].set for k in ks if any(a.signals is not None for a in rows[k].aliases)})
    members = {name: [k for k in ks if rows[k].set == name] for name in sets}
    best: tuple[tuple[float, float, float], Band] | None = None
    for band in bands():
        outs = {k: outcome(rows[k], weights, band) for k in ks}
        worst, agreement, decided = 0.0, 0.0, 0.0
        for group in members.values():
            decided_wrong = [k for k in group if rows[k].wrong and not outs[k].review]
            worst = max(
                worst,
                binomial_upper(
                    sum(outs[k].passed for k in decided_wrong), len(decided_wrong), confidence
                ),
            )
            agreement += (
                sum(outs[k].passed == rows[k].human for k in group) / len(group) / len(sets)
            )
            decided += sum(not outs[k].review for k in group) / len(group) / len(sets)
        key = (float(worst <= target), decided if worst <= target else -worst, agreement)
        if best is None or key > best[0]:
            best = (key, band)
    assert best is not None
    return best[1]


Cuts = dict[str, float]
# Candidate inclusion cuts of the rules (shipped values in correctness.INCLUSION_CUTS among them).
CUT_GRID: dict[str, list[float]] = {
    "no_gold_facts": [0.1, 0.15, 0.2, 0.25, 0.3],
    "hedged": [0.4, 0.5, 0.6, 0.7, 0.8],
    "thin_evidence": [0.15, 0.2, 0.25, 0.3, 0.35],
}


@dataclass
class Fit:
    cuts: Cuts
    weights: tuple[float, ...]
    band: Band


@contextlib.contextmanager
def using(
    cuts: Cuts, weights: tuple[float, ...] | None = None, band: Band | None = None
) -> Iterator[None]:
    """The judge reads these cuts (and weights and bands): the module values it reads, swapped for a while."""
    saved = correctness.INCLUSION_CUTS, correctness.TEXT_WEIGHTS, correctness.ABSTAIN_BANDS
    correctness.INCLUSION_CUTS = dict(cuts)
    if weights is not None:
        correctness.TEXT_WEIGHTS = weights
    if band is not None:
        correctness.ABSTAIN_BANDS = as_bands(band)
    try:
        yield
    finally:
        correctness.INCLUSION_CUTS, correctness.TEXT_WEIGHTS, correctness.ABSTAIN_BANDS = saved


def fit(rows: list[Row], ks: list[int], target: float, confidence: float, refit_cuts: bool) -> Fit:
    """Cuts (only with refit_cuts: one pass over each, the best gate agreement among the cuts that hold
    the target), then weights, then pass thresholds: all from the rows ``ks``."""
    cuts = dict(correctness.INCLUSION_CUTS)
    if refit_cuts:
        with using(cuts):
            weights = fit_weights(rows, ks)
            band = choose_band(rows, ks, weights, target, confidence)
        for name, grid in CUT_GRID.items():
            scored = []
            for value in grid:
                trial = {**cuts, name: value}
                with using(trial):
                    w = fit_weights(rows, ks)
                    outs = {k: outcome(rows[k], w, band) for k in ks}
                # on a tie the value nearest the shipped one: no change without evidence
                scored.append(
                    (holds(rows, ks, outs, target, confidence), -abs(value - cuts[name]), value)
                )
            cuts[name] = max(scored)[2]
    with using(cuts):
        weights = fit_weights(rows, ks)
        band = choose_band(rows, ks, weights, target, confidence)
    return Fit(cuts, weights, band)


def holds(
    rows: list[Row], ks: list[int], outs: dict[int, Outcome], target: float, confidence: float
) -> tuple[float, float, float]:
    """(target held on every set, mean agreement, mean share decided) of outcomes on the rows ``ks``."""
    sets = sorted({rows[k].set for k in ks if any(a.signals is not None for a in rows[k].aliases)})
    worst, agreement, decided = 0.0, 0.0, 0.0
    for name in sets:
        group = [k for k in ks if rows[k].set == name]
        decided_wrong = [k for k in group if rows[k].wrong and not outs[k].review]
        worst = max(
            worst,
            binomial_upper(
                sum(outs[k].passed for k in decided_wrong), len(decided_wrong), confidence
            ),
        )
        agreement += sum(outs[k].passed == rows[k].human for k in group) / len(group) / len(sets)
        decided += sum(not outs[k].review for k in group) / len(group) / len(sets)
    return float(worst <= target), agreement, decided


def grade_rows(rows: list[Row], ks: list[int], rubric: Rubric, fitted: Fit) -> dict[int, Outcome]:
    """The held-out rows graded by the default rubric, as a gold-file run would grade them."""
    out = {}
    with using(fitted.cuts, fitted.weights, fitted.band):
        for k in ks:
            row = rows[k]
            sample = normalise(row.record, path=row.set, line=k + 1, defaults={})
            result = rubric.grade(sample, Answer(text=row.response, source="response"))
            review = bool(result.record.get("needs_review"))
            out[k] = Outcome(result.tier in ("pass", "acceptable") and not review, review)
    return out


def line(label: str, f: dict[str, float]) -> str:
    return (
        f"  {label:<16} agreement {f['agreement']:.3f}  false-pass {f['false_pass']:.3f}  "
        f"false-fail {f['false_fail']:.3f}  false-pass among decided {f['fp_decided']:.3f}  decided {f['decided']:.3f}"
    )


def curve(
    rows: list[Row], outs_for: Callable[[Band], list[Outcome]], chosen: list[Band]
) -> list[str]:
    """Risk against coverage: for each share decided, the lowest false-pass rate among decided any pair
    of pass thresholds reaches (the Pareto front over the grid), with its agreement."""
    points = []
    for band in bands():
        f = figures(rows, outs_for(band))
        points.append((f["decided"], f["fp_decided"], f["agreement"], band))
    front: list[tuple[float, float, float, Band]] = []
    for point in sorted(points, key=lambda p: (-p[0], p[1], -p[2])):
        if not front or point[1] < front[-1][1] - 1e-12:
            front.append(point)
    lines = ["    decided  false-pass among decided  agreement  pass at (short, descriptive)"]
    for decided, fp, agreement, band in front:
        mark = f"  <- chosen in {chosen.count(band)} fold(s)" if band in chosen else ""
        lines.append(
            f"    {decided:7.3f}  {fp:24.3f}  {agreement:9.3f}  {band[0]:.2f}, {band[1]:.2f}{mark}"
        )
    for band in sorted({b for b in chosen if b not in [p[3] for p in front]}):
        f = figures(rows, outs_for(band))
        lines.append(
            f"    {f['decided']:7.3f}  {f['fp_decided']:24.3f}  {f['agreement']:9.3f}  {band[0]:.2f}, {band[1]:.2f}"
            f"  <- chosen in {chosen.count(band)} fold(s), off the front"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="the dev data folder (../shared/data)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument(
        "--seed", type=int, default=13, help="shuffle of the questions dealt to folds (default 13)"
    )
    ap.add_argument(
        "--target",
        type=float,
        default=0.08,
        help="false passes among decided to hold (default 0.08)",
    )
    ap.add_argument(
        "--confidence",
        type=float,
        default=0.9,
        help="one-sided confidence that the fitting rows' rate is under the target (default 0.9)",
    )
    ap.add_argument(
        "--refit-cuts",
        action="store_true",
        help="also choose the rules' inclusion cuts on the fitting folds (slower)",
    )
    ap.add_argument(
        "--group-by",
        nargs="+",
        choices=GROUPINGS,
        default=["question"],
        help="how FinanceBench questions are held out: by question, company, or type (default question)",
    )
    args = ap.parse_args()
    for name in ("financebench_dev.jsonl", "openqa_dev.jsonl", "numeric_dev.jsonl"):
        data_file(args.data, name, script="risk_coverage.py")  # one line naming a missing file
    questions = financebench_questions(args.data) if set(args.group_by) - {"question"} else {}
    t0 = time.perf_counter()
    rubric = Rubric(
        default_settings(), GraderRegistry(), judge=None, components=ComponentRegistry()
    )
    rows = [
        r for name in ("financebench", "openqa", "numeric") for r in load(name, args.data, rubric)
    ]
    everything = list(range(len(rows)))

    fit_all = fit(rows, everything, args.target, args.confidence, args.refit_cuts)
    in_sample = grade_rows(rows, everything, rubric, fit_all)
    fold, folds = grouped_folds(rows, "question", args.folds, questions, args.seed)
    cv, fold_fits = cross_validate(rows, fold, folds, rubric, args)

    print(
        f"offline judge, {args.folds} folds grouped by question (seed {args.seed}); band: false passes among decided <= {args.target:.0%} "
        f"at {args.confidence:.0%} one-sided confidence on the fitting rows"
        + ("; rule cuts refitted too" if args.refit_cuts else "; rule cuts as shipped")
    )
    for label, fitted in [
        ("fitted on all dev", fit_all),
        *((f"fold {f}", ff) for f, ff in enumerate(fold_fits)),
    ]:
        print(f"  {label}: bands {show(fitted.band)}  cuts {fitted.cuts}  weights {fitted.weights}")
    print(
        f"  shipped: bands {correctness.ABSTAIN_BANDS}  cuts {correctness.INCLUSION_CUTS}  weights {correctness.TEXT_WEIGHTS}"
    )
    for name in ("financebench", "openqa", "numeric"):
        ks = [k for k in everything if rows[k].set == name]
        members = [rows[k] for k in ks]
        groups = len({r.group for r in members})
        print(
            f"\n{name}: {len(ks)} answers, {groups} questions (gate view: needs review is not a pass)"
        )
        print(line("in-sample", figures(members, [in_sample[k] for k in ks])))
        print(line("cross-validated", figures(members, [cv[k] for k in ks])))
        print(
            "  risk-coverage, out-of-fold weights (each row scored with the weights of the folds it is not in):"
        )

        def outs_for(band: Band, ks: list[int] = ks) -> list[Outcome]:
            outs = []
            for k in ks:
                with using(fold_fits[fold[k]].cuts):
                    outs.append(outcome(rows[k], fold_fits[fold[k]].weights, band))
            return outs

        print("\n".join(curve(members, outs_for, [ff.band for ff in fold_fits])))
    if args.group_by != ["question"]:
        ks = [k for k in everything if rows[k].set == "financebench"]
        members = [rows[k] for k in ks]
        print("\nfinancebench, transfer: cross-validated with questions held out by each grouping")
        print(line("in-sample", figures(members, [in_sample[k] for k in ks])))
        for grouping in args.group_by:
            g_fold, g_folds = (
                (fold, folds)
                if grouping == "question"
                else grouped_folds(rows, grouping, args.folds, questions, args.seed)
            )
            g_cv = (
                cv
                if grouping == "question"
                else cross_validate(rows, g_fold, g_folds, rubric, args)[0]
            )
            print(line(f"by {grouping} ({g_folds})", figures(members, [g_cv[k] for k in ks])))
    print(f"\n({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
