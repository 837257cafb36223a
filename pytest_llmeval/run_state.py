"""Where the run's state lives: the keys of ``config.stash`` and ``item.stash``.

The collector and the reporters reach the per-run session through these keys; they never import
:mod:`pytest_llmeval.session` (which imports them), so the package has no import circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.rubric import GradeResult  # noqa: F401 - named in the StashKey's string annotation
    from pytest_llmeval.sample import Sample
    from pytest_llmeval.session import LLMEvalSession

SESSION_KEY = pytest.StashKey["LLMEvalSession"]()
GRADE_KEY = pytest.StashKey["GradeResult"]()  # a gold item's grade, set when it ran
REPEATS_KEY = pytest.StashKey[dict[str, Any]]()  # per-repeat fields of a gold item under --llm-repeat


def get_session(config: pytest.Config) -> LLMEvalSession:
    """The run's one :class:`~pytest_llmeval.session.LLMEvalSession`."""
    return config.stash[SESSION_KEY]


def sample_of(item: pytest.Item) -> Sample | None:
    """The gold sample a test item grades: a gold item's, or the ``llm_sample`` parameter's."""
    from pytest_llmeval.sample import Sample

    sample = getattr(item, "sample", None)
    if sample is None:
        callspec = getattr(item, "callspec", None)  # pytest.Function's parametrization
        sample = callspec.params.get("llm_sample") if callspec is not None else None
    return sample if isinstance(sample, Sample) else None
