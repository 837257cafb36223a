"""``benchmarks/eval_*.py`` without ``../shared``: one line naming the missing file and where the
data lives, no traceback."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def shared_data() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shared_data", BENCHMARKS / "shared_data.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("script", "args", "missing"),
    [
        (
            "eval_answer_correctness.py",
            ["{tmp}/nowhere", "--no-cv"],
            "{tmp}/nowhere/financebench_dev.jsonl",
        ),
        ("eval_numeric.py", ["{tmp}/numeric_dev.jsonl"], "{tmp}/numeric_dev.jsonl"),
        (
            "eval_numeric.py",
            ["--financebench", "{tmp}", "--cases", "{tmp}/none", "--holdout", "{tmp}/none"],
            "{tmp}/financebench_dev.jsonl",
        ),
    ],
)
def test_missing_data_is_one_line(
    tmp_path: Path, script: str, args: list[str], missing: str
) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *(a.format(tmp=tmp_path) for a in args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"{script}: {missing.format(tmp=tmp_path)} not found. ")
    assert "../shared/data beside the checkout" in lines[0]


def test_data_file_accepts_a_file_or_its_folder(tmp_path: Path) -> None:
    module = shared_data()
    (tmp_path / "financebench_dev.jsonl").write_text(
        '{"id": "q/1"}\n\n{"id": "q/2"}\n', encoding="utf-8"
    )
    path = module.data_file(tmp_path, "financebench_dev.jsonl")
    assert module.data_file(path, "financebench_dev.jsonl") == path
    assert module.read_jsonl(path) == [{"id": "q/1"}, {"id": "q/2"}]


def test_a_bad_data_line_is_located(tmp_path: Path) -> None:
    module = shared_data()
    path = tmp_path / "numeric_dev.jsonl"
    path.write_text('{"id": 1}\n{oops\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"numeric_dev\.jsonl:2: not JSON: "):
        module.read_jsonl(path)
