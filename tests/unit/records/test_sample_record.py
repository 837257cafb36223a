"""SampleRecord: the one per-test record, and its builtins form for xdist and shard reports."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.records.sample_record import SampleRecord

GRADED = {
    "kind": "gold",
    "nodeid": "qa_eval.jsonl::q1",
    "sample_id": "q1",
    "file": "qa_eval.jsonl",
    "line": 3,
    "question": "Capital of Norway?",
    "expected": "Oslo",
    "predicted": "Oslo",
    "task": "-",
    "domain": "geo",
    "status": "pass",
    "scores": {"overall": 1.0, "accuracy": 1.0},
    "reason": "",
    "group": "g1",
    "model": None,
    "overall": 1.0,
    "tier": "pass",
    "components": {
        "accuracy": {
            "score": 1.0,
            "weight": 1.0,
            "reason": "exact",
            "metric": "exact",
            "details": {},
        }
    },
    "accuracy_grader": "exact",
    "refusal": False,
    "needs_review": False,
    "length_tokens": 1,
    "retrieval_metrics": None,
    "accuracy_fallback": None,
    "review_between": None,
    "review_reason": None,
    "reverified": False,
    "matched_expected": None,
    "polite": True,
    "answer_sha256": "ab" * 32,
    "repeats": [{"status": "pass", "score": 1.0}],
    "pass_count": 1,
    "counted_repeats": 1,
    "repeat_errors": 0,
    "stability": "stable_pass",
    "pass_at_k": True,
    "pass_all_k": True,
}
ERROR = {
    "kind": "gold",
    "nodeid": "qa_eval.jsonl::q2",
    "sample_id": "q2",
    "file": "qa_eval.jsonl",
    "line": 4,
    "question": "?",
    "expected": "x",
    "predicted": None,
    "task": "-",
    "domain": "-",
    "status": "error",
    "scores": {"overall": None, "accuracy": None},
    "reason": "model down",
    "model": "m",
}
HELPER = {
    "kind": "helper",
    "nodeid": "test_x.py::test_a",
    "sample_id": "test_x.py::test_a",
    "file": "test_x.py",
    "question": None,
    "expected": None,
    "predicted": None,
    "task": "assertions",
    "domain": "-",
    "status": "passed",
    "scores": {"overall": 0.5},
    "reason": "",
    "metrics": {"must_include": 0.5},
    "earlier_attempts": ["failed"],
}


@pytest.mark.parametrize("data", [GRADED, ERROR, HELPER], ids=["graded", "error", "helper"])
def test_builtins_round_trip_keeps_every_key_in_order(data: dict) -> None:
    record = SampleRecord.from_json(json.loads(json.dumps(data)))
    assert record.to_json() == data
    assert list(record.to_json()) == list(data)
    assert dict(record) == data  # the mapping view is the builtins form


def test_unknown_keys_stay_in_extra_and_read_through_the_mapping() -> None:
    record = SampleRecord.from_json(GRADED)
    assert record.extra == {"polite": True}
    assert record["polite"] is True
    assert record.tier == "pass"
    assert record.graded


def test_absent_keys_are_absent_from_the_mapping() -> None:
    record = SampleRecord.from_json(ERROR)
    assert "components" not in record
    assert record.get("components") is None
    assert "accuracy_grader" not in record
    assert "repeats" not in record
    with pytest.raises(KeyError):
        record["tier"]
    helper = SampleRecord.from_json(HELPER)
    assert "line" not in helper
    assert "model" not in helper
    assert helper["metrics"] == {"must_include": 0.5}


def test_changes_make_a_new_record() -> None:
    record = SampleRecord.from_json(ERROR)
    labelled = record.replace(people_label={"label": "correct"})
    assert record.people_label is None
    assert labelled.to_json()["people_label"] == {"label": "correct"}
    assert not hasattr(record, "__dict__")  # slots: no per-record dict beside the fields
