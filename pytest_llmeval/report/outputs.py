"""End-of-run files on the controller: human agreement, the JSON and HTML reports, the review export.

Called once from ``LLMEvalSession.finish`` (also after Ctrl-C, then the reports say incomplete).
Each output is imported only when its option is given.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_llmeval.session import LLMEvalSession


def _path(llm_session: LLMEvalSession, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else Path(llm_session.config.invocation_params.dir) / path


def compute_human_agreement(llm_session: LLMEvalSession) -> dict[str, Any] | None:
    """From ``--llm-review-import`` and gold ``human_label`` fields; warnings go to the run's warnings."""
    settings = llm_session.settings
    records = llm_session.records
    if not settings.review_import and not any(r.get("human_label") for r in records):
        return None
    from pytest_llmeval.review import human_agreement, read_verdicts

    imported: dict[str, Any] = {}
    if settings.review_import:
        imported, warnings = read_verdicts(_path(llm_session, settings.review_import))
        llm_session.warnings.extend(warnings)
    section, warnings = human_agreement(records, imported, settings.review_import)
    llm_session.warnings.extend(warnings)
    return section


def write_outputs(llm_session: LLMEvalSession, *, incomplete: bool) -> None:
    settings = llm_session.settings
    llm_session.human_agreement = compute_human_agreement(llm_session)
    if settings.history:
        from pytest_llmeval.history import record_run

        record_run(llm_session)
    if settings.review_export:
        _export_for_review(llm_session)
    if settings.report or settings.html:
        from pytest_llmeval.redact import clean_for_output
        from pytest_llmeval.report.json_report import build_report, write_report

        # No API key, bearer token or NaN reaches a file, whatever a server or grader produced.
        built = build_report(llm_session, incomplete=incomplete)
        if settings.history:
            from pytest_llmeval.history import history_dir
            from pytest_llmeval.history.view import attach

            attach(built, history_dir(llm_session), alpha=settings.alpha)  # this run included: written above
        report = clean_for_output(built)
        if settings.report:
            write_report(_path(llm_session, settings.report), report)
        if settings.html:
            from pytest_llmeval.report.html import write_html

            write_html(_path(llm_session, settings.html), report)


def _export_for_review(llm_session: LLMEvalSession) -> None:
    from pytest_llmeval.review import export_rows, read_verdicts, write_export

    settings = llm_session.settings
    path = _path(llm_session, settings.review_export)
    # People's work is never overwritten: a rerun with the same (ini) export path would
    # otherwise replace a filled-in file with empty verdicts.
    if path.exists() and read_verdicts(path)[0]:
        llm_session.warnings.append(
            f"review export {settings.review_export} not written: it already holds human verdicts "
            "(import it with --llm-review-import, or move it away)"
        )
        return
    from pytest_llmeval.redact import clean_for_output

    rows = clean_for_output(export_rows(llm_session.records, settings.review_fraction, settings.review_seed))
    write_export(path, rows)
    reasons = Counter(row["selected_because"] for row in rows)
    llm_session.output_notes.append(
        f"review export: {len(rows)} samples to {settings.review_export} ("
        + ", ".join(f"{reasons[k]} {k.replace('_', ' ')}" for k in ("failed", "error", "needs_review", "spot_check") if reasons[k])
        + ")"
    )
