"""Run the examples of a Markdown page, so a stale example fails the suite.

The convention (documented in docs/contributing.md):

- A page takes part when it holds the line ``<!-- doctest -->``; other pages are not read.
- ```python blocks run in order, in one namespace per page, with the page's scratch folder as
  the working directory.
- ```jsonl blocks are gold files: each is collected and run by pytest (pytester); a line that
  is not a valid sample (an error item) fails the page.
- ```json and ```toml blocks must parse.
- ```console blocks: each ``$ pytest ARGS`` line runs pytest in the scratch folder (and
  ``$ python -m pytest_llmeval ARGS`` the package's command line); the lines
  after it (up to the next ``$`` line) must appear in the real output in that order, one after
  the other unless a ``...`` line stands between them. Durations and ``===`` rulers are masked.
  Other ``$`` commands are shown, not run.
- A comment on the line just before a fence changes what happens to that block:
  ``<!-- doctest: skip REASON -->`` (not checked), ``<!-- doctest: file PATH -->`` (written to
  PATH in the scratch folder, replacing what was there, not run), ``<!-- doctest: append PATH -->``
  (added to the end of PATH: a file shown in parts), ``<!-- doctest: copy PATH -->`` (the repository's PATH is
  copied into the scratch folder first, then the block is checked as usual).
- Other fences (```bash, ```text, ```yaml, no language) are not checked.
- ``<!-- doctest: needs EXTRA -->`` on a line of its own: the page's examples need that optional
  extra (``html``, ``semantic``, ...); without it the page is skipped, naming the extra.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

REPO = Path(__file__).resolve().parent.parent
PAGE_MARK = "<!-- doctest -->"
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*$")
_DIRECTIVE = re.compile(
    r"^\s*<!--\s*doctest:\s*(?P<verb>skip|file|append|copy)\b\s*(?P<arg>.*?)\s*-->\s*$"
)
_NEEDS = re.compile(r"^\s*<!--\s*doctest:\s*needs\s+(?P<extra>[\w-]+)\s*-->\s*$")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms)\b")
_RULER = re.compile(r"([=_-])\1{2,}")
_SPACES = re.compile(r"(?<=\S)  +")


@dataclass
class Block:
    """One fenced block of a page: its language, text, first line number and directives."""

    lang: str
    text: str
    line: int  # 1-based line of the first line of content
    directives: list[tuple[str, str]] = field(default_factory=list)

    def directive(self, verb: str) -> str | None:
        return next((arg for v, arg in self.directives if v == verb), None)


class DocExampleError(AssertionError):
    """A doc example that does not do what the page says; the message names page and line."""


def is_opted_in(text: str) -> bool:
    return any(line.strip() == PAGE_MARK for line in text.splitlines())


def needed_extras(text: str) -> list[str]:
    """The optional extras a page's examples need (``<!-- doctest: needs EXTRA -->`` lines)."""
    return [found["extra"] for line in text.splitlines() if (found := _NEEDS.match(line))]


def extract_blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text, with the directives on the lines just before each."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent = len(opening["indent"])
        directives = []
        j = i - 1
        while j >= 0 and (found := _DIRECTIVE.match(lines[j])):
            directives.insert(0, (found["verb"], found["arg"]))
            j -= 1
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = "\n".join(line[indent:] for line in lines[i + 1 : end])
        blocks.append(Block(opening["lang"].lower(), body + "\n", i + 2, directives))
        i = end + 1
    return blocks


def mask(text: str) -> str:
    """Output as compared: durations, ruler widths and column padding masked, trailing blanks dropped."""
    text = _DURATION.sub("N.NNs", text)
    text = _RULER.sub(lambda m: m.group(1) * 3, text)
    text = _SPACES.sub(" ", text)
    return "\n".join(line.rstrip() for line in text.splitlines())


def missing_output(expected: list[str], actual: list[str]) -> str | None:
    """Why ``expected`` (with ``...`` gaps) is not in ``actual`` in order, or None."""
    chunks: list[list[str]] = [[]]
    for line in expected:
        if line.strip() == "...":
            chunks.append([])
        else:
            chunks[-1].append(line)
    start = 0
    for chunk in filter(None, chunks):
        at = next(
            (
                k
                for k in range(start, len(actual) - len(chunk) + 1)
                if actual[k : k + len(chunk)] == chunk
            ),
            None,
        )
        if at is None:
            # name the first line of the chunk that has no match at all, else the chunk's first
            lonely = next((line for line in chunk if line not in actual[start:]), chunk[0])
            return f"expected line not found (in order): {lonely!r}"
        start = at + len(chunk)
    return None


RUNNABLE = (["pytest"], ["python", "-m", "pytest_llmeval"])


def console_runs(text: str) -> list[tuple[int, list[str], list[str]]]:
    """``(offset, argv, expected lines)`` for each runnable command of a console block.

    Runnable: ``$ pytest ...`` and ``$ python -m pytest_llmeval ...``; other commands are shown only.
    """
    runs: list[tuple[int, list[str], list[str]]] = []
    current: list[str] | None = None
    for offset, line in enumerate(text.splitlines()):
        if line.startswith("$ "):
            argv = shlex.split(line[2:], comments=True)
            current = None
            if any(argv[: len(prefix)] == prefix for prefix in RUNNABLE):
                runs.append((offset, argv, []))
                current = runs[-1][2]
        elif current is not None:
            current.append(line)
    return [(offset, argv, [mask(x) for x in expected]) for offset, argv, expected in runs]


