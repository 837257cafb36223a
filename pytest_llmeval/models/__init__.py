"""Model layer: providers of answers (OpenAI-compatible, python callable, predictions file) and the cache.

Stdlib-only at import time; ``openai`` is imported on the first real call. The names below load
their modules when first used, so importing one module of the layer (``models.base`` for
``Answer``) loads no other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_llmeval.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_llmeval.models.base import Answer, ChatModel, Completion, Usage
    from pytest_llmeval.models.service import AnswerService, make_chat_model
    from pytest_llmeval.models.usage import merge_stats

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "Answer": ".base",
    "ChatModel": ".base",
    "Completion": ".base",
    "Usage": ".base",
    "AnswerService": ".service",
    "make_chat_model": ".service",
    "merge_stats": ".usage",
}

__all__ = [
    "Answer",
    "AnswerService",
    "ChatModel",
    "Completion",
    "Usage",
    "make_chat_model",
    "merge_stats",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
