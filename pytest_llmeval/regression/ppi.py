"""The pass rate corrected by people's labels: prediction-powered inference (PPI++) for a mean of 0/1
verdicts, stdlib only (checked against numpy/scipy in the tests).

Population: the run's graded samples, each with the grader's verdict ``yhat`` (1 = counted as a pass by
the gate). A uniformly random subset of them also carries a person's verdict ``y`` (1 = correct). The
target is the people's pass rate over the whole population (this run's samples as people would judge
them). The power-tuned difference estimator

    theta = lam * mean_N(yhat) + mean_n(y - lam * yhat)

keeps every label and corrects the grader's verdicts on the rest by the bias measured on the labels;
it is unbiased for any ``lam`` when the labelled subset is random. ``lam`` = cov_n(y, yhat) / var_N(yhat)
clipped to [0, 1] minimises the variance (PPI++, Angelopoulos, Duchi and Zrnic 2023; ``lam = 1`` is
plain PPI, ``lam = 0`` the people's labels alone). Unlike ``ppi_py``, whose unlabelled predictions are a
second sample of a wider population, the grader's mean here is known exactly, so its variance term is
zero and the residual variance carries the finite-population factor ``1 - n/N``.

Where samples share a group (a document, a question with several answers, one sample under several
models) the residual variance is cluster-robust: ``G/(G-1) * sum_g (sum_{i in g} (r_i - rbar))^2 / n^2``
(equal to ``s^2/n`` when every group has one sample).

The normal interval rests on enough disagreements to estimate the grader's error: with fewer than
:data:`MIN_DISAGREEMENTS` labelled samples on which grader and person disagree, fewer than
:data:`MIN_GROUPS` label groups, or labels all of one word, the interval is the exact one from the
grader's two error shares (Clopper-Pearson upper bounds of the false-pass and false-fail shares, at
``alpha/2`` each): wider, valid whatever the counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

from pytest_llmeval.regression.significance import clopper_pearson

# Below this many applicable random labels no correction is made (the run says so).
MIN_LABELS = 10
# The normal interval needs this many grader/person disagreements and label groups; else the exact one.
MIN_DISAGREEMENTS = 10
MIN_GROUPS = 10
METHOD = "PPI++ (power-tuned, finite population)"


@dataclass(frozen=True)
class Labelled:
    """One labelled sample: the person's verdict, the grader's, and the sample's group."""

    human: int  # 1 = correct
    grader: int  # 1 = counted as a pass by the gate
    group: str


@dataclass(frozen=True)
class Corrected:
    estimate: float
    low: float
    high: float
    labels: int  # labelled samples used
    population: int  # graded samples the estimate covers
    grader_rate: float  # the grader's rate over the same population
    lam: float
    se: float | None  # standard error of the normal interval (None for the exact one)
    interval: str  # "normal" | "exact"
    groups: int  # label groups (clusters) among the labelled samples
    disagreements: int  # labelled samples where grader and person disagree
    confidence: float
    rests_on: str  # one phrase: what the interval rests on

    def to_builtins(self) -> dict[str, Any]:
        return {"method": METHOD, **asdict(self)}


def _power_tuned(ys: Sequence[float], fs: Sequence[float], population: Sequence[float]) -> float:
    n, big_n = len(ys), len(population)
    if n < 2 or big_n < 2:
        return 0.0
    y_mean, f_mean = math.fsum(ys) / n, math.fsum(fs) / n
    cov = math.fsum((y - y_mean) * (f - f_mean) for y, f in zip(ys, fs, strict=True)) / (n - 1)
    pop_mean = math.fsum(population) / big_n
    var = math.fsum((v - pop_mean) ** 2 for v in population) / (big_n - 1)
    if var <= 0.0:
        return 0.0
    return min(1.0, max(0.0, cov / var))


def cluster_variance_of_mean(values: Sequence[float], groups: Sequence[str]) -> float:
    """Cluster-robust variance of the mean of ``values``: G/(G-1) * sum over groups of the squared
    group sum of deviations, over n^2 (s^2/n when every group has one value)."""
    n = len(values)
    mean = math.fsum(values) / n
    sums: dict[str, float] = {}
    for value, group in zip(values, groups, strict=True):
        sums[group] = sums.get(group, 0.0) + (value - mean)
    g = len(sums)
    if g < 2:
        return 0.0
    return g / (g - 1) * math.fsum(s * s for s in sums.values()) / (n * n)


