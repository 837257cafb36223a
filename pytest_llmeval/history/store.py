"""The on-disk history: a directory of per-run files, each written once, atomically.

Layout (documented in ``docs/history.md``)::

    <history>/runs/<YYYYMMDDTHHMMSSffffffZ>-<run id>.json.gz   one run: metadata and result columns
    <history>/tables/<sha256[:20]>.json.gz                     sample rows (file, id, line, gold hash)

Two writers never touch the same run file (the name holds a fresh run id), and a table's name is
the hash of its content, so two writers of the same table write the same bytes: concurrent CI jobs
and xdist-free merges of two history directories (copy both trees) lose nothing. Every file is
written to a temp file beside it and renamed. Stdlib only.

A run's ``seq`` is one more than the highest ``seq`` already in the history: pruning orders runs by
it, never by the clock-derived file name, so a run file dated in the future cannot push new runs out.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_llmeval.fileio import file_mode, open_regular, read_regular_bytes

RUN_FORMAT = "pytest-llmeval-history-run"
TABLE_FORMAT = "pytest-llmeval-history-table"
VERSION = 1
RUNS = "runs"
TABLES = "tables"
# A history is untrusted input (committed, downloaded as a CI artifact): bound what one file may inflate to.
MAX_FILE_BYTES = 256 * 1024 * 1024
# One line of a run file: JSON outside its strings (brackets, commas, numbers) is what makes parsed
# objects, tens of bytes each; a real run has a few per model plus one per error reason.
MAX_RUN_LINE_BYTES = 64 * 1024 * 1024
MAX_RUN_SKELETON = 1024 * 1024
MAX_REPEAT = 10_000
MAX_SEQ = 2**53
MAX_RUN_FILES = 100_000
# A table nobody references is removed by pruning only when older than this: a writer that has
# written its table but not yet its run file must not lose the table to a concurrent prune.
TABLE_GRACE_S = 3600.0
STATUS_CHARS = {"pass": "P", "acceptable": "A", "fail": "F", "error": "E", "skipped": "S"}
NOT_RUN = "."
_STATUS = re.compile(r"[PAFES.]*")
_NUMBER = r"(?:\.|-?\d{1,20}(?:\.\d{1,12})?)"
_NUMBERS = re.compile(rf"{_NUMBER}(?: {_NUMBER})*")
_COUNTS = re.compile(r"(?:\.|\d{1,9})(?: (?:\.|\d{1,9}))*")
NUMBER_COLUMNS = {
    "score": _NUMBERS,
    "grader": _COUNTS,
    "tokens": _COUNTS,
    "latency_s": _NUMBERS,
    "cost_usd": _NUMBERS,
    "pass_count": _COUNTS,
}
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


class HistoryError(Exception):
    """A history file that cannot be used; the message is one line naming the file and the field."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with contextlib.suppress(
            AttributeError, OSError
        ):  # mkstemp's 0600 would hide it from a CI job of another user
            os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_table(root: Path, rows: list[list[Any]]) -> str:
    """Store the sample rows once (content-addressed) and return the table id runs refer to."""
    table = {"format": TABLE_FORMAT, "version": VERSION, "rows": rows}
    data = canonical(table)
    table_id = table_hash(data)
    path = root / TABLES / f"{table_id}.json.gz"
    try:
        intact = (
            _inflate(path) == data
        )  # a table is trusted by its name only when its content matches
    except HistoryError:
        intact = False
    if intact:
        with contextlib.suppress(
            OSError
        ):  # reused: fresh again, so a concurrent prune's grace period covers it
            os.utime(path)
    else:
        _atomic_write(path, gzip.compress(data, compresslevel=6, mtime=0))
    return table_id


def table_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


def next_seq(root: Path) -> int:
    """One more than the highest ``seq`` of the runs already written (unreadable ones count 0)."""
    highest = 0
    for path in (root / RUNS).glob("*.json.gz") if (root / RUNS).is_dir() else []:
        highest = max(highest, _seq_of(path))
    return min(highest + 1, MAX_SEQ)


def _seq_of(path: Path) -> int:
    try:
        data = _read_members(path, both=False)[0]
    except HistoryError:
        return 0
    return _seq(data.get("seq") if isinstance(data, dict) else None)


def _seq(value: Any) -> int:
    return value if _valid_seq(value) else 0


