"""Retrieval and citation components in gold suites: summary line, report, weight-0 retrieval."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_suite

BASE = {
    "question": "Hva er merverdiavgift?",
    "expected": "En avgift på omsetning",
    "response": "En avgift på omsetning",
}
EXACT = {"accuracy": "exact", "weights": {"length": 0}}


def test_retrieval_component_is_reported_but_not_scored_by_default(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            # f = [1, 0, 1, 1, 0], |R| = 3: harmonic nDCG = (1 + 1/3 + 1/4) / (1 + 1/2 + 1/3) = 19/22
            {
                "id": "five",
                **BASE,
                "retrieved": ["a", "x", "b", "c", "y"],
                "relevant_ids": ["a", "b", "c"],
                "eval_criteria": EXACT,
            },
            # relevant ids from metadata.source_ids; one of two found at rank 2: nDCG = (1/2) / (1 + 1/2) = 1/3
            {
                "id": "meta",
                **BASE,
                "retrieved": ["x", "mval-1-1"],
                "metadata": {"source_ids": ["mval-1-1", "mval-2-1"]},
                "eval_criteria": EXACT,
            },
            {"id": "none", **BASE, "eval_criteria": EXACT},
        ],
    )
    result = pytester.runpytest("--llm-report=r.json", *plugin_args)
    result.assert_outcomes(passed=3)  # retrieval has weight 0: accuracy alone decides
    ndcg = (19 / 22 + 1 / 3) / 2
    precision = (3 / 3 + 1 / 2) / 2
    result.stdout.fnmatch_lines(
        [f"retrieval: 2 samples, mean nDCG (harmonic) {ndcg:.3f}, mean precision {precision:.3f}"]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert by_id["five"]["retrieval_metrics"]["ndcg_harmonic"] == pytest.approx(19 / 22)
    assert by_id["five"]["scores"]["retrieval"] == pytest.approx(19 / 22, abs=1e-4)
    assert by_id["five"]["components"]["retrieval"]["weight"] == 0
    assert "retrieval_metrics" not in by_id["none"]
    assert report["aggregate_metrics"]["retrieval"] == pytest.approx(ndcg, abs=1e-4)


def test_retrieval_weight_makes_it_count_and_hook_can_return_retrieved_ids(
    pytester: pytest.Pytester,
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "q",
                "question": "q",
                "expected": "a",
                "relevant_ids": ["d1", "d2"],
                "eval_criteria": {
                    "accuracy": "exact",
                    "weights": {"length": 0, "accuracy": 0.5, "retrieval": 0.5},
                },
            }
        ],
    )
    pytester.makeconftest(
        """
        def pytest_llmeval_generate(sample, config):
            return {"text": "a", "retrieved": ["zz", "yy", "xx"]}
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)  # 0.5 * 1 + 0.5 * 0 = 0.5
    result.stdout.fnmatch_lines(["*retrieval*0.000*0.50*"])


def test_citation_required_scores_presence_and_resolution(pytester: pytest.Pytester) -> None:
    sources = {"mval": "Lov om merverdiavgift (merverdiavgiftsloven)"}
    criteria = {
        "accuracy": "exact",
        "citation_required": True,
        "weights": {"length": 0, "accuracy": 0.5, "citation": 0.5},
    }
    write_suite(
        pytester,
        [
            {
                "id": "cited",
                "question": "q",
                "expected": "a",
                "response": "a [§ 1-1 Lov om merverdiavgift]",
                "metadata": {"sources": sources},
                "eval_criteria": criteria | {"accuracy": "fuzzy"},
            },
            {
                "id": "uncited",
                "question": "q",
                "expected": "a",
                "response": "a",
                "metadata": {"sources": sources},
                "eval_criteria": criteria,
            },
            {
                "id": "invented",
                "question": "q",
                "expected": "a",
                "response": "a [§ 9-9 Lov om digitale tjenester]",
                "metadata": {"sources": sources},
                "eval_criteria": criteria | {"accuracy": "fuzzy"},
            },
        ],
    )
    result = pytester.runpytest("--llm-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    scores = {s["sample_id"]: s["scores"]["citation"] for s in report["sample_results"]}
    assert scores["cited"] == 1.0
    assert scores["uncited"] == 0.0
    assert scores["invented"] == 0.0
    result.stdout.fnmatch_lines(["*citation*0.000*0.50*no citation found, citations are required*"])
