"""Risk-coverage of the offline judge, cross-validated by question, and the fit of its learned values.

Usage:  python benchmarks/risk_coverage.py --data ../shared/data [--folds 5] [--target 0.08]

The offline judge (``answer_correctness``) learns two things: the logistic weights of the evidence
no rule decides (``correctness.TEXT_WEIGHTS``, fitted on FinanceBench text rows) and the abstention
band (``correctness.ABSTAIN_BAND``): weighed evidence inside it is not decided (needs review, or the
LLM judge). Everything else is a rule or a convention (tolerances) and is not fitted here.

Rows are grouped by question; each fold's questions are held out together, so no question both
fits and scores. Per fold the weights are fitted on the other folds' FinanceBench rows, and the
band is chosen on the other folds' rows of both sets: the widest coverage whose false-pass rate
among decided samples stays at or under ``--target`` on each set. The held-out fold is then graded
by the default rubric with that fold's weights and band (as a gold-file run grades it).

Prints, per dev set (financebench, openqa, numeric), in-sample (fitted on every row) and
cross-validated figures side by side in the gate view (needs review is not a pass): agreement,
false-pass rate (share of wrong answers graded pass; FinanceBench: label "incorrect"), false-fail
rate, false passes among decided wrong answers, and the share decided; then the risk-coverage curve:
for each band on the out-of-fold scores, the share decided against the false-pass rate among
decided samples (the numeric grader learns nothing here: one point).
"""

from __future__ import annotations

import argparse
import contextlib
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

from pytest_llmeval.components import ComponentRegistry, _alias_rank
from pytest_llmeval.metrics.base import MetricResult
from pytest_llmeval.metrics.freetext import correctness
from pytest_llmeval.models.base import Answer
from pytest_llmeval.registry import GraderRegistry, choose_accuracy_grader
from pytest_llmeval.rubric import MAX_GRADED_CHARS, Rubric
from pytest_llmeval.schema import normalise

Band = tuple[float, float]
GRID = [round(0.05 * k, 2) for k in range(10, 20)]  # pass thresholds 0.50 .. 0.95
EVEN = 0.5  # the logistic's even odds: below it a fail is more likely right than wrong


@dataclass
class Alias:
    """One acceptable answer of a sample: the offline judge's signals, or a fixed verdict of
    another grader (identity, numeric) that learns nothing."""

    signals: correctness.Signals | None
    fixed: MetricResult | None


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
                aliases.append(Alias(None, result))
        wrong = raw["label"] == "incorrect" if name == "financebench" else not human
        rows.append(Row(name, f"{name}:{group}", human, wrong, record, response, aliases))
    return rows


def folds_of(rows: list[Row], n: int) -> list[int]:
    """Fold of each row: its question's, questions shuffled once (seed 13) and dealt round-robin per set."""
    fold: dict[str, int] = {}
    for name in dict.fromkeys(r.set for r in rows):
        groups = sorted({r.group for r in rows if r.set == name})
        random.Random(13).shuffle(groups)
        fold.update({g: i % n for i, g in enumerate(groups)})
    return [fold[r.group] for r in rows]


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
    evidence: float | None  # the weighed score of the alias that counted, None when ruled or fixed


def offline_alias(signals: correctness.Signals, weights: tuple[float, ...], band: Band) -> tuple[MetricResult, float | None]:
    correct, score, reasons = correctness.decide(signals, weights_override=weights)
    if correctness.ruling(signals) is None:
        correct = score >= band[0]
    judged = correctness._offline_judgement((correct, score, reasons, signals), band)
    result = MetricResult(
        metric="answer_correctness", score=1.0 if judged.correct else correctness._partial_score(signals),
        passed=judged.correct,
        details={"needs_review": bool(judged.review_notes)},
    )
    return result, (score if judged.decided_by == "weighed evidence" else None)


def outcome(row: Row, weights: tuple[float, ...], band: Band) -> Outcome:
    graded = []
    for alias in row.aliases:
        if alias.signals is not None:
            graded.append(offline_alias(alias.signals, weights, band))
        else:
            assert alias.fixed is not None
            graded.append((alias.fixed, None))
    result, evidence = max(graded, key=lambda g: _alias_rank(g[0]))
    review = bool(result.details.get("needs_review"))
    return Outcome(bool(result.passed) and not review, review, evidence)


def figures(rows: list[Row], outs: list[Outcome]) -> dict[str, float]:
    wrong = [k for k, r in enumerate(rows) if r.wrong]
    right = [k for k, r in enumerate(rows) if r.human]
    decided_wrong = [k for k in wrong if not outs[k].review]
    nan = float("nan")
    return {
        "agreement": sum(outs[k].passed == r.human for k, r in enumerate(rows)) / len(rows),
        "false_pass": sum(outs[k].passed for k in wrong) / len(wrong) if wrong else nan,
        "false_fail": sum(not outs[k].passed for k in right) / len(right) if right else nan,
        "fp_decided": sum(outs[k].passed for k in decided_wrong) / len(decided_wrong) if decided_wrong else nan,
        "decided": sum(not o.review for o in outs) / len(rows),
    }


