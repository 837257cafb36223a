"""End-of-run files on the controller: human agreement, the JSON and HTML reports, the review export.

Called once from ``LLMEvalSession.finish`` (also after Ctrl-C, then the reports say incomplete).
Each output is imported only when its option is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
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
    labelled = llm_session.label_match is not None and bool(llm_session.label_match.applied)
    if not settings.review_import and not labelled and not any(r.get("human_label") for r in records):
        return None
    from pytest_llmeval.report.review import HumanVerdict, human_agreement, review_id

    imported: dict[str, Any] = {}
    if labelled:
        # labels-file labels count for agreement whatever their selection (a review import's rows win)
        by_node = {r["nodeid"]: r for r in records}
        for nodeid, label in llm_session.label_match.applied.items():  # type: ignore[union-attr]
            if label.origin == "labels" and nodeid in by_node:
                imported[review_id(by_node[nodeid])] = HumanVerdict("pass" if label.correct else "fail", "", label.source)
    if settings.review_import:
        verdicts, warnings = llm_session.review_verdicts()
        imported.update(verdicts)
        llm_session.warnings.extend(warnings)
    section, warnings = human_agreement(records, imported, settings.review_import)
    llm_session.warnings.extend(warnings)
    return section


# (flag, Settings attribute) of every file the run writes at its end
OUTPUTS = (("--llm-report", "report"), ("--llm-html", "html"), ("--llm-review-export", "review_export"))


def check_output_paths(llm_session: LLMEvalSession) -> None:
    """Before anything runs (controller only): each output's folder takes a file, no output path
    is a folder or a FIFO, and ``--llm-review-import`` is a regular file. A ``pytest.UsageError``
    naming the flag otherwise, not a traceback after the paid calls."""
    import pytest

    from pytest_llmeval.fileio import (
        NotRegularFileError,
        check_regular,
        describe_os_error,
        probe_dir,
    )

    settings = llm_session.settings
    for flag, name in (*OUTPUTS, ("--llm-review-import", "review_import"), ("--llm-labels", "labels")):
        value = getattr(settings, name, None)
        if not value:
            continue
        path = _path(llm_session, value)
        try:
            reads = name in ("review_import", "labels")
            check_regular(path, "read" if reads else "written")
            if name == "labels" and not path.is_file():
                raise pytest.UsageError(f"{flag}={value}: no such file")
            if not reads:
                probe_dir(path.parent)
        except NotRegularFileError as exc:
            raise pytest.UsageError(f"{flag}={value}: {exc}") from None
        except OSError as exc:
            raise pytest.UsageError(
                f"{flag}={value}: cannot write in {path.parent}: {describe_os_error(exc)}"
            ) from None


def write_outputs(llm_session: LLMEvalSession, *, incomplete: bool) -> None:
    """Each output on its own: one that cannot be written (a full disk) is named in
    ``llm_session.output_errors``, leaves no stale file behind, and stops none of the others."""
    settings = llm_session.settings
    llm_session.human_agreement = compute_human_agreement(llm_session)
    if settings.history:
        from pytest_llmeval.history import record_run

        record_run(llm_session)
    if settings.review_export:
        _write_one(llm_session, "--llm-review-export", settings.review_export, lambda: _export_for_review(llm_session))
    if settings.report or settings.html:
        from pytest_llmeval.fileio import scrub_surrogates
        from pytest_llmeval.redact import clean_for_output
        from pytest_llmeval.report.json_report import build_report, write_report

        # No API key, bearer token, NaN or lone surrogate reaches a file, whatever a server or grader produced.
        built = build_report(llm_session, incomplete=incomplete)
        if settings.history:
            from pytest_llmeval.history import history_dir
            from pytest_llmeval.history.view import attach

            attach(built, history_dir(llm_session), alpha=settings.alpha)  # this run included: written above
        report = scrub_surrogates(clean_for_output(built))
        del built  # a large run holds one copy of its report, not two
        if settings.report:
            path = _path(llm_session, settings.report)
            _write_one(llm_session, "--llm-report", settings.report, lambda: write_report(path, report))
        if settings.html:
            from pytest_llmeval.report.html import write_html

            html_path = _path(llm_session, settings.html)
            _write_one(llm_session, "--llm-html", settings.html, lambda: write_html(html_path, report))


def _write_one(llm_session: LLMEvalSession, flag: str, value: str, write: Callable[[], None]) -> None:
    from pytest_llmeval.fileio import describe_os_error

    try:
        write()
    except (OSError, UnicodeError) as exc:
        why = describe_os_error(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        path = _path(llm_session, value)
        removed = ""
        try:
            if path.is_file():
                path.unlink()  # an earlier run's file must not pass for this run's
                removed = "; the earlier file there was removed"
        except OSError:
            removed = "; an earlier file there could not be removed and is NOT this run's"
        llm_session.output_errors.append(f"llmeval: {flag}={value} not written: {why}{removed}")


def _export_for_review(llm_session: LLMEvalSession) -> None:
    from pytest_llmeval.report.review import export_rows, read_verdicts, write_export

    settings = llm_session.settings
    assert settings.review_export is not None, "only a run with --llm-review-export exports"
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
    names = {"random": f"random spot check (seed {settings.review_seed!r})", "needs_review": "needs review"}
    llm_session.output_notes.append(
        f"review export: {len(rows)} samples to {settings.review_export} ("
        + ", ".join(f"{reasons[k]} {names.get(k, k)}" for k in ("random", "failed", "error", "needs_review") if reasons[k])
        + ")"
    )
