"""What a history says: pass rate per run and model with its interval, the trend over the last runs,
and each sample's story (flips, flaky, the run and commit since which it fails, gold changes).

Statistics are stdlib (checked against scipy in the tests):

- pass-rate interval: Wilson score (:func:`pytest_llmeval.regression.significance.wilson`);
- trend: the Cochran-Armitage test for a linear trend in the pass proportions over run order, two
  sided, normal approximation. The slope is the matching weighted least-squares slope of the pass
  rate on the run index (points per run). Runs of the same samples are positively correlated, so
  the binomial variance it assumes is if anything too large: the test errs towards "no trend".
- smallest detectable trend: the slope whose z statistic just reaches the two-sided critical value,
  z(1 - alpha/2) * sqrt(p(1 - p) / Sxx), and the one found with 80 % power, (z(1 - alpha/2) + z(0.8))
  times the same standard error, at the window's pooled pass rate p (0.5 when every or no sample
  passed: no variation says nothing about the variance) and Sxx = sum of n_i (run_i - mean run)^2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

from pytest_llmeval.history.store import History, Run
from pytest_llmeval.regression.significance import POWER, wilson

PASS, FAIL = "pass", "fail"
VERDICTS = {"P": PASS, "A": FAIL, "F": FAIL}  # E(rror), S(kipped) and . (not run) are no verdict
STATUS_WORDS = {
    "P": "pass",
    "A": "acceptable",
    "F": "fail",
    "E": "error",
    "S": "skipped",
    ".": "not run",
}
FLAKY_FLIPS = 2  # a sample that changed verdict at least twice in the window went both ways
MIN_TREND_RUNS = 3
DEFAULT_WINDOW = 20

Key = tuple[str, str]


def run_rate(run: Run, model: str) -> dict[str, Any]:
    """Pass count, denominator, rate and Wilson 95% interval of one model in one run."""
    status = run.status(model)
    passed = status.count("P")
    graded = passed + status.count("A") + status.count("F")
    errors = status.count("E")
    exclude = (run.meta.get("settings") or {}).get("errors") == "exclude"
    n = graded + (0 if exclude else errors)
    lo, hi = wilson(passed, n) if n else (None, None)
    return {
        "passed": passed,
        "n": n,
        "errors": errors,
        "pass_rate": passed / n if n else None,
        "ci95": [lo, hi],
    }


def cochran_armitage(
    counts: Sequence[tuple[int, int]], scores: Sequence[float] | None = None
) -> tuple[float, float, float]:
    """(z, two-sided p, slope) of the Cochran-Armitage trend test on ``(passed, n)`` per group.

    ``scores`` default to 0, 1, 2, ... (run order). ``slope`` is the n-weighted least-squares slope
    of the proportion on the score. No variation at all (every sample passed, or none) gives p = 1.
    """
    xs = list(range(len(counts))) if scores is None else list(scores)
    total = sum(n for _, n in counts)
    if total == 0:
        return 0.0, 1.0, 0.0
    pbar = sum(k for k, _ in counts) / total
    xbar = sum(n * x for (_, n), x in zip(counts, xs, strict=True)) / total
    sxx = sum(n * (x - xbar) ** 2 for (_, n), x in zip(counts, xs, strict=True))
    t = sum(x * (k - n * pbar) for (k, n), x in zip(counts, xs, strict=True))
    slope = t / sxx if sxx else 0.0
    variance = pbar * (1 - pbar) * sxx
    if variance <= 0:
        return 0.0, 1.0, slope
    z = t / math.sqrt(variance)
    return z, min(1.0, 2 * NormalDist().cdf(-abs(z))), slope


def detectable_slope(
    counts: Sequence[tuple[int, int]], alpha: float, power: float = POWER
) -> tuple[float, float]:
    """(smallest slope reaching p < alpha, smallest found with ``power``) of the trend test on these runs,
    in pass-rate points per run (a share: 0.01 is one point)."""
    total = sum(n for _, n in counts)
    xbar = sum(n * x for x, (_, n) in enumerate(counts)) / total
    sxx = sum(n * (x - xbar) ** 2 for x, (_, n) in enumerate(counts))
    pbar = sum(k for k, _ in counts) / total
    spread = pbar * (1 - pbar) or 0.25
    se = math.sqrt(spread / sxx) if sxx else math.inf
    z = NormalDist().inv_cdf(1 - alpha / 2)
    return z * se, (z + NormalDist().inv_cdf(power)) * se


def trend(rates: list[dict[str, Any]], *, window: int, alpha: float) -> dict[str, Any]:
    """The trend of the last ``window`` runs that graded something."""
    used = [r for r in rates if r["n"]][-window:]
    result: dict[str, Any] = {"runs": len(used), "test": "cochran_armitage", "alpha": alpha}
    if len(used) < MIN_TREND_RUNS:
        return {
            **result,
            "slope": None,
            "p_value": None,
            "z": None,
            "direction": "insufficient data",
            "message": f"{len(used)} run(s) with graded samples; a trend needs {MIN_TREND_RUNS}",
        }
    counts = [(r["passed"], r["n"]) for r in used]
    z, p, slope = cochran_armitage(counts)
    direction = ("down" if slope < 0 else "up") if p < alpha else "flat"
    least, mde = detectable_slope(counts, alpha)
    return {
        **result,
        "slope": slope,
        "p_value": p,
        "z": z,
        "direction": direction,
        "min_detectable_slope": least,
        "mde80_slope": mde,
    }


class SampleIndex:
    """Where each (file, id) sits in each run's table (one dict per distinct table)."""

    def __init__(self) -> None:
        self._maps: dict[int, dict[Key, int]] = {}

    def of(self, run: Run) -> dict[Key, int]:
        key = id(run.rows)
        if key not in self._maps:
            self._maps[key] = {(row[0], row[1]): i for i, row in enumerate(run.rows)}
        return self._maps[key]


