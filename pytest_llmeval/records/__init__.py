"""What a run keeps: one :class:`SampleRecord` per test, frozen into one :class:`RunRecord` at its end."""

from __future__ import annotations

from pytest_llmeval.records.sample_record import SampleRecord

__all__ = ["SampleRecord"]
