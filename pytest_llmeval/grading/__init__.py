"""Grading a sample: answer -> rubric -> the item's grade (:class:`GradingPipeline`)."""

from __future__ import annotations

from pytest_llmeval.grading.pipeline import GradingPipeline

__all__ = ["GradingPipeline"]
