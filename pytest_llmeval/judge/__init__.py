"""LLM judge (prompts, JSON schemas, JSON-call-with-repair) and the offline judge.

The judge used when a grader gets ``judge=None`` is :data:`default_judge`; the
plugin sets it per run from ``--llm-judge``. ``None`` means the offline judge.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError

if TYPE_CHECKING:
    from pytest_llmeval.models.base import ChatModel

default_judge: contextvars.ContextVar[ChatModel | None] = contextvars.ContextVar(
    "llmeval_default_judge", default=None
)

OFFLINE = "offline"


_built: dict[str, ChatModel] = {}  # spec -> model built with default settings (hand-written tests)


def _default_settings() -> Any:
    from pytest_llmeval.options import Settings

    return Settings.defaults()


def resolve_judge(judge: ChatModel | str | None, settings: Any = None) -> ChatModel | None:
    """Turn a ``judge=`` argument into a chat model, or ``None`` for the offline judge.

    ``None`` -> the run's default judge; ``"offline"`` -> ``None``; a chat model ->
    itself; a spec such as ``"openai:gpt-4o-mini"`` -> a model built by the model layer
    with ``settings`` (default settings when None: API key from ``OPENAI_API_KEY``,
    cache in ``.llmeval_cache``), built once per spec.
    """
    if judge is None:
        return default_judge.get()
    if isinstance(judge, str):
        spec = judge.strip()
        if spec in ("", OFFLINE):
            return None
        from pytest_llmeval.models import make_chat_model

        if settings is not None:
            built: ChatModel = make_chat_model(spec, settings)
            return built
        if spec not in _built:
            _built[spec] = make_chat_model(spec, _default_settings())
        return _built[spec]
    if not callable(getattr(judge, "complete", None)):
        raise GraderError(
            f"judge must be 'offline', a model spec like 'openai:MODEL' or a chat model, got {judge!r}"
        )
    return judge


def judge_name(judge: ChatModel | None) -> str:
    """How a judge is named in results' details."""
    return OFFLINE if judge is None else str(getattr(judge, "name", type(judge).__name__))
