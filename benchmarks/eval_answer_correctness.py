"""Agreement of the offline ``answer_correctness`` verdict with human labels on FinanceBench.

Usage:  python benchmarks/eval_answer_correctness.py ../shared/data [--errors N] [--no-cv]

Reads ``financebench_dev.jsonl`` (label correct / incorrect / refusal, company, question_type) from
the data dir and prints:
- pooled agreement on "correct vs not", Cohen's kappa, the time to grade every answer (and that time
  scaled to 1,360 answers, the size of the hidden hold-out);
- agreement of samples flagged ``needs_review`` vs unflagged ones;
- a confusion table per question type, agreement per model, refusal precision / recall / F1;
- grouped validation: the logistic weights refitted without the held-out group, for 5 folds by
  question, leave-one-company-out and leave-one-question-type-out;
- ablations: each contradiction rule and each analysis switch turned off, pooled and in the
  leave-one-company-out / leave-one-type-out folds. A rule that helps the pooled figure and not the
  groups is tuned to dev.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared_data import data_file, read_jsonl

from pytest_llmeval.metrics.freetext import correctness
from pytest_llmeval.metrics.freetext.refusal import is_refusal

HOLDOUT_SIZE = 1360
SWITCHES = ("derived_figures", "gold_answer_part", "conclusion")
# Rules that decide by definition (a refusal is never correct; numeric golds go to the numeric engine).
FIXED_RULES = ("refusal", "numeric_gold")

Row = dict[str, Any]


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    pa = sum(a for a, _ in pairs) / n
    pb = sum(b for _, b in pairs) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def fit_logistic(
    xs: list[list[float]], ys: list[bool], l2: float = 0.01, steps: int = 3000
) -> tuple[float, ...]:
    """Batch gradient descent on the log loss with a small L2 penalty (bias unpenalised)."""
    import numpy as np

    x = np.hstack([np.ones((len(xs), 1)), np.asarray(xs, dtype=float)])
    y = np.asarray(ys, dtype=float)
    w = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        w -= 0.5 * (x.T @ (p - y) / len(y) + reg * w)
    return tuple(round(float(v), 2) for v in w)


def agreement(
    pred: Sequence[bool], human: Sequence[bool], ks: Sequence[int] | None = None
) -> float:
    ks = range(len(human)) if ks is None else ks
    return sum(pred[k] == human[k] for k in ks) / max(1, len(ks))


def grouped_cv(
    signals: list[correctness.Signals],
    human: list[bool],
    group_of: list[str],
    disabled: frozenset[str] = frozenset(),
) -> tuple[list[bool], dict[str, float]]:
    """Predictions where each group's verdicts use weights fitted on the other groups only."""
    pred = [False] * len(human)
    per_group: dict[str, float] = {}
    for group in sorted(set(group_of)):
        train = [k for k, g in enumerate(group_of) if g != group]
        test = [k for k, g in enumerate(group_of) if g == group]
        text_rows = [k for k in train if correctness.rule_verdict(signals[k], disabled) is None]
        w = fit_logistic(
            [correctness.text_features(signals[k]) for k in text_rows],
            [human[k] for k in text_rows],
        )
        for k in test:
            pred[k] = correctness.decide(signals[k], weights_override=w, disabled=disabled)[0]
        per_group[group] = agreement(pred, human, test)
    return pred, per_group


