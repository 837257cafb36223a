"""Compare a run with a baseline ``--llm-report`` JSON: pairing, the paired test, the verdict.

One code path for ``--llm-baseline`` (inside a run) and ``python -m pytest_llmeval compare`` (offline):
both hand :func:`compare` two lists of ``sample_results`` entries as the JSON report writes them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from pytest_llmeval.regression import significance

if TYPE_CHECKING:
    from pytest_llmeval.labels import Label
    from pytest_llmeval.regression.paired_labels import PairedLabels

MAX_REPORT_BYTES = 512 * 1024 * 1024  # a baseline is untrusted input: bound what we read
IDENTITY_FIELDS = ("model", "judge", "judge_prompt_version", "rubric")
MCNEMAR = "mcnemar_exact"
PERMUTATION = "paired_permutation"
PPI = "ppi_plus_plus"
TEST_NAMES = {MCNEMAR: "McNemar exact", PERMUTATION: "paired permutation", PPI: "PPI++ z"}
DIFFERENCE, NON_INFERIORITY = "difference", "non-inferiority"
DEFAULT_MARGIN = 0.05
STATUSES = ("pass", "acceptable", "fail", "error", "skipped")  # of gold entries in report version 1


class BaselineError(Exception):
    """A baseline (or compared) report that cannot be used; the message is one line naming the file."""


def load_report(path: Path, *, role: str = "baseline") -> dict[str, Any]:
    """Read and check a ``--llm-report`` JSON file (one-line :class:`BaselineError` when unusable)."""
    from pytest_llmeval.fileio import read_regular_text

    try:
        size = path.stat().st_size
        if size > MAX_REPORT_BYTES:
            raise BaselineError(
                f"{role} {path}: {size} bytes is more than the {MAX_REPORT_BYTES} a report may have"
            )
        text = read_regular_text(path)  # a FIFO would block for ever
    except OSError as exc:
        raise BaselineError(f"{role} {path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BaselineError(
            f"{role} {path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    from pytest_llmeval.bounded_json import JSONProblem, loads

    try:
        report = loads(text)
    except JSONProblem as exc:
        raise BaselineError(f"{role} {path}: not JSON: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("sample_results"), list):
        raise BaselineError(f"{role} {path}: not an --llm-report JSON (no 'sample_results' list)")
    _check_version(report, f"{role} {path}")
    if not isinstance(report.get("metadata", {}), dict):
        raise BaselineError(f"{role} {path}: field 'metadata' must be an object")
    _check_entries(report["sample_results"], f"{role} {path}")
    return report


def _check_version(report: dict[str, Any], where: str) -> None:
    """A report of another format version may name statuses differently: it would pair with nothing."""
    from pytest_llmeval.report.json_report import REPORT_VERSION

    version = report.get("version")
    if version != REPORT_VERSION or isinstance(version, bool):
        shown = "missing" if version is None else json.dumps(version)[:40]
        raise BaselineError(
            f"{where}: field 'version': {shown}; this pytest-llmeval reads report version {REPORT_VERSION} only "
            "(write the baseline again with this version)"
        )


def _check_entries(entries: list[Any], where: str) -> None:
    """Each entry an object with string ``sample_id`` and a known ``status``; no (file, id, model) twice."""
    seen: dict[tuple[str, str, str], int] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise BaselineError(f"{where}: sample_results[{index}] is not an object")
        for field in ("sample_id", "status"):
            if not isinstance(entry.get(field), str):
                raise BaselineError(
                    f"{where}: sample_results[{index}]: field {field!r} missing or not a string"
                )
        if entry.get("kind", "gold") != "gold":
            continue
        if entry["status"] not in STATUSES:
            raise BaselineError(
                f"{where}: sample_results[{index}]: field 'status': {entry['status'][:40]!r} is not one of "
                f"{', '.join(STATUSES)}"
            )
        key = (str(entry.get("file") or ""), entry["sample_id"], str(entry.get("model") or ""))
        if key in seen:
            raise BaselineError(
                f"{where}: sample_results[{index}]: field 'sample_id': duplicate id {entry['sample_id'][:80]!r} "
                f"in {key[0] or 'the same file'} (first at sample_results[{seen[key]}])"
            )
        seen[key] = index


@dataclass(frozen=True)
class Outcome:
    """One sample on one side of the comparison."""

    file: str
    sample_id: str
    status: str
    fraction: float  # pass fraction over repeats (1.0 / 0.0 without repeats)
    repeats: int
    entry: dict[str, Any] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )  # for estimators reading more

    @property
    def passed(self) -> bool:
        return self.status == "pass"


def outcomes(
    sample_results: list[dict[str, Any]], *, errors_mode: str = "fail", model: str | None = None
) -> dict[tuple[str, str], Outcome]:
    """Comparable gold samples by (file, sample id). Skipped samples never pair; errors count as not
    passing (``-o llm_errors=fail``) or are left out (``exclude``), as in the pass rate."""
    out: dict[tuple[str, str], Outcome] = {}
    # file order (then id): the same lists with and without xdist, and in the offline compare
    ordered = sorted(
        sample_results,
        key=lambda e: (str(e.get("file") or ""), _line(e.get("line")), str(e.get("sample_id"))),
    )
    for entry in ordered:
        if entry.get("kind", "gold") != "gold":
            continue
        if model is not None and entry.get("model") not in (None, model):
            continue
        status = entry["status"]
        if status not in ("pass", "acceptable", "fail", "error") or (
            status == "error" and errors_mode == "exclude"
        ):
            continue
        repeats = entry.get("repeats")
        if isinstance(repeats, list) and repeats and isinstance(entry.get("pass_count"), int):
            fraction = min(1.0, max(0.0, entry["pass_count"] / len(repeats)))
            count = len(repeats)
        else:
            fraction, count = (1.0 if status == "pass" else 0.0), 1
        key = (str(entry.get("file") or ""), entry["sample_id"])
        out[key] = Outcome(key[0], key[1], status, fraction, count, entry)
    return out


def _line(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _labels(keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Sample ids as labels; ``file::id`` only for an id that occurs in more than one file."""
    counts = Counter(sample_id for _, sample_id in keys)
    return {key: key[1] if counts[key[1]] == 1 else f"{key[0]}::{key[1]}" for key in keys}


