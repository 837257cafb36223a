"""Human review: export a share of the run for people to judge, read their verdicts back,
and measure how often the plugin agrees with them (agreement, Cohen's kappa, the 2x2 table).

The export holds a random spot check of the graded samples (``selected_because`` ``random``: a share
of ALL graded samples, whatever their verdict, so people's verdicts on it can correct the pass rate)
and every failed, errored or ``needs_review`` sample the draw left out. The draw ranks samples by the
SHA-256 of seed + sample id, never by a generator over the run's order, so the same seed picks the
same samples on a rerun and under pytest-xdist (whose workers finish in any order); the seed is in
each row.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXPORT_COLUMNS = (
    "id",
    "file",
    "sample_id",
    "selected_because",
    "seed",
    "question",
    "expected",
    "response",
    "response_sha256",
    "tier",
    "score",
    "grader",
    "reason",
    "human_verdict",
    "human_note",
)
# ``selected_because`` of the random spot check: the only rows whose verdicts correct the pass rate.
RANDOM = "random"
VERDICTS = ("pass", "fail")
# What people type in a spreadsheet for the two verdicts (case-insensitive).
VERDICT_WORDS = {
    **dict.fromkeys(("pass", "p", "yes", "y", "1", "true", "correct", "ok"), "pass"),
    **dict.fromkeys(("fail", "f", "no", "n", "0", "false", "incorrect", "wrong"), "fail"),
}
# Tiers whose test passes; the plugin's binary verdict compared with a person's pass/fail.
PLUGIN_PASS_TIERS = ("pass", "acceptable")
VERDICT_RULE = (
    "plugin verdict pass = tier pass or acceptable (the test passed); errors are not compared"
)
# Spreadsheet programs run a cell that starts with one of these as a formula (CSV injection);
# responses are untrusted, so such free-text cells get a leading apostrophe in the CSV export.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FREE_TEXT = ("question", "expected", "response", "reason", "human_note")
# Ids come from gold files (untrusted too): "=HYPERLINK(...)" as a sample id is defused the same
# way, and the apostrophe is taken off again when the filled-in file is imported.
_ID_COLUMNS = ("id", "file", "sample_id")
# Columns an import reads; a file without ``human_verdict`` is named with these.
IMPORT_COLUMNS = (
    "'id' (or 'file' and 'sample_id'), 'human_verdict' (pass/fail) and optionally 'human_note'"
)
# Unknown ids listed one by one before the rest are counted in one line.
UNKNOWN_IDS_LISTED = 5
# Bounds on an imported review file (untrusted text): bytes read and rows taken.
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_IMPORT_ROWS = 1_000_000


def review_id(record: Mapping[str, Any]) -> str:
    """The id of a sample in review files: ``file::sample_id`` (unique in a run)."""
    return f"{record.get('file')}::{record.get('sample_id')}"


def _rank(seed: str, sample_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{sample_id}".encode()).hexdigest()


def select_for_review(
    records: Iterable[Mapping[str, Any]], fraction: float, seed: str
) -> list[tuple[str, Mapping[str, Any]]]:
    """(reason, record) pairs to review, in file order.

    The random spot check: of ALL graded samples (pass, acceptable, fail), the ``round(fraction * n)``
    whose hash of seed + id ranks lowest, whatever their verdict, so the count is exact and the choice
    independent of verdicts and of the order records arrived in. Then every failed, errored and
    needs-review sample the draw left out.
    """
    gold = [
        r
        for r in records
        if r.get("kind") == "gold" and r.get("status") in ("pass", "acceptable", "fail", "error")
    ]
    graded = sorted(
        (r for r in gold if r["status"] != "error"), key=lambda r: _rank(seed, review_id(r))
    )
    share = math.floor(fraction * len(graded) + 0.5)
    drawn = {id(r) for r in graded[:share]}
    chosen: list[tuple[str, Mapping[str, Any]]] = [(RANDOM, r) for r in graded[:share]]
    for record in gold:
        if id(record) in drawn:
            continue
        if record["status"] in ("fail", "error"):
            chosen.append(("failed" if record["status"] == "fail" else "error", record))
        elif record.get("needs_review"):
            chosen.append(("needs_review", record))
    chosen.sort(
        key=lambda pair: (
            str(pair[1].get("file")),
            int(pair[1].get("line") or 0),
            str(pair[1].get("sample_id")),
        )
    )
    return chosen


def export_rows(
    records: Iterable[Mapping[str, Any]], fraction: float, seed: str
) -> list[dict[str, Any]]:
    rows = []
    for because, record in select_for_review(records, fraction, seed):
        score = (record.get("scores") or {}).get("overall")
        rows.append(
            {
                "id": review_id(record),
                "file": record.get("file") or "",
                "sample_id": record.get("sample_id") or "",
                "selected_because": because,
                "seed": seed,
                "question": record.get("question") or "",
                "expected": _expected_text(record.get("expected")),
                "response": record.get("predicted") or "",
                "response_sha256": record.get("answer_sha256") or "",
                "tier": record.get("status"),
                "score": "" if score is None else round(float(score), 4),
                "grader": record.get("accuracy_grader") or "",
                "reason": record.get("reason") or "",
                "human_verdict": "",
                "human_note": "",
            }
        )
    return rows


def _csv_cell(column: str, value: Any) -> Any:
    if (
        column in (*_FREE_TEXT, *_ID_COLUMNS)
        and isinstance(value, str)
        and value.startswith(_FORMULA_START)
    ):
        return "'" + value
    return value


def _id_cell(value: Any) -> str:
    """An id cell as exported: without the apostrophe that defused a formula."""
    text = str(value or "").strip()
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA_START) else text


def write_export(path: Path, rows: list[dict[str, Any]]) -> None:
    """CSV or JSONL by the path's extension, written atomically (temp file + ``os.replace``)."""
    import io

    from pytest_llmeval.fileio import write_atomic

    handle = io.StringIO(newline="")
    if path.suffix.lower() == ".csv":
        writer = csv.DictWriter(handle, fieldnames=EXPORT_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(k, v) for k, v in row.items()})
    else:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    write_atomic(path, handle.getvalue(), newline="")


