"""llm_reference_metrics: BLEU, ROUGE-1/L and a BERTScore-style F1 beside the verdict, never scored."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from pytest_llmeval.metrics.freetext.reference import reference_metrics
from tests.conftest import write_suite

pytest.importorskip("sacrebleu")
pytest.importorskip("rouge_score")


@pytest.fixture(autouse=True)
def model_loaded_outside() -> None:
    # In-process pytester runs restore sys.modules afterwards; numpy/torch cannot be imported
    # twice in one process, so they (and the model the BERTScore-style F1 uses) load first.
    if importlib.util.find_spec("sentence_transformers") is not None:
        from pytest_llmeval.metrics.freetext.semantic import token_embeddings

        token_embeddings(["warm up"])


DATE_SAMPLE = {
    "id": "ceo-date",
    "question": "What is the date of the CEO's certification?",
    "expected": "2022-10-27",
    "response": "The date of the certification is October 27, 2022.",
    "eval_criteria": {"accuracy": "answer_correctness", "weights": {"length": 0}},
}


def test_a_date_in_another_format_shares_no_bigram_bleu_zero() -> None:
    metrics = reference_metrics("October 27, 2022", "2022-10-27")
    assert metrics["bleu"] == 0.0
    assert metrics["rougeL_f"] < 0.5


def test_identical_texts_score_top_on_every_metric() -> None:
    text = "Revenue increased 8% to $394.3 billion in fiscal 2022."
    metrics = reference_metrics(text, text)
    assert metrics["bleu"] == pytest.approx(100.0)
    assert metrics["rouge1_f"] == metrics["rougeL_f"] == 1.0
    if metrics["bertscore_f1"] is not None:
        assert metrics["bertscore_f1"] == pytest.approx(1.0, abs=1e-3)


def test_rouge_l_rewards_order_rouge_1_does_not() -> None:
    metrics = reference_metrics("Oslo is the capital of Norway.", "The capital of Norway is Oslo.")
    assert metrics["rouge1_f"] == 1.0
    assert metrics["rougeL_f"] < 1.0


def test_date_example_bleu_zero_beside_a_correct_verdict(pytester: pytest.Pytester) -> None:
    # No -n 2 run: its workers would each load the embedding model (seconds) to prove a record
    # field crosses xdist, which test_conftest_component_is_reported_not_scored_in_rubric_summary_and_json[xdist-2]
    # and test_builtins_round_trip_keeps_every_key_in_order prove for every field.
    write_suite(pytester, [DATE_SAMPLE])
    result = pytester.runpytest("-o", "llm_reference_metrics=true", "--llm-report=r.json")
    result.assert_outcomes(passed=1)
    sample = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert sample["status"] == "pass"
    assert sample["scores"]["accuracy"] == 1.0
    assert sample["reference_metrics"]["bleu"] == 0.0
    assert set(sample["reference_metrics"]) >= {"bleu", "rouge1_f", "rougeL_f", "bertscore_f1"}
    assert "reference_metrics" not in sample["scores"]  # informational: never a rubric component
    result.stdout.fnmatch_lines(
        [
            "reference metrics (info, never scored) over 1 samples: BLEU 0.0 | ROUGE-1 * | ROUGE-L * | BERTScore F1 *"
        ]
    )


def test_off_by_default_and_switchable_in_ini_without_changing_the_score(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, [DATE_SAMPLE])
    result = pytester.runpytest("--llm-report=off.json")
    assert "reference metrics" not in result.stdout.str()
    off = json.loads((pytester.path / "off.json").read_text())
    assert "reference_metrics" not in off["sample_results"][0]
    assert off["aggregate_metrics"]["reference_metrics"] is None
    pytester.makeini("[pytest]\nllm_reference_metrics = true\n")
    pytester.runpytest("--llm-report=on.json")
    on = json.loads((pytester.path / "on.json").read_text())
    assert on["aggregate_metrics"]["reference_metrics"]["bleu"] == 0.0
    assert on["sample_results"][0]["scores"] == off["sample_results"][0]["scores"]
    pytester.makeini("[pytest]\nllm_reference_metrics = maybe\n")
    result = pytester.runpytest()
    result.stderr.fnmatch_lines(
        ["ERROR: ini llm_reference_metrics='maybe': must be true or false*"]
    )


def test_metric_libraries_are_imported_only_when_asked_for(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester, [dict(DATE_SAMPLE, eval_criteria={"accuracy": "exact", "weights": {"length": 0}})]
    )
    # The inner process blocks sentence_transformers: BERTScore is then left out (None) and the
    # run does not load torch and the embedding model (half a minute on a loaded machine) to
    # show which of the two other libraries it imported.
    pytester.makeconftest(
        "import sys\n"
        "sys.modules['sentence_transformers'] = None\n"
        "def pytest_unconfigure(config):\n"
        "    print('LOADED', sorted(m for m in ('sacrebleu', 'rouge_score') if m in sys.modules))\n"
    )
    off = pytester.runpytest_subprocess()
    off.stdout.fnmatch_lines(["LOADED []"])
    on = pytester.runpytest_subprocess("-o", "llm_reference_metrics=true")
    on.stdout.fnmatch_lines(["LOADED ['rouge_score', 'sacrebleu']"])


def test_html_report_shows_the_reference_means(pytester: pytest.Pytester) -> None:
    pytest.importorskip("jinja2")
    write_suite(pytester, [DATE_SAMPLE])
    pytester.runpytest("-o", "llm_reference_metrics=true", "--llm-html=r.html").assert_outcomes(
        passed=1
    )
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "Reference metrics (informational, never scored)" in html
    assert re.search(r"<th>bleu</th><td>0(\.0+)?</td>", html)
