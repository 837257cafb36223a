"""Which structured-output form each endpoint took, kept in the cache directory so the next run
does not open with a request the server refuses.

File ``<cache_dir>/.structured_output`` (JSON)::

    {"version": 1, "endpoints": {"http://127.0.0.1:8080/v1": {"form": "json_object+schema",
                                  "tried": "json_schema refused, json_object+schema used"}}}

A hint, not a record: an unreadable file or entry is ignored (the endpoint is probed again and
the file rewritten). The URL is stored without user info or query, so no credential is written.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pytest_llmeval.fileio import read_regular_bytes
from pytest_llmeval.models.formats import LADDER

FILE_NAME = ".structured_output"  # JSON; not *.json, which names cached replies
VERSION = 1
MAX_BYTES = 256 * 1024  # untrusted (a committed cache dir): bounded before parsing
MAX_ENDPOINTS = 1000


def endpoint_key(url: str) -> str:
    """``url`` without user info, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class FormatMemory:
    """endpoint -> (form, how it was chosen); persisted under ``root`` unless ``root`` is None."""

    def __init__(self, root: Path | None) -> None:
        self.path = None if root is None else root / FILE_NAME
        self._known: dict[str, tuple[str, str]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, tuple[str, str]]:
        known: dict[str, tuple[str, str]] = {}
        if self.path is None:
            return known
        try:
            raw = read_regular_bytes(self.path, MAX_BYTES + 1)
            data: Any = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_BYTES else None
        except (OSError, ValueError, RecursionError):
            return known
        endpoints = (
            data.get("endpoints")
            if isinstance(data, dict) and data.get("version") == VERSION
            else None
        )
        for url, entry in list((endpoints if isinstance(endpoints, dict) else {}).items())[
            :MAX_ENDPOINTS
        ]:
            if isinstance(entry, dict) and entry.get("form") in LADDER:
                known[str(url)] = (str(entry["form"]), str(entry.get("tried") or "")[:500])
        return known

    def get(self, endpoint: str) -> tuple[str, str] | None:
        with self._lock:
            if self._known is None:
                self._known = self._load()
            return self._known.get(endpoint_key(endpoint))

    def put(self, endpoint: str, form: str, tried: str) -> None:
        with self._lock:
            known = self._merged()
            known[endpoint_key(endpoint)] = (form, tried)
            self._known = known
            self._write(known)

    def forget(self, endpoint: str) -> None:
        with self._lock:
            known = self._merged()
            known.pop(endpoint_key(endpoint), None)
            self._known = known
            self._write(known)

    def _merged(self) -> dict[str, tuple[str, str]]:
        """What this process knows, updated with what other xdist workers wrote meanwhile."""
        return {**(self._known or {}), **self._load()}

    def _write(self, known: dict[str, tuple[str, str]]) -> None:
        if self.path is None:
            return
        data = {
            "version": VERSION,
            "endpoints": {url: {"form": f, "tried": t} for url, (f, t) in sorted(known.items())},
        }
        with contextlib.suppress(
            OSError
        ):  # a read-only cache dir costs a probe next run, nothing else
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{FILE_NAME}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