def _flips(verdicts: str, hashes: Sequence[str | None]) -> int:
    flips, last, last_hash = 0, None, None
    for char, gold in zip(verdicts, hashes, strict=True):
        verdict = VERDICTS.get(char)
        if verdict is None:
            continue
        if gold != last_hash:
            last = None  # a changed gold starts afresh: no flip across it
        if last is not None and verdict != last:
            flips += 1
        last, last_hash = verdict, gold
    return flips


def _failing_since(
    runs: list[Run], model: str, wanted: dict[Key, str | None], index: SampleIndex
) -> dict[Key, dict[str, Any] | None]:
    """For each failing sample (key -> its newest gold hash): the first run of its current failing
    streak. One walk from the newest run back, carrying the samples whose streak is still open."""
    first: dict[Key, Run] = {}
    ended: dict[Key, str] = {}
    walking = dict(wanted)
    rows: Any = None
    entries: list[tuple[Key, int]] = []
    for run in reversed(runs):
        if not walking:
            break
        if run.rows is not rows:  # another table: look the samples up again, check their gold once
            rows, where = run.rows, index.of(run)
            entries = []
            for key, gold in list(walking.items()):
                position = where.get(key)
                if position is not None and rows[position][3] != gold:
                    ended[key] = "gold changed"
                    del walking[key]
                elif position is not None:
                    entries.append((key, position))
        status = run.results[model]["status"]
        done = False
        for key, position in entries:
            char = status[position]
            if char == "P":
                ended[key] = "passed before"
                del walking[key]
                done = True
            elif char == "F" or char == "A":
                first[key] = run
        if done:
            entries = [(key, position) for key, position in entries if key in walking]
    out: dict[Key, dict[str, Any] | None] = {}
    for key in wanted:
        since = first.get(key)
        out[key] = (
            None
            if since is None
            else {  # None: the failure seen was of another gold version
                "run_id": since.run_id,
                "finished": since.finished,
                "commit": since.commit,
                "branch": (since.meta.get("git") or {}).get("branch"),
                "after": ended.get(key, "first recorded run"),
            }
        )
    return out


