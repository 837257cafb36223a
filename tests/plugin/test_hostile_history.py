"""A history from a CI artifact or a pull request: forged dates, corrupt tables, tampered fields,
runs that inflate; and the modes of the files a run writes."""

from __future__ import annotations

import gzip
import json
import stat
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.fileio import file_mode
from pytest_llmeval.history.store import MAX_RUN_SKELETON, History
from tests.regression_helpers import MODEL, make_suite, run


def _runs(pytester: pytest.Pytester) -> list[Path]:
    return sorted((pytester.path / "hist" / "runs").iterdir())


def _rewrite(path: Path, edit_head: Any = None, edit_details: Any = None) -> None:
    head, details = (
        json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines()
    )
    head = edit_head(head) or head if edit_head else head
    details = edit_details(details) or details if edit_details else details
    path.write_bytes(
        gzip.compress(json.dumps(head).encode() + b"\n")
        + gzip.compress(json.dumps(details).encode() + b"\n")
    )


@pytest.mark.parametrize("forged_seq", [None, 10**6])
def test_a_future_dated_run_file_never_prunes_the_new_run(
    pytester: pytest.Pytester, forged_seq: int | None
) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    [first] = _runs(pytester)
    future = first.with_name("99991231235959999999Z-" + first.name.split("-", 1)[1])
    first.rename(future)
    if forged_seq is not None:
        _rewrite(future, lambda head: {**head, "seq": forged_seq})
    result = run(pytester, MODEL, "--llm-history=hist", "-o", "llm_history_keep=1")
    [kept] = _runs(pytester)
    assert kept != future  # the run just written is the one kept
    [recorded] = History.load(pytester.path / "hist").runs
    assert recorded.seq == (forged_seq or 1) + 1
    result.stdout.fnmatch_lines(
        [f"history: run {recorded.run_id} recorded in hist; 1 older run(s) pruned*"]
    )


def test_keep_orders_by_sequence_not_by_name(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    for _ in range(3):
        run(pytester, MODEL, "--llm-history=hist")
    oldest = _runs(pytester)[0]
    oldest.rename(oldest.with_name("99991231235959999999Z-" + oldest.name.split("-", 1)[1]))
    run(pytester, MODEL, "--llm-history=hist", "-o", "llm_history_keep=2")
    assert [r.seq for r in History.load(pytester.path / "hist").runs] == [3, 4]


def test_a_corrupt_table_is_rewritten_by_the_next_run(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    [table] = (pytester.path / "hist" / "tables").iterdir()
    good = table.read_bytes()
    forged = {
        "format": "pytest-llmeval-history-table",
        "version": 1,
        "rows": [["qa_eval.jsonl", "s00", 1, "x"]],
    }
    table.write_bytes(gzip.compress(json.dumps(forged).encode()))
    history = History.load(pytester.path / "hist")
    assert history.runs == []
    assert history.warnings[0].startswith(
        f"skipped: {table}: content does not match its name (SHA-256 "
    )
    run(pytester, MODEL, "--llm-history=hist")
    assert gzip.decompress(table.read_bytes()) == gzip.decompress(good)
    history = History.load(pytester.path / "hist")
    assert len(history.runs) == 2
    assert history.warnings == []


def _status(head: dict[str, Any], text: str) -> None:
    for columns in head["results"].values():
        columns["status"] = text


def _details(details: dict[str, Any], name: str, text: str) -> None:
    for columns in details["details"].values():
        columns[name] = text


TAMPERED_HEADS = {
    "status letter": (
        lambda h: _status(h, "PXP"),
        "field 'results.*.status' is not a string of 3 status letters*",
    ),
    "repeat a string": (
        lambda h: h["settings"].update(repeat="3"),
        "field 'settings.repeat' is not a whole number*",
    ),
    "repeat 10**9": (
        lambda h: h["settings"].update(repeat=10**9),
        "field 'settings.repeat' is not a whole number*",
    ),
    "integer commit": (
        lambda h: h.update(git={"commit": 12345678, "branch": None}),
        "field 'git.commit' must be a string or null",
    ),
    "forged seq": (lambda h: h.update(seq="9"), "field 'seq' is not a whole number*"),
}


@pytest.mark.parametrize("kind", TAMPERED_HEADS)
def test_a_tampered_run_is_skipped_with_one_warning(pytester: pytest.Pytester, kind: str) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    run(pytester, MODEL, "--llm-history=hist")
    edit, message = TAMPERED_HEADS[kind]
    _rewrite(_runs(pytester)[1], edit)
    result = run(
        pytester, MODEL, "--llm-history=hist", "--llm-baseline=history:last", "--llm-report=r.json"
    )
    assert result.ret == 0, result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    first = History.load(pytester.path / "hist").runs[0]
    assert f"(run {first.run_id}" in report["comparison"]["baseline"]["path"]
    history = History.load(pytester.path / "hist")
    assert len(history.runs) == 2
    assert fnmatch(history.warnings[0], f"skipped: *{_runs(pytester)[1].name}: {message}")


@pytest.mark.parametrize(
    ("column", "text"), [("score", "1 abc 1"), ("score", "1 nan 1"), ("pass_count", "1 x 1")]
)
def test_a_tampered_column_is_left_out_with_a_warning(
    pytester: pytest.Pytester, column: str, text: str
) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    _rewrite(_runs(pytester)[0], edit_details=lambda d: _details(d, column, text))
    result = run(
        pytester, MODEL, "--llm-history=hist", "--llm-baseline=history:last", "--llm-report=r.json"
    )
    assert result.ret == 0, result.stdout.str()
    history = History.load(pytester.path / "hist")
    [model] = history.models()
    assert history.runs[0].column(model, "score") == ["."] * 3
    assert f"details.{model}.{column}' holds a value that is not a number" in history.warnings[0]


def test_a_run_that_would_inflate_into_millions_of_objects_is_skipped(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    run(pytester, MODEL, "--llm-history=hist")
    _rewrite(_runs(pytester)[1], lambda h: h.update(pad=[{}] * (MAX_RUN_SKELETON // 3 + 1)))
    assert len(_runs(pytester)[1].read_bytes()) < 20_000
    history = History.load(pytester.path / "hist")
    assert len(history.runs) == 1
    assert "bytes of JSON outside its strings; a run has at most" in history.warnings[0]


def test_history_files_get_the_mode_the_umask_allows(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist", "--llm-report=r.json")
    [table] = (pytester.path / "hist" / "tables").iterdir()
    modes = {
        stat.S_IMODE(p.stat().st_mode) for p in (*_runs(pytester), table, pytester.path / "r.json")
    }
    assert modes == {file_mode()}


def test_the_history_pages_python_block_reads_a_recorded_history(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.docs_examples import REPO, extract_blocks

    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=.llmeval_history")
    run(pytester, MODEL, "--llm-history=.llmeval_history")
    [block] = [
        b
        for b in extract_blocks((REPO / "docs" / "history.md").read_text(encoding="utf-8"))
        if b.lang == "python"
    ]
    capsys.readouterr()
    exec(
        compile(block.text, "docs/history.md", "exec"), {}
    )  # the page's own code, as a reader would paste it
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 6  # 2 runs x 3 samples: both lines of each run file read
    assert [line.split()[0] for line in printed] == ["1"] * 3 + ["2"] * 3
    assert all(line.split()[-2:] == ["P", "1"] for line in printed)