def _valid_seq(seq: Any) -> bool:
    return isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ


def run_file_name(finished: str, run_id: str) -> str:
    stamp = "".join(ch for ch in finished if ch.isdigit())[:20]
    return f"{stamp}Z-{run_id}.json.gz"


def write_run(
    root: Path, run: dict[str, Any], rows: list[list[Any]], *, seq: int | None = None
) -> Path:
    """Write the table, then the run file (in that order: a run never names a missing table).

    The run file is two JSON lines, each its own gzip member: the metadata with each model's
    ``status`` string, then the other columns. ``zcat`` shows both; pass rates, trends and flips
    decompress only the first (a few kB), which keeps ``history`` fast on long histories.
    ``seq`` defaults to :func:`next_seq`.
    """
    results = run.get("results") or {}
    head = {
        **run,
        "format": RUN_FORMAT,
        "version": VERSION,
        "table": write_table(root, rows),
        "seq": next_seq(root) if seq is None else seq,
        "results": {m: {"status": c["status"]} for m, c in results.items()},
    }
    details = {
        "details": {m: {k: v for k, v in c.items() if k != "status"} for m, c in results.items()}
    }
    path = root / RUNS / run_file_name(str(run["finished"]), str(run["run_id"]))
    _atomic_write(path, _gzip_line(head) + _gzip_line(details))
    return path


def _gzip_line(value: Any) -> bytes:
    return gzip.compress(canonical(value) + b"\n", compresslevel=6, mtime=0)


def _read_members(path: Path, *, both: bool) -> tuple[Any, Any]:
    """The first JSON line of a run file (and the second with ``both``), bounded in size."""
    import zlib

    try:
        raw = read_regular_bytes(path)
    except OSError as exc:
        raise HistoryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    out: list[Any] = []
    for member in range(2 if both else 1):
        inflate = zlib.decompressobj(wbits=31)  # one gzip member
        try:
            text = inflate.decompress(raw, MAX_RUN_LINE_BYTES + 1)
        except zlib.error as exc:
            raise HistoryError(f"{path}: cannot read: not gzip ({exc})") from None
        if len(text) > MAX_RUN_LINE_BYTES or inflate.unconsumed_tail:
            raise HistoryError(
                f"{path}: line {member + 1} inflates to more than {MAX_RUN_LINE_BYTES} bytes"
            )
        if not inflate.eof:
            raise HistoryError(f"{path}: cannot read: truncated gzip data")
        # a line within the bound cannot hold more than it: only a long line is scanned
        skeleton = len(_JSON_STRING.sub(b"", text)) if len(text) > MAX_RUN_SKELETON else 0
        if skeleton > MAX_RUN_SKELETON:
            raise HistoryError(
                f"{path}: line {member + 1} holds {skeleton} bytes of JSON outside its strings; "
                f"a run has at most {MAX_RUN_SKELETON}"
            )
        try:
            out.append(json.loads(text))
        except (ValueError, RecursionError) as exc:
            raise HistoryError(f"{path}: line {member + 1}: not JSON: {exc}") from None
        raw = inflate.unused_data
    return out[0], (out[1] if both else None)


