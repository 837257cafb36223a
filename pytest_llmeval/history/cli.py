"""``python -m pytest_llmeval history [DIR]``: runs, pass rates, trend and sample stories of a history."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_llmeval.history.analysis import DEFAULT_WINDOW, sample_runs, sample_stories, summarize

USAGE_ERROR = 4
DEFAULT_DIR = ".llmeval_history"


def add_parser(commands: Any, alpha: Any, positive: Any) -> None:
    history = commands.add_parser(
        "history", help="Show the runs, trend and flaky samples of an --llm-history directory"
    )
    history.add_argument(
        "path",
        nargs="?",
        default=DEFAULT_DIR,
        help=f"The history directory. Default: {DEFAULT_DIR!r}",
    )
    history.add_argument(
        "--json", action="store_true", help="Print an object with runs, trend and samples as JSON"
    )
    history.add_argument(
        "--sample",
        metavar="ID",
        help="The story of one sample: its verdict per run, flips, since when it fails",
    )
    history.add_argument(
        "--last",
        type=positive,
        default=DEFAULT_WINDOW,
        help=f"Runs the trend, flips and sample stories look at. Default: {DEFAULT_WINDOW}",
    )
    history.add_argument(
        "--alpha",
        type=alpha,
        default=0.05,
        help="Significance level of the trend test. Default: 0.05",
    )
    history.add_argument(
        "--limit",
        type=positive,
        default=20,
        help="Samples listed per kind in the text output. Default: 20",
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _short(commit: str | None) -> str:
    return (commit or "-")[:10]


def trend_line(t: dict[str, Any]) -> str:
    if t["slope"] is None:
        return f"  trend: {t['message']}"
    verdict = {
        "down": "significant DOWNWARD trend",
        "up": "significant upward trend",
        "flat": "no significant trend",
    }[t["direction"]]
    line = (
        f"  trend over the last {t['runs']} runs: {t['slope'] * 100:+.2f} points/run, p={t['p_value']:.4g} "
        f"(Cochran-Armitage, alpha {t['alpha']:g}): {verdict}"
    )
    if t.get("min_detectable_slope") is not None:
        line += (
            f"; smallest detectable trend with these {t['runs']} runs: {t['min_detectable_slope'] * 100:.2f} "
            f"points/run, {t['mde80_slope'] * 100:.2f} with 80% power"
        )
    return line


def _since(story: dict[str, Any]) -> str:
    since = story["failing_since"]
    if since is None:
        return "failing"
    where = (
        f"since run {since['run_id']} (commit {_short(since['commit'])}, {since['finished'][:19]})"
    )
    return f"failing {where}" + ("" if story["regression"] else f" [{since['after']}]")


def summary_lines(summary: dict[str, Any], limit: int) -> list[str]:
    runs = summary["runs"]
    complete = sum(1 for r in runs if r["complete"])
    lines = [f"history {summary['history']}: {len(runs)} runs ({complete} complete)"]
    lines.extend(f"warning: {w}" for w in summary["warnings"])
    window = summary["window"]
    for model, t in summary["trend"].items():
        lines.append(f"model {model}")
        lines.append(
            f"  {'run':<16} {'finished':<19} {'commit':<10} {'pass rate':>9}  {'95% CI':<15} {'n':>6}"
        )
        for run in [r for r in runs if model in r["models"]][-window:]:
            rate = run["models"][model]
            lo, hi = rate["ci95"]
            ci = "-" if lo is None else f"{lo:.1%}-{hi:.1%}"
            note = "" if run["complete"] else f"  incomplete: {run['incomplete_reason']}"
            lines.append(
                f"  {run['run_id']:<16} {run['finished'][:19]:<19} {_short(run['commit']):<10} "
                f"{_pct(rate['pass_rate']):>9}  {ci:<15} {rate['n']:>6}{note}"
            )
        lines.append(trend_line(t))
        lines.extend(_sample_lines(summary["samples"].get(model, []), window, limit))
    return lines


def _sample_lines(stories: list[dict[str, Any]], window: int, limit: int) -> list[str]:
    failing = [s for s in stories if s["failing"]]
    flaky = [s for s in stories if s["flaky"]]
    changed = [s for s in stories if s["gold_changed"]]
    regressions = sum(1 for s in failing if s["regression"])
    lines = [
        f"  samples (last {window} runs): {len(failing)} failing ({regressions} after passing), "
        f"{len(flaky)} flaky, {len(changed)} gold changed"
    ]
    for s in sorted(flaky, key=lambda s: -s["flips"])[:limit]:
        lines.append(f"    FLAKY   {s['sample_id']}: {s['flips']} flips  {s['verdicts']}")
    for s in failing[:limit]:
        lines.append(f"    FAILING {s['sample_id']}: {_since(s)}  {s['verdicts']}")
    for s in changed[:limit]:
        lines.append(
            f"    GOLD CHANGED {s['sample_id']} (not counted as a regression)  {s['verdicts']}"
        )
    return lines


def sample_report(history: Any, sample_id: str, window: int) -> dict[str, Any]:
    models: dict[str, Any] = {}
    for model in history.models():
        stories = sample_stories(history, model, window=window, only=sample_id)
        runs = sample_runs(history, model, sample_id, window=window)
        if stories or runs:
            models[model] = {"runs": runs, "stories": stories}
    return {
        "history": str(history.root),
        "sample_id": sample_id,
        "window": window,
        "models": models,
    }


def sample_lines(report: dict[str, Any]) -> list[str]:
    lines = [f"sample {report['sample_id']} in {report['history']} (last {report['window']} runs)"]
    for model, data in report["models"].items():
        lines.append(f"model {model}")
        for run in data["runs"]:
            score = "-" if run["score"] is None else f"{run['score']:.3f}"
            why = f"  {run['reason']}" if run["reason"] else ""
            lines.append(
                f"  {run['finished'][:19]}  {_short(run['commit']):<10} {run['run_id']}  {run['status']:<10} "
                f"{score:>6}  gold {run['gold_hash']}{why}"
            )
        for s in data["stories"]:
            state = (
                _since(s)
                if s["failing"]
                else "passing"
                if s["verdicts"].rstrip(".")[-1:] == "P"
                else "-"
            )
            lines.append(
                f"  {s['file']}::{s['sample_id']}: {s['flips']} flips, {'FLAKY' if s['flaky'] else 'not flaky'}, "
                f"{state}" + (", gold changed (not a regression)" if s["gold_changed"] else "")
            )
    return lines


def history_command(args: argparse.Namespace) -> int:
    from pytest_llmeval.history.store import History, HistoryError

    try:
        history = History.load(Path(args.path))
    except HistoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    for warning in history.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.sample is not None:
        report = sample_report(history, args.sample, args.last)
        if not report["models"]:
            print(f"error: no sample {args.sample!r} in {args.path}", file=sys.stderr)
            return USAGE_ERROR
        print(json.dumps(report, indent=2) if args.json else "\n".join(sample_lines(report)))
        return 0
    summary = summarize(history, window=args.last, alpha=args.alpha)
    print(
        json.dumps(summary, indent=2)
        if args.json
        else "\n".join(summary_lines(summary, args.limit))
    )
    return 0