@dataclass(frozen=True)
class HumanVerdict:
    verdict: str  # pass | fail
    note: str
    source: str  # "path row N" or "gold label"
    selected_because: str = ""  # the export's reason; "random" rows may correct the pass rate
    answer_sha256: str | None = None  # the answer judged (its SHA-256), when the row names it


def _answer_sha256(row: dict[str, Any]) -> str | None:
    """The hash of the answer a review row shows: its ``response_sha256`` cell, else its response text
    (without the apostrophe that defused a formula in the CSV)."""
    digest = str(row.get("response_sha256") or "").strip().lower()
    if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
        return digest
    response = row.get("response")
    if not isinstance(response, str) or not response:
        return None
    from pytest_llmeval.labels import answer_hash

    if response.startswith("'") and response[1:].startswith(_FORMULA_START):
        response = response[1:]
    return answer_hash(response)


def read_verdicts(path: Path) -> tuple[dict[str, HumanVerdict], list[str]]:
    """Verdicts by review id from a filled-in export, and one warning per unusable row.

    Rows with an empty ``human_verdict`` were not reviewed and are skipped silently.
    """
    from pytest_llmeval.fileio import read_regular_text

    warnings: list[str] = []
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            return {}, [
                f"review import {path}: {size} bytes is over the {MAX_IMPORT_BYTES} byte limit; not read"
            ]
        text = read_regular_text(path, "utf-8-sig")  # a FIFO would block for ever
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"review import {path}: cannot read it: {exc}"]
    rows: list[tuple[int, Any]] = []
    if path.suffix.lower() == ".csv":
        try:
            reader = csv.DictReader(text.splitlines())
            # Row numbers as a spreadsheet shows them: the header is row 1.
            rows = [
                (index + 2, row)
                for index, row in enumerate(itertools.islice(reader, MAX_IMPORT_ROWS))
            ]
        except csv.Error as exc:
            return {}, [f"review import {path}: not a readable CSV file: {exc}"]
        columns = set(reader.fieldnames or ())
        if (
            reader.fieldnames is not None
            and "id" not in columns
            and not {"file", "sample_id"} <= columns
        ):
            return {}, [
                f"review import {path}: no 'id' column (nor 'file' and 'sample_id'; columns: {', '.join(reader.fieldnames)})"
            ]
    else:
        rows, warnings = _jsonl_rows(path, text)
    verdicts: dict[str, HumanVerdict] = {}
    where = "row" if path.suffix.lower() == ".csv" else "line"
    missing = _no_verdict_column(path, rows)
    if missing:
        return {}, [*warnings, missing]
    for number, row in rows:
        if not isinstance(row, dict):
            warnings.append(f"review import {path} {where} {number}: not an object; skipped")
            continue
        raw = str(row.get("human_verdict") or "").strip().lower()
        if not raw:
            continue
        row_id = _id_cell(row.get("id"))
        if not row_id and row.get("file") and row.get("sample_id"):
            row_id = f"{_id_cell(row['file'])}::{_id_cell(row['sample_id'])}"
        verdict = VERDICT_WORDS.get(raw)
        if verdict is None:
            warnings.append(
                f"review import {path} {where} {number} (id {row_id!r}): human_verdict {raw[:40]!r} is not pass or fail; skipped"
            )
            continue
        if not row_id:
            warnings.append(f"review import {path} {where} {number}: no id; skipped")
            continue
        verdicts[row_id] = HumanVerdict(
            verdict,
            str(row.get("human_note") or "").strip(),
            f"{path.name} {where} {number}",
            selected_because=str(row.get("selected_because") or "").strip(),
            answer_sha256=_answer_sha256(row),
        )
    return verdicts, warnings