def question_folds(rows: list[Row], n: int = 5) -> list[str]:
    qids = sorted({r["id"].split("/")[0] for r in rows})
    random.Random(13).shuffle(qids)
    fold_of = {q: f"fold{i % n}" for i, q in enumerate(qids)}
    return [fold_of[r["id"].split("/")[0]] for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("--errors", type=int, default=0, help="print N disagreements")
    ap.add_argument("--no-cv", action="store_true", help="skip grouped validation and ablations")
    args = ap.parse_args()
    rows: list[Row] = read_jsonl(data_file(args.data_dir, "financebench_dev.jsonl"))

    correctness.answer_correctness(
        "warm up", "warm up", judge="offline"
    )  # imports, regex compilation
    t0, cpu0 = time.perf_counter(), time.process_time()
    verdicts = [
        correctness.answer_correctness(
            r["response"], r["gold"], question=r["question"], judge="offline"
        )
        for r in rows
    ]
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    human = [r["label"] == "correct" for r in rows]
    pred = [v.correct for v in verdicts]
    pairs = list(zip(pred, human, strict=True))
    print(
        f"FinanceBench dev: {len(rows)} answers, {len({r['id'].split('/')[0] for r in rows})} questions"
    )
    print(
        f"offline answer_correctness: agreement {agreement(pred, human):.3f}  Cohen's kappa {kappa(pairs):.3f}"
    )
    print(
        f"  speed: {elapsed:.1f}s for {len(rows)} answers = {elapsed / len(rows) * 1000:.1f} ms each, "
        f"{elapsed / len(rows) * HOLDOUT_SIZE:.1f}s per {HOLDOUT_SIZE:,} answers (one process); "
        f"CPU time {cpu:.1f}s = {cpu / len(rows) * HOLDOUT_SIZE:.1f}s per {HOLDOUT_SIZE:,} (wall > CPU: other load)"
    )
    print(reviewer_figures(rows, verdicts))
    majority = max(sum(human), len(human) - sum(human)) / len(human)
    print(f"  (majority baseline {majority:.3f})")
    flagged = [k for k, v in enumerate(verdicts) if v.needs_review]
    unflagged = [k for k, v in enumerate(verdicts) if not v.needs_review]
    print(
        f"  needs_review: flagged {len(flagged)} answers, agreement {agreement(pred, human, flagged):.3f}; "
        f"unflagged {len(unflagged)}, agreement {agreement(pred, human, unflagged):.3f}"
    )

    print("\nconfusion per question type (rows: human label, cols: offline verdict)")
    by_type: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for r, v in zip(rows, verdicts, strict=True):
        got = "refusal" if v.refusal else ("correct" if v.correct else "incorrect")
        by_type[r["question_type"]][(r["label"], got)] += 1
        by_type["ALL"][(r["label"], got)] += 1
    labels = ["correct", "incorrect", "refusal"]
    for qt, conf in by_type.items():
        n = sum(conf.values())
        acc = sum(c for (h, g), c in conf.items() if (h == "correct") == (g == "correct")) / n
        print(f"  {qt}  (n={n}, agreement {acc:.3f})")
        print("    human\\pred  " + "".join(f"{lab:>10}" for lab in labels))
        for h in labels:
            print(f"    {h:<11}" + "".join(f"{conf[(h, g)]:>10}" for g in labels))

    print("\nagreement per model:", end="")
    for model in sorted({r["model"] for r in rows}):
        ks = [k for k, r in enumerate(rows) if r["model"] == model]
        print(f"  {model} {agreement(pred, human, ks):.3f} (n={len(ks)})", end="")
    print()

    ref_h = [r["label"] == "refusal" for r in rows]
    ref_p = [is_refusal(r["response"]) for r in rows]
    print(f"\nrefusal detection: {refusal_figures(ref_p, ref_h)}")
    folds = question_folds(rows)
    per_fold = []
    for fold in sorted(set(folds)):
        ks = [k for k, f in enumerate(folds) if f == fold]
        per_fold.append(refusal_f1([ref_p[k] for k in ks], [ref_h[k] for k in ks]))
    print("  refusal F1 per question fold: " + ", ".join(f"{x:.3f}" for x in per_fold))

    if not args.no_cv:
        validate(rows, human)

    if args.errors:
        bad = [
            (r, v)
            for r, v in zip(rows, verdicts, strict=True)
            if v.correct != (r["label"] == "correct")
        ]
        random.Random(0).shuffle(bad)
        for r, v in bad[: args.errors]:
            print(
                "\n---",
                r["label"],
                "| pred",
                v.correct,
                "|",
                r["question_type"],
                r["model"],
                r["eval_mode"],
            )
            print("Q:", r["question"][:200])
            print("GOLD:", r["gold"][:200])
            print("RESP:", r["response"][:600].replace("\n", " "))
            print("WHY:", "; ".join(v.reasons))


def reviewer_figures(rows: list[Row], verdicts: list[Any]) -> str:
    """False-pass rate (wrong answers graded correct: label "incorrect"), false-fail rate, and
    selective accuracy (agreement where not needs_review) with the decided share; pooled, then
    averaged over questions."""

    def figures(ks: list[int]) -> tuple[float, float, float, float]:
        wrong = [k for k in ks if rows[k]["label"] == "incorrect"]
        right = [k for k in ks if rows[k]["label"] == "correct"]
        decided = [k for k in ks if not verdicts[k].needs_review]
        nan = float("nan")
        return (
            sum(verdicts[k].correct for k in wrong) / len(wrong) if wrong else nan,
            sum(not verdicts[k].correct for k in right) / len(right) if right else nan,
            sum(verdicts[k].correct == (rows[k]["label"] == "correct") for k in decided)
            / len(decided)
            if decided
            else nan,
            len(decided) / len(ks),
        )

    pooled = figures(list(range(len(rows))))
    by_q: dict[str, list[int]] = defaultdict(list)
    for k, r in enumerate(rows):
        by_q[r["id"].split("/")[0]].append(k)
    per_q = [figures(ks) for ks in by_q.values()]
    macro = [
        sum(f[i] for f in per_q if f[i] == f[i]) / max(1, sum(1 for f in per_q if f[i] == f[i]))
        for i in range(4)
    ]
    names = ("false-pass", "false-fail", "selective", "decided")
    return (
        "  pooled:            "
        + "  ".join(f"{n} {v:.3f}" for n, v in zip(names, pooled, strict=True))
        + "\n  macro by question: "
        + "  ".join(f"{n} {v:.3f}" for n, v in zip(names, macro, strict=True))
    )


def refusal_f1(pred: list[bool], human: list[bool]) -> float:
    tp = sum(a and b for a, b in zip(pred, human, strict=True))
    prec, rec = tp / max(1, sum(pred)), tp / max(1, sum(human))
    return 2 * prec * rec / (prec + rec) if prec + rec else 0.0


def refusal_figures(pred: list[bool], human: list[bool]) -> str:
    tp = sum(a and b for a, b in zip(pred, human, strict=True))
    prec, rec = tp / max(1, sum(pred)), tp / max(1, sum(human))
    return f"precision {prec:.3f}  recall {rec:.3f}  F1 {refusal_f1(pred, human):.3f}"


def validate(rows: list[Row], human: list[bool]) -> None:
    """Grouped cross-validation of the logistic weights, then rule and switch ablations."""
    t0 = time.perf_counter()
    signals = [correctness.analyse(r["response"], r["gold"], r["question"]) for r in rows]
    groupings: dict[str, list[str]] = {
        "question (5 folds)": question_folds(rows),
        "company (leave one out)": [r["company"] for r in rows],
        "question type (leave one out)": [r["question_type"] for r in rows],
    }
    print(
        "\ngrouped validation (logistic weights refitted without the held-out group; rules fixed)"
    )
    base: dict[str, float] = {}
    for name, groups in groupings.items():
        pred, per_group = grouped_cv(signals, human, groups)
        base[name] = agreement(pred, human)
        worst = sorted(per_group.items(), key=lambda kv: kv[1])[:3]
        print(
            f"  by {name}: agreement {base[name]:.3f} over {len(per_group)} groups; "
            f"lowest: {', '.join(f'{g} {a:.3f}' for g, a in worst)}"
        )
        if name.startswith("question type"):
            print("    " + "  ".join(f"{g} {a:.3f}" for g, a in sorted(per_group.items())))

    print(
        "\nablation: agreement change when a rule or analysis step is removed (positive = it helps)"
    )
    print(
        f"  {'removed':<18} {'pooled':>8} {'by company':>11} {'by type':>9} {'companies +/-':>14}"
    )
    companies = groupings["company (leave one out)"]

    def ablate(label: str, sig: list[correctness.Signals], disabled: frozenset[str]) -> None:
        pooled_with = agreement([correctness.decide(s)[0] for s in signals], human)
        pooled_without = agreement(
            [correctness.decide(s, disabled=disabled)[0] for s in sig], human
        )
        deltas = []
        for name in ("company (leave one out)", "question type (leave one out)"):
            pred_without, _ = grouped_cv(sig, human, groupings[name], disabled)
            deltas.append(base[name] - agreement(pred_without, human))
        _, per_with = grouped_cv(signals, human, companies)
        _, per_without = grouped_cv(sig, human, companies, disabled)
        helped = sum(per_with[g] > per_without[g] + 1e-9 for g in per_with)
        hurt = sum(per_with[g] < per_without[g] - 1e-9 for g in per_with)
        print(
            f"  {label:<18} {pooled_with - pooled_without:>+8.3f} {deltas[0]:>+11.3f} {deltas[1]:>+9.3f} "
            f"{f'{helped}/{hurt}':>14}"
        )

    for rule in correctness.RULES:
        if rule not in FIXED_RULES:
            ablate(f"rule {rule}", signals, frozenset({rule}))
    for switch in SWITCHES:
        off: Callable[[Row], correctness.Signals] = lambda r, sw=switch: correctness.analyse(  # noqa: E731
            r["response"], r["gold"], r["question"], {sw: 0.0}
        )
        ablate(f"step {switch}", [off(r) for r in rows], frozenset())
    text_rows = [k for k in range(len(rows)) if correctness.rule_verdict(signals[k]) is None]
    w_all = fit_logistic(
        [correctness.text_features(signals[k]) for k in text_rows], [human[k] for k in text_rows]
    )
    print(f"\n  weights fitted on all dev: {w_all}")
    print(f"  shipped weights:           {correctness.TEXT_WEIGHTS}")
    print(f"  features: {correctness.TEXT_FEATURES}")
    print(f"  (validation took {time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
