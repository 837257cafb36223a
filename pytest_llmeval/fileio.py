"""Files on disk: untrusted inputs are read only when they are regular files, outputs are
written atomically with the modes the umask allows, and output folders are probed up front.

A FIFO, a terminal or ``/dev/zero`` given as an input would block (or grow) for ever; a path
under a regular file, on a read-only or full filesystem must fail before anything is paid for.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


class NotRegularFileError(OSError):
    """An input path that is not a regular file (reading it could block for ever)."""

    def __init__(self, path: Path | str, kind: str, action: str = "read") -> None:
        super().__init__(f"{path} is {kind}, not a regular file; only regular files are {action}")
        self.strerror = f"{kind}, not a regular file; only regular files are {action}"
        self.filename = str(path)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(
    path: Path | str, *, encoding: str | None = None, errors: str | None = None
) -> IO[Any]:
    """Open ``path`` for reading (text when ``encoding`` is given), refusing anything but a
    regular file. Opened non-blocking first, so even opening a FIFO with no writer returns."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, _kind(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        if encoding is None:
            return os.fdopen(fd, "rb")
        return os.fdopen(fd, "r", encoding=encoding, errors=errors)
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: Path | str, limit: int = -1) -> bytes:
    """Up to ``limit`` bytes of ``path`` (all with -1); only a regular file is read."""
    with open_regular(path) as handle:
        return bytes(handle.read(limit))


def read_regular_text(path: Path | str, encoding: str = "utf-8") -> str:
    """``Path.read_text`` for untrusted inputs: only a regular file is read."""
    with open_regular(path, encoding=encoding) as handle:
        return str(handle.read())


def check_regular(path: Path | str, action: str = "read") -> None:
    """Raise :class:`NotRegularFileError` when ``path`` exists and is not a regular file
    (``stat``, never ``open``, so a FIFO is not opened); a missing path is left to the reader."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(path, _kind(mode), action)


# -- writing -------------------------------------------------------------------------

_umask_lock = threading.Lock()
_umask: int | None = None


def file_mode() -> int:
    """The mode ``open()`` would give a new file: 0o666 less the process umask (read once)."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = _read_umask()
        return 0o666 & ~_umask


def _read_umask() -> int:
    """Linux says it in /proc; elsewhere it can only be read by setting it (a moment in which
    another thread's new file would get 0o077's mode: the safe side)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    current = os.umask(0o077)
    os.umask(current)
    return current


def write_atomic(
    path: Path, text: str | Iterable[str], *, encoding: str = "utf-8", newline: str | None = None
) -> None:
    """Write ``text`` (or its chunks, streamed) via a temp file in the same folder and ``os.replace``:
    readers never see half a file. The file gets the umask's mode (``mkstemp`` alone would make it 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with contextlib.suppress(AttributeError, OSError):  # no fchmod on Windows
            os.fchmod(fd, file_mode())
        with os.fdopen(fd, "w", encoding=encoding, newline=newline) as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def probe_dir(folder: Path) -> None:
    """Create ``folder`` if needed and write (then remove) a small file in it; raises the
    ``OSError`` a later write would meet (a regular file in the way, read-only, no space)."""
    for part in (folder, *folder.parents):
        if part.exists():
            if not part.is_dir():  # mkdir would only say "File exists"
                raise NotADirectoryError(
                    errno.ENOTDIR, f"{part} is a file, not a folder", str(part)
                )
            break
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".llmeval-probe-", dir=folder)
    try:
        os.write(fd, b"probe\n" * 8)
        os.fsync(fd)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def describe_os_error(exc: OSError) -> str:
    """``No space left on device`` rather than ``[Errno 28] No space left on device: '/x'``."""
    return exc.strerror or str(exc) or type(exc).__name__


# -- text ----------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(value: Any) -> Any:
    """Lone surrogates (``"\\ud800"`` from a JSON escape) replaced by U+FFFD, in strings and in
    the strings inside lists and dicts: no UTF-8 encoder (a report, a cache file) can refuse them."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    # a container with nothing to replace is returned as it is: a large report is not copied again
    if isinstance(value, dict):
        pairs = [(scrub_surrogates(k), scrub_surrogates(v)) for k, v in value.items()]
        if all(
            k is old_k and v is old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        ):
            return value
        return dict(pairs)
    if isinstance(value, list):
        items = [scrub_surrogates(v) for v in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    return value
