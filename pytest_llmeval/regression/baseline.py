"""``--llm-baseline`` inside a run: load once on the controller, compare at session end, gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.regression.comparison import (
    BaselineError,
    baseline_statuses,
    compare,
    load_report,
    regression_gate_message,
)
from pytest_llmeval.regression.gates import GateResult


class BaselineRun:
    """The loaded baseline and, after :meth:`compare`, this run's comparison with it."""

    def __init__(self, shown_path: str, report: dict[str, Any]) -> None:
        self.shown_path = shown_path
        self.report = report
        self.comparison: dict[str, Any] | None = None
        self.comparison_model: str | None = None
        models = (report.get("metadata") or {}).get("models")
        # a baseline that compared several models: pair with its first
        self.baseline_model = str(models[0]) if isinstance(models, list) and len(models) > 1 else None
        self._statuses = baseline_statuses(report, model=self.baseline_model)

    @classmethod
    def load(cls, shown_path: str, invocation_dir: Path) -> BaselineRun:
        """A ``pytest.UsageError`` (one line, exit 4) when the file is missing or not a report."""
        path = Path(shown_path)
        if not path.is_absolute():
            path = invocation_dir / path
        try:
            return cls(shown_path, load_report(path))
        except BaselineError as exc:
            raise pytest.UsageError(f"--llm-baseline (ini llm_baseline): {exc}") from None

    def compare(
        self, sample_results: list[dict[str, Any]], run_meta: dict[str, Any], *, alpha: float, errors_mode: str,
        run_model: str | None = None,
    ) -> dict[str, Any]:
        """With several models in the run, the first is compared (``run_model``); likewise in the baseline."""
        self.comparison_model = run_model
        self.comparison = compare(
            self.report, sample_results, run_meta, baseline_path=self.shown_path, alpha=alpha, errors_mode=errors_mode,
            run_model=run_model, baseline_model=self.baseline_model,
        )
        return self.comparison

    def status_of(self, entry: dict[str, Any]) -> str | None:
        """The baseline status of a paired ``sample_results`` entry (None when unpaired)."""
        if entry.get("kind", "gold") != "gold" or (self.comparison_model is not None and entry.get("model") != self.comparison_model):
            return None
        return self._statuses.get((str(entry.get("file") or ""), entry["sample_id"]))

    def gate(self) -> GateResult | None:
        if self.comparison is None:
            return None
        passed, message = regression_gate_message(self.comparison)
        return GateResult("regression", passed, message)
