"""On-disk response cache: one pretty JSON file per request, safe for concurrent xdist workers.

Layout (commit everything but ``.locks``)::

    <cache_dir>/<provider_model>/<sha256>.json    {"version": 2, "key", "label", "endpoint",
                                                   "request", "response"}
    <cache_dir>/.locks/                            per-request lock files, ignored by git

The key is the sha256 of the canonical JSON of the request identity: provider kind, model,
messages and generation settings. Not the endpoint: a cache recorded at 127.0.0.1:8000 replays
at localhost:8000 or another port (the endpoint is kept in the file as a note only).
API keys never enter the key or the files.

Format 1 (before) hashed the endpoint too; its files stay readable: a lookup that misses
tries the format-1 key for the current endpoint (:func:`legacy_key`).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import heapq
import json
import os
import re
import socket
import time
import uuid
from pathlib import Path
from typing import Any

from pytest_llmeval.bounded_json import MAX_NESTING, nesting
from pytest_llmeval.errors import CacheMissError, CacheUnwritableError
from pytest_llmeval.fileio import describe_os_error, probe_dir, read_regular_bytes, write_atomic
from pytest_llmeval.options import RecordMode

FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)
_LOCKS = ".locks"
# A holder writes its lock right after creating it; an empty lock this old will never be written.
EMPTY_LOCK_STALE_S = 5.0


def _digest(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def cache_key(identity: dict[str, Any]) -> str:
    """The file name of a request: hash of provider kind, model, messages and settings."""
    return _digest({"v": FORMAT_VERSION, **identity})


def legacy_key(identity: dict[str, Any], endpoint: str) -> str:
    """The format-1 key of the same request, which also hashed the endpoint URL."""
    return _digest({"v": 1, **identity, "endpoint": endpoint})


# A committed cache file is untrusted text: bounded in size and nesting before anything walks it.
# The HTTP client reads at most MAX_REPLY_BYTES of a reply, so every reply it records fits a
# file replay accepts (the rest of the file is the request and a little JSON): recorded means
# replayable, never "corrupt" on the next run and bought again.
MAX_REPLY_BYTES = 4 * 1024 * 1024
MAX_FILE_BYTES = 2 * MAX_REPLY_BYTES
UNUSABLE_NOTE_CHARS = 300  # of a reply the caller could not use, kept to say why a replay misses it


def parse_record(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """(record, None) for a usable cache file's bytes, else (None, the problem)."""
    if len(raw) > MAX_FILE_BYTES:
        return None, f"larger than {MAX_FILE_BYTES} bytes"
    try:
        record = json.loads(raw.decode("utf-8"))
    except RecursionError:
        return None, f"nested more than {MAX_NESTING} levels deep"
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"not valid JSON ({str(exc)[:120]})"
    if nesting(record) > MAX_NESTING:
        return None, f"nested more than {MAX_NESTING} levels deep"
    if not isinstance(record, dict):
        return None, f"a JSON {type(record).__name__}, not an object"
    if record.get("version") not in _READABLE_VERSIONS:
        return None, f"unknown format version {str(record.get('version'))[:20]!r}"
    response = record.get("response")
    if not isinstance(response, dict) or not isinstance(response.get("text"), str):
        return None, "no 'response.text' string"
    if not isinstance(record.get("request", {}), dict):
        return None, "'request' is not an object"
    return record, None


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


def _describe(identity: dict[str, Any], limit: int = 160) -> str:
    messages = identity.get("messages") or []
    parts = []
    for message in messages:
        content = str(message.get("content", "")).replace("\n", " ")
        if len(content) > limit:
            content = content[: limit - 3] + "..."
        parts.append(f"[{message.get('role')}] {content}")
    return " | ".join(parts) or "(no messages)"


def _request_text(identity: dict[str, Any]) -> str:
    messages = identity.get("messages")
    if not isinstance(messages, list):
        return ""
    return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))


