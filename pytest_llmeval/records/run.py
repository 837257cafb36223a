"""The run as its outputs see it: one frozen :class:`RunRecord`, made once when the run ends.

Gates, the terminal summary, the JSON and HTML reports, JUnit properties and the history read it;
none of them sees the live session.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.records.sample_record import HELPER, SampleRecord

if TYPE_CHECKING:
    from pytest_llmeval.labels import LabelMatch
    from pytest_llmeval.options import Settings
    from pytest_llmeval.regression.baseline import BaselineRun
    from pytest_llmeval.regression.gates import GateResult
    from pytest_llmeval.report.tally import Tally


@dataclass(frozen=True, slots=True)
class CollectedGold:
    """A gold sample the run collected (the history lists those that never ran as not run)."""

    path: str
    sample_id: str
    line: int
    gold_hash: str


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Everything the end-of-run outputs read: records, verdicts, comparisons, labels and settings."""

    settings: Settings
    records: tuple[SampleRecord, ...]  # one per test, in the order they finished
    components: tuple[str, ...]  # every registered rubric component, in report order
    invocation_dir: Path  # relative output and input paths are relative to it
    rootpath: Path
    warnings: tuple[str, ...] = ()
    gates: tuple[GateResult, ...] = ()
    gate_only_message: str | None = None
    baseline: BaselineRun | None = None
    model_comparisons: Mapping[str, dict[str, Any] | None] = field(default_factory=dict)
    label_match: LabelMatch | None = None
    # per model (None: the whole run) what people's labels did to the pass rate
    corrections: Mapping[str | None, dict[str, Any]] = field(default_factory=dict)
    human_agreement: dict[str, Any] | None = None
    model_stats: dict[str, Any] | None = None
    incomplete_reason: str | None = None  # why the run did not reach every sample
    started_at: dt.datetime | None = None
    collected: int | None = None  # tests collected (None: no pytest session)
    collected_gold: tuple[CollectedGold, ...] = ()
    budget_note: dict[str, Any] | None = None  # what --llm-budget-* spent and refused
    other_failures: tuple[str, ...] = ()  # failed tests that are no graded sample
    collect_only: bool = False
    shard: Any = None  # the --llm-shard plugin (its share of the suite and gold files)

    def tally(self) -> Tally:
        """Graded gold samples (and errors, skips): the pass rate, means and gate."""
        from pytest_llmeval.report.tally import Tally

        return Tally(
            [r for r in self.records if r.kind != HELPER],
            self.settings.errors,
            self.settings.review_passes,
        )

    def helper_records(self) -> list[SampleRecord]:
        """Results of ``assert_*`` helpers in hand-written tests, shown apart from graded samples.

        A helper passes on its own threshold (``assert_retrieval`` may pass at 0.25), so mixing its
        score into tiers and means would make the numbers contradict each other.
        """
        return sorted((r for r in self.records if r.kind == HELPER), key=lambda r: r.nodeid)

    def model_tallies(self) -> dict[str, Tally]:
        """One tally per ``--llm-model`` spec, in the order given (empty with one model)."""
        return model_tallies(self.records, self.settings)

    @property
    def comparison(self) -> dict[str, Any] | None:
        return None if self.baseline is None else self.baseline.comparison

    def baseline_status(self, entry: dict[str, Any]) -> str | None:
        return None if self.baseline is None else self.baseline.status_of(entry)

    def path(self, value: str) -> Path:
        """An output or input path as given, relative to where pytest was invoked."""
        path = Path(value)
        return path if path.is_absolute() else self.invocation_dir / path

    def all_warnings(self, later: tuple[str, ...] | list[str] = ()) -> list[str]:
        """Run warnings (then ``later`` ones, of the outputs), and graders that fell back."""
        fallbacks = sorted(
            {
                f"{r.accuracy_grader}: {r.accuracy_fallback}"
                for r in self.records
                if r.accuracy_fallback
            }
        )
        return [*self.warnings, *later, *(f"accuracy fallback used: {f}" for f in fallbacks)]


def model_tallies(
    records: tuple[SampleRecord, ...] | list[SampleRecord], settings: Settings
) -> dict[str, Tally]:
    """One tally per ``--llm-model`` spec, in the order given (empty with one model)."""
    from pytest_llmeval.report.tally import Tally

    if len(settings.models) < 2:
        return {}
    return {
        m: Tally([r for r in records if r.model == m], settings.errors, settings.review_passes)
        for m in settings.models
    }
