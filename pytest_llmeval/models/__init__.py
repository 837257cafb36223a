"""Model layer: providers of answers (OpenAI-compatible, python callable, predictions file) and the cache.

Stdlib-only at import time; ``openai`` is imported on the first real call.
"""

from __future__ import annotations

from pytest_llmeval.models.base import Answer, ChatModel, Completion, Usage
from pytest_llmeval.models.service import AnswerService, make_chat_model
from pytest_llmeval.models.usage import merge_stats

__all__ = [
    "Answer",
    "AnswerService",
    "ChatModel",
    "Completion",
    "Usage",
    "make_chat_model",
    "merge_stats",
]
