"""Where the development data of the ``eval_*.py`` scripts lives, and one line when it is missing.

The labelled sets (FinanceBench dev answers, the numeric dev set, ...) are never copied into the
repository: they sit in ``../shared/data`` beside the checkout (see its README.md). A script run
without them ends with one line naming the missing file and where the data lives, not a traceback.

Usage in a script (the ``benchmarks`` folder is on ``sys.path`` when a script in it runs)::

    from shared_data import data_file, read_jsonl

    rows = read_jsonl(data_file(args.data_dir, "financebench_dev.jsonl"))
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# ../shared/data relative to the checkout (this file is <checkout>/benchmarks/shared_data.py)
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"


def missing_message(path: Path, script: str) -> str:
    """The one line a script prints when ``path`` does not exist."""
    where = (
        f"it is at {DEFAULT_DATA_DIR}"
        if DEFAULT_DATA_DIR.is_dir()
        else f"expected at {DEFAULT_DATA_DIR}, which is missing too"
    )
    return (
        f"{script}: {path} not found. The development data is not part of this repository; it lives in "
        f"../shared/data beside the checkout ({where}; its README.md lists the files). "
        f"Give its path as the usage at the top of benchmarks/{script} shows"
    )


def data_file(location: str | Path, name: str | None = None, *, script: str | None = None) -> Path:
    """``location`` (a file), or the file ``name`` inside the folder ``location``; exits with one line if missing."""
    path = Path(location)
    if name is not None and (path.is_dir() or (not path.exists() and not path.suffix)):
        path = path / name
    if not path.is_file():
        raise SystemExit(missing_message(path, script or Path(sys.argv[0]).name))
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL data file; a bad line is one located line too (file:line), not a traceback."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise SystemExit(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise SystemExit(f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
        rows.append(row)
    return rows