def sample_stories(
    history: History, model: str, *, window: int = DEFAULT_WINDOW, only: str | None = None
) -> list[dict[str, Any]]:
    """One story per sample of the newest run of ``model`` (or the samples whose id is ``only``)."""
    runs = [r for r in history.runs if model in r.results]
    if not runs:
        return []
    index = SampleIndex()
    recent = runs[-window:]
    keys = [(row[0], row[1]) for row in runs[-1].rows if only is None or row[1] == only]
    same_table = all(r.rows is recent[-1].rows for r in recent)
    statuses = [r.results[model]["status"] for r in recent]
    stories = []
    for key in keys:
        if same_table:
            i = index.of(recent[-1])[key]
            chars = "".join([s[i] for s in statuses])
            hashes: list[str | None] = [recent[-1].rows[i][3]] * len(recent)
        else:
            places = [index.of(r).get(key) for r in recent]
            chars = "".join(
                "." if p is None else s[p] for p, s in zip(places, statuses, strict=True)
            )
            hashes = [
                None if p is None else r.rows[p][3] for p, r in zip(places, recent, strict=True)
            ]
        stories.append(_story(model, key, chars, hashes))
    failing = {(s["file"], s["sample_id"]): s["gold"] for s in stories if s["failing"]}
    since = _failing_since(runs, model, failing, index)
    for story in stories:
        story.pop("gold")
        if story["failing"]:
            found = since[(story["file"], story["sample_id"])]
            story["failing_since"] = found
            # Only a failure after a pass of the same gold is a regression; after a gold change it is not.
            story["regression"] = found is not None and found["after"] == "passed before"
    return stories


def _story(model: str, key: Key, chars: str, hashes: list[str | None]) -> dict[str, Any]:
    flips = _flips(chars, hashes) if "P" in chars and ("F" in chars or "A" in chars) else 0
    observed = [c for c in chars if c in VERDICTS]
    known = {h for h, c in zip(hashes, chars, strict=True) if c != "."}
    return {
        "file": key[0],
        "sample_id": key[1],
        "model": model,
        "verdicts": chars,
        "flips": flips,
        "flaky": flips >= FLAKY_FLIPS,
        "gold_changed": len(known) > 1,
        "failing": bool(observed) and VERDICTS[observed[-1]] == FAIL,
        "failing_since": None,
        "regression": False,
        "gold": hashes[-1],
    }


def sample_runs(
    history: History, model: str, sample_id: str, *, window: int
) -> list[dict[str, Any]]:
    """``--sample ID``: the sample's verdict in each of the last ``window`` runs of ``model``."""
    out = []
    index = SampleIndex()
    for run in [r for r in history.runs if model in r.results][-window:]:
        for key, position in index.of(run).items():
            if key[1] != sample_id:
                continue
            score = run.column(model, "score")[position]
            out.append(
                {
                    "run_id": run.run_id,
                    "finished": run.finished,
                    "commit": run.commit,
                    "file": key[0],
                    "status": STATUS_WORDS.get(run.status(model)[position], "?"),
                    "score": None if score == "." else float(score),
                    "gold_hash": run.rows[position][3],
                    "reason": run.reasons(model).get(str(position)),
                }
            )
    return out


def summarize(
    history: History, *, window: int = DEFAULT_WINDOW, alpha: float = 0.05
) -> dict[str, Any]:
    """The ``--json`` object: ``runs`` (every recorded run), ``trend`` and ``samples`` per model."""
    models = history.models()
    per_run = [{m: run_rate(run, m) for m in run.results} for run in history.runs]
    # the trend reads complete runs only: an interrupted run graded another set of samples
    rates = {
        m: [r[m] for r, run in zip(per_run, history.runs, strict=True) if m in r and run.complete]
        for m in models
    }
    runs = []
    for run, run_rates in zip(history.runs, per_run, strict=True):
        runs.append(
            {
                "run_id": run.run_id,
                "started": run.meta.get("started"),
                "finished": run.finished,
                "commit": run.commit,
                "branch": (run.meta.get("git") or {}).get("branch"),
                "complete": run.complete,
                "incomplete_reason": run.meta.get("incomplete_reason"),
                "budget": run.meta.get("budget"),
                "models": run_rates,
            }
        )
    samples: dict[str, list[dict[str, Any]]] = {}
    for m in models:
        stories = sample_stories(history, m, window=window)
        samples[m] = [s for s in stories if s["flips"] or s["failing"] or s["gold_changed"]]
    return {
        "history": str(history.root),
        "window": window,
        "runs": runs,
        "trend": {m: trend(rates[m], window=window, alpha=alpha) for m in models},
        "samples": samples,
        "warnings": list(history.warnings),
    }
