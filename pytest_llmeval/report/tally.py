"""Aggregates over per-sample records: the numbers the summary, the JSON report and the gate share."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_llmeval.options import ErrorsMode

if TYPE_CHECKING:
    from pytest_llmeval.records.sample_record import SampleRecord


@dataclass
class Tally:
    """Aggregates over sample records; the numbers the summary, report and gate share."""

    records: list[SampleRecord]
    errors_mode: ErrorsMode = ErrorsMode.FAIL
    review_passes: bool = False  # llm_review_passes: a needs-review sample in the pass tier counts
    tiers: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.tiers = Counter(r.status for r in self.records)

    @property
    def graded(self) -> list[SampleRecord]:
        return [r for r in self.records if r.graded]

    @property
    def errors(self) -> int:
        return self.tiers["error"]

    @property
    def denominator(self) -> int:
        graded = len(self.graded)
        return graded + (self.errors if self.errors_mode is ErrorsMode.FAIL else 0)

    @property
    def passed(self) -> int:
        # Acceptable samples pass their tests but not the gate: otherwise the gate
        # could never fail a run whose tests all passed. Nor does a pass resting on thin
        # evidence (needs review) unless llm_review_passes says so.
        return self.tiers["pass"] - (0 if self.review_passes else self.unreviewed_passes)

    @property
    def unreviewed_passes(self) -> int:
        """Samples in the pass tier flagged needs review (not counted by the gate by default)."""
        return sum(1 for r in self.records if r.status == "pass" and r.needs_review)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.denominator if self.denominator else None

    def mean(self, component: str) -> float | None:
        values = [r.scores[component] for r in self.graded if r.scores.get(component) is not None]
        return statistics.fmean(values) if values else None

    def reference_means(self) -> dict[str, float | None] | None:
        """Means of the ``llm_reference_metrics`` figures over graded samples (None when off)."""
        rows = [r.reference_metrics for r in self.graded if r.reference_metrics]
        if not rows:
            return None
        keys = ("bleu", "rouge1_f", "rougeL_f", "bertscore_f1")
        means: dict[str, float | None] = {}
        for key in keys:
            values = [row[key] for row in rows if row.get(key) is not None]
            means[key] = round(statistics.fmean(values), 4) if values else None
        means["samples"] = len(rows)
        return means

    def info_only(self, component: str) -> bool:
        """True when ``component`` was reported but never weighted in any graded sample."""
        weights = [
            r.components[component]["weight"]
            for r in self.graded
            if r.components and component in r.components
        ]
        return bool(weights) and all(w == 0 for w in weights)

    def count(self, flag: str) -> int:
        return sum(1 for r in self.graded if getattr(r, flag))

    def groups(self, key: str) -> dict[str, Tally]:
        names = sorted({str(getattr(r, key) or "-") for r in self.records})
        return {
            n: Tally(
                [r for r in self.records if str(getattr(r, key) or "-") == n],
                self.errors_mode,
                self.review_passes,
            )
            for n in names
        }

    def worst(self, limit: int) -> list[SampleRecord]:
        bad = [r for r in self.records if r.status in ("fail", "error", "acceptable")]
        order = {"error": 0, "fail": 1, "acceptable": 2}
        bad.sort(key=lambda r: (order[r.status], r.scores.get("overall") or 0.0, r.nodeid))
        return bad[:limit]

    def mean_length(self) -> float | None:
        values = [r.length_tokens for r in self.graded if r.length_tokens is not None]
        return statistics.fmean(values) if values else None
