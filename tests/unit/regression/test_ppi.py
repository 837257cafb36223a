"""The PPI++ corrected pass rate: formulas against numpy/scipy, edge cases, and interval coverage."""

from __future__ import annotations

import random

import numpy as np
import pytest
import scipy.stats

from pytest_llmeval.regression import ppi
from pytest_llmeval.regression.ppi import (
    Labelled,
    cluster_variance_of_mean,
    grader_error,
    ppi_mean,
)


def _population(
    seed: int,
    n_pop: int = 600,
    rate: float = 0.5,
    false_pass: float = 0.2,
    false_fail: float = 0.15,
):
    rng = random.Random(seed)
    human = [int(rng.random() < rate) for _ in range(n_pop)]
    grader = [
        (int(rng.random() >= false_fail) if h else int(rng.random() < false_pass)) for h in human
    ]
    return human, grader


def _draw(human, grader, n, seed, groups=None):
    rng = random.Random(seed)
    chosen = rng.sample(range(len(human)), n)
    return [Labelled(human[i], grader[i], groups[i] if groups else str(i)) for i in chosen]


def test_point_estimate_and_variance_match_a_direct_numpy_computation():
    human, grader = _population(1)
    labelled = _draw(human, grader, 120, 2)
    result = ppi_mean(labelled, grader, alpha=0.1)
    y = np.array([s.human for s in labelled], float)
    yhat = np.array([s.grader for s in labelled], float)
    pop = np.array(grader, float)
    lam = np.clip(np.cov(y, yhat, ddof=1)[0, 1] / np.var(pop, ddof=1), 0, 1)
    estimate = lam * pop.mean() + (y - lam * yhat).mean()
    se = np.sqrt((1 - len(y) / len(pop)) * np.var(y - lam * yhat, ddof=1) / len(y))
    z = scipy.stats.norm.ppf(0.95)
    assert result.interval == "normal"
    assert result.lam == pytest.approx(lam)
    assert result.estimate == pytest.approx(estimate)
    assert result.se == pytest.approx(se)
    assert (result.low, result.high) == pytest.approx((estimate - z * se, estimate + z * se))
    assert result.grader_rate == pytest.approx(pop.mean())


def test_plain_ppi_point_estimate_is_ppi_py_s_formula_at_lambda_one():
    # ppi_py's ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lhat=1): mean(Yhat_unl) + mean(Y - Yhat)
    human, grader = _population(3)
    labelled = _draw(human, grader, 80, 4)
    y = np.array([s.human for s in labelled], float)
    yhat = np.array([s.grader for s in labelled], float)
    result = ppi_mean(labelled, grader)
    ours = result.lam * np.mean(grader) + np.mean(y - result.lam * yhat)
    if result.lam == 1.0:
        assert ours == pytest.approx(np.mean(grader) + np.mean(y - yhat))
    assert result.estimate == pytest.approx(ours)


def test_cluster_robust_variance_is_the_hand_computed_sandwich():
    values = [1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 0.0]
    groups = ["a", "a", "b", "b", "b", "c", "d"]
    mean = sum(values) / 7
    sums = {"a": (1 - mean) + (0 - mean), "b": 2 - 3 * mean, "c": -1 - mean, "d": 0 - mean}
    expected = 4 / 3 * sum(s * s for s in sums.values()) / 49
    assert cluster_variance_of_mean(values, groups) == pytest.approx(expected)
    # singleton groups: the ordinary s^2 / n
    assert cluster_variance_of_mean(values, [str(i) for i in range(7)]) == pytest.approx(
        np.var(values, ddof=1) / 7
    )


