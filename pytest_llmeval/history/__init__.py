"""Run history (``--llm-history=DIR``): each run appends one record; ``python -m pytest_llmeval history``
reads them back. Format: :mod:`.store` and ``docs/history.md``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_llmeval.session import LLMEvalSession


def history_dir(llm_session: LLMEvalSession) -> Path:
    history = llm_session.settings.history
    assert history is not None, "only a run with --llm-history has a history directory"
    path = Path(history)
    return path if path.is_absolute() else Path(llm_session.config.invocation_params.dir) / path


def record_run(llm_session: LLMEvalSession) -> Path | None:
    """Controller only, once at the end of the run: write this run's record, then prune.

    A history that cannot be written is a warning of this run, never a lost report.
    """
    from pytest_llmeval.history.record import build_run
    from pytest_llmeval.history.store import prune, write_run
    from pytest_llmeval.redact import clean_for_output

    if llm_session.config.option.collectonly:
        return None
    root = history_dir(llm_session)
    run, rows = build_run(llm_session)
    if not rows:  # no gold sample in this run (e.g. only unit tests, with llm_history in the ini)
        return None
    try:
        path = write_run(root, clean_for_output(run), rows)
        keep = llm_session.settings.history_keep
        pruned = prune(root, keep, current=path) if keep else 0
    except OSError as exc:
        llm_session.warnings.append(f"history {llm_session.settings.history} not written: {exc}")
        return None
    note = f"history: run {run['run_id']} recorded in {llm_session.settings.history}"
    if not run["complete"]:
        note += f" (incomplete: {run['incomplete_reason']})"
    if pruned:
        note += f"; {pruned} older run(s) pruned (-o llm_history_keep={keep})"
    llm_session.output_notes.append(note)
    return path