def named_source(model: Any) -> bool:
    """A model spec (``openai:...``, ``file:...``, ``python:...``), not the placeholder of a run without one."""
    from pytest_llmeval.report.json_report import UNNAMED_SOURCE

    return isinstance(model, str) and bool(model.strip()) and model != UNNAMED_SOURCE


def identity_warnings(baseline_meta: dict[str, Any], run_meta: dict[str, Any]) -> list[str]:
    """What differs between the two runs' model, judge, judge prompt version and rubric.

    Two different named models (two prediction files, two endpoints) are what a comparison is
    for: the title says which, and that is no warning.
    """
    warnings = []
    for field in IDENTITY_FIELDS:
        if (
            field == "model"
            and named_source(baseline_meta.get(field))
            and named_source(run_meta.get(field))
        ):
            continue
        if field in baseline_meta and field in run_meta and baseline_meta[field] != run_meta[field]:
            warnings.append(
                f"baseline {field} differs: {json.dumps(baseline_meta[field], sort_keys=True)} (baseline) vs "
                f"{json.dumps(run_meta[field], sort_keys=True)} (this run); compared anyway"
            )
    return warnings


def _round(value: float) -> float:
    return round(value, 6)


def compare(
    baseline: dict[str, Any],
    run_results: list[dict[str, Any]],
    run_meta: dict[str, Any],
    *,
    baseline_path: str,
    alpha: float = 0.05,
    errors_mode: str = "fail",
    run_model: str | None = None,
    baseline_model: str | None = None,
    margin: float = DEFAULT_MARGIN,
    mode: str = DIFFERENCE,
    estimator: str | None = None,
    labels: Sequence[Label] | None = None,
) -> dict[str, Any]:
    """The JSON ``comparison`` object of this run against ``baseline`` (a loaded report), with the
    verdict of the regression gate in ``mode`` (``gate_passed``, ``gate_line``).

    ``labels`` (this run's labels file, possibly empty) turns people's labels on: the entries'
    ``people_label`` and these labels correct the paired delta when :mod:`.paired_labels` allows it;
    None leaves the grader's verdicts to decide."""
    meta = baseline.get("metadata") or {}
    base = outcomes(baseline["sample_results"], errors_mode=errors_mode, model=baseline_model)
    run = outcomes(run_results, errors_mode=errors_mode, model=run_model)
    paired_keys = [k for k in run if k in base]
    names = _labels(sorted({*base, *run}))
    newly_failing = [names[k] for k in paired_keys if base[k].passed and not run[k].passed]
    newly_passing = [names[k] for k in paired_keys if not base[k].passed and run[k].passed]
    n = len(paired_keys)
    pairs = [(base[k], run[k]) for k in paired_keys]
    kind = "repeats" if any(b.repeats > 1 or r.repeats > 1 for b, r in pairs) else "verdicts"
    grader_est = ESTIMATORS[estimator or kind](pairs, alpha)
    people = None
    if labels is not None and estimator is None:
        from pytest_llmeval.regression.paired_labels import resolve

        people = resolve(pairs, labels, names, kind=kind)
    corrected = people is not None and people.reason is None
    est = (
        corrected_paired(pairs, people.verdicts, alpha, people.groups)
        if people and corrected
        else grader_est
    )
    significant = est.p_value < alpha
    needed = min_paired(alpha)
    comparison = {
        "baseline": _baseline_entry(meta, baseline_path, baseline_model),
        "run": {"model": run_model or run_meta.get("model")},
        "paired": n,
        "min_paired": needed,
        "newly_failing": newly_failing,
        "newly_passing": newly_passing,
        "only_in_baseline": [names[k] for k in base if k not in run],
        "only_in_run": [names[k] for k in run if k not in base],
        "baseline_pass_rate": None if est.base_rate is None else _round(est.base_rate),
        "run_pass_rate": None if est.run_rate is None else _round(est.run_rate),
        "pass_rate_delta": _round(est.delta),
        "ci95": [_round(est.ci[0]), _round(est.ci[1])],
        "ci_method": est.ci_method,
        "test": est.test,
        "exact": est.exact,
        "p_value": est.p_value,
        "alpha": alpha,
        "significant_regression": significant and est.delta < 0,
        "significant_improvement": significant and est.delta > 0,
        "verdict": verdict(est.p_value, est.delta, alpha)
        if n >= needed
        else too_few_verdict(n, needed, alpha),
        **detectability(est, n, alpha=alpha, margin=margin, mode=mode),
        "warnings": identity_warnings(meta, run_meta),
    }
    if people is not None:
        _add_people_labels(comparison, people, grader_est, est)
    passed, line = regression_gate_message(comparison)
    comparison.update(gate_passed=passed, gate_line=line)
    return comparison


