"""``--llm-baseline`` inside a run: load once on the controller, compare at session end, gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_llmeval.regression.gates import GateResult
from pytest_llmeval.regression.run_comparison import (
    BaselineError,
    baseline_statuses,
    compare,
    load_report,
    regression_gate_message,
)

if TYPE_CHECKING:
    from pytest_llmeval.options import Settings


class BaselineRun:
    """The loaded baseline and, after :meth:`compare`, this run's comparison with it."""

    def __init__(self, shown_path: str, report: dict[str, Any]) -> None:
        self.shown_path = shown_path
        self.report = report
        self.comparison: dict[str, Any] | None = None
        self.comparison_model: str | None = None
        models = (report.get("metadata") or {}).get("models")
        self.models = (
            [str(m) for m in models] if isinstance(models, list) and len(models) > 1 else []
        )
        # a baseline that compared several models: pair with its first
        self.baseline_model = self.models[0] if self.models else None
        self._statuses = baseline_statuses(report, model=self.baseline_model)
        # The run's other models that the baseline also ran: each paired with its own earlier self.
        self.by_model: dict[str, dict[str, Any]] = {}
        self._statuses_by_model: dict[str, dict[tuple[str, str], str]] = {}

    @classmethod
    def load(cls, shown_path: str, invocation_dir: Path, history: str | None = None) -> BaselineRun:
        """A ``pytest.UsageError`` (one line, exit 4) when the file is missing or not a report.

        ``history:last`` / ``history:last-passing`` / ``history:COMMIT`` pick a run of ``history``."""
        if shown_path.startswith("history:"):
            return cls._from_history(shown_path, history, invocation_dir)
        path = Path(shown_path)
        if not path.is_absolute():
            path = invocation_dir / path
        try:
            return cls(shown_path, load_report(path))
        except BaselineError as exc:
            raise pytest.UsageError(f"--llm-baseline (ini llm_baseline): {exc}") from None

    @classmethod
    def _from_history(cls, spec: str, history: str | None, invocation_dir: Path) -> BaselineRun:
        from pytest_llmeval.history.recorded_baseline import load
        from pytest_llmeval.history.store import HistoryError

        try:
            return cls(*load(spec, history, invocation_dir))
        except HistoryError as exc:
            raise pytest.UsageError(f"--llm-baseline={spec} (ini llm_baseline): {exc}") from None

    def compare(
        self,
        sample_results: list[dict[str, Any]],
        run_meta: dict[str, Any],
        *,
        alpha: float,
        errors_mode: str,
        run_models: tuple[str, ...] = (),
        **gate: Any,
    ) -> dict[str, Any]:
        """The run's first model against the baseline's first (the ``comparison``); with several
        models on both sides, each further model the baseline also ran against itself (``by_model``)."""
        run_model = run_models[0] if len(run_models) > 1 else None
        self.comparison_model = run_model
        self.comparison = compare(
            self.report,
            sample_results,
            run_meta,
            baseline_path=self.shown_path,
            alpha=alpha,
            errors_mode=errors_mode,
            run_model=run_model,
            baseline_model=self.baseline_model,
            **gate,
        )
        for model in run_models[1:]:
            if model in self.models:
                self.by_model[model] = compare(
                    self.report,
                    sample_results,
                    run_meta,
                    baseline_path=self.shown_path,
                    alpha=alpha,
                    errors_mode=errors_mode,
                    run_model=model,
                    baseline_model=model,
                    **gate,
                )
                self._statuses_by_model[model] = baseline_statuses(self.report, model=model)
        return self.comparison

    def status_of(self, entry: dict[str, Any]) -> str | None:
        """The baseline status of a paired ``sample_results`` entry (None when unpaired)."""
        if entry.get("kind", "gold") != "gold":
            return None
        key = (str(entry.get("file") or ""), entry["sample_id"])
        if self.comparison_model is not None and entry.get("model") != self.comparison_model:
            return self._statuses_by_model.get(str(entry.get("model")), {}).get(key)
        return self._statuses.get(key)

    def gates(self) -> list[GateResult]:
        """``--llm-fail-on-regression``: one gate per paired model (the first, then ``by_model``), each
        as ``--llm-regression`` and ``--llm-regression-margin`` ask."""
        if self.comparison is None:
            return []
        compared = [(self.comparison_model, self.comparison), *self.by_model.items()]
        return [
            GateResult("regression", *regression_gate_message(c, model), model)
            for model, c in compared
        ]

    def answers(self) -> frozenset[tuple[str, str]]:
        """(sample id, answer hash) of the baseline's answers: people's labels of those are for the comparison."""
        return frozenset(
            (str(e.get("sample_id")), e["answer_sha256"])
            for e in self.report["sample_results"]
            if isinstance(e, dict) and isinstance(e.get("answer_sha256"), str)
        )


def load_baseline(settings: Settings, invocation_dir: Path) -> BaselineRun | None:
    """At configure time (controller): a bad ``--llm-baseline`` is a usage error before anything runs."""
    if settings.fail_on_regression and not settings.baseline:
        raise pytest.UsageError(
            "--llm-fail-on-regression (ini llm_fail_on_regression) needs --llm-baseline=PATH"
        )
    if not settings.baseline:
        return None
    return BaselineRun.load(settings.baseline, invocation_dir, history=settings.history)


def comparison_options(settings: Settings) -> dict[str, Any]:
    """How every paired comparison of a run is tested and gated."""
    return {
        "alpha": settings.alpha,
        "errors_mode": settings.errors.value,
        "margin": settings.regression_margin,
        "mode": settings.regression.value,
    }
