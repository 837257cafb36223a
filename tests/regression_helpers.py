"""Shared by the regression tests: a gold suite of exact-match samples and a ``python:`` model
whose wrong answers are chosen per run by a JSON file (so two runs can differ by known ids)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_suite

EXACT = {"accuracy": "exact", "weights": {"length": 0}}

# answers "wrong" for the ids listed in wrong_<model>.json (or wrong.json), "A<i>" otherwise;
# a list of answers for one id is consumed one call at a time (right, wrong, right ...)
MODEL_MODULE = """
import json, pathlib, threading
_HERE = pathlib.Path(__file__).parent
_lock = threading.Lock()
_calls = {}

def _answer(sample, name):
    path = _HERE / f"wrong_{name}.json"
    if not path.exists():
        path = _HERE / "wrong.json"
    table = json.loads(path.read_text()) if path.exists() else {}
    plan = table.get(sample["id"])
    right = sample["expected"]
    if isinstance(plan, list):
        with _lock:
            n = _calls.get((name, sample["id"]), 0)
            _calls[(name, sample["id"])] = n + 1
        return right if plan[n % len(plan)] else "wrong"
    return "wrong" if plan else right

def answer(sample):
    return _answer(sample, "a")

def answer_b(sample):
    return _answer(sample, "b")
"""


def ids(n: int) -> list[str]:
    return [f"s{i:02d}" for i in range(n)]


def make_suite(pytester: pytest.Pytester, n: int = 60, name: str = "qa_eval.jsonl") -> Path:
    pytester.makepyfile(llm_app=MODEL_MODULE)
    records = [
        {
            "id": sid,
            "question": f"Question {sid}?",
            "expected": f"A{sid}",
            "eval_criteria": EXACT,
            "metadata": {"task": "qa" if i % 2 else "math"},
        }
        for i, sid in enumerate(ids(n))
    ]
    return write_suite(pytester, records, name)


def set_wrong(
    pytester: pytest.Pytester, wrong: Iterable[str] | dict[str, Any], model: str = ""
) -> None:
    table = dict(wrong) if isinstance(wrong, dict) else dict.fromkeys(wrong, True)
    name = f"wrong_{model}.json" if model else "wrong.json"
    (pytester.path / name).write_text(json.dumps(table), encoding="utf-8")


MODEL = "--llm-model=python:llm_app:answer"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # in-process runs restore sys.modules, so the python: model module is imported fresh each run
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def load(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]