def _baseline_entry(meta: dict[str, Any], path: str, model: str | None) -> dict[str, Any]:
    """Which baseline the run was compared with: its file, model, judge and time."""
    return {
        "path": path,
        "model": model or meta.get("model"),
        "judge": meta.get("judge"),
        "timestamp": meta.get("timestamp"),
    }


def _add_people_labels(
    comparison: dict[str, Any], people: PairedLabels, grader: PairedEstimate, est: PairedEstimate
) -> None:
    """``comparison.people_labels`` and the warning for baseline labels that could not be read."""
    comparison["people_labels"] = people_fields(people, grader if people.reason is None else None)
    if est.lam is not None:
        comparison["people_labels"]["lambda"] = _round(est.lam)
    if people.malformed:
        comparison["warnings"].append(
            f"field 'people_label' not understood on {len(people.malformed)} entr(ies), first {people.malformed[0]!r}; "
            "those answers count as unlabelled"
        )


def people_fields(people: PairedLabels, grader: PairedEstimate | None) -> dict[str, Any]:
    """``comparison.people_labels``: whether people's labels corrected the paired delta (then how, and
    the grader's own figures beside), or why not."""
    from pytest_llmeval.regression.paired_labels import LISTED
    from pytest_llmeval.regression.ppi import PAIRED_METHOD

    fields: dict[str, Any] = {
        "corrected": grader is not None,
        "paired_labels": len(people.verdicts),
        "selected": people.selected,
        "method": PAIRED_METHOD if grader is not None else None,
        "groups": len(set(people.groups.values())),
        "not_corrected": people.reason,
        "labelled_on_one_side": people.one_side[:LISTED],
    }
    if grader is not None:
        fields.update(
            grader_pass_rate_delta=_round(grader.delta),
            grader_ci95=[_round(grader.ci[0]), _round(grader.ci[1])],
            grader_test=grader.test,
            grader_p_value=grader.p_value,
            grader_baseline_pass_rate=None
            if grader.base_rate is None
            else _round(grader.base_rate),
            grader_run_pass_rate=None if grader.run_rate is None else _round(grader.run_rate),
        )
    return fields


