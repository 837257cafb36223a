"""Each real directory is collected once: a symlink loop (``sub/back -> ..``) or a second link
to a directory already collected would otherwise collect every gold sample again and again
(about forty times, until the path is too long)."""

from __future__ import annotations

import os
from pathlib import Path


def is_repeat_directory(path: Path, seen: set[str]) -> bool:
    """True for a directory already collected under another path, or a link to one of its own
    ancestors; otherwise remember it and return False."""
    real = os.path.realpath(path)
    parent = os.path.realpath(path.parent)
    if parent == real or parent.startswith(real.rstrip(os.sep) + os.sep):
        return True  # a link back up the tree: a loop
    if real in seen:
        return True
    seen.add(real)
    return False