def _jsonl_rows(path: Path, text: str) -> tuple[list[tuple[int, Any]], list[str]]:
    """(line number, parsed row) of a JSONL export, and one warning per line that is not JSON."""
    from pytest_llmeval.bounded_json import parse_line

    rows: list[tuple[int, Any]] = []
    warnings: list[str] = []
    # JSONL lines end at "\n" only: U+2028 inside a note is text
    for number, line in enumerate(text.split("\n")[:MAX_IMPORT_ROWS], start=1):
        if not line.strip():
            continue
        row, problem = parse_line(line)
        if problem is None:
            rows.append((number, row))
        else:
            warnings.append(f"review import {path} line {number}: not JSON: {problem}; skipped")
    return rows, warnings


def _no_verdict_column(path: Path, rows: list[tuple[int, Any]]) -> str | None:
    """A warning when no row has a ``human_verdict`` column (a ``verdict`` column is not read)."""
    columns: dict[str, None] = {}
    for _, row in rows:
        if isinstance(row, dict):
            if "human_verdict" in row:
                return None
            columns.update(dict.fromkeys(str(k) for k in row if len(columns) < 50))
    if not columns:
        return None
    shown = ", ".join(repr(c[:40]) for c in list(columns)[:20])
    return f"review import {path}: no 'human_verdict' column, so no verdict was read (columns: {shown}); expected {IMPORT_COLUMNS}"


def gold_labels(records: Iterable[Mapping[str, Any]]) -> dict[str, HumanVerdict]:
    """``human_label`` fields of gold samples, by review id."""
    return {
        review_id(r): HumanVerdict(str(r["human_label"]), "", "gold human_label")
        for r in records
        if r.get("kind") == "gold" and r.get("human_label") in VERDICTS
    }