def corrected_clause(comparison: dict[str, Any]) -> str | None:
    """ "corrected by N paired labels (method)" or why people's labels did not correct (None without labels)."""
    people = comparison.get("people_labels")
    if not people:
        return None
    if people["corrected"]:
        return (
            f"corrected by {people['paired_labels']} paired labels ({people['method']}, {people['groups']} groups, "
            f"lambda {people.get('lambda', 0):.2f}); the grader's delta {people['grader_pass_rate_delta']:+.1%}, "
            f"{TEST_NAMES.get(people['grader_test'], people['grader_test'])} p={people['grader_p_value']:.4g}"
        )
    return f"not corrected by people's labels: {people['not_corrected']}"


@dataclass(frozen=True)
class PairedEstimate:
    """What an estimator makes of the paired samples: the delta (run - baseline), its test and interval,
    and the sums the detectability figures need."""

    delta: float
    ci: tuple[float, float]
    p_value: float
    exact: bool
    test: str
    ci_method: str
    base_rate: float | None
    run_rate: float | None
    failing: float  # newly failing pairs (sum of positive drops with repeats)
    passing: float  # newly passing pairs (sum of positive gains with repeats)
    sd_diff: float  # standard deviation of the per-sample difference
    step: float  # the smallest non-zero per-sample difference possible
    se: float | None = (
        None  # standard error of a normal-theory delta: the figures of the gate then read it
    )
    lam: float | None = (
        None  # PPI++ power-tuning weight of the grader's verdicts (corrected estimates)
    )


def _sd(diffs: list[float]) -> float:
    return statistics.stdev(diffs) if len(diffs) > 1 else 0.0


def grader_verdicts(pairs: list[tuple[Outcome, Outcome]], alpha: float) -> PairedEstimate:
    """Pass / not pass on each side: McNemar's exact test and its conditional interval."""
    n = len(pairs)
    failing = sum(1 for b, r in pairs if b.passed and not r.passed)
    passing = sum(1 for b, r in pairs if not b.passed and r.passed)
    return PairedEstimate(
        delta=(passing - failing) / n if n else 0.0,
        ci=significance.paired_delta_ci(failing, passing, n),
        p_value=significance.mcnemar_exact(failing, passing),
        exact=True,
        test=MCNEMAR,
        ci_method="exact conditional (Clopper-Pearson on the discordant pairs)",
        base_rate=sum(b.passed for b, _ in pairs) / n if n else None,
        run_rate=sum(r.passed for _, r in pairs) / n if n else None,
        failing=failing,
        passing=passing,
        sd_diff=_sd([float(r.passed) - float(b.passed) for b, r in pairs]),
        step=1.0,
    )


def grader_repeats(pairs: list[tuple[Outcome, Outcome]], alpha: float) -> PairedEstimate:
    """Pass fractions over repeats on either side: the sign-flip permutation test and a bootstrap interval."""
    n = len(pairs)
    diffs = [r.fraction - b.fraction for b, r in pairs]
    p_value, exact = significance.paired_permutation(diffs)
    return PairedEstimate(
        delta=math.fsum(diffs) / n if n else 0.0,
        ci=significance.bootstrap_mean_ci(diffs) if n else (0.0, 0.0),
        p_value=p_value,
        exact=exact,
        test=PERMUTATION,
        ci_method="percentile bootstrap over samples (seeded)",
        base_rate=math.fsum(b.fraction for b, _ in pairs) / n if n else None,
        run_rate=math.fsum(r.fraction for _, r in pairs) / n if n else None,
        failing=math.fsum(-d for d in diffs if d < 0),
        passing=math.fsum(d for d in diffs if d > 0),
        sd_diff=_sd(diffs),
        step=1 / math.lcm(*(x.repeats for pair in pairs for x in pair)) if pairs else 1.0,
    )