def ppi_mean(
    labelled: Sequence[Labelled], population: Sequence[int], *, alpha: float = 0.05
) -> Corrected:
    """The corrected rate and its ``1 - alpha`` interval (see the module docstring).

    ``population`` holds the grader's verdict of every sample of the population, the labelled ones
    included. Needs at least :data:`MIN_LABELS` labelled samples (``ValueError`` otherwise).
    """
    n, big_n = len(labelled), len(population)
    if n < MIN_LABELS:
        raise ValueError(f"{n} labels, fewer than the {MIN_LABELS} a correction needs")
    if n > big_n:
        raise ValueError(f"{n} labelled samples in a population of {big_n}")
    grader_rate = math.fsum(population) / big_n
    estimate, normal_se, lam = ppi_difference(
        [(s.human, s.grader, s.group) for s in labelled], population
    )
    groups = [s.group for s in labelled]
    group_count = len(set(groups))
    false_pass = sum(1 for s in labelled if s.grader and not s.human)
    false_fail = sum(1 for s in labelled if s.human and not s.grader)
    disagreements = false_pass + false_fail
    one_word = len({s.human for s in labelled}) == 1
    confidence = 1 - alpha
    clustered = group_count < n
    if n == big_n:
        # every sample labelled: the estimate is the people's rate itself (lambda cancels out)
        low = high = estimate
        se, interval = 0.0, "normal"
        rests_on = f"people's labels on all {n} samples: no sampling error"
    elif disagreements >= MIN_DISAGREEMENTS and group_count >= MIN_GROUPS and not one_word:
        se = normal_se
        z = NormalDist().inv_cdf(1 - alpha / 2)
        low, high = estimate - z * se, estimate + z * se
        interval = "normal"
        rests_on = (
            f"normal approximation over {n} labels ({disagreements} disagreeing with the grader)"
            + (f", cluster-robust over {group_count} groups" if clustered else "")
        )
    else:
        # Exact: people's rate = grader's rate + false-fail share - false-pass share (shares of the
        # population); each share bounded above by Clopper-Pearson at alpha/2 on its own side.
        ub_false_pass = clopper_pearson(false_pass, n, confidence)[1]
        ub_false_fail = clopper_pearson(false_fail, n, confidence)[1]
        low, high = grader_rate - ub_false_pass, grader_rate + ub_false_fail
        low, high = min(low, estimate), max(high, estimate)
        se = None
        interval = "exact"
        why = (
            "labels all of one word"
            if one_word
            else f"{disagreements} disagreement(s) with the grader, fewer than {MIN_DISAGREEMENTS}"
            if disagreements < MIN_DISAGREEMENTS
            else f"{group_count} label groups, fewer than {MIN_GROUPS}"
        )
        rests_on = f"exact bounds of the grader's error shares over {n} labels ({why}: too few for a normal interval)"
    return Corrected(
        estimate=min(1.0, max(0.0, estimate)),
        low=max(0.0, low),
        high=min(1.0, high),
        labels=n,
        population=big_n,
        grader_rate=grader_rate,
        lam=lam,
        se=se,
        interval=interval,
        groups=group_count,
        disagreements=disagreements,
        confidence=confidence,
        rests_on=rests_on,
    )


def scaled(corrected: Corrected, share: float, population: int) -> Corrected:
    """The rate over a wider population whose extra members are known zeros (error items that count as
    failures): every figure times ``share`` = graded / all."""
    from dataclasses import replace

    return replace(
        corrected,
        estimate=corrected.estimate * share,
        low=corrected.low * share,
        high=corrected.high * share,
        grader_rate=corrected.grader_rate * share,
        se=None if corrected.se is None else corrected.se * share,
        population=population,
    )


def design_effect(values: Sequence[int], groups: Sequence[str]) -> float:
    """Cluster-robust variance of the mean of 0/1 ``values`` over its independent-sample variance
    (at least 1: groups never make a share more certain)."""
    n = len(values)
    share = sum(values) / n
    iid = share * (1 - share) / n
    if iid <= 0.0 or len(set(groups)) == n:
        return 1.0
    return max(1.0, cluster_variance_of_mean([float(v) for v in values], groups) / iid)


def grader_error(labelled: Sequence[Labelled], *, alpha: float = 0.05) -> dict[str, Any]:
    """False-pass rate (share of the human-incorrect samples the grader passed) and false-fail rate
    (share of the human-correct it failed) on random labels, each with a Clopper-Pearson interval; where
    labelled samples share groups, over the effective sample size n / design effect (Korn and Graubard)."""

    def rate(part: list[Labelled], wrong: list[int]) -> dict[str, Any]:
        n, k = len(part), sum(wrong)
        if not n:
            return {
                "rate": None,
                "low": None,
                "high": None,
                "count": 0,
                "of": 0,
                "design_effect": None,
            }
        deff = design_effect(wrong, [s.group for s in part])
        n_eff = max(1, round(n / deff))
        low, high = clopper_pearson(round(k * n_eff / n), n_eff, 1 - alpha)
        return {"rate": k / n, "low": low, "high": high, "count": k, "of": n, "design_effect": deff}

    incorrect = [s for s in labelled if not s.human]
    correct = [s for s in labelled if s.human]
    return {
        "false_pass": rate(incorrect, [s.grader for s in incorrect]),
        "false_fail": rate(correct, [1 - s.grader for s in correct]),
        "labels": len(labelled),
        "confidence": 1 - alpha,
        "interval": "Clopper-Pearson (cluster-robust effective size where samples share groups)",
    }


PAIRED_METHOD = "PPI++ on paired differences (power-tuned, finite population, cluster-robust)"


def ppi_difference(
    labelled: Sequence[tuple[float, float, str]], population: Sequence[float]
) -> tuple[float, float, float]:
    """(estimate, standard error, lambda) of the population mean of ``y`` by the power-tuned difference
    estimator of the module docstring, for any bounded ``y`` (a paired change of people's verdicts).

    ``labelled``: (y, f, group) of a uniformly random subset, f the grader's value; ``population``: f of
    every member, the labelled ones included. The variance is cluster-robust by group and carries the
    finite-population factor ``1 - n/N`` (zero when every member is labelled).
    """
    n, big_n = len(labelled), len(population)
    if n < 2 or n > big_n:
        raise ValueError(f"{n} labelled members of a population of {big_n}")
    ys = [y for y, _, _ in labelled]
    fs = [f for _, f, _ in labelled]
    pop_mean = math.fsum(population) / big_n
    lam = _power_tuned(ys, fs, population)
    residuals = [y - lam * f for y, f in zip(ys, fs, strict=True)]
    estimate = lam * pop_mean + math.fsum(residuals) / n
    variance = (1 - n / big_n) * cluster_variance_of_mean(residuals, [g for _, _, g in labelled])
    return estimate, math.sqrt(max(variance, 0.0)), lam
