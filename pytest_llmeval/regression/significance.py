"""Small exact statistics for regression verdicts (stdlib only; checked against scipy.stats in the tests).

- :func:`binom_two_sided`: exact binomial test, two-sided by the "minlike" rule (scipy's ``binomtest``).
- :func:`mcnemar_exact`: McNemar's exact test = the binomial test on the discordant pairs.
- :func:`clopper_pearson`, :func:`wilson`: 95% intervals for a proportion.
- :func:`paired_delta_ci`: the interval of a paired pass-rate delta, exact conditional on the discordant
  pairs (Clopper-Pearson on newly passing / discordant, scaled by discordant / n). It excludes 0 exactly
  when McNemar's exact test has p < alpha, so the interval and the verdict never disagree.
- :func:`paired_permutation`: sign-flip permutation test on per-sample differences (pass fractions over
  repeats); exact by dynamic programming over the sums, seeded Monte Carlo beyond a size budget.
- :func:`bootstrap_mean_ci`: seeded percentile bootstrap of a mean (per-sample pass fractions).
- :func:`min_discordant`, :func:`power_mde`: what a paired suite can detect at all (exact) and with 80 % power
  (normal approximation of a paired mean, as the ``evaluatellm`` R package's ``ev_mde``).
- :func:`drop_upper_bound`: one-sided upper confidence bound of a paired drop in pass rate, Tango's score
  interval (unconditional: an unchanged small suite still gets a wide bound).
- :func:`noninferiority_samples`: paired samples a non-inferiority test of that drop needs (Nam 1997, the
  sample size of Tango's score test).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from statistics import NormalDist

# scipy's binomtest counts outcomes with pmf <= pmf(k) * (1 + 1e-7) as "at least as extreme"
_RELATIVE_TIE = 1 + 1e-7
_EXACT_BUDGET = 4_000_000  # DP cells before the permutation test falls back to Monte Carlo
SEED = 20261123


def _log_pmf(k: int, n: int, p: float) -> float:
    if p <= 0.0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1.0:
        return 0.0 if k == n else -math.inf
    return (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )


def binom_pmf(k: int, n: int, p: float) -> float:
    return math.exp(_log_pmf(k, n, p))


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return min(1.0, math.fsum(binom_pmf(i, n, p) for i in range(k + 1)))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X > k)."""
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    return min(1.0, math.fsum(binom_pmf(i, n, p) for i in range(k + 1, n + 1)))