def corrected_paired(
    pairs: list[tuple[Outcome, Outcome]],
    verdicts: dict[tuple[str, str], tuple[bool, bool]],
    alpha: float,
    groups: dict[tuple[str, str], str] | None = None,
) -> PairedEstimate:
    """The paired delta of people's pass rates: PPI++ on the per-sample changes of verdict.

    ``verdicts`` holds a person's (baseline, run) verdicts of the labelled pairs by (file, sample id);
    they must be a uniformly random subset of ``pairs``. Every pair's grader change (run - baseline, in
    -1, 0, 1) is the prediction; the labelled pairs' change of people's verdicts the label. The interval
    is normal at ``alpha``, cluster-robust by ``groups`` (each pair its own group by default)."""
    from pytest_llmeval.regression.ppi import ppi_difference

    population = [float(r.passed) - float(b.passed) for b, r in pairs]
    keyed = [((r.file, r.sample_id), b, r) for b, r in pairs]
    labelled = [
        (
            float(verdicts[k][1]) - float(verdicts[k][0]),
            float(r.passed) - float(b.passed),
            (groups or {}).get(k, f"{k[0]}::{k[1]}"),
        )
        for k, b, r in keyed
        if k in verdicts
    ]
    grader = grader_verdicts(pairs, alpha)
    if len(labelled) < 2:
        return grader
    delta, se, lam = ppi_difference(labelled, population)
    sides = [
        ppi_difference(
            [
                (float(verdicts[k][side]), float((b, r)[side].passed), "")
                for k, b, r in keyed
                if k in verdicts
            ],
            [float((b, r)[side].passed) for _, b, r in keyed],
        )[0]
        for side in (0, 1)
    ]
    z = significance.z_quantile(1 - alpha / 2)
    if se > 0:
        p_value = min(1.0, 2 * NormalDist().cdf(-abs(delta) / se))
    else:  # every pair labelled: the people's change is known exactly
        p_value = 0.0 if abs(delta) > 1e-12 else 1.0
    return dataclasses.replace(
        grader,
        delta=delta,
        ci=(delta - z * se, delta + z * se),
        p_value=p_value,
        exact=False,
        test=PPI,
        ci_method=f"PPI++ normal interval, cluster-robust ({len(labelled)} samples labelled on both sides)",
        base_rate=min(1.0, max(0.0, sides[0])),
        run_rate=min(1.0, max(0.0, sides[1])),
        se=se,
        lam=lam,
    )


def corrected_estimator(
    label_of: Callable[[dict[str, Any]], bool | None],
) -> Callable[[list[tuple[Outcome, Outcome]], float], PairedEstimate]:
    """:func:`corrected_paired` as an ``ESTIMATORS`` entry: ``label_of(entry)`` is a person's verdict on
    that side's answer (True: correct) or None; samples labelled on both sides are the labelled subset."""

    def estimate(pairs: list[tuple[Outcome, Outcome]], alpha: float) -> PairedEstimate:
        verdicts = {}
        for b, r in pairs:
            people = (label_of(b.entry), label_of(r.entry))
            if people[0] is not None and people[1] is not None:
                verdicts[(r.file, r.sample_id)] = (people[0], people[1])
        return corrected_paired(pairs, verdicts, alpha)

    return estimate


# How a comparison estimates the paired delta, by name. ``verdicts`` and ``repeats`` read the grader's
# verdicts; ``compare(..., labels=...)`` switches to :func:`corrected_paired` where people's labels on
# both answers of a random subset of pairs allow it. Another estimator (it reads each side's
# ``sample_results`` entry as ``Outcome.entry``) registers here and is picked by ``compare(...,
# estimator=NAME)``; the detectability figures and both gate modes then read its PairedEstimate.
ESTIMATORS: dict[str, Callable[[list[tuple[Outcome, Outcome]], float], PairedEstimate]] = {
    "verdicts": grader_verdicts,
    "repeats": grader_repeats,
}


def detectability(
    est: PairedEstimate, n: int, *, alpha: float, margin: float, mode: str
) -> dict[str, Any]:
    """The gate's numbers: the smallest drop the paired test can detect, the one it detects with 80 %
    power, the one-sided upper bound of the drop and, when that exceeds the margin, the paired
    samples a non-inferiority verdict would need (assuming the observed shares of changed pairs)."""
    if est.se is not None:
        return _normal_detectability(est, n, alpha=alpha, margin=margin, mode=mode)
    k = significance.min_discordant(alpha)
    floor = k * est.step / n if n and k <= n else None
    mde = significance.power_mde(est.sd_diff, n, alpha) if n > 1 and est.sd_diff > 0 else None
    if mde is not None and floor is not None:
        mde = max(
            mde, floor
        )  # the normal approximation must not promise less than the exact test can see
    upper = significance.drop_upper_bound(est.failing, est.passing, n, alpha)
    needed = None
    if upper is not None and upper > margin:
        needed = significance.noninferiority_samples(
            est.failing / n, est.passing / n, margin, alpha
        )
    return {
        "regression_mode": mode,
        "margin": margin,
        "min_detectable_drop": None if floor is None else _round(floor),
        "min_detectable_newly_failing": k,
        "mde80": None if mde is None else _round(mde),
        "drop_upper_bound": None if upper is None else _round(upper),
        "upper_bound_method": f"Tango score{'' if est.step == 1 else ' on pass-fraction changes'}, one-sided {1 - alpha:.0%}",
        "samples_needed": needed,
        "newly_failing_share": _round(est.failing / n) if n else None,
        "newly_passing_share": _round(est.passing / n) if n else None,
    }