def _inflate(path: Path) -> bytes:
    try:
        with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise HistoryError(f"{path}: cannot read: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise HistoryError(f"{path}: inflates to more than {MAX_FILE_BYTES} bytes")
    return data


def _read_table(path: Path, table_id: str) -> Any:
    data = _inflate(path)
    if table_hash(data) != table_id:
        raise HistoryError(
            f"{path}: content does not match its name (SHA-256 {table_hash(data)}...); "
            "the next run of these samples rewrites it"
        )
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise HistoryError(f"{path}: not JSON: {exc}") from None


@dataclass
class Run:
    """One recorded run: its metadata and, per model, its result columns (aligned with ``rows``)."""

    path: Path
    meta: dict[str, Any]
    rows: list[list[Any]]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(
        default_factory=list
    )  # the history's: a bad second line is one warning
    _details: dict[str, Any] | None = None

    @property
    def run_id(self) -> str:
        return str(self.meta["run_id"])

    @property
    def finished(self) -> str:
        return str(self.meta["finished"])

    @property
    def commit(self) -> str | None:
        git = self.meta.get("git") or {}
        return git.get("commit") if isinstance(git, dict) else None

    @property
    def seq(self) -> int:
        return _seq(self.meta.get("seq"))

    @property
    def complete(self) -> bool:
        return bool(self.meta.get("complete"))

    def status(self, model: str) -> str:
        return str(self.results[model]["status"])

    def details(self, model: str) -> dict[str, Any]:
        """The model's other columns (the run file's second line, read on first use)."""
        if self._details is None:
            self._details = {}
            try:
                _, data = _read_members(self.path, both=True)
                found = data.get("details") if isinstance(data, dict) else None
                if not isinstance(found, dict):
                    raise HistoryError(
                        f"{self.path}: line 2: field 'details' missing or not an object"
                    )
                _check_columns(
                    self.path, _check_results(self.path, found, len(self.rows), detail=True)
                )
                self._details = found
            except HistoryError as exc:
                self.warnings.append(f"columns left out: {exc}")
        found = self._details.get(model)
        return found if isinstance(found, dict) else {}

    def column(self, model: str, name: str) -> list[str]:
        """A space-separated column split into its values (``.`` where a sample has none)."""
        text = self.details(model).get(name)
        return text.split(" ") if isinstance(text, str) and text else [NOT_RUN] * len(self.rows)

    def reasons(self, model: str) -> dict[str, str]:
        found = self.details(model).get("reasons")
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _check_run(path: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        raise HistoryError(
            f"{path}: not a pytest-llmeval history run (field 'format' is not {RUN_FORMAT!r})"
        )
    if data.get("version") != VERSION:
        raise HistoryError(
            f"{path}: field 'version' is {data.get('version')!r}; this plugin reads version {VERSION}"
        )
    for name, kind in (("run_id", str), ("finished", str), ("table", str), ("results", dict)):
        if not isinstance(data.get(name), kind):
            raise HistoryError(f"{path}: field {name!r} missing or not a {kind.__name__}")
    if not all(ch.isalnum() for ch in data["table"]):
        raise HistoryError(f"{path}: field 'table' is not a table id")
    for name in ("git", "settings", "identity", "budget", "totals"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise HistoryError(f"{path}: field {name!r} must be an object or null")
    if not isinstance(data.get("complete"), bool):
        raise HistoryError(f"{path}: field 'complete' missing or not true/false")
    for name in ("started", "incomplete_reason"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise HistoryError(f"{path}: field {name!r} must be a string or null")
    for name in ("commit", "branch"):
        value = (data.get("git") or {}).get(name)
        if value is not None and not isinstance(value, str):
            raise HistoryError(f"{path}: field 'git.{name}' must be a string or null")
    repeat = (data.get("settings") or {}).get("repeat")
    if repeat is not None and not (
        isinstance(repeat, int) and not isinstance(repeat, bool) and 1 <= repeat <= MAX_REPEAT
    ):
        raise HistoryError(
            f"{path}: field 'settings.repeat' is not a whole number from 1 to {MAX_REPEAT}"
        )
    if "seq" in data and not _valid_seq(data["seq"]):
        raise HistoryError(f"{path}: field 'seq' is not a whole number from 0 to {MAX_SEQ}")
    return data


def _check_table(path: Path, data: Any) -> list[list[Any]]:
    if (
        not isinstance(data, dict)
        or data.get("format") != TABLE_FORMAT
        or not isinstance(data.get("rows"), list)
    ):
        raise HistoryError(f"{path}: not a pytest-llmeval history table (fields 'format', 'rows')")
    for index, row in enumerate(data["rows"]):
        if not (
            isinstance(row, list)
            and len(row) == 4
            and isinstance(row[0], str)
            and isinstance(row[1], str)
        ):
            raise HistoryError(f"{path}: rows[{index}] is not [file, id, line, gold hash]")
    return list(data["rows"])


def _check_results(
    path: Path, results: dict[str, Any], length: int, *, detail: bool = False
) -> dict[str, dict[str, Any]]:
    where = "line 2: field 'details" if detail else "field 'results"
    for model, columns in results.items():
        if not isinstance(columns, dict):
            raise HistoryError(f"{path}: {where}.{model}' is not an object")
        status = columns.get("status")
        if not detail and (
            not isinstance(status, str) or len(status) != length or not _STATUS.fullmatch(status)
        ):
            raise HistoryError(
                f"{path}: {where}.{model}.status' is not a string of {length} status letters (P A F E S .)"
            )
        for name, text in columns.items():
            if (
                name != "status"
                and isinstance(text, str)
                and text
                and text.count(" ") + 1 != length
            ):
                raise HistoryError(f"{path}: {where}.{model}.{name}' does not hold {length} values")
    return results


def _check_columns(path: Path, details: dict[str, dict[str, Any]]) -> None:
    """The number columns hold numbers (or ``.``), the reasons are text."""
    for model, columns in details.items():
        for name, pattern in NUMBER_COLUMNS.items():
            text = columns.get(name)
            if text is not None and not (
                isinstance(text, str) and (not text or pattern.fullmatch(text))
            ):
                raise HistoryError(
                    f"{path}: line 2: field 'details.{model}.{name}' holds a value that is not a number"
                )
        reasons = columns.get("reasons")
        if reasons is not None and not (
            isinstance(reasons, dict) and all(isinstance(v, str) for v in reasons.values())
        ):
            raise HistoryError(
                f"{path}: line 2: field 'details.{model}.reasons' is not an object of texts"
            )


class History:
    """The runs of a history directory, oldest first; unusable files become warnings, not a crash."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.runs: list[Run] = []
        self.warnings: list[str] = []
        self._tables: dict[str, list[list[Any]] | None] = {}

    @classmethod
    def load(cls, root: Path) -> History:
        history = cls(root)
        if not root.is_dir():
            raise HistoryError(f"{root}: no history directory here")
        paths = sorted((root / RUNS).glob("*.json.gz")) if (root / RUNS).is_dir() else []
        if len(paths) > MAX_RUN_FILES:
            history.warnings.append(
                f"{root}: {len(paths)} run files; reading the newest {MAX_RUN_FILES}"
            )
            paths = paths[-MAX_RUN_FILES:]
        for path in paths:
            try:
                history.runs.append(history._load_run(path))
            except HistoryError as exc:
                history.warnings.append(f"skipped: {exc}")
        history.runs.sort(key=lambda r: (r.finished, r.run_id))
        return history

    def _table(self, table_id: str, run_path: Path) -> list[list[Any]]:
        if table_id not in self._tables:
            path = self.root / TABLES / f"{table_id}.json.gz"
            try:
                self._tables[table_id] = _check_table(path, _read_table(path, table_id))
            except HistoryError:
                self._tables[table_id] = None
                raise
        rows = self._tables[table_id]
        if rows is None:
            raise HistoryError(
                f"{run_path}: its table {table_id} is unusable (see the warning above)"
            )
        return rows

    def _load_run(self, path: Path) -> Run:
        meta = _check_run(path, _read_members(path, both=False)[0])
        rows = self._table(meta["table"], path)
        results = _check_results(path, meta.pop("results"), len(rows))
        return Run(path, meta, rows, results, self.warnings)

    def models(self) -> list[str]:
        """Every model recorded, in the order first seen."""
        return list(dict.fromkeys(m for run in self.runs for m in run.results))


def prune(root: Path, keep: int, current: Path | None = None) -> int:
    """``-o llm_history_keep=N``: delete all but the newest ``keep`` run files, newest by ``seq``
    (then name), never ``current``; then tables that no remaining run names (and that are older
    than :data:`TABLE_GRACE_S`). Returns runs deleted."""
    heads: dict[Path, Any] = {}
    for path in (root / RUNS).glob("*.json.gz"):
        try:
            heads[path] = _read_members(path, both=False)[0]
        except HistoryError:
            heads[path] = None

    def order(path: Path) -> tuple[bool, int, str]:
        return (
            path == current,
            _seq(heads[path].get("seq") if isinstance(heads[path], dict) else None),
            path.name,
        )

    runs = sorted(heads, key=order)
    doomed = runs[: max(0, len(runs) - max(keep, 1))]
    for path in doomed:
        with contextlib.suppress(OSError):
            path.unlink()
    referenced: set[str] = set()
    for path in runs[len(doomed) :]:
        data = heads[path]
        if isinstance(data, dict) and isinstance(data.get("table"), str):
            referenced.add(data["table"])
    now = time.time()
    for table in (root / TABLES).glob("*.json.gz") if (root / TABLES).is_dir() else []:
        if table.name.removesuffix(".json.gz") in referenced:
            continue
        with contextlib.suppress(OSError):
            if now - table.stat().st_mtime > TABLE_GRACE_S:
                table.unlink()
    return len(doomed)
