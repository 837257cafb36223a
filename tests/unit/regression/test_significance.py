"""The exact statistics against scipy.stats (a dev-only dependency)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
import scipy.stats as scipy_stats

from pytest_llmeval.regression import significance


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [
        (0, 0, 0.5),
        (0, 1, 0.5),
        (12, 14, 0.5),
        (2, 14, 0.5),
        (1, 2, 0.5),
        (7, 20, 0.3),
        (0, 25, 0.1),
        (40, 100, 0.5),
        (5, 5, 0.5),
        (3, 30, 0.2),
        (250, 600, 0.5),
        (17, 40, 0.61),
    ],
)
def test_binomial_two_sided_matches_scipy(k: int, n: int, p: float) -> None:
    expected = 1.0 if n == 0 else scipy_stats.binomtest(k, n, p).pvalue
    assert significance.binom_two_sided(k, n, p) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_mcnemar_exact_is_the_binomial_test_on_discordant_pairs() -> None:
    for b, c in itertools.product(range(0, 16), repeat=2):
        expected = 1.0 if b + c == 0 else scipy_stats.binomtest(b, b + c, 0.5).pvalue
        assert significance.mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)
    assert significance.mcnemar_exact(12, 2) < 0.05 < significance.mcnemar_exact(1, 1)


@pytest.mark.parametrize(
    ("k", "n"), [(0, 10), (10, 10), (2, 14), (7, 9), (54, 60), (1, 1), (123, 400)]
)
def test_clopper_pearson_and_wilson_match_scipy(k: int, n: int) -> None:
    result = scipy_stats.binomtest(k, n)
    exact = result.proportion_ci(confidence_level=0.95, method="exact")
    assert significance.clopper_pearson(k, n) == pytest.approx((exact.low, exact.high), abs=1e-9)
    score = result.proportion_ci(confidence_level=0.95, method="wilson")
    assert significance.wilson(k, n) == pytest.approx((score.low, score.high), abs=1e-9)


def test_paired_delta_interval_agrees_with_mcnemar() -> None:
    # the interval excludes 0 exactly when the exact test rejects at 5%
    for b, c in itertools.product(range(0, 14), repeat=2):
        lo, hi = significance.paired_delta_ci(b, c, 60)
        assert lo <= (c - b) / 60 <= hi
        if b + c:
            assert (hi < 0 or lo > 0) == (significance.mcnemar_exact(b, c) < 0.05), (b, c)
    lo, hi = significance.paired_delta_ci(12, 2, 60)
    assert hi < 0
    assert lo > -1


def _scipy_paired(diffs: list[float]) -> float:
    x = list(diffs)
    y = [0.0] * len(diffs)
    result = scipy_stats.permutation_test(
        (x, y),
        lambda a, b, axis: (a - b).mean(axis=axis),
        permutation_type="samples",
        n_resamples=10**6,
        vectorized=True,
        alternative="two-sided",
    )
    return float(result.pvalue)


@pytest.mark.parametrize("seed", range(6))
def test_paired_permutation_exact_matches_scipy(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(3, 12)
    # per-sample pass fractions over 3 repeats: run minus baseline
    diffs = [Fraction(rng.randint(0, 3), 3) - Fraction(rng.randint(0, 3), 3) for _ in range(n)]
    p, exact = significance.paired_permutation(diffs)
    assert exact
    assert p == pytest.approx(_scipy_paired([float(d) for d in diffs]), rel=1e-9)


def test_paired_permutation_monte_carlo_is_seeded_and_close() -> None:
    rng = random.Random(7)
    diffs = [Fraction(rng.randint(0, 7), 7) - Fraction(rng.randint(0, 5), 5) for _ in range(3000)]
    first = significance.paired_permutation(diffs, resamples=2000)
    assert first == significance.paired_permutation(diffs, resamples=2000)
    assert first[1] is False
    assert significance.paired_permutation([0, 0, 0]) == (1.0, True)


def test_bootstrap_interval_is_seeded_and_near_scipy() -> None:
    rng = random.Random(3)
    values = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(80)]
    lo, hi = significance.bootstrap_mean_ci(values)
    assert (lo, hi) == significance.bootstrap_mean_ci(values)
    reference = scipy_stats.bootstrap(
        (values,),
        lambda v, axis: v.mean(axis=axis),
        method="percentile",
        n_resamples=20000,
        random_state=1,
        vectorized=True,
    )
    assert lo == pytest.approx(reference.confidence_interval.low, abs=0.03)
    assert hi == pytest.approx(reference.confidence_interval.high, abs=0.03)
    assert lo < sum(values) / len(values) < hi