def _normal_detectability(
    est: PairedEstimate, n: int, *, alpha: float, margin: float, mode: str
) -> dict[str, Any]:
    """The same numbers for an estimator with a normal-theory standard error ``est.se``: the drop whose
    z reaches the two-sided critical value, the one found with 80 % power, the one-sided upper bound,
    and the samples for that bound to clear the margin with 80 % power (the variance per sample kept)."""
    assert est.se is not None
    z_two, z_one, z_power = (
        significance.z_quantile(q) for q in (1 - alpha / 2, 1 - alpha, significance.POWER)
    )
    drop = -est.delta
    upper = drop + z_one * est.se
    needed = None
    if upper > margin and drop < margin:
        needed = math.ceil(n * ((z_one + z_power) * est.se / (margin - drop)) ** 2)
    return {
        "regression_mode": mode,
        "margin": margin,
        "min_detectable_drop": _round(z_two * est.se),
        "min_detectable_newly_failing": None,
        "mde80": _round((z_two + z_power) * est.se),
        "drop_upper_bound": _round(min(1.0, upper)),
        "upper_bound_method": f"normal, one-sided {1 - alpha:.0%}",
        "samples_needed": needed,
        "newly_failing_share": _round(est.failing / n) if n else None,
        "newly_passing_share": _round(est.passing / n) if n else None,
    }


def verdict(p_value: float, delta: float, alpha: float) -> str:
    if p_value < alpha and delta < 0:
        return f"significantly worse than the baseline (p={p_value:.4g} < alpha {alpha:g})"
    if p_value < alpha and delta > 0:
        return f"significantly better than the baseline (p={p_value:.4g} < alpha {alpha:g})"
    return f"within noise of the baseline (p={p_value:.4g} >= alpha {alpha:g})"


def min_paired(alpha: float) -> int:
    """The fewest paired samples with which the test can find a regression at ``alpha`` at all
    (every one of them newly failing). Fewer pairs make any verdict "within noise"."""
    return significance.min_discordant(alpha)


def too_few_verdict(paired: int, needed: int, alpha: float) -> str:
    return (
        f"not comparable: {paired} paired sample{'s' if paired != 1 else ''}, fewer than the {needed} "
        f"needed to detect a regression at alpha {alpha:g}"
    )


def baseline_statuses(
    baseline: dict[str, Any], *, model: str | None = None
) -> dict[tuple[str, str], str]:
    """Each baseline sample's status by (file, sample id), for ``sample_results[].baseline_status``."""
    return {
        (str(e.get("file") or ""), e["sample_id"]): e["status"]
        for e in baseline["sample_results"]
        if e.get("kind", "gold") == "gold" and (model is None or e.get("model") in (None, model))
    }


def _ids(title: str, ids: list[str], limit: int) -> str:
    shown = ", ".join(ids[:limit]) + (
        f", ... and {len(ids) - limit} more" if len(ids) > limit else ""
    )
    return f"  {title} ({len(ids)}): {shown or '-'}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def comparison_lines(
    comparison: dict[str, Any], *, title: str | None = None, limit: int = 20
) -> list[tuple[str, dict[str, bool]]]:
    """The summary block (terminal and ``compare`` CLI print the same lines)."""
    lo, hi = comparison["ci95"]
    test = _test_name(comparison) + (
        " (Monte Carlo)"
        if comparison["test"] == PERMUTATION and not comparison.get("exact")
        else ""
    )
    lines: list[tuple[str, dict[str, bool]]] = [
        (title or _title(comparison), {"bold": True}),
        (
            f"  paired {comparison['paired']} | {'corrected ' if (comparison.get('people_labels') or {}).get('corrected') else ''}"
            f"pass rate {_pct(comparison['baseline_pass_rate'])} -> "
            f"{_pct(comparison['run_pass_rate'])} (delta {comparison['pass_rate_delta']:+.1%}, 95% CI {lo:+.1%} to {hi:+.1%})",
            {},
        ),
        (
            _ids("newly failing", comparison["newly_failing"], limit),
            {"red": bool(comparison["newly_failing"])},
        ),
        (
            _ids("newly passing", comparison["newly_passing"], limit),
            {"green": bool(comparison["newly_passing"])},
        ),
    ]
    for key, name in (
        ("only_in_baseline", "only in baseline (not paired)"),
        ("only_in_run", "only in this run (not paired)"),
    ):
        if comparison[key]:
            lines.append((_ids(name, comparison[key], limit), {}))
    lines.append((f"  test: {test}, p={comparison['p_value']:.4g}", {}))
    people = corrected_clause(comparison)
    if people:
        lines.append((f"  {people}", {}))
    if "min_detectable_drop" in comparison:
        lines.append((f"  {detectable_clause(comparison, warn=False)}", {}))
        lines.append((f"  {_bound_text(comparison)}", {}))
    worse = comparison["significant_regression"] or comparison["paired"] < comparison.get(
        "min_paired", 0
    )
    lines.append(
        (f"  verdict: {comparison['verdict']}", {"red": worse, "green": not worse, "bold": True})
    )
    lines.extend((f"  warning: {w}", {"yellow": True}) for w in comparison["warnings"])
    return lines


