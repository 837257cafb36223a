"""The regression gate on people's pass rates: PPI++ on paired differences when people's labels cover
both answers of a random subset of the paired samples; the grader's verdicts otherwise."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.stats

from pytest_llmeval.labels import Label, answer_hash
from pytest_llmeval.regression import ppi
from pytest_llmeval.regression.run_comparison import compare
from tests.conftest import EXACT, write_suite

# (response, people's verdict) with the exact grader passing "Oslo" only: right, false fail, wrong, false pass.
KINDS = [("Oslo", True), ("The capital is Oslo", True), ("Bergen", False), ("Oslo", False)]
N = 120
SELECTED = [
    i for i in range(N) if i // 2 % 2 == 0
]  # the random spot check: 60 samples in 30 groups of two


BASE_CYCLE = [0, 0, 0, 1, 2, 2, 3]  # the grader right on five answers of seven


def base_kind(i: int) -> int:
    return BASE_CYCLE[i % 7]


_DRAW = random.Random(11)
# 40 % of the answers stay; the others are drawn with wrong answers ("Bergen") most likely
RUN_KINDS = [
    base_kind(i) if _DRAW.random() < 0.4 else _DRAW.choice([0, 0, 0, 1, 2, 2, 2, 2, 2, 3])
    for i in range(N)
]
# one sample's "Oslo" is right or wrong whichever run gave it
RUN_KINDS = [base_kind(i) if {k, base_kind(i)} == {0, 3} else k for i, k in enumerate(RUN_KINDS)]


def run_kind(i: int) -> int:
    return RUN_KINDS[i]


def suite(kind: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": f"q{i}",
            "expected": "Oslo",
            "response": KINDS[kind(i)][0],
            "group": f"g{i // 2}",
            "eval_criteria": EXACT,
        }
        for i in range(N)
    ]


def rows(kind: Any, ids: list[int]) -> list[str]:
    return [
        json.dumps(
            {
                "sample_id": f"s{i}",
                "response": KINDS[kind(i)][0],
                "label": "correct" if KINDS[kind(i)][1] else "incorrect",
            }
        )
        for i in ids
    ]


def write_labels(pytester: pytest.Pytester, name: str, lines: list[str]) -> None:
    header = json.dumps({"llmeval_labels": {"selection": "random", "seed": "t"}})
    (pytester.path / name).write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")


def expected(ids: list[int], alpha: float = 0.05) -> dict[str, float]:
    """PPI++ on the paired differences, computed directly (numpy; scipy for the quantile)."""
    grader = np.array(
        [
            float(KINDS[run_kind(i)][0] == "Oslo") - float(KINDS[base_kind(i)][0] == "Oslo")
            for i in range(N)
        ]
    )
    y = np.array([float(KINDS[run_kind(i)][1]) - float(KINDS[base_kind(i)][1]) for i in ids])
    f = grader[ids]
    lam = float(np.clip(np.cov(y, f, ddof=1)[0, 1] / np.var(grader, ddof=1), 0, 1))
    residual = y - lam * f
    estimate = lam * grader.mean() + residual.mean()
    groups = np.array([i // 2 for i in ids])
    sums = np.array([np.sum(residual[groups == g] - residual.mean()) for g in np.unique(groups)])
    g = len(sums)
    se = float(np.sqrt((1 - len(ids) / N) * g / (g - 1) * np.sum(sums**2) / len(ids) ** 2))
    z = scipy.stats.norm.ppf(1 - alpha / 2)
    return {
        "delta": estimate,
        "low": estimate - z * se,
        "high": estimate + z * se,
        "se": se,
        "lam": lam,
        "grader_delta": grader.mean(),
        "upper": -estimate + scipy.stats.norm.ppf(1 - alpha) * se,
        "p": 2 * scipy.stats.norm.sf(abs(estimate) / se),
    }


# -- formula and coverage ------------------------------------------------------------------------------


def test_paired_ppi_matches_a_direct_computation() -> None:
    rng = random.Random(3)
    population = [float(rng.choice((-1, 0, 0, 0, 1))) for _ in range(200)]
    chosen = rng.sample(range(200), 50)
    people = {
        i: population[i] if rng.random() > 0.2 else float(rng.choice((-1, 0, 1))) for i in chosen
    }
    labelled = [(people[i], population[i], f"g{i // 3}") for i in chosen]
    estimate, se, lam = ppi.ppi_difference(labelled, population)
    y, f, big = (
        np.array([people[i] for i in chosen]),
        np.array([population[i] for i in chosen]),
        np.array(population),
    )
    want_lam = float(np.clip(np.cov(y, f, ddof=1)[0, 1] / np.var(big, ddof=1), 0, 1))
    residual = y - want_lam * f
    groups = np.array([i // 3 for i in chosen])
    sums = np.array([np.sum(residual[groups == g] - residual.mean()) for g in np.unique(groups)])
    variance = (1 - 50 / 200) * len(sums) / (len(sums) - 1) * np.sum(sums**2) / 50**2
    assert lam == pytest.approx(want_lam)
    assert estimate == pytest.approx(want_lam * big.mean() + residual.mean())
    assert se == pytest.approx(np.sqrt(variance))


def test_paired_ppi_interval_covers_the_people_s_change() -> None:
    """Seeded simulation: a fixed population of paired samples in groups of three, a grader wrong on
    15 % of answers (more often passing wrong ones), random labelled subsets of 20 %; the 95 % interval
    covers the people's paired change in at least 93 % of draws."""
    rng = random.Random(20261128)
    big_n, n, draws = 600, 120, 400
    z = scipy.stats.norm.ppf(0.975)
    covered = 0
    quality = [rng.random() for _ in range(big_n // 3)]
    people = [
        (rng.random() < 0.4 + 0.4 * quality[i // 3], rng.random() < 0.35 + 0.4 * quality[i // 3])
        for i in range(big_n)
    ]

    def grade(ok: bool) -> bool:
        return (rng.random() < 0.25) if not ok else (rng.random() > 0.1)

    graded = [(grade(b), grade(r)) for b, r in people]
    population = [float(r) - float(b) for b, r in graded]
    truth = sum(float(r) - float(b) for b, r in people) / big_n
    for _ in range(draws):
        chosen = rng.sample(range(big_n), n)
        labelled = [
            (float(people[i][1]) - float(people[i][0]), population[i], f"g{i // 3}") for i in chosen
        ]
        estimate, se, _ = ppi.ppi_difference(labelled, population)
        covered += abs(estimate - truth) <= z * se
    assert covered / draws >= 0.93


def _entries(kind: Any, labelled: list[int]) -> list[dict[str, Any]]:
    out = []
    for i in range(N):
        text, correct = KINDS[kind(i)]
        entry: dict[str, Any] = {
            "sample_id": f"s{i}",
            "status": "pass" if text == "Oslo" else "fail",
            "file": "qa_eval.jsonl",
            "group": f"g{i // 2}",
            "answer_sha256": answer_hash(text),
        }
        if i in labelled:
            entry["people_label"] = {
                "label": "correct" if correct else "incorrect",
                "random": True,
                "origin": "labels",
            }
        out.append(entry)
    return out


def test_compare_corrects_with_labels_on_both_sides_and_matches_numpy() -> None:
    base = {"version": 1, "metadata": {}, "sample_results": _entries(base_kind, SELECTED)}
    comparison = compare(base, _entries(run_kind, SELECTED), {}, baseline_path="b.json", labels=[])
    want = expected(SELECTED)
    people = comparison["people_labels"]
    assert people["corrected"] is True, people
    assert people["paired_labels"] == len(SELECTED)
    assert comparison["pass_rate_delta"] == pytest.approx(want["delta"], abs=1e-6)
    assert comparison["ci95"] == pytest.approx([want["low"], want["high"]], abs=1e-6)
    assert comparison["p_value"] == pytest.approx(want["p"])
    assert comparison["drop_upper_bound"] == pytest.approx(want["upper"], abs=1e-6)
    assert people["lambda"] == pytest.approx(want["lam"], abs=1e-6)
    assert people["grader_pass_rate_delta"] == pytest.approx(want["grader_delta"], abs=1e-6)
    assert (
        f"corrected by {len(SELECTED)} paired labels (PPI++ on paired differences"
        in comparison["gate_line"]
    )


def test_labels_of_this_run_label_the_baseline_answers_with_the_same_text() -> None:
    base = {"version": 1, "metadata": {}, "sample_results": _entries(base_kind, [])}
    extra = [
        Label(f"s{i}", answer_hash(KINDS[base_kind(i)][0]), KINDS[base_kind(i)][1], True, f"l:{i}")
        for i in SELECTED
    ]
    comparison = compare(
        base, _entries(run_kind, SELECTED), {}, baseline_path="b.json", labels=extra
    )
    assert comparison["people_labels"]["corrected"] is True
    assert comparison["pass_rate_delta"] == pytest.approx(expected(SELECTED)["delta"], abs=1e-6)


def test_a_selected_pair_labelled_on_one_side_only_does_not_correct() -> None:
    base = {"version": 1, "metadata": {}, "sample_results": _entries(base_kind, [])}
    comparison = compare(base, _entries(run_kind, SELECTED), {}, baseline_path="b.json", labels=[])
    people = comparison["people_labels"]
    assert people["corrected"] is False
    assert "have a person's verdict on one answer only" in people["not_corrected"]
    assert comparison["test"] == "mcnemar_exact"
    assert "not corrected by people's labels: " in comparison["gate_line"]


def test_without_labels_the_comparison_is_unchanged() -> None:
    base = {"version": 1, "metadata": {}, "sample_results": _entries(base_kind, [])}
    run = _entries(run_kind, [])
    with_none = compare(base, run, {}, baseline_path="b.json", labels=[])
    plain = compare(base, run, {}, baseline_path="b.json")
    assert "people_labels" not in with_none
    assert with_none == plain


# -- through the plugin ---------------------------------------------------------------------------------


def _baseline(pytester: pytest.Pytester, labelled: bool) -> None:
    write_suite(pytester, suite(base_kind))
    args = ["--llm-report=base.json", "-p", "no:xdist"]
    if labelled:
        write_labels(pytester, "base_labels.jsonl", rows(base_kind, SELECTED))
        args.append("--llm-labels=base_labels.jsonl")
    pytester.runpytest(*args)
    write_suite(pytester, suite(run_kind))


@pytest.mark.parametrize("where", ["baseline report", "this run's labels file"])
def test_labels_on_both_runs_correct_the_regression_gate(
    pytester: pytest.Pytester, plugin_args: list[str], where: str
) -> None:
    _baseline(pytester, labelled=where == "baseline report")
    lines = rows(run_kind, SELECTED) + (
        [] if where == "baseline report" else rows(base_kind, SELECTED)
    )
    write_labels(pytester, "labels.jsonl", lines)
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-report=r.json",
        "--llm-gate-only",
        *plugin_args,
    )
    want = expected(SELECTED)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    comparison = report["comparison"]
    assert comparison["people_labels"]["corrected"] is True, comparison["people_labels"]
    assert comparison["test"] == "ppi_plus_plus"
    assert comparison["pass_rate_delta"] == pytest.approx(want["delta"], abs=1e-6)
    assert comparison["ci95"] == pytest.approx([want["low"], want["high"]], abs=1e-6)
    labelled = [e for e in report["sample_results"] if "people_label" in e]
    assert len(labelled) == len(SELECTED)
    assert all(e["people_label"]["random"] for e in labelled)
    drop = -want["delta"]
    assert drop > 0.05  # people's drop is beyond the margin: the gate fails on it
    result.stdout.fnmatch_lines(
        [
            f"llmeval regression gate FAILED: *corrected pass rate {want['delta']:+.1%}*"
            f"corrected by {len(SELECTED)} paired labels (PPI++ on paired differences*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    if (
        where != "baseline report"
    ):  # labels of the baseline's answers are no changed answers of this run
        result.stdout.fnmatch_lines(
            [
                "people's labels: 120 read, 60 applied * did not apply (* label the baseline's answer)"
            ]
        )
        result.stdout.no_fnmatch_line("*did not apply because the answer changed*")


def test_without_labels_the_regression_gate_is_as_before(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    _baseline(pytester, labelled=False)
    result = pytester.runpytest(
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-report=r.json",
        "--llm-gate-only",
        *plugin_args,
    )
    comparison = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["comparison"]
    assert "people_labels" not in comparison
    assert comparison["test"] == "mcnemar_exact"
    result.stdout.no_fnmatch_line("*corrected*")
    result.stdout.fnmatch_lines(["llmeval regression gate *McNemar exact p=*"])


def test_labels_on_this_run_only_say_why_the_gate_is_not_corrected(
    pytester: pytest.Pytester,
) -> None:
    _baseline(pytester, labelled=False)
    write_labels(pytester, "labels.jsonl", rows(run_kind, SELECTED))
    result = pytester.runpytest(
        "--llm-labels=labels.jsonl",
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "-p",
        "no:xdist",
    )
    result.stdout.fnmatch_lines(
        [
            "llmeval regression gate *McNemar exact*not corrected by people's labels: * randomly selected paired samples "
            "have a person's verdict on one answer only*label the other answer of s0, *",
        ]
    )


def test_the_baseline_people_label_is_untrusted(tmp_path: Path) -> None:
    entries = _entries(base_kind, SELECTED)
    entries[0]["people_label"] = {"label": "maybe", "random": "yes"}
    entries[2]["people_label"] = {"label": ["correct"], "random": True}
    entries[4]["people_label"] = "correct"
    comparison = compare(
        {"version": 1, "metadata": {}, "sample_results": entries},
        _entries(run_kind, SELECTED),
        {},
        baseline_path="b.json",
        labels=[],
    )
    assert any(
        "field 'people_label' not understood on 3 entr(ies), first 's0'" in w
        for w in comparison["warnings"]
    )
    assert comparison["people_labels"]["corrected"] is False


def test_offline_compare_corrects_as_the_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_llmeval.__main__ import main

    for name, kind in (("base.json", base_kind), ("run.json", run_kind)):
        (tmp_path / name).write_text(
            json.dumps({"version": 1, "metadata": {}, "sample_results": _entries(kind, SELECTED)})
        )
    main(["compare", str(tmp_path / "base.json"), str(tmp_path / "run.json"), "--json"])
    comparison = json.loads(capsys.readouterr().out)
    assert comparison["people_labels"]["corrected"] is True
    assert comparison["pass_rate_delta"] == pytest.approx(expected(SELECTED)["delta"], abs=1e-6)


def test_a_baseline_without_answer_hashes_says_labels_cannot_reach_it() -> None:
    entries = _entries(base_kind, [])
    for entry in entries:
        del entry["answer_sha256"]  # as a history run rebuilds them
    comparison = compare(
        {"version": 1, "metadata": {}, "sample_results": entries},
        _entries(run_kind, SELECTED),
        {},
        baseline_path="history:last",
        labels=[],
    )
    assert comparison["people_labels"]["not_corrected"].startswith(
        "the baseline records no answer hashes"
    )
    assert comparison["test"] == "mcnemar_exact"


def test_two_independent_spot_checks_labelled_on_both_answers_cover_the_people_s_change() -> None:
    """Seeded simulation through ``compare``: 300 paired samples in groups of three, half the answers unchanged
    (one label covers both sides), an independent random spot check of 20 % on each run, the other answer of
    every selected sample labelled too; the 95 % interval covers the people's change in >= 93 % of draws."""
    rng = random.Random(7)
    big_n, draws = 300, 200
    people, graded, same = [], [], []
    for _ in range(big_n):
        unchanged = rng.random() < 0.5
        b = rng.random() < 0.6
        r = b if unchanged else rng.random() < 0.5
        gb = b if rng.random() > 0.15 else not b
        gr = gb if unchanged else (r if rng.random() > 0.15 else not r)
        people.append((b, r))
        graded.append((gb, gr))
        same.append(unchanged)
    truth = sum(float(r) - float(b) for b, r in people) / big_n

    def entries(side: int, selected: set[int]) -> list[dict[str, Any]]:
        out = []
        for i in range(big_n):
            text = f"answer {i}" + ("" if same[i] else f" from run {side}")
            entry: dict[str, Any] = {
                "sample_id": f"s{i}",
                "status": "pass" if graded[i][side] else "fail",
                "file": "f.jsonl",
                "group": f"g{i // 3}",
                "answer_sha256": answer_hash(text),
            }
            if i in selected:
                entry["people_label"] = {
                    "label": "correct" if people[i][side] else "incorrect",
                    "random": True,
                }
            out.append(entry)
        return out

    covered = corrected = 0
    for _ in range(draws):
        union = set(rng.sample(range(big_n), 60)) | set(rng.sample(range(big_n), 60))
        comparison = compare(
            {"version": 1, "metadata": {}, "sample_results": entries(0, union)},
            entries(1, union),
            {},
            baseline_path="b.json",
            labels=[],
        )
        if comparison["people_labels"]["corrected"]:
            corrected += 1
            low, high = comparison["ci95"]
            covered += low <= truth <= high
    assert corrected >= 0.9 * draws  # the rest: too few disagreements, the grader decides
    assert covered / corrected >= 0.93


def test_non_inferiority_reads_the_corrected_bound() -> None:
    base = {"version": 1, "metadata": {}, "sample_results": _entries(base_kind, SELECTED)}
    comparison = compare(
        base,
        _entries(run_kind, SELECTED),
        {},
        baseline_path="b.json",
        labels=[],
        mode="non-inferiority",
    )
    want = expected(SELECTED)
    assert comparison["gate_passed"] is False
    assert f"the drop's one-sided 95% upper bound is {want['upper']:.1%}" in comparison["gate_line"]
    assert (
        f"the observed drop {-want['delta']:.1%} is itself not below the margin"
        in comparison["gate_line"]
    )
    assert "corrected by 60 paired labels" in comparison["gate_line"]
