"""``--llm-baseline=history:last|history:last-passing|history:COMMIT``: a recorded run as a baseline.

The run is turned back into the ``sample_results`` and ``metadata`` a ``--llm-report`` JSON holds,
so the comparison is computed by the same code as with a report file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_llmeval.history.analysis import STATUS_WORDS
from pytest_llmeval.history.store import History, HistoryError, Run

PREFIX = "history:"
MIN_COMMIT_PREFIX = 4


def pick(history: History, which: str) -> Run:
    """The newest complete run that ``which`` (last, last-passing or a commit prefix) names."""
    complete = [r for r in history.runs if r.complete]
    if which == "last":
        chosen = complete
    elif which == "last-passing":
        chosen = [r for r in complete if r.meta.get("exitstatus") == 0]
    elif len(which) >= MIN_COMMIT_PREFIX and all(c in "0123456789abcdefABCDEF" for c in which):
        chosen = [r for r in complete if (r.commit or "").lower().startswith(which.lower())]
        commits = {r.commit for r in chosen}
        if len(commits) > 1:
            raise HistoryError(
                f"commit {which!r} is ambiguous in {history.root}: {', '.join(sorted(str(c)[:12] for c in commits))}"
            )
    else:
        raise HistoryError(
            f"{PREFIX}{which!r}: expected history:last, history:last-passing or history:COMMIT (4+ hex digits)"
        )
    if not chosen:
        raise HistoryError(f"no complete recorded run in {history.root} matches {PREFIX}{which}")
    return chosen[-1]


def as_report(run: Run) -> dict[str, Any]:
    """The parts of a ``--llm-report`` JSON a comparison reads, rebuilt from a recorded run."""
    repeat = int((run.meta.get("settings") or {}).get("repeat") or 1)
    results = []
    for model, columns in run.results.items():
        status, scores = columns["status"], run.column(model, "score")
        passes = run.column(model, "pass_count") if repeat > 1 else []
        for index, row in enumerate(run.rows):
            if status[index] == ".":
                continue
            entry: dict[str, Any] = {
                "sample_id": row[1],
                "file": row[0],
                "line": row[2],
                "kind": "gold",
                "model": model,
                "status": STATUS_WORDS[status[index]],
                "scores": {"overall": None if scores[index] == "." else float(scores[index])},
            }
            if passes and passes[index] != ".":
                entry["repeats"] = [None] * repeat
                entry["pass_count"] = int(passes[index])
            results.append(entry)
    identity = dict(run.meta.get("identity") or {})
    return {
        "metadata": {
            **identity,
            "timestamp": run.finished[:19] + "+00:00",
            "history_run": run.run_id,
            "commit": run.commit,
        },
        "sample_results": results,
    }


def load(spec: str, history_path: str | None, invocation_dir: Path) -> tuple[str, dict[str, Any]]:
    """(shown name, report) of the run ``spec`` names; :class:`HistoryError` when it cannot be used."""
    if not history_path:
        raise HistoryError(
            f"{spec} needs --llm-history=DIR (ini llm_history): the history to pick the run from"
        )
    root = Path(history_path)
    history = History.load(root if root.is_absolute() else invocation_dir / root)
    run = pick(history, spec[len(PREFIX) :])
    commit = f" commit {run.commit[:10]}" if run.commit else ""
    return f"{spec} (run {run.run_id}{commit})", as_report(run)
