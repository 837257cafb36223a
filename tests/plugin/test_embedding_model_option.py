"""``llm_embedding_model``: a wrong name is a one-line usage error; the model loads only when needed."""

from __future__ import annotations

import pytest

from tests.conftest import write_suite
from tests.extras import needs

FREE_TEXT = {
    "question": "What is VAT?",
    "expected": "A tax on the sale of goods and services.",
    "eval_criteria": {"accuracy": "semantic_similarity"},
}


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("/nonexistent", "embedding model '/nonexistent': no such directory (/nonexistent)"),
        (
            "no-such-org/no-such-model",
            "not in the Hugging Face cache (*looked for no-such-org/no-such-model)*",
        ),
    ],
)
def test_unknown_embedding_model_is_one_usage_error_line(
    pytester: pytest.Pytester, model: str, says: str
) -> None:
    write_suite(pytester, [{"id": "a", **FREE_TEXT, "response": "A tax on sales."}])
    result = pytester.runpytest("-o", f"llm_embedding_model={model}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, errors
    result.stderr.fnmatch_lines([f"ERROR: ini llm_embedding_model=*{says}*"])
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "internet" not in output


@needs("semantic")
def test_a_directory_that_is_not_a_model_is_one_usage_error_line(pytester: pytest.Pytester) -> None:
    (pytester.path / "not_a_model").mkdir()
    write_suite(pytester, [{"id": "a", **FREE_TEXT, "response": "A tax on sales."}])
    result = pytester.runpytest("-o", "llm_embedding_model=not_a_model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: embedding model 'not_a_model' cannot be loaded: *llm_embedding_model*"]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


SYS_MODULES_PROBE = """
import sys

def pytest_terminal_summary(terminalreporter):
    loaded = "sentence_transformers" in sys.modules
    terminalreporter.write_line(f"embedding model loaded: {loaded}")
"""


def test_skipped_samples_do_not_load_the_embedding_model(pytester: pytest.Pytester) -> None:
    # No response, no hook, no --llm-model: the only sample is skipped, so nothing needs embeddings.
    write_suite(pytester, [{"id": "a", **FREE_TEXT}])
    pytester.makeconftest(SYS_MODULES_PROBE)
    result = pytester.runpytest_subprocess("-p", "no:xdist")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["embedding model loaded: False"])


@needs("semantic")
def test_hook_answers_still_load_the_model_when_grading(pytester: pytest.Pytester) -> None:
    # The generate hook answers at setup, after the up-front batch: the model loads lazily then.
    write_suite(pytester, [{"id": "a", **FREE_TEXT}])
    pytester.makeconftest(
        SYS_MODULES_PROBE
        + "\ndef pytest_llmeval_generate(sample, config):\n    return 'VAT is a tax on the sale of goods and services.'\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:xdist", "--llm-report=r.json")
    result.stdout.fnmatch_lines(["embedding model loaded: True"])
    import json

    record = json.loads((pytester.path / "r.json").read_text())["sample_results"][0]
    assert record["accuracy_grader"] == "semantic_similarity"
    assert record["scores"]["accuracy"] is not None  # a cosine was computed
