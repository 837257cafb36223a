"""Where the run's state lives: the keys of ``config.stash`` and ``item.stash``.

The collector reaches the per-run session through these keys, and sees of it only what
:class:`RunSession` names; it never imports :mod:`pytest_llmeval.session` (which imports this
module), so the package has no import circle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.options import Settings
    from pytest_llmeval.rubric import GradeResult  # noqa: F401 - named in the StashKey's string annotation
    from pytest_llmeval.sample import Sample


class RunSession(Protocol):
    """What gold files ask of the run's session: its settings (``plugin.py`` sees all of it; gold
    items grade through the pipeline, :mod:`pytest_llmeval.grading`)."""

    settings: Settings


SESSION_KEY = pytest.StashKey["RunSession"]()
GRADE_KEY = pytest.StashKey["GradeResult"]()  # a gold item's grade, set when it ran
REPEATS_KEY = pytest.StashKey[
    dict[str, Any]
]()  # per-repeat fields of a gold item under --llm-repeat


def get_session(config: pytest.Config) -> RunSession:
    """The run's one session, as gold items see it."""
    return config.stash[SESSION_KEY]


def sample_of(item: pytest.Item) -> Sample | None:
    """The gold sample a test item grades: a gold item's, or the ``llm_sample`` parameter's."""
    from pytest_llmeval.sample import Sample

    sample = getattr(item, "sample", None)
    if sample is None:
        callspec = getattr(item, "callspec", None)  # pytest.Function's parametrization
        sample = callspec.params.get("llm_sample") if callspec is not None else None
    return sample if isinstance(sample, Sample) else None
