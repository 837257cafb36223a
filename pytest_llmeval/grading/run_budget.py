"""The run's spend cap (``--llm-budget-usd`` / ``--llm-budget-tokens``) as grading holds it.

One :class:`~pytest_llmeval.models.budget.RunBudget` per process, charged by every model and judge
request; under xdist the controller names a state file that every worker's budget shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.models.budget import RunBudget
    from pytest_llmeval.options import Settings


def check_budget(settings: Settings) -> None:
    """A dollar cap needs a price for every served model, or the cap could not hold."""
    if settings.budget_usd is None:
        return
    if not settings.prices:
        raise pytest.UsageError(
            "--llm-budget-usd (ini llm_budget_usd) needs llm_prices to know what a call costs"
        )
    from pytest_llmeval.models.usage import Stats

    prices = Stats(settings.prices)
    served = [
        m
        for m in (*settings.models, settings.judge_model)
        if m and not m.startswith(("python:", "file:"))
    ]
    unpriced = [m for m in served if prices._price(m) is None]
    if unpriced:
        raise pytest.UsageError(
            f"--llm-budget-usd (ini llm_budget_usd): llm_prices has no price for {', '.join(unpriced)}, "
            f"so what its requests cost is unknown (priced: {', '.join(sorted(settings.prices))})"
        )


class Budget:
    """The cap of this process: in memory, or the state file the controller shares with workers."""

    def __init__(self, settings: Settings, workerinput: dict[str, Any] | None = None) -> None:
        self.settings = settings
        self.workerinput = workerinput or {}
        self.file: str | None = None  # controller under xdist: the state file handed to workers
        self._budget: RunBudget | None = None

    @property
    def capped(self) -> bool:
        return self.settings.budget_usd is not None or self.settings.budget_tokens is not None

    @property
    def run_budget(self) -> RunBudget | None:
        """None without a cap."""
        if self._budget is None and self.capped:
            from pytest_llmeval.models.budget import RunBudget

            path = self.workerinput.get("llmeval_budget_file") or self.file
            self._budget = RunBudget(
                self.settings.budget_usd, self.settings.budget_tokens, Path(path) if path else None
            )
        return self._budget

    def shared_file(self) -> str | None:
        """Controller under xdist: the state file handed to each worker (made once)."""
        if not self.capped:
            return None
        if self.file is None:
            import os
            import tempfile

            fd, self.file = tempfile.mkstemp(prefix="pytest-llmeval-budget-", suffix=".json")
            os.close(fd)
            self._budget = None  # read the shared file from now on
        return self.file

    def finish(self) -> dict[str, Any] | None:
        """Controller at the end: what the budget spent (None without a cap); the state file removed."""
        if self.run_budget is None:
            return None
        note = self.run_budget.note()
        if self.file is not None:
            Path(self.file).unlink(missing_ok=True)
        return note
