"""Run history (``--llm-history=DIR``): each run appends one record; ``python -m pytest_llmeval history``
reads them back. Format: :mod:`.store` and ``docs/history.md``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_llmeval.options import Settings
    from pytest_llmeval.records.run import RunRecord


def history_dir(settings: Settings, invocation_dir: Path) -> Path:
    history = settings.history
    assert history is not None, "only a run with --llm-history has a history directory"
    path = Path(history)
    return path if path.is_absolute() else invocation_dir / path


def record_run(run: RunRecord, *, exitstatus: int) -> tuple[str | None, str | None]:
    """Controller only, once at the end of the run: write this run's record, then prune.

    Returns (the summary's note, a warning): a history that cannot be written is a warning of
    this run, never a lost report.
    """
    from pytest_llmeval.history.record import build_run
    from pytest_llmeval.history.store import prune, write_run
    from pytest_llmeval.redact import clean_for_output

    if run.collect_only:
        return None, None
    settings = run.settings
    root = history_dir(settings, run.invocation_dir)
    entry, rows = build_run(run, exitstatus=exitstatus)
    if not rows:  # no gold sample in this run (e.g. only unit tests, with llm_history in the ini)
        return None, None
    try:
        path = write_run(root, clean_for_output(entry), rows)
        keep = settings.history_keep
        pruned = prune(root, keep, current=path) if keep else 0
    except OSError as exc:
        return None, f"history {settings.history} not written: {exc}"
    note = f"history: run {entry['run_id']} recorded in {settings.history}"
    if not entry["complete"]:
        note += f" (incomplete: {entry['incomplete_reason']})"
    if pruned:
        note += f"; {pruned} older run(s) pruned (-o llm_history_keep={keep})"
    return note, None
