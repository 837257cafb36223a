"""claims_f1 / semantic_similarity / sentence_coverage inside the plugin: as the rubric's
accuracy grader in a gold suite, and as assert_* helpers in hand-written tests."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_suite
from tests.extras import needs
from tests.unit.metrics.freetext.test_claims import GOLD, GOLD_CLAIMS, QUESTION, RESPONSE

pytestmark = needs("semantic")


@pytest.fixture(autouse=True)
def model_loaded_outside() -> None:
    # In-process pytester runs restore sys.modules afterwards; numpy/torch cannot be imported
    # twice in one process, so they (and the model) must be loaded before the inner run.
    from pytest_llmeval.metrics.freetext.semantic import encode

    encode(["warm up"])


def test_claims_f1_and_semantic_similarity_as_accuracy_graders(pytester: pytest.Pytester) -> None:
    claims = {"accuracy": "claims_f1", "min_f1": 0.8, "weights": {"accuracy": 1, "length": 0}}
    similar = {
        "accuracy": "semantic_similarity",
        "min_similarity": 0.75,
        "weights": {"accuracy": 1, "length": 0},
    }
    write_suite(
        pytester,
        [
            {
                "id": "claims-ok",
                "question": QUESTION,
                "expected": GOLD,
                "response": RESPONSE,
                "eval_criteria": claims,
            },
            {
                "id": "claims-precomputed",
                "question": QUESTION,
                "expected": GOLD,
                "gold_claims": GOLD_CLAIMS[:1],
                "response": "A Rule 10b5-1 trading plan is a written document.",
                "eval_criteria": claims,
            },
            {
                "id": "claims-wrong",
                "question": "How did revenue change in 2022?",
                "expected": "Revenue grew 5% to $10.2 billion in 2022.",
                "response": "Revenue grew 7% to $10.2 billion in 2022.",
                "eval_criteria": claims,
            },
            {
                "id": "similar",
                "question": "How did net income change in 2023?",
                "expected": "In 2023 net income increased by 12%.",
                "response": "Net income rose 12% in 2023.",
                "eval_criteria": similar,
            },
        ],
    )
    result = pytester.runpytest("--llm-report=r.json")
    assert result.parseoutcomes() == {"passed": 3, "failed": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(["*accuracy graders: claims_f1 3, semantic_similarity 1*"])
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert set(by_id) == {"claims-ok", "claims-precomputed", "claims-wrong", "similar"}
    reason = by_id["claims-wrong"]["components"]["accuracy"]["reason"]
    assert "missing: 'Revenue grew 5% to $10.2 billion in 2022' (closest #1 scores" in reason
    assert "but numbers disagree" in reason
    assert by_id["claims-precomputed"]["status"] == "pass"


def test_assert_helpers_in_hand_written_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_answers="""
        from pytest_llmeval.metrics.freetext.claims import assert_claims_f1
        from pytest_llmeval.metrics.freetext.coverage import assert_sentence_coverage
        from pytest_llmeval.metrics.freetext.semantic import assert_semantic_similarity

        GOLD = "Apple reported revenue of $394.3 billion in fiscal 2022. Gross margin was 43.3%."

        def test_claims():
            assert_claims_f1("In fiscal 2022 Apple's revenue was $394.3 billion, and gross margin was 43.3%.", GOLD)

        def test_similarity():
            assert_semantic_similarity("Net income rose 12% in 2023.", "In 2023 net income increased by 12%.")

        def test_coverage_misses_a_sentence():
            assert_sentence_coverage("Apple reported revenue of $394.3 billion in fiscal 2022.", GOLD, threshold=0.7)
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*sentence_coverage failed*worst covered: 'Gross margin was 43.3%.'*"]
    )