def test_groups_widen_the_interval_when_residuals_share_a_group():
    human, grader = _population(5, n_pop=800)
    groups = [str(i // 8) for i in range(800)]
    labelled = _draw(human, grader, 400, 6, groups=groups)
    # the same residuals, duplicated within groups: a cluster is no more information than one sample
    doubled = [Labelled(s.human, s.grader, s.group) for s in labelled for _ in range(2)]
    plain = ppi_mean(
        [Labelled(s.human, s.grader, str(i)) for i, s in enumerate(doubled)], grader * 2
    )
    clustered = ppi_mean(
        [Labelled(s.human, s.grader, f"{i // 2}") for i, s in enumerate(doubled)], grader * 2
    )
    assert clustered.se > plain.se * 1.3
    assert clustered.groups == 400


def test_too_few_labels_refuse_to_correct():
    human, grader = _population(7)
    with pytest.raises(ValueError, match="fewer than the 10"):
        ppi_mean(_draw(human, grader, ppi.MIN_LABELS - 1, 8), grader)


def test_no_disagreement_gives_the_exact_interval_not_a_zero_width_one():
    grader = [1] * 60 + [0] * 40
    labelled = [Labelled(1, 1, str(i)) for i in range(15)] + [
        Labelled(0, 0, f"f{i}") for i in range(10)
    ]
    result = ppi_mean(labelled, grader)
    assert result.interval == "exact"
    assert result.low <= result.estimate <= result.high
    upper_share = scipy.stats.beta.ppf(0.975, 1, 25)  # Clopper-Pearson upper bound of 0 of 25
    assert result.low == pytest.approx(0.6 - upper_share)
    assert result.high == pytest.approx(0.6 + upper_share)
    assert "fewer than 10" in result.rests_on


def test_labels_all_one_word_use_the_exact_interval():
    grader = [1] * 50 + [0] * 50
    labelled = [Labelled(1, i % 2, str(i)) for i in range(30)]
    result = ppi_mean(labelled, grader)
    assert result.interval == "exact"
    assert result.high == 1.0
    assert result.low < 0.5
    assert "all of one word" in result.rests_on


def test_constant_grader_falls_back_to_the_labels_alone():
    grader = [1] * 200
    rng = random.Random(9)
    labelled = [Labelled(int(rng.random() < 0.7), 1, str(i)) for i in range(100)]
    result = ppi_mean(labelled, grader)
    assert result.lam == 0.0
    assert result.estimate == pytest.approx(sum(s.human for s in labelled) / 100)


def test_grader_error_rates_and_clopper_pearson_intervals():
    pairs = [(0, 1)] * 3 + [(0, 0)] * 7 + [(1, 0)] * 2 + [(1, 1)] * 18
    labelled = [
        Labelled(human, grader, str(i)) for i, (human, grader) in enumerate(pairs)
    ]  # no shared groups
    result = grader_error(labelled, alpha=0.05)
    assert result["false_pass"]["rate"] == pytest.approx(0.3)
    assert result["false_fail"]["rate"] == pytest.approx(0.1)
    ci = scipy.stats.binomtest(3, 10).proportion_ci(0.95, method="exact")
    assert (result["false_pass"]["low"], result["false_pass"]["high"]) == pytest.approx(
        (ci.low, ci.high), abs=1e-9
    )


@pytest.mark.parametrize(
    ("labels", "false_pass", "false_fail", "cluster"),
    [
        (200, 0.2, 0.15, False),
        (60, 0.3, 0.1, False),
        (150, 0.2, 0.2, True),
        (30, 0.05, 0.05, False),
    ],
)
def test_nominal_95_percent_interval_covers_the_people_s_rate(
    labels, false_pass, false_fail, cluster
):
    """Seeded simulation: a fixed population, many random label subsets, the people's rate inside the
    interval in at least ~93 % of draws."""
    human, grader = _population(
        11, n_pop=1000, rate=0.45, false_pass=false_pass, false_fail=false_fail
    )
    groups = [str(i // 10) for i in range(1000)] if cluster else None
    truth = sum(human) / len(human)
    draws = 400
    covered = 0
    for draw in range(draws):
        result = ppi_mean(_draw(human, grader, labels, 1000 + draw, groups), grader, alpha=0.05)
        covered += result.low <= truth <= result.high
    assert covered / draws >= 0.93


def test_every_sample_labelled_is_the_people_s_rate_itself():
    grader = [1] * 30 + [0] * 20
    labelled = [Labelled(int(i % 3 != 0), grader[i], str(i)) for i in range(50)]
    result = ppi_mean(labelled, grader)
    truth = sum(s.human for s in labelled) / 50
    assert result.estimate == pytest.approx(truth)
    assert (result.low, result.high) == pytest.approx((truth, truth))


def test_grader_error_intervals_widen_by_the_design_effect_of_groups():
    # false passes come in whole groups of four: four labels of a group are one piece of evidence
    labelled = [Labelled(0, int(g < 5), f"g{g}") for g in range(20) for _ in range(4)]
    plain = grader_error([Labelled(s.human, s.grader, str(i)) for i, s in enumerate(labelled)])
    grouped = grader_error(labelled)
    assert plain["false_pass"]["design_effect"] == 1.0
    values = np.array([s.grader for s in labelled], float)
    sums = np.array([np.sum(values[i * 4 : (i + 1) * 4] - values.mean()) for i in range(20)])
    deff = (20 / 19 * np.sum(sums**2) / 80**2) / (values.mean() * (1 - values.mean()) / 80)
    assert grouped["false_pass"]["design_effect"] == pytest.approx(deff)
    n_eff = round(80 / deff)
    ci = scipy.stats.binomtest(round(20 * n_eff / 80), n_eff).proportion_ci(0.95, method="exact")
    assert (grouped["false_pass"]["low"], grouped["false_pass"]["high"]) == pytest.approx(
        (ci.low, ci.high), abs=1e-9
    )
    assert (
        grouped["false_pass"]["high"] - grouped["false_pass"]["low"]
        > plain["false_pass"]["high"] - plain["false_pass"]["low"]
    )
