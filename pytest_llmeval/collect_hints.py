"""Which ``.jsonl`` files are gold files, and why a folder named on the command line yielded nothing.

pytest collects a test module named on the command line whatever ``python_files`` says; a gold
file named there is collected whatever ``llm_gold_files`` says. A folder is searched with the
patterns; when it yields no test at all but holds ``.jsonl`` files, the summary names the patterns.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

import pytest

# A hint, not a scan of the disk: stop looking after this many directory entries.
MAX_ENTRIES = 20_000
SHOWN_FILES = 3


def collects_gold(file_path: Path, patterns: str, session: pytest.Session) -> bool:
    """A ``.jsonl`` file is gold when it matches ``llm_gold_files`` or was named on the command line."""
    from pytest_llmeval.collector import is_gold_file

    return is_gold_file(file_path, patterns) or session.isinitpath(file_path)


def empty_folder_lines(
    config: pytest.Config, stats: dict[str, list[Any]], patterns: str
) -> list[str]:
    """One line per command-line folder that yielded no test but holds ``.jsonl`` files the patterns skip."""
    folders = [p for p in _argument_paths(config) if p.is_dir()]
    if not folders:
        return []
    tested = _tested_paths(config.rootpath, stats)
    lines = []
    for folder in folders:
        if any(path == folder or folder in path.parents for path in tested):
            continue
        skipped = _unmatched_jsonl(folder, patterns)
        if skipped:
            shown = ", ".join(_shown(config, p) for p in skipped[:SHOWN_FILES])
            more = ", ..." if len(skipped) > SHOWN_FILES else ""
            lines.append(
                f"llmeval: {_shown(config, folder)} yielded no test: its {len(skipped)} .jsonl file(s) "
                f"({shown}{more}) match none of llm_gold_files {patterns!r}; rename them, set "
                "llm_gold_files (ini, or -o llm_gold_files=...), or name a gold file on the command line"
            )
    return lines


def _argument_paths(config: pytest.Config) -> list[Path]:
    base = Path(config.invocation_params.dir)
    paths = []
    for arg in config.args:
        path_part = str(arg).split("::", 1)[0]
        if path_part and not path_part.startswith("-"):
            paths.append((base / path_part).resolve())
    return paths


def _tested_paths(rootpath: Path, stats: dict[str, list[Any]]) -> set[Path]:
    """Files of every report (and deselected item) the run produced, resolved."""
    names = {
        str(getattr(entry, "nodeid", "")).split("::", 1)[0]
        for entries in stats.values()
        for entry in entries
    }
    return {(rootpath / name).resolve() for name in names if name}


def _unmatched_jsonl(folder: Path, patterns: str) -> list[Path]:
    found: list[Path] = []
    seen = 0
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith((".", "__")) and d not in ("node_modules", "venv")
        )
        for name in sorted(files):
            if name.endswith(".jsonl") and not any(
                fnmatch.fnmatch(name, p) for p in patterns.split()
            ):
                found.append(Path(current) / name)
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES:
            break
    return found


def _shown(config: pytest.Config, path: Path) -> str:
    try:
        return os.path.relpath(path, config.invocation_params.dir)
    except ValueError:  # another drive (Windows)
        return str(path)


def write_empty_folder_lines(terminalreporter: Any, config: pytest.Config, patterns: str) -> None:
    for line in empty_folder_lines(config, getattr(terminalreporter, "stats", {}), patterns):
        terminalreporter.write_line(line, yellow=True)
