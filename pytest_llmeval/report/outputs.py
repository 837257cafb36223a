"""End-of-run files on the controller: the JSON and HTML reports, the history, the review export.

Written once the run is frozen into its :class:`~pytest_llmeval.records.run.RunRecord` (also after
Ctrl-C, then the reports say incomplete). Each output is imported only when its option is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_llmeval.labels import LabelMatch
    from pytest_llmeval.options import Settings
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.report.review import HumanVerdict


@dataclass
class OutputLog:
    """What writing the outputs said: lines for the summary, warnings, outputs that failed."""

    notes: list[str] = field(default_factory=list)  # files written
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # outputs not written (the exit status says so)


def human_agreement_of(
    records: Sequence[SampleRecord],
    settings: Settings,
    label_match: LabelMatch | None,
    review: tuple[dict[str, HumanVerdict], list[str]] | None,
) -> tuple[dict[str, Any] | None, list[str]]:
    """(agreement section, warnings) from ``--llm-review-import`` (``review``: its verdicts and
    warnings), the labels that applied and gold ``human_label`` fields; None without any of them."""
    labelled = label_match is not None and bool(label_match.applied)
    if not settings.review_import and not labelled and not any(r.human_label for r in records):
        return None, []
    from pytest_llmeval.report.review import HumanVerdict, human_agreement, review_id

    imported: dict[str, Any] = {}
    if labelled:
        # labels-file labels count for agreement whatever their selection (a review import's rows win)
        by_node = {r.nodeid: r for r in records}
        for nodeid, label in label_match.applied.items():  # type: ignore[union-attr]
            if label.origin == "labels" and nodeid in by_node:
                imported[review_id(by_node[nodeid])] = HumanVerdict(
                    "pass" if label.correct else "fail", "", label.source
                )
    warnings: list[str] = []
    if settings.review_import and review is not None:
        verdicts, review_warnings = review
        imported.update(verdicts)
        warnings.extend(review_warnings)
    section, agreement_warnings = human_agreement(list(records), imported, settings.review_import)
    return section, [*warnings, *agreement_warnings]


# (flag, Settings attribute) of every file the run writes at its end
OUTPUTS = (
    ("--llm-report", "report"),
    ("--llm-html", "html"),
    ("--llm-review-export", "review_export"),
)


def check_output_paths(settings: Settings, invocation_dir: Path) -> None:
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

    for flag, name in (
        *OUTPUTS,
        ("--llm-review-import", "review_import"),
        ("--llm-labels", "labels"),
    ):
        value = getattr(settings, name, None)
        if not value:
            continue
        path = Path(value) if Path(value).is_absolute() else invocation_dir / value
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


def write_outputs(run: RunRecord, *, exitstatus: int) -> OutputLog:
    """Each output on its own: one that cannot be written (a full disk) is named in the log's
    ``errors``, leaves no stale file behind, and stops none of the others."""
    settings = run.settings
    log = OutputLog()
    if settings.history:
        from pytest_llmeval.history import record_run

        note, warning = record_run(run, exitstatus=exitstatus)
        log.notes.extend([note] if note else [])
        log.warnings.extend([warning] if warning else [])
    if settings.review_export:
        _write_one(
            run,
            log,
            "--llm-review-export",
            settings.review_export,
            lambda: _export_for_review(run, log),
        )
    if settings.report or settings.html:
        from pytest_llmeval.fileio import scrub_surrogates
        from pytest_llmeval.redact import clean_for_output
        from pytest_llmeval.report.json_report import build_report, write_report

        # No API key, bearer token, NaN or lone surrogate reaches a file, whatever a server or grader produced.
        built = build_report(run, log.warnings)
        if settings.history:
            from pytest_llmeval.history import history_dir
            from pytest_llmeval.history.view import attach

            attach(
                built, history_dir(settings, run.invocation_dir), alpha=settings.alpha
            )  # this run included: written above
        report = scrub_surrogates(clean_for_output(built))
        del built  # a large run holds one copy of its report, not two
        if settings.report:
            path = run.path(settings.report)
            _write_one(
                run, log, "--llm-report", settings.report, lambda: write_report(path, report)
            )
        if settings.html:
            from pytest_llmeval.report.html import write_html

            html_path = run.path(settings.html)
            _write_one(run, log, "--llm-html", settings.html, lambda: write_html(html_path, report))
    return log


def _write_one(
    run: RunRecord, log: OutputLog, flag: str, value: str, write: Callable[[], None]
) -> None:
    from pytest_llmeval.fileio import describe_os_error

    try:
        write()
    except (OSError, UnicodeError) as exc:
        why = describe_os_error(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        path = run.path(value)
        removed = ""
        try:
            if path.is_file():
                path.unlink()  # an earlier run's file must not pass for this run's
                removed = "; the earlier file there was removed"
        except OSError:
            removed = "; an earlier file there could not be removed and is NOT this run's"
        log.errors.append(f"llmeval: {flag}={value} not written: {why}{removed}")


def _export_for_review(run: RunRecord, log: OutputLog) -> None:
    from pytest_llmeval.report.review import export_rows, read_verdicts, write_export

    settings = run.settings
    assert settings.review_export is not None, "only a run with --llm-review-export exports"
    path = run.path(settings.review_export)
    # People's work is never overwritten: a rerun with the same (ini) export path would
    # otherwise replace a filled-in file with empty verdicts.
    if path.exists() and read_verdicts(path)[0]:
        log.warnings.append(
            f"review export {settings.review_export} not written: it already holds human verdicts "
            "(import it with --llm-review-import, or move it away)"
        )
        return
    from pytest_llmeval.redact import clean_for_output

    rows = clean_for_output(
        export_rows(run.records, settings.review_fraction, settings.review_seed)
    )
    write_export(path, rows)
    reasons = Counter(row["selected_because"] for row in rows)
    names = {
        "random": f"random spot check (seed {settings.review_seed!r})",
        "needs_review": "needs review",
    }
    log.notes.append(
        f"review export: {len(rows)} samples to {settings.review_export} ("
        + ", ".join(
            f"{reasons[k]} {names.get(k, k)}"
            for k in ("random", "failed", "error", "needs_review")
            if reasons[k]
        )
        + ")"
    )