def _bound_text(comparison: dict[str, Any]) -> str:
    upper = comparison.get("drop_upper_bound")
    shown = "-" if upper is None else f"{upper:.1%}"
    text = f"drop upper bound {shown} ({comparison['upper_bound_method']}); margin {comparison['margin']:.1%}"
    if comparison.get("samples_needed") is not None:
        text += f"; {comparison['samples_needed']} paired samples to bound it within the margin"
    elif upper is not None and upper > comparison["margin"]:
        text += "; the observed drop is itself not below the margin"
    return text


def _title(comparison: dict[str, Any]) -> str:
    """Says once what is compared: both models when the two runs name different sources."""
    base = comparison["baseline"]
    run_model = (comparison.get("run") or {}).get("model")
    if named_source(run_model) and named_source(base["model"]) and run_model != base["model"]:
        return f"comparison: {run_model} (this run) vs {base['model']} (baseline {base['path']}, {base['timestamp']})"
    return f"comparison with baseline {base['path']} (model {base['model']}, {base['timestamp']})"


def regression_gate_message(
    comparison: dict[str, Any], model: str | None = None
) -> tuple[bool, str]:
    """(passed, one line) for ``--llm-fail-on-regression``; ``model`` names whose gate it is."""
    whose = f" for {model}" if model else ""
    path = comparison["baseline"]["path"]
    needed = comparison.get("min_paired", 1)
    mode = comparison.get("regression_mode", DIFFERENCE)
    if comparison["paired"] < needed and (mode == DIFFERENCE or not comparison["paired"]):
        # A baseline that pairs with nothing (other ids, other paths) must not read as "within noise".
        unpaired = f"{len(comparison['only_in_baseline'])} only in the baseline, {len(comparison['only_in_run'])} only in this run"
        return False, (
            f"llmeval regression gate FAILED{whose}: baseline {path} pairs with {comparison['paired']} of this run's "
            f"samples, fewer than the {needed} a regression at alpha {comparison['alpha']:g} needs to be detectable "
            f"({unpaired}; do the sample ids and file paths match?)"
        )
    passed, verdict_text = GATE_MODES[mode](comparison)
    state = "passed" if passed else "FAILED"
    people = corrected_clause(comparison)
    return passed, (
        f"llmeval regression gate {state}{whose}: {verdict_text}; {detectable_clause(comparison, warn=mode == DIFFERENCE)}"
        + (f"; {people}" if people else "")
    )


def _test_name(comparison: dict[str, Any]) -> str:
    return TEST_NAMES.get(comparison["test"], str(comparison["test"]))


def _detail(comparison: dict[str, Any]) -> str:
    corrected = (comparison.get("people_labels") or {}).get("corrected")
    return (
        f"{'corrected ' if corrected else ''}pass rate {comparison['pass_rate_delta']:+.1%} "
        f"({'by the grader ' if corrected else ''}{len(comparison['newly_failing'])} newly failing, "
        f"{len(comparison['newly_passing'])} newly passing of {comparison['paired']} paired), "
        f"{_test_name(comparison)} p={comparison['p_value']:.4g}"
    )


