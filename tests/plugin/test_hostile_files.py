"""Files in the way: FIFOs as inputs, unwritable or full output paths, lone surrogates,
and the modes of the files a run writes."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXACT, write_suite
from tests.disk_helpers import tmpfs
from tests.extras import needs
from tests.fake_openai import FakeOpenAIServer, Reply
from tests.plugin.test_models_plugin import model_args

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def passing_suite(pytester: pytest.Pytester, n: int = 3) -> Path:
    records = [
        {
            "id": f"s{i}",
            "question": f"q{i}",
            "expected": "Paris",
            "response": "Paris",
            "eval_criteria": EXACT,
        }
        for i in range(n)
    ]
    return write_suite(pytester, records)


# -- FIFOs as inputs -----------------------------------------------------------------------


@needs_fifo
@pytest.mark.parametrize(
    ("flag", "name"), [("--llm-baseline", "pipe.json"), ("--llm-review-import", "pipe.csv")]
)
def test_a_fifo_given_as_an_input_file_is_refused_at_once(
    pytester: pytest.Pytester, flag: str, name: str
) -> None:
    passing_suite(pytester)
    os.mkfifo(pytester.path / name)
    result = pytester.runpytest_subprocess(
        f"{flag}={name}", timeout=60
    )  # opening a FIFO to read blocks until a writer comes
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{flag}*{name}*FIFO*not a regular file*"])


@needs_fifo
def test_a_fifo_as_a_predictions_file_is_refused_at_once(pytester: pytest.Pytester) -> None:
    passing_suite(pytester)
    os.mkfifo(pytester.path / "preds.jsonl")
    result = pytester.runpytest_subprocess("--llm-model=file:preds.jsonl", timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*preds.jsonl*FIFO*not a regular file*"])


@needs_fifo
def test_a_fifo_named_by_the_gold_marker_is_one_collection_error(pytester: pytest.Pytester) -> None:
    os.mkfifo(pytester.path / "pipe.jsonl")
    pytester.makepyfile(
        test_marked="""
        import pytest

        @pytest.mark.llmeval_gold("pipe.jsonl")
        def test_sample(llm_sample):
            pass
        """
    )
    result = pytester.runpytest_subprocess(timeout=60)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*llmeval_gold('pipe.jsonl')*FIFO*not a regular file*"])
    assert "Traceback" not in result.stdout.str()


# -- unwritable output paths -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "name"),
    [
        ("--llm-report", "r.json"),
        pytest.param("--llm-html", "r.html", marks=needs("html")),
        ("--llm-review-export", "r.csv"),
    ],
)
def test_an_output_under_a_regular_file_is_a_usage_error_before_anything_runs(
    pytester: pytest.Pytester, flag: str, name: str
) -> None:
    passing_suite(pytester)
    (pytester.path / "blocker").write_text("a file, not a folder\n")
    result = pytester.runpytest_subprocess(f"{flag}=blocker/{name}", timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # before the run, not a traceback after it
    result.stderr.fnmatch_lines([f"*{flag}=blocker/{name}: cannot write in *blocker*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@needs_fifo
def test_an_output_path_that_is_a_fifo_is_a_usage_error(pytester: pytest.Pytester) -> None:
    passing_suite(pytester)
    os.mkfifo(pytester.path / "r.json")
    result = pytester.runpytest_subprocess("--llm-report=r.json", timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-report=r.json*FIFO*not a regular file*"])


def test_an_output_on_a_read_only_filesystem_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    passing_suite(pytester)
    with tmpfs(tmp_path / "ro", read_only=True) as disk:
        result = pytester.runpytest_subprocess(f"--llm-report={disk}/r.json", timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llm-report=*r.json: cannot write in *Read-only file system*"])


BREAK_REPORT = """
import pytest_llmeval.report.json_report as json_report

def full(path, report):
    raise OSError(28, "No space left on device")

