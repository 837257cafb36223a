"""Extension hooks of pytest-llmeval. Implement them in a ``conftest.py`` or a plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.components import ComponentScorer
    from pytest_llmeval.registry import Grader
    from pytest_llmeval.sample import Sample


@pytest.hookspec(firstresult=True)
def pytest_llmeval_generate(sample: Sample, config: pytest.Config) -> str | dict[str, Any] | None:
    """Return the answer of your application for ``sample``, or ``None`` to pass.

    Used when no ``--llm-model`` is given and the sample has no pre-recorded
    ``response``. Return a string, or a dict with ``text`` and optionally
    ``contexts`` and ``retrieved`` (ranked document ids)::

        def pytest_llmeval_generate(sample, config):
            return my_rag_app.ask(sample.question)
    """


def pytest_llmeval_graders(config: pytest.Config) -> dict[str, Grader] | None:
    """Return extra accuracy graders by name; gold files select them with ``eval_criteria.accuracy``.

    A grader takes a :class:`pytest_llmeval.registry.GradeContext` and returns a
    :class:`pytest_llmeval.metrics.base.MetricResult`::

        def pytest_llmeval_graders(config):
            return {"starts_with_yes": lambda ctx: MetricResult(
                metric="starts_with_yes", passed=ctx.response.startswith("Yes"),
                score=float(ctx.response.startswith("Yes")), explanation="...")}
    """


def pytest_llmeval_components(config: pytest.Config) -> dict[str, ComponentScorer] | None:
    """Return extra rubric components by name: ``callable(ctx) -> MetricResult | None``.

    ``ctx`` is a :class:`pytest_llmeval.components.ComponentContext` (the grader context plus
    ``retrieved``, ``settings`` and ``results``, the components scored before this one).
    Return ``None`` when the component does not apply to a sample. A component added here
    has weight 0 (reported in the rubric, summary and JSON report, not scored) unless
    ``llm_weights`` or ``eval_criteria.weights`` gives it one::

        def pytest_llmeval_components(config):
            def polite(ctx):
                ok = "please" in ctx.response.lower()
                return MetricResult(metric="polite", passed=ok, score=float(ok), explanation=f"says please: {ok}")
            return {"polite": polite}
    """


def pytest_llmeval_sample_graded(item: pytest.Item, record: dict[str, Any]) -> None:
    """Called after a gold sample is graded (``record`` is what the JSON report stores)."""