def cohen_kappa(table: dict[str, dict[str, int]]) -> float | None:
    """Cohen's kappa of a 2x2 table ``{plugin_x: {human_y: n}}``; None when chance agreement is 1."""
    a = table["plugin_pass"]["human_pass"]
    b = table["plugin_pass"]["human_fail"]
    c = table["plugin_fail"]["human_pass"]
    d = table["plugin_fail"]["human_fail"]
    n = a + b + c + d
    if n == 0:
        return None
    observed = (a + d) / n
    expected = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def _summary(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    table = {f"plugin_{p}": {f"human_{h}": 0 for h in VERDICTS} for p in VERDICTS}
    for plugin, human in pairs:
        table[f"plugin_{plugin}"][f"human_{human}"] += 1
    n = len(pairs)
    agree = sum(1 for plugin, human in pairs if plugin == human)
    kappa = cohen_kappa(table)
    return {
        "n": n,
        "agree": agree,
        "agreement": agree / n if n else None,
        "kappa": None if kappa is None else round(kappa, 6),
        "table": table,
    }


def human_agreement(
    records: list[Mapping[str, Any]],
    imported: dict[str, HumanVerdict],
    import_path: str | None = None,
) -> tuple[dict[str, Any] | None, list[str]]:
    """Agreement of the plugin's verdicts with people's, overall and per accuracy grader.

    Imported verdicts win over a gold file's ``human_label`` for the same sample. Returns the
    report section (None when nobody gave a verdict) and a warning per imported id the run
    does not have.
    """
    by_id = {review_id(r): r for r in records if r.get("kind") == "gold"}
    labels = {**gold_labels(records), **imported}
    unknown = [(row_id, verdict) for row_id, verdict in imported.items() if row_id not in by_id]
    warnings = [
        f"review import {verdict.source}: id {row_id[:200]!r} matches no sample of this run; skipped"
        for row_id, verdict in unknown[:UNKNOWN_IDS_LISTED]
    ]
    if len(unknown) > UNKNOWN_IDS_LISTED:
        warnings.append(
            f"review import {import_path}: {len(unknown) - UNKNOWN_IDS_LISTED} more ids match no sample of this run "
            f"({len(unknown)} in all, {sum(1 for k in imported if k in by_id)} matched); skipped"
        )
    if not labels:
        return None, warnings
    pairs: list[tuple[str, str]] = []
    by_grader: dict[str, list[tuple[str, str]]] = {}
    disagreements: list[dict[str, Any]] = []
    not_compared = 0
    for row_id in sorted(labels):
        record = by_id.get(row_id)
        if record is None:
            continue
        if record.get("status") not in ("pass", "acceptable", "fail"):
            not_compared += 1
            continue
        human = labels[row_id]
        plugin = "pass" if record["status"] in PLUGIN_PASS_TIERS else "fail"
        grader = str(record.get("accuracy_grader") or "-")
        pairs.append((plugin, human.verdict))
        by_grader.setdefault(grader, []).append((plugin, human.verdict))
        if plugin != human.verdict:
            disagreements.append(
                {
                    "id": row_id,
                    "plugin": plugin,
                    "human": human.verdict,
                    "tier": record["status"],
                    "score": (record.get("scores") or {}).get("overall"),
                    "grader": grader,
                    "reason": record.get("reason") or "",
                    "human_note": human.note,
                    "source": human.source,
                }
            )
    section = {
        "verdict_rule": VERDICT_RULE,
        "sources": {
            "import": import_path,
            "imported_verdicts": sum(1 for k in imported if k in by_id),
            "gold_labels": len(gold_labels(records)),
        },
        "not_compared": not_compared,
        "overall": _summary(pairs),
        "by_grader": {name: _summary(p) for name, p in sorted(by_grader.items())},
        "disagreements": disagreements,
    }
    return section, warnings


def agreement_lines(section: dict[str, Any], *, limit: int) -> list[str]:
    """Summary lines for the terminal."""

    def fmt(summary: dict[str, Any]) -> str:
        kappa = "-" if summary["kappa"] is None else f"{summary['kappa']:.3f}"
        rate = "-" if summary["agreement"] is None else f"{summary['agreement']:.1%}"
        t = summary["table"]
        return (
            f"{summary['agree']}/{summary['n']} agree ({rate}), Cohen's kappa {kappa} | "
            f"plugin pass: human pass {t['plugin_pass']['human_pass']} fail {t['plugin_pass']['human_fail']}; "
            f"plugin fail: human pass {t['plugin_fail']['human_pass']} fail {t['plugin_fail']['human_fail']}"
        )

    lines = [f"human agreement: {fmt(section['overall'])}"]
    for name, summary in section["by_grader"].items():
        lines.append(f"  {name}: {fmt(summary)}")
    disagreements = section["disagreements"]
    if disagreements:
        lines.append(f"disagreements with people ({len(disagreements)}, up to {limit} shown):")
        for item in disagreements[:limit]:
            note = f"  note: {item['human_note']}" if item["human_note"] else ""
            lines.append(
                f"  plugin {item['plugin']} / human {item['human']}  {item['id']}  ({item['grader']}){note}"
            )
    return lines


def _expected_text(expected: object) -> str:
    """Several acceptable answers are shown to the reviewer as one cell: "a | b | c"."""
    if isinstance(expected, list):
        return " | ".join(str(e) for e in expected)
    return "" if expected is None else str(expected)