# Characters of each request that the nearest-request ratio compares.
COMPARE_CHARS = 4000


def _fingerprint(text: str) -> frozenset[int]:
    """Hashes of the distinct words: a cheap stand-in for the text when shortlisting."""
    return frozenset(hash(word) for word in text.split())


class ResponseCache:
    """Get/put cached replies for one provider+model directory and apply the record mode.

    ``once`` replays only when the directory already held replies before this run
    (workers of one xdist run share the run id, so they record together).
    """

    def __init__(
        self, root: Path, namespace: str, mode: RecordMode, *, run_id: str | None = None
    ) -> None:
        self.root = root
        self.namespace = namespace
        self.dir = root / slug(namespace)
        self.mode = RecordMode(mode)
        self.run_id = run_id or os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
        self.replay_only = self.mode is RecordMode.NONE
        self._nearest_index: list[tuple[dict[str, Any], frozenset[int], int]] | None = None
        self._common: frozenset[int] = frozenset()
        if self.mode is RecordMode.ONCE:
            self.replay_only = self._once_is_replay()

    # -- record-mode policy ----------------------------------------------------
    @property
    def reads(self) -> bool:
        return self.mode is not RecordMode.ALL

    @property
    def writes(self) -> bool:
        return not self.replay_only

    def _once_is_replay(self) -> bool:
        marker = self.lock_dir / f"once-{slug(self.namespace)}-{slug(self.run_id)}"
        if marker.exists():
            return False  # another worker of this run found the directory empty
        if self.dir.is_dir() and any(self.dir.glob("*.json")):
            return True
        self._ensure_lock_dir()
        marker.touch()
        return False

    # -- files -------------------------------------------------------------------
    @property
    def lock_dir(self) -> Path:
        return self.root / _LOCKS

    def path_for(self, key: str) -> Path:
        return self.dir / f"{key}.json"

    def _unusable_path(self, key: str) -> Path:
        return (
            self.dir / f"{key}.unusable"
        )  # not *.json: no reply, so "once" still finds the folder empty

    def note_unusable(self, key: str, text: str) -> None:
        """A reply the caller could not use (a judge's invalid JSON) is not cached, but its start
        is noted: a replay that misses it says why, instead of advising to record it again."""
        from pytest_llmeval.redact import redact

        with contextlib.suppress(OSError):
            write_atomic(self._unusable_path(key), redact(text[:UNUSABLE_NOTE_CHARS]), newline="\n")

    def unusable_error(self, key: str) -> CacheMissError | None:
        """The replay's error for a request whose recorded reply was unusable, or None."""
        try:
            with self._unusable_path(key).open("rb") as handle:
                start = handle.read(UNUSABLE_NOTE_CHARS * 4).decode("utf-8", "replace")
        except OSError:
            return None
        return CacheMissError(
            f"the reply to this request was unusable when it was recorded (it starts {start[:120]!r}), so it "
            f"was not kept; recording again sends the same request to {self.namespace} and would likely buy "
            "the same reply: use another model for it, or change what is asked"
        )

    def written_after(self, key: str, timestamp: float) -> bool:
        try:
            return self.path_for(key).stat().st_mtime >= timestamp - 1.0  # coarse filesystem clocks
        except OSError:
            return False

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached record, or ``None``; a missing or unusable file counts as a miss."""
        return self.load(key)[0]

    def load(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """(record, None), (None, None) when there is no file, or (None, what is wrong with it)."""
        path = self.path_for(key)
        try:
            raw = read_regular_bytes(path, MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"unreadable ({exc.strerror or exc})"
        return parse_record(raw)

    def put(
        self,
        key: str,
        identity: dict[str, Any],
        response: dict[str, Any],
        *,
        label: str | None,
        endpoint: str | None = None,
    ) -> Path | None:
        """Write the reply's file (atomically, with the umask's mode); ``None`` when the record
        is larger than :data:`MAX_FILE_BYTES`, which replay would refuse."""
        from pytest_llmeval.redact import redact, strip_url_credentials

        record = {
            "version": FORMAT_VERSION,
            "key": key,
            "label": label,
            # a note for people reading the file; not part of the key; never its credentials
            "endpoint": None if endpoint is None else strip_url_credentials(endpoint),
            "request": identity,
            "response": response,
        }
        # Committed files: no API key or bearer token, even one a prompt or reply quoted.
        text = redact(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False)) + "\n"
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            return None  # the reader would refuse it: never write a file replay calls corrupt
        target = self.path_for(key)
        with contextlib.suppress(OSError):
            self._unusable_path(key).unlink(missing_ok=True)  # a usable reply replaces the note
        for attempt in range(5):  # Windows refuses to replace a file a reader holds open
            try:
                write_atomic(target, text, newline="\n")
                break
            except PermissionError:
                if attempt == 4:
                    raise
                time.sleep(0.05 * (attempt + 1))
        return self.path_for(key)

    # -- cross-process locks -------------------------------------------------------
    def _ensure_lock_dir(self) -> None:
        if not self.lock_dir.is_dir():
            self.lock_dir.mkdir(parents=True, exist_ok=True)
            ignore = self.lock_dir / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")

    def lock_path(self, key: str) -> Path:
        return self.lock_dir / f"{key}.lock"

    def try_lock(self, key: str, *, stale_after: float) -> bool:
        """Create the lock file atomically; take over a stale one (dead holder or too old)."""
        self._ensure_lock_dir()
        path = self.lock_path(key)
        for _ in range(2):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)  # the umask decides
            except FileExistsError:
                if not self._is_stale(path, stale_after):
                    return False
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                continue
            try:
                with os.fdopen(fd, "w") as handle:
                    handle.write(f"{socket.gethostname()} {os.getpid()}\n")
            except OSError as exc:
                # An empty lock would look like a live holder to every other sample (and run):
                # remove it and stop, rather than let each sample wait the stale-lock time.
                with contextlib.suppress(OSError):
                    os.unlink(path)
                raise self.unwritable(exc) from None
            return True
        return False

    def unwritable(self, exc: OSError) -> CacheUnwritableError:
        """The run-stopping error for a cache folder that cannot take a file."""
        return CacheUnwritableError(
            f"the cache directory {self.root} cannot be written: {describe_os_error(exc)}"
            f" ({exc.filename or self.dir}). Free space or fix the folder, choose another with"
            " --llm-cache-dir, or replay only with --llm-record=none; no further request is sent"
        )

    def check_writable(self) -> None:
        """Before the first request: the reply folder and the lock folder take a file."""
        try:
            probe_dir(self.dir)
            self._ensure_lock_dir()
            probe_dir(self.lock_dir)
        except OSError as exc:
            raise self.unwritable(exc) from None

    def unlock(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.lock_path(key))

    @staticmethod
    def _is_stale(path: Path, stale_after: float) -> bool:
        try:
            age = time.time() - path.stat().st_mtime
            host, _, pid = read_regular_bytes(path, 4096).decode("utf-8").strip().partition(" ")
        except (OSError, ValueError):
            return False  # vanished or unreadable: the holder is alive or just finished
        if not host and age > EMPTY_LOCK_STALE_S:
            return True  # created and never written: its holder died or met a full disk
        if age > stale_after:
            return True
        if os.name == "posix" and host == socket.gethostname() and pid.isdigit():
            try:
                os.kill(int(pid), 0)  # signal 0 only checks the process exists (POSIX)
            except ProcessLookupError:
                return True
            except PermissionError:
                return False
        return False

    # -- replay-miss message ---------------------------------------------------------
    def nearest(
        self,
        identity: dict[str, Any],
        limit: int = 3,
        scan: int = 2000,
        compare: int = 8,
        *,
        label: str | None = None,
    ) -> list[tuple[float, dict[str, Any]]]:
        """Cached records most similar to ``identity``, best first.

        Bounded: at most ``scan`` files are read once per cache (then kept as word-set
        fingerprints), a cheap shortlist (same label, word-set overlap, length) picks ``compare``
        of them, and only those get a character-level ratio (rapidfuzz, linear-ish), so a miss
        costs milliseconds however long the prompts are.
        """
        index = self._index(scan)
        if not index:
            return []
        wanted = _request_text(identity)
        words = _fingerprint(wanted) - self._common

        def cheap(entry: tuple[dict[str, Any], frozenset[int], int]) -> float:
            record, other_words, length = entry
            shared = len(words & other_words)
            jaccard = shared / ((len(words) + len(other_words) - shared) or 1)
            size = min(len(wanted), length) / (max(len(wanted), length) or 1)
            return jaccard + 0.25 * size + (1.0 if label and record.get("label") == label else 0.0)

        shortlist = heapq.nlargest(compare, index, key=cheap)
        from rapidfuzz import fuzz

        scored = [
            (
                fuzz.ratio(
                    wanted[:COMPARE_CHARS],
                    _request_text(record.get("request") or {})[:COMPARE_CHARS],
                )
                / 100.0,
                record,
            )
            for record, _words, _length in shortlist
        ]
        scored.sort(key=lambda item: -item[0])
        return scored[:limit]

    def _index(self, scan: int) -> list[tuple[dict[str, Any], frozenset[int], int]]:
        if self._nearest_index is None:
            entries = []
            if self.dir.is_dir():
                for path in sorted(self.dir.glob("*.json"))[:scan]:
                    record = self.get(path.stem)
                    if record is not None:
                        text = _request_text(record.get("request") or {})
                        entries.append((record, _fingerprint(text), len(text)))
            # Words most cached prompts share (a system prompt, instructions) say nothing about which
            # one is nearest: dropping them keeps the fingerprints small and telling.
            if len(entries) >= 4:
                counts = collections.Counter(word for _r, words, _n in entries for word in words)
                self._common = frozenset(
                    word for word, n in counts.items() if n > len(entries) // 2
                )
                entries = [(r, words - self._common, n) for r, words, n in entries]
            self._nearest_index = entries
        return self._nearest_index

    def miss_error(
        self, key: str, identity: dict[str, Any], *, label: str | None
    ) -> CacheMissError:
        """A vcrpy-style explanation: what was asked, the mode, nearest keys, the flag that records."""
        what = f"sample {label!r}" if label else "a request"
        mode = self.mode.value
        why = (
            "--llm-record=none replays only"
            if self.mode is RecordMode.NONE
            else "--llm-record=once replays only because the cache already held replies for this model"
        )
        params = identity.get("params") or {}
        lines = [
            f"no cached reply for {what} to {self.namespace} and {why}.",
            f"  asked: {_describe(identity)}",
            f"  settings: {json.dumps(params, sort_keys=True)}",
            f"  key: {key} (would be {self.path_for(key)})",
        ]
        near = self.nearest(identity, label=label)
        if near:
            lines.append("  nearest cached requests:")
            for ratio, record in near:
                request = record.get("request") or {}
                differs = sorted(
                    name
                    for name in set(identity) | set(request)
                    if name != "endpoint" and identity.get(name) != request.get(name)
                )
                lines.append(
                    f"    - {str(record.get('key', '?'))[:16]}... (label {str(record.get('label'))[:80]!r}), "
                    f"messages {ratio:.0%} similar, differs in: {', '.join(differs) or 'nothing'}"
                )
        else:
            lines.append(f"  nearest cached requests: none in {self.dir}")
        lines.append(
            "  To record it, run once with --llm-record=new (records missing replies, keeps the rest)"
            " or --llm-record=all (re-records everything), with the model reachable."
        )
        error = CacheMissError("\n".join(lines))
        error.mode = mode  # type: ignore[attr-defined]
        return error