def binom_two_sided(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial test: the probability of outcomes no more likely than ``k``."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    if p == 0.5:
        # McNemar's case in exact integers: sum C(n, i) over outcomes no likelier than k, over 2^n
        limit = math.comb(n, k)
        extreme = sum(c for c in (math.comb(n, i) for i in range(n + 1)) if c <= limit)
        return min(1.0, float(Fraction(extreme, 2**n)))
    threshold = binom_pmf(k, n, p) * _RELATIVE_TIE
    total = math.fsum(q for q in (binom_pmf(i, n, p) for i in range(n + 1)) if q <= threshold)
    return min(1.0, total)


def mcnemar_exact(newly_failing: int, newly_passing: int) -> float:
    """Two-sided p-value of McNemar's exact test on the discordant pairs (1.0 when there are none)."""
    discordant = newly_failing + newly_passing
    return binom_two_sided(newly_failing, discordant, 0.5) if discordant else 1.0


def _bisect(
    func: Callable[[float], float], lo: float, hi: float, target: float, increasing: bool
) -> float:
    """The root of ``func(p) = target`` for a function monotone on [lo, hi]."""
    for _ in range(200):
        mid = (lo + hi) / 2
        value = func(mid)
        if (value < target) == increasing:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    alpha = 1 - confidence
    # lower: P(X >= k; p) = alpha/2, increasing in p; upper: P(X <= k; p) = alpha/2, decreasing in p
    lower = 0.0 if k == 0 else _bisect(lambda p: binom_sf(k - 1, n, p), 0.0, 1.0, alpha / 2, True)
    upper = 1.0 if k == n else _bisect(lambda p: binom_cdf(k, n, p), 0.0, 1.0, alpha / 2, False)
    return lower, upper


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k / n`` (no continuity correction)."""
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    phat = k / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_delta_ci(
    newly_failing: int, newly_passing: int, paired: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval of (run pass rate - baseline pass rate) over ``paired`` samples, exact conditional on
    the discordant pairs: delta = discordant/n * (2*pi - 1), pi = P(a discordant pair is newly passing)."""
    discordant = newly_failing + newly_passing
    if paired == 0 or discordant == 0:
        return 0.0, 0.0
    lo, hi = clopper_pearson(newly_passing, discordant, confidence)
    scale = discordant / paired
    return scale * (2 * lo - 1), scale * (2 * hi - 1)


def _as_integers(diffs: Sequence[float | Fraction]) -> list[int]:
    """Scale rational differences (pass fractions k/N) to integers so sums compare exactly."""
    fractions = [Fraction(d).limit_denominator(10_000) for d in diffs]
    scale = math.lcm(*(f.denominator for f in fractions)) if fractions else 1
    return [int(f * scale) for f in fractions]


def paired_permutation(
    diffs: Sequence[float | Fraction], *, seed: int = SEED, resamples: int = 20_000
) -> tuple[float, bool]:
    """Two-sided sign-flip permutation test of mean(diffs) == 0. Returns (p-value, exact?).

    Under the null each sample's run and baseline are exchangeable, so each difference's sign is a fair
    coin. Exact over all 2^m sign patterns (counted by a dynamic programme over sums) while that fits a
    budget; otherwise ``resamples`` seeded draws with the (count + 1) / (resamples + 1) estimate.
    """
    values = [abs(v) for v in _as_integers(diffs) if v != 0]
    observed = abs(sum(_as_integers(diffs)))
    if not values:
        return 1.0, True
    total = sum(values)
    if len(values) * (2 * total + 1) <= _EXACT_BUDGET:
        counts: dict[int, int] = {0: 1}
        for v in values:
            nxt: dict[int, int] = {}
            for s, c in counts.items():
                nxt[s + v] = nxt.get(s + v, 0) + c
                nxt[s - v] = nxt.get(s - v, 0) + c
            counts = nxt
        extreme = sum(c for s, c in counts.items() if abs(s) >= observed)
        return min(1.0, extreme / 2 ** len(values)), True
    rng = random.Random(seed)
    hits = 0
    for _ in range(resamples):
        s = sum(v if rng.random() < 0.5 else -v for v in values)
        if abs(s) >= observed:
            hits += 1
    return (hits + 1) / (resamples + 1), False


def bootstrap_mean_ci(
    values: Sequence[float], *, confidence: float = 0.95, seed: int = SEED, resamples: int = 4_000
) -> tuple[float, float]:
    """Seeded percentile bootstrap interval of the mean of ``values`` (resampling samples, not repeats)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    if len(set(values)) == 1:
        return float(values[0]), float(values[0])
    rng = random.Random(seed)
    means = sorted(
        math.fsum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples)
    )
    tail = (1 - confidence) / 2
    lo = means[max(0, math.floor(tail * resamples))]
    hi = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return lo, hi


POWER = 0.8  # the power at which a minimum detectable effect is stated


def z_quantile(q: float) -> float:
    return NormalDist().inv_cdf(q)


def min_discordant(alpha: float, limit: int = 200) -> int:
    """The fewest discordant pairs, all in one direction, with which McNemar's exact test reaches p < alpha."""
    for k in range(1, limit):
        if mcnemar_exact(k, 0) < alpha:
            return k
    return limit


def power_mde(sd_diff: float, n: int, alpha: float, power: float = POWER) -> float | None:
    """Smallest true mean difference a two-sided test at ``alpha`` detects with ``power``:
    (z(1 - alpha/2) + z(power)) * sd_diff / sqrt(n). None without samples."""
    if n < 1:
        return None
    return (z_quantile(1 - alpha / 2) + z_quantile(power)) * sd_diff / math.sqrt(n)


def _constrained_p21(b: float, c: float, n: float, delta: float) -> float:
    """Maximum likelihood of P(newly passing) when P(newly failing) - P(newly passing) = delta (Tango 1998).

    Also the large-sample limit when b, c, n are population shares with n = 1 (Nam 1997)."""
    w = -b - c + (2 * n - b + c) * delta
    return max(0.0, (math.sqrt(max(0.0, w * w + 8 * n * c * delta * (1 - delta))) - w) / (4 * n))


def tango_z(b: float, c: float, n: int, delta: float) -> float:
    """Tango's score statistic for H0: drop = delta, where b newly fail and c newly pass of n pairs."""
    p21 = _constrained_p21(b, c, n, delta)
    variance = n * (2 * p21 + delta * (1 - delta))
    diff = b - c - n * delta
    if variance <= 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / math.sqrt(variance)


def drop_upper_bound(b: float, c: float, n: int, alpha: float) -> float | None:
    """One-sided (1 - alpha) upper bound of the drop (b - c) / n: the largest drop the score test keeps.

    ``b``, ``c`` may be sums of fractional differences (pass fractions over repeats): a difference in
    [-1, 1] with the same mean and mean absolute value has at most the variance of the 0/±1 case, so
    the bound stays conservative.
    """
    if n < 1:
        return None
    observed = (b - c) / n
    critical = -z_quantile(1 - alpha)
    if observed >= 1 or tango_z(b, c, n, 1.0) >= critical:
        return 1.0
    lo, hi = observed, 1.0  # tango_z falls as delta grows; find where it crosses the critical value
    for _ in range(100):
        mid = (lo + hi) / 2
        if tango_z(b, c, n, mid) >= critical:
            lo = mid
        else:
            hi = mid
    return hi


def noninferiority_samples(
    p_fail: float,
    p_pass: float,
    margin: float,
    alpha: float,
    power: float = POWER,
    limit: int = 10_000_000,
) -> int | None:
    """Paired samples for Tango's one-sided score test at ``alpha`` to show drop < ``margin`` with
    ``power``, when the true shares of newly failing and newly passing pairs are ``p_fail`` and
    ``p_pass`` (Nam 1997). None when the assumed drop is not below the margin (no size would do)."""
    drop = p_fail - p_pass
    if drop >= margin:
        return None
    p21 = _constrained_p21(p_fail, p_pass, 1.0, margin)
    null_sd = math.sqrt(max(0.0, 2 * p21 + margin * (1 - margin)))
    alt_sd = math.sqrt(max(0.0, p_fail + p_pass - drop * drop))
    root = z_quantile(1 - alpha) * null_sd + z_quantile(power) * alt_sd
    return min(limit, max(1, math.ceil((root / (margin - drop)) ** 2)))
