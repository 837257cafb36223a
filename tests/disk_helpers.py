"""Small filesystems for fault tests: a full or read-only tmpfs (root on Linux only, else skipped)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(
    path: Path, *, size: str = "256k", full: bool = False, read_only: bool = False
) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` at ``path``; ``full``: filled to the last byte; ``read_only``: remounted ro."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root on Linux")
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        if full:
            with contextlib.suppress(OSError), (path / "filler").open("wb") as handle:
                while True:
                    handle.write(b"\0" * 4096)
                    handle.flush()
        if read_only:
            subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)