json_report.write_report = full
"""


@needs("html")
def test_a_report_that_cannot_be_written_stops_no_other_output_and_leaves_no_stale_file(
    pytester: pytest.Pytester,
) -> None:
    passing_suite(pytester)
    (pytester.path / "r.json").write_text('{"stale": "from the run before"}\n')
    pytester.makeconftest(BREAK_REPORT)
    result = pytester.runpytest_subprocess(
        "--llm-report=r.json",
        "--llm-html=r.html",
        "--llm-review-export=review.csv",
        "-o",
        "llm_review_fraction=1",
        timeout=120,
    )
    output = result.stdout.str()
    assert result.ret >= 2  # not 1, which CI reads as a test verdict though every sample passed
    assert "llmeval summary" in output
    assert (
        "--llm-report=r.json not written: No space left on device; the earlier file there was removed"
        in output
    )
    assert "Traceback" not in output
    assert not (pytester.path / "r.json").exists()  # no stale report that looks current
    assert (pytester.path / "r.html").is_file()
    assert (pytester.path / "review.csv").is_file()


@needs("html")
def test_a_full_disk_at_the_end_of_the_run_is_named_and_removes_the_stale_report(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    passing_suite(pytester, n=40)
    with tmpfs(tmp_path / "small", size="64k") as disk:
        (disk / "r.json").write_text('{"stale": "from the run before"}\n')
        with open(
            disk / "filler", "wb"
        ) as handle:  # leave ~6 KB: the probe fits, the report does not
            free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
            handle.write(b"\0" * max(0, free - 6 * 1024))
        result = pytester.runpytest_subprocess(
            f"--llm-report={disk}/r.json", "--llm-html=r.html", timeout=120
        )
        assert not (disk / "r.json").exists()
    output = result.stdout.str()
    assert result.ret >= 2
    assert "not written: No space left on device" in output
    assert "llmeval summary" in output
    assert (pytester.path / "r.html").is_file()


# -- lone surrogates -----------------------------------------------------------------------------


@needs("html")
def test_a_lone_surrogate_in_a_gold_file_reaches_both_reports_replaced(
    pytester: pytest.Pytester,
) -> None:
    line = '{"id": "s0", "question": "q \\ud800", "expected": "Paris", "response": "Paris \\udfff", "eval_criteria": {"accuracy": "fuzzy", "weights": {"length": 0}}}'
    write_suite(pytester, [line])
    result = pytester.runpytest_subprocess("--llm-report=r.json", "--llm-html=r.html", timeout=120)
    assert result.ret == 0, result.stdout.str()  # no UnicodeEncodeError, both reports written
    sample = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["sample_results"][0]
    assert sample["question"] == "q \ufffd"
    assert sample["predicted"] == "Paris \ufffd"
    assert "q \ufffd" in (pytester.path / "r.html").read_text(encoding="utf-8")


def test_a_lone_surrogate_from_the_model_is_graded_and_cached(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "s0",
                "question": "q",
                "expected": "Paris",
                "eval_criteria": {"accuracy": "fuzzy", "weights": {"length": 0}},
            }
        ],
    )
    fake_openai.script(Reply(content="Paris\ud800"))
    result = pytester.runpytest_subprocess(
        *model_args(fake_openai, "--llm-report=r.json", "-p", "no:xdist"), timeout=120
    )
    result.assert_outcomes(passed=1)  # not an error item: the paid answer is graded and cached
    (cached,) = (pytester.path / "llm_cache").rglob("*.json")
    assert json.loads(cached.read_text(encoding="utf-8"))["response"]["text"] == "Paris\ufffd"


# -- file modes follow the umask ---------------------------------------------------------------


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@needs("html")
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.usefixtures("umask_022")
def test_written_files_get_the_mode_the_umask_allows(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester, [{"id": "s0", "question": "Paris", "expected": "Paris", "eval_criteria": EXACT}]
    )
    args = (
        "--llm-report=r.json",
        "--llm-html=r.html",
        "--llm-review-export=review.csv",
        "-o",
        "llm_review_fraction=1",
        "-p",
        "no:xdist",
    )
    pytester.runpytest_subprocess(*model_args(fake_openai, *args), timeout=120).assert_outcomes(
        passed=1
    )
    (cached,) = (pytester.path / "llm_cache").rglob("*.json")
    for path in (
        cached,
        pytester.path / "r.json",
        pytester.path / "r.html",
        pytester.path / "review.csv",
    ):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path  # not 0o600 whatever the umask
