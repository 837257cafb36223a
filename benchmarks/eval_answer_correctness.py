"""Agreement of the offline ``answer_correctness`` verdict with human labels on FinanceBench.

Usage:  python benchmarks/eval_answer_correctness.py ../shared/data [--errors N] [--no-cv]

Reads ``financebench_dev.jsonl`` (label correct / incorrect / refusal) from the data dir and prints
agreement on "correct vs not", Cohen's kappa, a confusion table per question type, refusal
detection precision / recall / F1, and a cross-validated agreement in which the tunable
thresholds are chosen on other questions only (5 folds by question id).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_llmeval.metrics import correctness
from pytest_llmeval.metrics.refusal import is_refusal

GRID = {"rel_tol": [0.005, 0.01, 0.02, 0.03, 0.05]}


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    pa = sum(a for a, _ in pairs) / n
    pb = sum(b for _, b in pairs) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("--errors", type=int, default=0, help="print N disagreements")
    ap.add_argument("--no-cv", action="store_true")
    args = ap.parse_args()
    lines = (
        (Path(args.data_dir) / "financebench_dev.jsonl").read_text(encoding="utf-8").splitlines()
    )
    rows = [json.loads(line) for line in lines if line.strip()]

    t0 = time.perf_counter()
    verdicts = [
        correctness.answer_correctness(
            r["response"], r["gold"], question=r["question"], judge="offline"
        )
        for r in rows
    ]
    elapsed = time.perf_counter() - t0
    human = [r["label"] == "correct" for r in rows]
    pred = [v.correct for v in verdicts]
    pairs = list(zip(pred, human, strict=True))
    agree = sum(a == b for a, b in pairs) / len(pairs)
    print(
        f"FinanceBench dev: {len(rows)} answers, {len({r['id'].split('/')[0] for r in rows})} questions"
    )
    print(
        f"offline answer_correctness: agreement {agree:.3f}  Cohen's kappa {kappa(pairs):.3f}  ({elapsed:.1f}s)"
    )
    majority = max(sum(human), len(human) - sum(human)) / len(human)
    print(f"  (majority baseline {majority:.3f})")
    flagged = [a == b for (a, b), v in zip(pairs, verdicts, strict=True) if v.needs_review]
    unflagged = [a == b for (a, b), v in zip(pairs, verdicts, strict=True) if not v.needs_review]
    print(
        f"  needs_review flagged on {len(flagged)} answers: agreement there {sum(flagged) / max(1, len(flagged)):.3f}"
        f" vs {sum(unflagged) / max(1, len(unflagged)):.3f} on the rest"
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
        print(
            f"  {model} {sum(pairs[k][0] == pairs[k][1] for k in ks) / len(ks):.3f} (n={len(ks)})",
            end="",
        )
    print()

    ref_h = [r["label"] == "refusal" for r in rows]
    ref_p = [is_refusal(r["response"]) for r in rows]
    tp = sum(a and b for a, b in zip(ref_p, ref_h, strict=True))
    prec = tp / max(1, sum(ref_p))
    rec = tp / max(1, sum(ref_h))
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    print(f"\nrefusal detection: precision {prec:.3f}  recall {rec:.3f}  F1 {f1:.3f}")
    by_q: dict[str, list[int]] = defaultdict(list)
    for k, r in enumerate(rows):
        by_q[r["id"].split("/")[0]].append(k)
    qids = sorted(by_q)
    random.Random(13).shuffle(qids)
    f1s = []
    for fold in range(5):
        ks = [k for i, q in enumerate(qids) if i % 5 == fold for k in by_q[q]]
        tp_f = sum(ref_p[k] and ref_h[k] for k in ks)
        p_f, r_f = (
            tp_f / max(1, sum(ref_p[k] for k in ks)),
            tp_f / max(1, sum(ref_h[k] for k in ks)),
        )
        f1s.append(2 * p_f * r_f / (p_f + r_f) if p_f + r_f else 0.0)
    print("  refusal F1 per question fold: " + ", ".join(f"{x:.3f}" for x in f1s))

    if not args.no_cv:
        cross_validate(rows, human)

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


def fit_logistic(
    xs: list[list[float]], ys: list[bool], l2: float = 0.01, steps: int = 3000
) -> tuple[float, ...]:
    """Plain batch gradient descent on the log loss with a small L2 penalty (bias unpenalised)."""
    n_feat = len(xs[0])
    w = [0.0] * (n_feat + 1)
    lr = 0.5
    for _ in range(steps):
        grad = [0.0] * (n_feat + 1)
        for x, y in zip(xs, ys, strict=True):
            z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            err = p - (1.0 if y else 0.0)
            grad[0] += err
            for i, xi in enumerate(x):
                grad[i + 1] += err * xi
        for i in range(n_feat + 1):
            reg = l2 * w[i] if i else 0.0
            w[i] -= lr * (grad[i] / len(xs) + reg)
    return tuple(round(v, 2) for v in w)


def is_text(s: correctness.Signals) -> bool:
    """Rows the logistic model decides (no rule applies)."""
    return correctness.rule_verdict(s) is None


def cross_validate(rows: list[dict[str, str]], human: list[bool]) -> None:
    """5-fold CV by question: rel_tol chosen and text weights fitted on 4/5 of the questions, scored on the rest."""
    qids = sorted({r["id"].split("/")[0] for r in rows})
    random.Random(13).shuffle(qids)
    fold_of = {q: i % 5 for i, q in enumerate(qids)}
    signals = {
        tol: [
            correctness.analyse(r["response"], r["gold"], r["question"], {"rel_tol": tol})
            for r in rows
        ]
        for tol in GRID["rel_tol"]
    }
    correct_total = 0
    for fold in range(5):
        train = [k for k, r in enumerate(rows) if fold_of[r["id"].split("/")[0]] != fold]
        test = [k for k, r in enumerate(rows) if fold_of[r["id"].split("/")[0]] == fold]

        def fit(tol: float, train: list[int] = train) -> tuple[float, tuple[float, ...]]:
            sig = signals[tol]
            text_rows = [k for k in train if is_text(sig[k])]
            w = fit_logistic(
                [correctness.text_features(sig[k]) for k in text_rows],
                [human[k] for k in text_rows],
            )
            acc = sum(
                correctness.decide(sig[k], {"rel_tol": tol}, w)[0] == human[k] for k in train
            ) / len(train)
            return acc, w

        fits = {tol: fit(tol) for tol in GRID["rel_tol"]}
        # ties (common: the tolerance rarely matters) go to the shipped default
        default = correctness.PARAMS["rel_tol"]
        tol = max(fits, key=lambda t: (round(fits[t][0], 6), -abs(math.log(t / default))))
        w = fits[tol][1]
        correct_total += sum(
            correctness.decide(signals[tol][k], {"rel_tol": tol}, w)[0] == human[k] for k in test
        )
        print(f"   fold {fold}: rel_tol {tol}, text weights {w}")
    print(
        f"5-fold cross-validation by question (rel_tol and weights fitted without the held-out questions): agreement {correct_total / len(rows):.3f}"
    )
    sig = signals[correctness.PARAMS["rel_tol"]]
    text_rows = [k for k in range(len(rows)) if is_text(sig[k])]
    w_all = fit_logistic(
        [correctness.text_features(sig[k]) for k in text_rows], [human[k] for k in text_rows]
    )
    print(f"   weights fitted on all dev (rel_tol {correctness.PARAMS['rel_tol']}): {w_all}")
    print(f"   shipped weights: {correctness.TEXT_WEIGHTS}  features: {correctness.TEXT_FEATURES}")


if __name__ == "__main__":
    main()
