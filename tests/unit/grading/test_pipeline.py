"""The grading pipeline on its own: built from (config, settings), no session, stages as plain functions."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import pytest_llmeval
from pytest_llmeval.conversation.runner import grade_conversation
from pytest_llmeval.errors import FatalModelError
from pytest_llmeval.grading import GradingPipeline
from pytest_llmeval.grading.run_budget import Budget
from pytest_llmeval.models.base import Answer
from pytest_llmeval.options import Settings
from pytest_llmeval.rubric import Component, GradeResult
from pytest_llmeval.sample import Sample
from pytest_llmeval.schema import normalise
from tests.fake_openai import FakeOpenAIServer

PACKAGE = Path(pytest_llmeval.__file__).parent


class Hooks:
    """The three ``pytest_llmeval_*`` hooks the pipeline calls, answering as a conftest would."""

    def __init__(self, generated: Any = None) -> None:
        self.generated = generated

    def pytest_llmeval_graders(self, config: Any) -> list[Any]:
        return []

    def pytest_llmeval_components(self, config: Any) -> list[Any]:
        return []

    def pytest_llmeval_generate(self, sample: Sample, config: Any) -> Any:
        return self.generated


def fake_config(tmp_path: Path, generated: Any = None) -> Any:
    return SimpleNamespace(hook=Hooks(generated), rootpath=tmp_path)


def sample(response: str | None = "Net sales were $394,328 million.") -> Sample:
    question = "What were net sales in FY2022?"
    return Sample(
        id="net-sales",
        path="suite_eval.jsonl",
        line=1,
        question=question,
        expected="$394,328 million",
        messages=({"role": "user", "content": question},),
        response=response,
    )


def test_a_pipeline_needs_no_session_to_answer_and_grade(tmp_path: Path) -> None:
    pipeline = GradingPipeline(fake_config(tmp_path), Settings.defaults())
    answer = pipeline.answer(sample())
    assert (answer.text, answer.source) == ("Net sales were $394,328 million.", "response")
    grade = pipeline.grade_sample(sample())
    assert grade.tier == "pass"
    assert grade.record["accuracy_grader"] == "numeric"
    assert pipeline.empty_scores() == {
        "overall": None,
        **dict.fromkeys(pipeline.components.names()),
    }


def test_the_generate_hook_answers_a_sample_without_response(tmp_path: Path) -> None:
    pipeline = GradingPipeline(
        fake_config(tmp_path, generated="$394.3 billion"), Settings.defaults()
    )
    answer = pipeline.answer(sample(response=None))
    assert (answer.text, answer.source) == ("$394.3 billion", "hook")


def test_no_answer_at_all_skips(tmp_path: Path) -> None:
    pipeline = GradingPipeline(fake_config(tmp_path), Settings.defaults())
    with pytest.raises(pytest.skip.Exception, match="no answer for sample 'net-sales'"):
        pipeline.answer(sample(response=None))


def test_a_fatal_model_error_tells_on_stop_then_raises(
    tmp_path: Path, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_openai.known_models = {"llama3:8b"}
    stops: list[str] = []
    settings = Settings.defaults(
        model="gpt-typo", base_url=fake_openai.url, cache_dir=str(tmp_path / "cache")
    )
    pipeline = GradingPipeline(fake_config(tmp_path), settings, on_stop=stops.append)
    try:
        with pytest.raises(FatalModelError, match="gpt-typo"):
            pipeline.grade_sample(sample(response=None))
    finally:
        for service in pipeline.answers.services():
            service.close()
    assert len(stops) == 1
    assert stops[0].startswith("llmeval: stopping the run: ")
    assert "gpt-typo" in stops[0]


def conversation_sample() -> Sample:
    record = {
        "id": "vat-chat",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Which VAT rate applies?"},
            {"role": "assistant", "content": "What do you sell?", "response": "What do you sell?"},
            {"role": "user", "content": "Food in a shop."},
            {"role": "assistant", "content": "15 percent.", "response": "15 percent."},
        ],
        "eval_criteria": {"accuracy": "exact", "conversation": {"aggregate": "min"}},
    }
    return normalise(record, path="chat_eval.jsonl", line=1, defaults={})


def test_a_conversation_runs_on_the_stage_functions_it_is_given() -> None:
    asked: list[list[dict[str, Any]]] = []
    replies = iter(["Goods or food?", "15 percent."])

    def answer(turn: Sample) -> Answer:
        asked.append(list(turn.messages))
        return Answer(text=next(replies), source="test")

    def grade(turn: Sample, reply: Answer) -> GradeResult:
        score = 1.0 if reply.text == turn.expected else 0.4
        component = Component("accuracy", score, 1.0, f"{reply.text!r} vs {turn.expected!r}")
        tier = "pass" if score == 1.0 else "fail"
        return GradeResult(
            score, tier, {"accuracy": component}, (0.8, 0.6), reply.text, names=("accuracy",)
        )

    grade_ = grade_conversation(conversation_sample(), answer=answer, grade=grade)
    # the second turn is asked with the model's own first reply (context "model")
    assert asked[1][-2:] == [
        {"role": "assistant", "content": "Goods or food?"},
        {"role": "user", "content": "Food in a shop."},
    ]
    assert [t["tier"] for t in grade_.turns] == ["fail", "pass"]
    assert (grade_.overall, grade_.tier) == (0.4, "fail")  # aggregate "min": the worst turn


def test_the_budget_shares_one_state_file_and_removes_it_at_the_end(tmp_path: Path) -> None:
    budget = Budget(Settings.defaults(budget_tokens=100))
    path = budget.shared_file()
    assert path is not None
    assert budget.shared_file() == path
    assert budget.run_budget is not None
    budget.run_budget.spend(30, None)
    worker = Budget(Settings.defaults(budget_tokens=100), {"llmeval_budget_file": path})
    assert worker.run_budget is not None
    assert worker.run_budget.spent()["tokens"] == 30  # the worker charges the controller's file
    note = budget.finish()
    assert note is not None
    assert note["tokens"] == 100
    assert note["spent"]["tokens"] == 30
    assert not Path(path).exists()


def test_without_a_cap_there_is_no_budget_to_note() -> None:
    budget = Budget(Settings.defaults())
    assert (budget.shared_file(), budget.run_budget, budget.finish()) == (None, None, None)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports: top level, inside functions and under ``TYPE_CHECKING``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


@pytest.mark.parametrize(
    "path",
    [
        *sorted((PACKAGE / "grading").glob("*.py")),
        *sorted((PACKAGE / "conversation").glob("*.py")),
        PACKAGE / "regression" / "repeats.py",
        PACKAGE / "collector.py",
        PACKAGE / "fixtures.py",
    ],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_grading_never_reaches_back_into_the_session(path: Path) -> None:
    assert not {
        m
        for m in _imports(path)
        if m == "pytest_llmeval.session" or m.startswith("pytest_llmeval.session.")
    }


def test_the_session_holds_no_grading_method() -> None:
    from pytest_llmeval.session import LLMEvalSession

    moved = {
        "answers",
        "answers_for",
        "answer_for",
        "judge",
        "rubric",
        "grade_item",
        "grade_once",
        "prefetch",
        "check_budget",
        "check_batch",
        "run_budget",
        "shared_budget_file",
        "_batch_judge",
        "_make_rubric",
    }
    assert moved & set(dir(LLMEvalSession)) == set()
