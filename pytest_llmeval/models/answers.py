"""Entry point the plugin core imports: :class:`AnswerService` and :func:`merge_stats`."""

from __future__ import annotations

from pytest_llmeval.models.service import AnswerService, make_chat_model
from pytest_llmeval.models.stats import merge_stats

__all__ = ["AnswerService", "make_chat_model", "merge_stats"]