def bands() -> list[Band]:
    """The candidate bands: below even odds fails, from there to ``high`` needs review, above passes."""
    return [(EVEN, high) for high in GRID if high >= EVEN]


def choose_band(rows: list[Row], ks: list[int], weights: tuple[float, ...], target: float) -> Band:
    """The lowest pass threshold whose false passes among decided stay <= target on every set."""
    sets = sorted({rows[k].set for k in ks if any(a.signals is not None for a in rows[k].aliases)})
    for band in bands():
        outs = {k: outcome(rows[k], weights, band) for k in ks}
        worst = 0.0
        for name in sets:
            members = [k for k in ks if rows[k].set == name]
            worst = max(worst, figures([rows[k] for k in members], [outs[k] for k in members])["fp_decided"])
        if worst <= target:
            return band
    return bands()[-1]


@contextlib.contextmanager
def shipped(weights: tuple[float, ...], band: Band) -> Iterator[None]:
    """The rubric grades with these weights and this band (the module constants the judge reads)."""
    saved = correctness.TEXT_WEIGHTS, correctness.ABSTAIN_BAND
    correctness.TEXT_WEIGHTS, correctness.ABSTAIN_BAND = weights, band
    try:
        yield
    finally:
        correctness.TEXT_WEIGHTS, correctness.ABSTAIN_BAND = saved


def grade_rows(rows: list[Row], ks: list[int], rubric: Rubric, weights: tuple[float, ...], band: Band) -> dict[int, Outcome]:
    """The held-out rows graded by the default rubric, as a gold-file run would grade them."""
    out = {}
    with shipped(weights, band):
        for k in ks:
            row = rows[k]
            sample = normalise(row.record, path=row.set, line=k + 1, defaults={})
            result = rubric.grade(sample, Answer(text=row.response, source="response"))
            review = bool(result.record.get("needs_review"))
            out[k] = Outcome(result.tier in ("pass", "acceptable") and not review, review, None)
    return out


def line(label: str, f: dict[str, float]) -> str:
    return (
        f"  {label:<16} agreement {f['agreement']:.3f}  false-pass {f['false_pass']:.3f}  "
        f"false-fail {f['false_fail']:.3f}  false-pass among decided {f['fp_decided']:.3f}  decided {f['decided']:.3f}"
    )


def curve(rows: list[Row], outs_for: Callable[[Band], list[Outcome]], chosen: list[Band]) -> list[str]:
    """Share decided, false passes among decided and agreement for each candidate band."""
    lines = ["    band           decided  false-pass among decided  agreement"]
    for band in bands():
        f = figures(rows, outs_for(band))
        mark = f"  <- chosen in {chosen.count(band)} fold(s)" if band in chosen else ""
        lines.append(f"    [{band[0]:.2f}, {band[1]:.2f})  {f['decided']:7.3f}  {f['fp_decided']:24.3f}  {f['agreement']:9.3f}{mark}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="the dev data folder (../shared/data)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--target", type=float, default=0.08, help="false passes among decided to hold (default 0.08)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rubric = Rubric(default_settings(), GraderRegistry(), judge=None, components=ComponentRegistry())
    rows = [r for name in ("financebench", "openqa", "numeric") for r in load(name, args.data, rubric)]
    fold = folds_of(rows, args.folds)
    everything = list(range(len(rows)))

    w_all = fit_weights(rows, everything)
    band_all = choose_band(rows, everything, w_all, args.target)
    in_sample = grade_rows(rows, everything, rubric, w_all, band_all)

    cv: dict[int, Outcome] = {}
    fold_fits: list[tuple[tuple[float, ...], Band]] = []
    for f in range(args.folds):
        train = [k for k in everything if fold[k] != f]
        test = [k for k in everything if fold[k] == f]
        w = fit_weights(rows, train)
        band = choose_band(rows, train, w, args.target)
        fold_fits.append((w, band))
        cv.update(grade_rows(rows, test, rubric, w, band))

    print(f"offline judge, {args.folds} folds grouped by question, target false passes among decided <= {args.target:.0%}")
    print(f"  fitted on all dev: weights {w_all}  band [{band_all[0]:.2f}, {band_all[1]:.2f})")
    for f, (w, band) in enumerate(fold_fits):
        print(f"  fold {f}: band [{band[0]:.2f}, {band[1]:.2f})  weights {w}")
    print(f"  shipped: weights {correctness.TEXT_WEIGHTS}  band {correctness.ABSTAIN_BAND}")
    for name in ("financebench", "openqa", "numeric"):
        ks = [k for k in everything if rows[k].set == name]
        members = [rows[k] for k in ks]
        groups = len({r.group for r in members})
        print(f"\n{name}: {len(ks)} answers, {groups} questions (gate view: needs review is not a pass)")
        print(line("in-sample", figures(members, [in_sample[k] for k in ks])))
        print(line("cross-validated", figures(members, [cv[k] for k in ks])))
        print("  risk-coverage, out-of-fold weights (each row scored with the weights of the folds it is not in):")

        def outs_for(band: Band, ks: list[int] = ks) -> list[Outcome]:
            return [outcome(rows[k], fold_fits[fold[k]][0], band) for k in ks]

        print("\n".join(curve(members, outs_for, [b for _, b in fold_fits])))
    print(f"\n({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
