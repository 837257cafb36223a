"""Arbitrary JSON in every gold field: never an INTERNALERROR, never a lost sample."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pytest_llmeval.schema import validate_file_config

BASE: dict[str, Any] = {
    "question": "What is 2 + 2? Cite [1].",
    "expected": "4",
    "response": "It is 4 [1].",
    "contexts": ["2 + 2 = 4"],
    "retrieved": ["a", "b"],
    "relevant_ids": ["a"],
    "gold_claims": ["2 + 2 is 4"],
    "metadata": {
        "domain": "math",
        "task": "qa",
        "source_ids": ["a"],
        "sources": {"a": "Book"},
        "locale": "en",
        "split": "test",
    },
    "eval_criteria": {
        "accuracy": "exact",
        "must_include": ["4"],
        "citation_required": True,
        "weights": {"length": 0},
    },
}
# Every field the code reads, top level and nested.
FIELDS = [
    "id",
    "question",
    "messages",
    "expected",
    "expected_output",
    "response",
    "contexts",
    "retrieved",
    "relevant_ids",
    "gold_claims",
    "metadata",
    "eval_criteria",
    "metadata.domain",
    "metadata.task",
    "metadata.source_ids",
    "metadata.sources",
    "metadata.locale",
    *(
        f"eval_criteria.{key}"
        for key in (
            "accuracy",
            "must_include",
            "citation_required",
            "citation_patterns",
            "max_tokens",
            "numeric",
            "extractive",
            "min_similarity",
            "weights",
            "tiers",
            "min_f1",
            "min_precision",
            "min_recall",
            "min_coverage",
            "coverage_idf",
            "length_bands",
            "k",
            "min_ratio",
        )
    ),
    "eval_criteria.weights.accuracy",
    "eval_criteria.length_bands.ideal",
    "eval_criteria.length_bands.ok_score",
    "eval_criteria.numeric.tolerance",
    "eval_criteria.numeric.match",
    "eval_criteria.extractive.gold_targets",
    "eval_criteria.extractive.timeout",
]
# Graders that stay offline and fast when hypothesis picks them by name.
GRADERS = st.sampled_from(["exact", "fuzzy", "numeric", "no_such_grader"])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | GRADERS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(FIELDS), children, max_size=3)
    ),
    max_leaves=6,
)


def _with(record: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    record = json.loads(json.dumps(record))
    target = record
    *parents, last = path.split(".")
    for key in parents:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[last] = value
    return record


@settings(
    max_examples=int(__import__("os").environ.get("FUZZ_N", "5")),
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    changes=st.lists(st.tuples(st.sampled_from(FIELDS), json_values), min_size=1, max_size=12),
    header=st.none()
    | json_values
    | st.dictionaries(
        st.sampled_from(FIELDS[-30:]).map(lambda f: f.split(".")[-1]), json_values, max_size=2
    ),
)
def test_arbitrary_json_in_gold_fields_never_stops_or_loses_a_sample(
    pytester: pytest.Pytester, changes: list[tuple[str, Any]], header: Any
) -> None:
    lines = [] if header is None else [json.dumps({"llmeval_file": header})]
    lines += [
        json.dumps(_with({"id": f"s{i}", **BASE}, path, value))
        for i, (path, value) in enumerate(changes)
    ]
    (pytester.path / "fuzz_eval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--llm-report=report.json")
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), output[-3000:]
    outcomes = result.parseoutcomes()
    header_error = header is not None and bool(validate_file_config(header)[1])
    graded = sum(outcomes.get(k, 0) for k in ("passed", "failed", "errors", "error", "skipped"))
    assert graded == len(changes) + header_error, output[-3000:]
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert len(report["sample_results"]) == graded
    # Every error is a located message, not a traceback.
    assert "Traceback" not in output, output[-3000:]
    assert "\nE   " not in output, output[-3000:]
