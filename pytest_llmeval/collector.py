"""Gold JSONL files become pytest items: one ``GoldItem`` per sample, one ``BadLineItem`` per bad line."""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.display import safe_line, safe_text
from pytest_llmeval.schema import (
    FILE_CONFIG_KEY,
    SampleError,
    normalise,
    validate,
    validate_file_config,
)

if TYPE_CHECKING:
    from pytest_llmeval.sample import Sample


def display_path(path: Path, rootpath: Path) -> str:
    """Path relative to the rootdir (stable across machines and xdist workers)."""
    try:
        return path.relative_to(rootpath).as_posix()
    except ValueError:
        return str(path)


def is_gold_file(file_path: Path, patterns: str) -> bool:
    return any(fnmatch.fnmatch(file_path.name, pattern) for pattern in patterns.split())


class GoldFailure(Exception):
    """The sample graded into the fail tier (a failed test, not an error)."""


class GoldItemError(Exception):
    """A gold line that cannot be graded; shown without a traceback."""


def read_records(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """Yield (line number, parsed record or None, problem) for each non-empty line, in file order.

    Lines end at "\n" only (JSONL): U+2028, U+2029 or U+0085 inside a string are text, not line breaks;
    a line that is not UTF-8 or longer than ``bounded_json.MAX_LINE_BYTES`` is a located problem.
    """
    from pytest_llmeval.bounded_json import parse_line, read_lines

    # Line by line: a line that is not UTF-8 or is over the size cap is one located error.
    for number, line, problem in read_lines(path):
        if line is None:
            yield number, None, problem
            continue
        record, problem = parse_line(line)
        yield number, record, problem


def iter_samples(path: Path, shown_path: str) -> Iterator[tuple[int, Sample | None, str]]:
    """Yield (line number, sample, "") or (line number, None, problem) for each line, in file order.

    Applies the file-level config line, schema validation and duplicate-id detection, so
    gold items and the ``llm_sample`` fixture read a file the same way.
    """
    defaults: dict[str, Any] = {}
    seen: dict[str, int] = {}
    for number, record, problem in read_records(path):
        if problem is None and isinstance(record, dict) and set(record) == {FILE_CONFIG_KEY}:
            if seen:
                problem = f"{FILE_CONFIG_KEY!r} must come before the first sample"
            else:
                # A bad setting is one error on the header line; the file's samples still run
                # with the header's other settings.
                defaults, problems = validate_file_config(record[FILE_CONFIG_KEY])
                if not problems:
                    continue
                problem = f"file header: {'; '.join(problems)}"
        sample: Sample | None = None
        if problem is None:
            try:
                validate(record)
                sample = normalise(record, path=shown_path, line=number, defaults=defaults)
            except SampleError as exc:
                problem = str(exc)
        if sample is not None and sample.id in seen:
            problem = f"field 'id': duplicate id {sample.id!r} (first on line {seen[sample.id]})"
            sample = None
        if sample is None:
            yield number, None, problem or "unknown problem"
            continue
        seen[sample.id] = number
        yield number, sample, ""


class JsonlFile(pytest.File):
    """A gold file; collection never stops at a bad line."""

    def collect(self) -> Iterator[pytest.Item]:
        from pytest_llmeval.run_state import get_session

        shown_path = display_path(self.path, self.config.rootpath)
        models = get_session(self.config).settings.models
        for number, sample, problem in iter_samples(self.path, shown_path):
            if sample is None:
                yield BadLineItem.from_parent(
                    self,
                    name=f"{self.path.name}:{number}",
                    lineno=number,
                    problem=problem,
                    shown_path=shown_path,
                )
            elif len(models) > 1:
                # several --llm-model specs: one item per model, the model in the id's brackets
                for model in models:
                    yield GoldItem.from_parent(
                        self, name=f"{safe_line(sample.id)}[{model}]", sample=sample, model=model
                    )
            else:
                # the id is untrusted: no escape sequence or bidi override reaches a terminal or JUnit name
                yield GoldItem.from_parent(self, name=safe_line(sample.id), sample=sample)


class BadLineItem(pytest.Item):
    """A line that could not become a sample: an error outcome naming file, line, field and problem."""

    is_llmeval_gold = True  # lets plugin hooks recognise gold items without importing this module

    def __init__(self, *, lineno: int, problem: str, shown_path: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lineno = lineno
        self.problem = problem
        self.shown_path = shown_path

    def setup(self) -> None:
        raise GoldItemError(safe_text(f"{self.shown_path}:{self.lineno}: {self.problem}"))

    def runtest(self) -> None:  # pragma: no cover - setup always raises
        pass

    def explain_setup_error(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
        if isinstance(excinfo.value, GoldItemError):
            return str(excinfo.value)
        return None

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.lineno - 1, f"{self.path.name}:{self.lineno}"


@functools.cache
def gold_mark() -> pytest.MarkDecorator:
    """``pytest.mark.llmeval``, looked up once: each lookup through ``pytest.mark`` checks the
    registered markers again (a third of what building a gold item costs)."""
    return pytest.mark.llmeval


class GoldItem(pytest.Item):
    """One gold sample. Answering and grading happen in setup (failures there are errors);
    the call phase only checks the tier."""

    is_llmeval_gold = True

    def __init__(self, *, sample: Sample, model: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sample = sample
        self.model = model  # set when several --llm-model specs are compared
        self.add_marker(gold_mark())

    def setup(self) -> None:
        from pytest_llmeval.grading.pipeline import get_pipeline

        get_pipeline(self.config).grade_item(self)

    def runtest(self) -> None:
        from pytest_llmeval.run_state import GRADE_KEY

        grade = self.stash[GRADE_KEY]
        if grade.tier == "fail":
            from pytest_llmeval.run_state import REPEATS_KEY

            message = grade.failure_message(self.sample)
            if REPEATS_KEY in self.stash:
                from pytest_llmeval.regression.repeats import failure_note

                message += "\n" + failure_note(self.stash[REPEATS_KEY])
            raise GoldFailure(safe_text(message))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, GoldFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def explain_setup_error(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str | None:
        """Model, judge and grader failures: one message naming the sample, never a traceback."""
        return explain_sample_error(self.sample, excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return (
            self.path,
            self.sample.line - 1,
            f"{self.path.name}:{self.sample.line}::{safe_line(self.sample.id)}",
        )


def explain_sample_error(sample: Sample, error: BaseException) -> str | None:
    """One line naming the sample for our own errors; ``None`` for anything else (a bug
    deserves its traceback)."""
    from pytest_llmeval.errors import LLMEvalError

    if not isinstance(error, LLMEvalError | GoldItemError):
        return None
    return safe_text(
        f"{sample.path}:{sample.line}: sample {sample.id!r}: {type(error).__name__}: {error}"
    )


def error_report(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """The setup report of an item whose sample could not be answered or graded, with the
    one-line explanation as its text; ``None`` leaves the report to pytest."""
    assert call.excinfo is not None
    explain = getattr(item, "explain_setup_error", None)
    if explain is not None:
        text = explain(call.excinfo)
    else:  # a hand-written test using the llm_sample fixture
        from pytest_llmeval.run_state import sample_of

        sample = sample_of(item)
        text = None if sample is None else explain_sample_error(sample, call.excinfo.value)
    if text is None:
        return None
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "failed",
        text,
        "setup",
        # captured output, as pytest's own report keeps it (no public accessor exists)
        [(f"Captured {key} {when}", content) for when, key, content in item._report_sections],
        call.duration,
        call.start,
        call.stop,
        user_properties=item.user_properties,
    )
