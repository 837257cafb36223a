"""The history as the reports show it: a ``history`` section for the JSON report (pass rate per
run and model with its interval, the trend) and each sample's recent verdicts and flip count; the
HTML report draws the section as an inline SVG chart (:func:`chart`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_llmeval.history.analysis import DEFAULT_WINDOW, run_rate, sample_stories, trend
from pytest_llmeval.history.store import History, HistoryError

PALETTE = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f")
WIDTH, HEIGHT, LEFT, BOTTOM = 600.0, 160.0, 40.0, 18.0


def report_section(
    root: Path, *, window: int = DEFAULT_WINDOW, alpha: float = 0.05
) -> tuple[dict[str, Any], dict[tuple[str, str, str], dict[str, Any]]]:
    """(the report's ``history`` object, per (model, file, id) recent history) of the last runs."""
    try:
        history = History.load(root)
    except HistoryError as exc:
        return {"warnings": [str(exc)]}, {}
    models: dict[str, Any] = {}
    per_sample: dict[tuple[str, str, str], dict[str, Any]] = {}
    for model in history.models():
        rates = [(run, run_rate(run, model)) for run in history.runs if model in run.results]
        points = [
            {
                "run_id": run.run_id,
                "finished": run.finished,
                "commit": run.commit,
                "complete": run.complete,
                "pass_rate": r["pass_rate"],
                "ci95": r["ci95"],
                "n": r["n"],
            }
            for run, r in rates[-window:]
        ]
        complete = [
            r for run, r in rates if run.complete
        ]  # as the history command: complete runs only
        models[model] = {"runs": points, "trend": trend(complete, window=window, alpha=alpha)}
        for story in sample_stories(history, model, window=window):
            since = story["failing_since"]
            per_sample[(model, story["file"], story["sample_id"])] = {
                "recent": story["verdicts"],
                "flips": story["flips"],
                "flaky": story["flaky"],
                "gold_changed": story["gold_changed"],
                "failing_since_commit": since and since["commit"],
            }
    return {
        "path": str(root),
        "window": window,
        "models": models,
        "warnings": history.warnings,
    }, per_sample


def attach(report: dict[str, Any], root: Path, *, alpha: float = 0.05) -> None:
    """Add the ``history`` section to a built report and each sample's ``history`` entry."""
    section, per_sample = report_section(root, alpha=alpha)
    report["history"] = section
    first = (report.get("metadata") or {}).get("model")
    for entry in report.get("sample_results") or []:
        key = (
            str(entry.get("model") or first),
            str(entry.get("file") or ""),
            str(entry.get("sample_id")),
        )
        if key in per_sample:
            entry["history"] = per_sample[key]


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def chart(section: Any) -> dict[str, Any] | None:
    """SVG geometry of the trend chart: one line per model, a dot per run, its 95% interval as a bar."""
    if (
        not isinstance(section, dict)
        or not isinstance(section.get("models"), dict)
        or not section["models"]
    ):
        return None
    longest = max(
        (len(m.get("runs") or []) for m in section["models"].values() if isinstance(m, dict)),
        default=0,
    )
    if longest == 0:
        return None
    step = (WIDTH - LEFT - 10) / max(1, longest - 1)

    def y(rate: float) -> float:
        return round(HEIGHT * (1 - max(0.0, min(1.0, rate))), 2)

    lines = []
    for index, (model, data) in enumerate(section["models"].items()):
        color = PALETTE[index % len(PALETTE)]
        runs = [r for r in (data.get("runs") or []) if isinstance(r, dict)]
        offset = longest - len(runs)  # the newest run of every model at the right edge
        dots = []
        for i, run in enumerate(runs):
            rate = _num(run.get("pass_rate"))
            if rate is None:
                continue
            ci = run.get("ci95")
            lo, hi = (
                (_num(ci[0]), _num(ci[1]))
                if isinstance(ci, list) and len(ci) == 2
                else (None, None)
            )
            x = round(LEFT + (offset + i) * step, 2)
            dots.append(
                {
                    "x": x,
                    "y": y(rate),
                    "lo": y(lo if lo is not None else rate),
                    "hi": y(hi if hi is not None else rate),
                    "title": f"{model} run {run.get('run_id')} ({str(run.get('commit') or '-')[:10]}, "
                    f"{str(run.get('finished'))[:19]}): {rate:.1%} of {run.get('n')}"
                    + ("" if lo is None else f", 95% CI {lo:.1%}-{hi:.1%}")
                    + ("" if run.get("complete", True) else ", incomplete"),
                }
            )
        t = data.get("trend") or {}
        slope = _num(t.get("slope"))
        p = _num(t.get("p_value"))
        least = _num(t.get("min_detectable_slope"))
        label = f"{model}: " + (
            "no trend yet"
            if slope is None or p is None
            else f"{slope * 100:+.2f} points/run, p={p:.3g} ({t.get('direction')})"
            + ("" if least is None else f", detectable from {least * 100:.2f}")
        )
        lines.append(
            {
                "color": color,
                "dots": dots,
                "points": " ".join(f"{d['x']},{d['y']}" for d in dots),
                "label": label,
            }
        )
    grid = [{"y": y(v), "label": f"{v:.0%}"} for v in (0.0, 0.5, 1.0)]
    return {
        "width": WIDTH,
        "height": HEIGHT + BOTTOM,
        "plot_height": HEIGHT,
        "left": LEFT,
        "lines": lines,
        "grid": grid,
        "runs": longest,
    }
