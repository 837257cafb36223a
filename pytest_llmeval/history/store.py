"""The on-disk history: a directory of per-run files, each written once, atomically.

Layout (documented in ``docs/history.md``)::

    <history>/runs/<YYYYMMDDTHHMMSSffffffZ>-<run id>.json.gz   one run: metadata and result columns
    <history>/tables/<sha256[:20]>.json.gz                     sample rows (file, id, line, gold hash)

Two writers never touch the same run file (the name holds a fresh run id), and a table's name is
the hash of its content, so two writers of the same table write the same bytes: concurrent CI jobs
and xdist-free merges of two history directories (copy both trees) lose nothing. Every file is
written to a temp file beside it and renamed. Stdlib only.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_llmeval.fileio import open_regular, read_regular_bytes

RUN_FORMAT = "pytest-llmeval-history-run"
TABLE_FORMAT = "pytest-llmeval-history-table"
VERSION = 1
RUNS = "runs"
TABLES = "tables"
# A history is untrusted input (committed, downloaded as a CI artifact): bound what one file may inflate to.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_RUN_FILES = 100_000
# A table nobody references is removed by pruning only when older than this: a writer that has
# written its table but not yet its run file must not lose the table to a concurrent prune.
TABLE_GRACE_S = 3600.0
STATUS_CHARS = {"pass": "P", "acceptable": "A", "fail": "F", "error": "E", "skipped": "S"}
NOT_RUN = "."


class HistoryError(Exception):
    """A history file that cannot be used; the message is one line naming the file and the field."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
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
    table_id = hashlib.sha256(data).hexdigest()[:20]
    path = root / TABLES / f"{table_id}.json.gz"
    try:
        os.utime(path)  # reused: fresh again, so a concurrent prune's grace period covers it
    except OSError:
        _atomic_write(path, gzip.compress(data, compresslevel=6, mtime=0))
    return table_id


def run_file_name(finished: str, run_id: str) -> str:
    stamp = "".join(ch for ch in finished if ch.isdigit())[:20]
    return f"{stamp}Z-{run_id}.json.gz"


def write_run(root: Path, run: dict[str, Any], rows: list[list[Any]]) -> Path:
    """Write the table, then the run file (in that order: a run never names a missing table).

    The run file is two JSON lines, each its own gzip member: the metadata with each model's
    ``status`` string, then the other columns. ``zcat`` shows both; pass rates, trends and flips
    decompress only the first (a few kB), which keeps ``history`` fast on long histories.
    """
    results = run.get("results") or {}
    head = {**run, "format": RUN_FORMAT, "version": VERSION, "table": write_table(root, rows),
            "results": {m: {"status": c["status"]} for m, c in results.items()}}
    details = {"details": {m: {k: v for k, v in c.items() if k != "status"} for m, c in results.items()}}
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
            text = inflate.decompress(raw, MAX_FILE_BYTES + 1)
        except zlib.error as exc:
            raise HistoryError(f"{path}: cannot read: not gzip ({exc})") from None
        if len(text) > MAX_FILE_BYTES or inflate.unconsumed_tail:
            raise HistoryError(f"{path}: line {member + 1} inflates to more than {MAX_FILE_BYTES} bytes")
        if not inflate.eof:
            raise HistoryError(f"{path}: cannot read: truncated gzip data")
        try:
            out.append(json.loads(text))
        except (ValueError, RecursionError) as exc:
            raise HistoryError(f"{path}: line {member + 1}: not JSON: {exc}") from None
        raw = inflate.unused_data
    return out[0], (out[1] if both else None)


def _read_json_gz(path: Path) -> Any:
    try:
        with open_regular(path) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise HistoryError(f"{path}: cannot read: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise HistoryError(f"{path}: inflates to more than {MAX_FILE_BYTES} bytes")
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
    warnings: list[str] = field(default_factory=list)  # the history's: a bad second line is one warning
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
                    raise HistoryError(f"{self.path}: line 2: field 'details' missing or not an object")
                self._details = _check_results(self.path, found, len(self.rows), detail=True)
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
        raise HistoryError(f"{path}: not a pytest-llmeval history run (field 'format' is not {RUN_FORMAT!r})")
    if data.get("version") != VERSION:
        raise HistoryError(f"{path}: field 'version' is {data.get('version')!r}; this plugin reads version {VERSION}")
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
    return data


def _check_table(path: Path, data: Any) -> list[list[Any]]:
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT or not isinstance(data.get("rows"), list):
        raise HistoryError(f"{path}: not a pytest-llmeval history table (fields 'format', 'rows')")
    for index, row in enumerate(data["rows"]):
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and isinstance(row[1], str)):
            raise HistoryError(f"{path}: rows[{index}] is not [file, id, line, gold hash]")
    return list(data["rows"])


def _check_results(path: Path, results: dict[str, Any], length: int, *, detail: bool = False) -> dict[str, dict[str, Any]]:
    where = "line 2: field 'details" if detail else "field 'results"
    for model, columns in results.items():
        if not isinstance(columns, dict):
            raise HistoryError(f"{path}: {where}.{model}' is not an object")
        status = columns.get("status")
        if not detail and (not isinstance(status, str) or len(status) != length):
            raise HistoryError(f"{path}: {where}.{model}.status' is not a string of {length} status letters")
        for name, text in columns.items():
            if name != "status" and isinstance(text, str) and text and text.count(" ") + 1 != length:
                raise HistoryError(f"{path}: {where}.{model}.{name}' does not hold {length} values")
    return results


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
            history.warnings.append(f"{root}: {len(paths)} run files; reading the newest {MAX_RUN_FILES}")
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
                self._tables[table_id] = _check_table(path, _read_json_gz(path))
            except HistoryError:
                self._tables[table_id] = None
                raise
        rows = self._tables[table_id]
        if rows is None:
            raise HistoryError(f"{run_path}: its table {table_id} is unusable (see the warning above)")
        return rows

    def _load_run(self, path: Path) -> Run:
        meta = _check_run(path, _read_members(path, both=False)[0])
        rows = self._table(meta["table"], path)
        results = _check_results(path, meta.pop("results"), len(rows))
        return Run(path, meta, rows, results, self.warnings)

    def models(self) -> list[str]:
        """Every model recorded, in the order first seen."""
        return list(dict.fromkeys(m for run in self.runs for m in run.results))


def prune(root: Path, keep: int) -> int:
    """``--llm-history-keep=N``: delete all but the newest ``keep`` run files, then tables that no
    remaining run names (and that are older than :data:`TABLE_GRACE_S`). Returns runs deleted."""
    runs = sorted((root / RUNS).glob("*.json.gz"))
    doomed = runs[: max(0, len(runs) - keep)]
    for path in doomed:
        with contextlib.suppress(OSError):
            path.unlink()
    referenced: set[str] = set()
    for path in runs[len(doomed):]:
        with contextlib.suppress(HistoryError):
            data = _read_members(path, both=False)[0]
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
