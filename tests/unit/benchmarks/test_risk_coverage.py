"""benchmarks/risk_coverage.py: its exact binomial bound against scipy, and its missing-data line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def risk_coverage() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(
            "risk_coverage", BENCHMARKS / "risk_coverage.py"
        )
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["risk_coverage"] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.mark.parametrize(
    ("k", "n", "confidence"),
    [(0, 10, 0.9), (3, 50, 0.8), (8, 160, 0.8), (20, 200, 0.95), (1, 400, 0.5)],
)
def test_binomial_upper_bound_is_clopper_pearson(k: int, n: int, confidence: float) -> None:
    stats = pytest.importorskip("scipy.stats")
    bound = risk_coverage().binomial_upper(k, n, confidence)
    assert bound == pytest.approx(stats.beta.ppf(confidence, k + 1, n - k), abs=1e-9)


def test_binomial_upper_bound_edges() -> None:
    module = risk_coverage()
    assert module.binomial_upper(0, 0, 0.8) == 1.0
    assert module.binomial_upper(5, 5, 0.8) == 1.0


def test_missing_data_is_one_line(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "risk_coverage.py"), "--data", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(
        f"risk_coverage.py: {tmp_path}/nowhere/financebench_dev.jsonl not found. "
    )


def _rows(module: ModuleType) -> list:  # type: ignore[type-arg]
    row = module.Row
    fb = [row("financebench", f"financebench:q{i}", True, False, {}, "", []) for i in range(12)]
    other = [row("openqa", f"openqa:o{i}", True, False, {}, "", []) for i in range(6)]
    return fb + other


def test_grouped_folds_hold_out_a_company_or_a_type_together() -> None:
    module = risk_coverage()
    rows = _rows(module)
    questions = {f"q{i}": {"company": f"c{i % 4}", "type": f"t{i % 3}"} for i in range(12)}
    by_company, n = module.grouped_folds(rows, "company", 3, questions)
    assert n == 3
    for company in {q["company"] for q in questions.values()}:
        folds = {by_company[k] for k in range(12) if questions[f"q{k}"]["company"] == company}
        assert len(folds) == 1  # every question of a company in one fold
    by_type, n = module.grouped_folds(rows, "type", 5, questions)
    assert n == 3  # one fold per question type
    assert {by_type[k] for k in range(12) if questions[f"q{k}"]["type"] == "t1"} == {1}
    assert set(by_type[12:]) <= {0, 1, 2}  # the other sets' questions dealt into as many folds
    by_question, n = module.grouped_folds(rows, "question", 5, questions)
    assert (by_question, n) == (module.folds_of(rows, 5), 5)


def test_fold_seed_reshuffles_questions_and_keeps_each_question_in_one_fold() -> None:
    module = risk_coverage()
    rows = [
        module.Row("openqa", f"openqa:q{q}", True, False, {}, "", [])
        for q in range(40)
        for _ in range(3)
    ]
    by_seed = {seed: module.folds_of(rows, 5, seed) for seed in (13, 1, 2)}
    for folds in by_seed.values():
        per_question: dict[str, set[int]] = {}
        for row, fold in zip(rows, folds, strict=True):
            per_question.setdefault(row.group, set()).add(fold)
        assert all(len(f) == 1 for f in per_question.values())
        assert sorted(set(folds)) == [0, 1, 2, 3, 4]
    assert module.folds_of(rows, 5) == by_seed[13]  # the default shuffle
    assert by_seed[1] != by_seed[13]
    assert by_seed[2] != by_seed[13]