def _difference_gate(comparison: dict[str, Any]) -> tuple[bool, str]:
    """Fails on a significant drop, or on an observed drop beyond the margin whatever the test says."""
    path, alpha, margin = (
        comparison["baseline"]["path"],
        comparison["alpha"],
        comparison.get("margin", DEFAULT_MARGIN),
    )
    drop = -comparison["pass_rate_delta"]
    if comparison["significant_regression"]:
        return (
            False,
            f"significantly worse than baseline {path}: {_detail(comparison)} < alpha {alpha:g}",
        )
    sign = "<" if comparison.get("significant_improvement") else ">="
    if drop > margin:
        return False, (
            f"pass rate dropped {drop:.1%} from baseline {path}, more than the margin {margin:.1%}: "
            f"{_detail(comparison)} {sign} alpha {alpha:g}"
        )
    judged = "better than" if comparison.get("significant_improvement") else "within noise of"
    return True, (
        f"{judged} baseline {path}: {_detail(comparison)} {sign} alpha {alpha:g}, drop within the margin {margin:.1%}"
    )


def _noninferiority_gate(comparison: dict[str, Any]) -> tuple[bool, str]:
    """Passes only when the one-sided upper bound of the drop is within the margin."""
    path, alpha, margin = (
        comparison["baseline"]["path"],
        comparison["alpha"],
        comparison.get("margin", DEFAULT_MARGIN),
    )
    upper = comparison["drop_upper_bound"]
    bound = f"the drop's one-sided {1 - alpha:.0%} upper bound is {upper:.1%}"
    if upper <= margin:
        return (
            True,
            f"non-inferior to baseline {path}: {bound}, within the margin {margin:.1%}; {_detail(comparison)}",
        )
    n = comparison["paired"]
    failing, passing = _changed_shares(comparison)
    normal = (
        comparison.get("min_detectable_newly_failing") is None
        and comparison.get("min_detectable_drop") is not None
    )
    if comparison.get("samples_needed") is None:
        drop = -comparison["pass_rate_delta"] if normal else failing - passing
        more = (
            f"the observed drop {drop:.1%} is itself not below the margin, so no number of samples "
            "would show non-inferiority"
        )
    elif normal:
        more = (
            f"about {comparison['samples_needed']} paired samples would be needed, not {n} (80% power, assuming "
            "the observed drop and the variance per sample stay)"
        )
    else:
        more = (
            f"about {comparison['samples_needed']} paired samples would be needed, not {n} (80% power, assuming "
            f"the observed shares of changed pairs: {failing:.1%} newly failing, {passing:.1%} newly passing)"
        )
    return (
        False,
        f"not shown non-inferior to baseline {path}: {bound}, more than the margin {margin:.1%}; {_detail(comparison)}; {more}",
    )


def _changed_shares(comparison: dict[str, Any]) -> tuple[float, float]:
    """Shares of newly failing and newly passing pairs (sums of pass-fraction changes with repeats)."""
    return comparison.get("newly_failing_share") or 0.0, comparison.get(
        "newly_passing_share"
    ) or 0.0


GATE_MODES: dict[str, Callable[[dict[str, Any]], tuple[bool, str]]] = {
    DIFFERENCE: _difference_gate,
    NON_INFERIORITY: _noninferiority_gate,
}


def detectable_clause(comparison: dict[str, Any], *, warn: bool = True) -> str:
    """The smallest drop this comparison could detect, and a warning when that is beyond the margin."""
    n, alpha, margin = (
        comparison["paired"],
        comparison["alpha"],
        comparison.get("margin", DEFAULT_MARGIN),
    )
    k = comparison.get("min_detectable_newly_failing")
    floor = comparison.get("min_detectable_drop")
    samples = f"{n} paired sample{'s' if n != 1 else ''}"
    if floor is None:
        return f"with {samples} no drop is detectable at alpha {alpha:g} ({k or comparison.get('min_paired', 1)} newly failing needed)"
    if k is None:
        what = "normal approximation"
    elif comparison["test"] == MCNEMAR:
        what = f"{k} newly failing, none newly passing"
    else:
        what = f"{k} samples each down by the smallest step"
    text = f"smallest drop detectable at alpha {alpha:g} with {samples}: {floor:.1%} ({what})"
    if comparison.get("mde80") is not None:
        text += f", {comparison['mde80']:.1%} with 80% power"
    if warn and floor > margin and k is None:
        text += f"; warning: more than the margin {margin:.1%}: the test alone could not fail on a smaller drop"
    elif warn and floor > margin:
        test = "McNemar's exact test" if comparison["test"] == MCNEMAR else "the permutation test"
        if comparison["test"] == MCNEMAR:
            alone = (
                f"only if all {n} samples newly failed"
                if k == n
                else f"only with {k} or more of the {n} samples newly failing"
            )
        else:
            alone = f"only with {k} or more of the {n} samples passing fewer repeats"
        text += f"; warning: more than the margin {margin:.1%}: {test} alone could fail {alone}"
    return text