Runner = Callable[[list[str]], tuple[int, str]]


def check_page(path: Path, scratch: Path, run_pytest: Runner, label: str | None = None) -> int:
    """Check every example of an opted-in page; return how many blocks were checked.

    ``run_pytest(args) -> (exit code, output)`` runs pytest in ``scratch``; python blocks run with
    ``scratch`` as the working directory (the caller sets it). Raises ``DocExampleError``.
    """
    text = path.read_text(encoding="utf-8")
    if not is_opted_in(text):
        return 0
    label = label or str(path)
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    checked = 0
    for block in extract_blocks(text):
        where = f"{label}:{block.line}"
        if block.directive("skip") is not None:
            continue
        copy = block.directive("copy")
        if copy:
            source = REPO / copy
            target = scratch / copy
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, target)
        file, append = block.directive("file"), block.directive("append")
        if file or append:
            target = scratch / (file or append)
            target.parent.mkdir(parents=True, exist_ok=True)
            # append: a file shown in parts (a conftest with two hooks); file: (over)written
            with target.open("a" if append else "w", encoding="utf-8") as out:
                out.write(("\n\n" if append else "") + block.text)
            continue
        checker = CHECKERS.get(block.lang)
        if checker is None:
            continue
        checker(block, where, scratch, run_pytest, namespace)
        checked += 1
    return checked


def _python(
    block: Block, where: str, scratch: Path, run: Runner, namespace: dict[str, Any]
) -> None:
    label = where.rsplit(":", 1)[0]
    # pad so that a traceback names the page's own line numbers
    code = compile("\n" * (block.line - 1) + block.text, label, "exec")
    try:
        exec(code, namespace)
    except Exception as exc:
        # name the page line that raised (the last frame in the page), not only the block
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == label]
        at = f"{label}:{frames[-1].lineno}" if frames else where
        raise DocExampleError(f"{at}: python block raised {type(exc).__name__}: {exc}") from exc


def _jsonl(block: Block, where: str, scratch: Path, run: Runner, namespace: dict[str, Any]) -> None:
    folder = scratch / f"_doc_gold_{block.line}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "doc_eval.jsonl").write_text(block.text, encoding="utf-8")
    code, output = run([str(folder), "-p", "no:cacheprovider"])
    errors = re.search(
        r"(\d+) errors?\b", output.strip().splitlines()[-1] if output.strip() else ""
    )
    if code not in (0, 1) or errors:
        bad = re.search(r"doc_eval\.jsonl:(\d+)", output)
        at = f"{where.rsplit(':', 1)[0]}:{block.line + int(bad[1]) - 1}" if bad else where
        raise DocExampleError(
            f"{at}: jsonl block is not a valid gold file (exit {code}):\n{output[-2000:]}"
        )


def _json(block: Block, where: str, scratch: Path, run: Runner, namespace: dict[str, Any]) -> None:
    try:
        json.loads(block.text)
    except json.JSONDecodeError as exc:
        at = f"{where.rsplit(':', 1)[0]}:{block.line + exc.lineno - 1}"
        raise DocExampleError(f"{at}: json block does not parse: {exc}") from None


def _toml(block: Block, where: str, scratch: Path, run: Runner, namespace: dict[str, Any]) -> None:
    try:
        tomllib.loads(block.text)
    except tomllib.TOMLDecodeError as exc:
        raise DocExampleError(f"{where}: toml block does not parse: {exc}") from None


def _console(
    block: Block, where: str, scratch: Path, run: Runner, namespace: dict[str, Any]
) -> None:
    label = where.rsplit(":", 1)[0]
    for offset, argv, expected in console_runs(block.text):
        if argv[0] == "pytest":
            code, output = run(argv[1:])
        else:  # python -m pytest_llmeval ...: the package's own command line, in a child process
            done = subprocess.run(
                [sys.executable, *argv[1:]],
                cwd=scratch,
                capture_output=True,
                text=True,
                timeout=120,
            )
            code, output = done.returncode, done.stdout + done.stderr
        problem = missing_output(expected, mask(output).splitlines())
        if problem:
            raise DocExampleError(
                f"{label}:{block.line + offset}: `$ {shlex.join(argv)}` (exit {code}): {problem}\n"
                f"--- real output (masked) ---\n{mask(output)[-4000:]}"
            )


CHECKERS: dict[str, Callable[[Block, str, Path, Runner, dict[str, Any]], None]] = {
    "python": _python,
    "py": _python,
    "jsonl": _jsonl,
    "json": _json,
    "toml": _toml,
    "console": _console,
}


def doc_pages(root: Path = REPO) -> list[Path]:
    """The opted-in pages: README.md and docs/**/*.md holding the page mark."""
    candidates = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    return [p for p in candidates if p.is_file() and is_opted_in(p.read_text(encoding="utf-8"))]
