"""One test's result as the run keeps it: a :class:`SampleRecord`.

A record crosses processes (xdist workers, shard reports) as plain JSON data: :meth:`SampleRecord.to_json`
gives the builtins dict and :meth:`SampleRecord.from_json` reads it back, so a record survives the trip
unchanged. Keys a conftest or a custom rubric component adds stay in :attr:`SampleRecord.extra`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

GOLD = "gold"
HELPER = "helper"
GRADED = ("pass", "acceptable", "fail")
REPEAT_FIELDS = (
    "repeats",
    "pass_count",
    "counted_repeats",
    "repeat_errors",
    "stability",
    "pass_at_k",
    "pass_all_k",
)


# Not frozen: a frozen dataclass sets each of these 50 fields through object.__setattr__, a fifth
# of what a gold sample costs beyond its grading. The run keeps records in a frozen RunRecord, and
# nothing edits one: a change is a new record (replace()).
@dataclass(slots=True, eq=True)
class SampleRecord(Mapping[str, Any]):
    """One gold sample (or bad gold line, or hand-written test using ``assert_*`` helpers) after it ran.

    Read by attribute; the read-only mapping view (``record["status"]``) gives the keys of
    :meth:`to_json`, so code written against the builtins record reads this one alike.
    A change is a new record (:meth:`replace`), never an edit.
    """

    kind: str  # GOLD or HELPER
    nodeid: str
    sample_id: str
    file: str | None
    status: str  # pass | acceptable | fail | error | skipped (gold); passed | failed (helper)
    scores: dict[str, Any]
    reason: str = ""
    line: int | None = None
    question: str | None = None
    expected: Any = None
    predicted: str | None = None
    task: str | None = "-"
    domain: str | None = "-"
    model: str | None = None
    human_label: str | None = None  # the gold file's own pass/fail label
    group: str | None = None
    gold_hash: str | None = None  # --llm-history: a changed gold is not a regression
    # what grading gave (None: not graded)
    overall: float | None = None
    tier: str | None = None
    components: dict[str, Any] | None = None
    accuracy_grader: str = ""
    refusal: bool = False
    needs_review: bool = False
    length_tokens: int | None = 0
    retrieval_metrics: dict[str, Any] | None = None
    accuracy_fallback: str | None = None
    review_between: str | None = None
    review_reason: str | None = None
    reverified: bool = False
    matched_expected: Any = None
    extra: dict[str, Any] = field(default_factory=dict)  # fields of custom components and conftests
    turns: list[dict[str, Any]] | None = None
    conversation_aggregate: str | None = None
    answer_usage: dict[str, Any] | None = None
    reference_metrics: dict[str, Any] | None = None
    answer_sha256: str | None = None  # people's labels apply to this answer text only
    # --llm-repeat
    repeats: list[dict[str, Any]] | None = None
    pass_count: int | None = None
    counted_repeats: int | None = None
    repeat_errors: int | None = None
    stability: str | None = None
    pass_at_k: bool | None = None
    pass_all_k: bool | None = None
    metrics: dict[str, float] | None = None  # helper: each helper's score
    earlier_attempts: list[str] | None = None  # pytest-rerunfailures: statuses of replaced attempts
    people_label: dict[str, Any] | None = (
        None  # --llm-labels: the label that applied to this answer
    )

    # -- builtins transport ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The builtins record (what travels on a test report and into a shard's report)."""
        # the keys of _keys(), in its order, each read once (this runs for every sample)
        gold = self.kind == GOLD
        out = {key: getattr(self, key) for key in _HEAD}
        if gold:
            out["line"] = self.line
        for key in _BODY:
            out[key] = getattr(self, key)
        for key in _LABELS:
            if (value := getattr(self, key)) is not None:
                out[key] = value
        if gold:
            out["model"] = self.model
        if self.gold_hash is not None:
            out["gold_hash"] = self.gold_hash
        if self.tier is not None:
            for key in _GRADE:
                out[key] = getattr(self, key)
        for key in self.extra:
            out[key] = self._value(key)
        for key in _LATE:
            if (value := getattr(self, key)) is not None:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SampleRecord:
        """A record from its builtins form; keys of no field go to :attr:`extra`."""
        known: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():  # one pass: this runs for every sample
            (known if key in FIELDS else extra)[key] = value
        if "scores" not in known:
            known["scores"] = {}
        for key in ("kind", "nodeid", "sample_id", "file", "status"):
            known.setdefault(key, None)
        if known.get("reason") is None:
            known["reason"] = ""
        return cls(**known, extra=extra)

    def replace(self, **changes: Any) -> SampleRecord:
        return dataclasses.replace(self, **changes)

    @property
    def graded(self) -> bool:
        """In a tier (pass, acceptable or fail): not an error, skip or helper."""
        return self.status in GRADED

    # -- which keys the builtins form has --------------------------------------------------
    def _keys(self) -> Iterator[str]:
        gold = self.kind == GOLD
        yield from _HEAD
        if gold:
            yield "line"
        yield from _BODY
        for key in _LABELS:
            if getattr(self, key) is not None:
                yield key
        if gold:
            yield "model"
        if self.gold_hash is not None:
            yield "gold_hash"
        if self.tier is not None:
            yield from _GRADE
        yield from self.extra
        for key in _LATE:
            if getattr(self, key) is not None:
                yield key

    def _value(self, key: str) -> Any:
        return getattr(self, key) if key in FIELDS else self.extra[key]

    # -- read-only mapping view --------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key in FIELDS and key != "extra":
            if key in _OPTIONAL and not self._has(key):
                raise KeyError(key)
            return getattr(self, key)
        return self.extra[key]

    def _has(self, key: str) -> bool:
        if key == "line" or key == "model":
            return self.kind == GOLD
        if key in _GRADE:
            return self.tier is not None
        return getattr(self, key) is not None

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        if key in FIELDS and key != "extra":
            return key not in _OPTIONAL or self._has(key)
        return key in self.extra

    def __iter__(self) -> Iterator[str]:
        return self._keys()

    def __len__(self) -> int:
        return sum(1 for _ in self._keys())


_HEAD = ("kind", "nodeid", "sample_id", "file")
_BODY = ("question", "expected", "predicted", "task", "domain", "status", "scores", "reason")
_LABELS = ("human_label", "group")
_GRADE = (
    "overall",
    "tier",
    "components",
    "accuracy_grader",
    "refusal",
    "needs_review",
    "length_tokens",
    "retrieval_metrics",
    "accuracy_fallback",
    "review_between",
    "review_reason",
    "reverified",
    "matched_expected",
)
_LATE = (
    "turns",
    "conversation_aggregate",
    "answer_usage",
    "reference_metrics",
    "answer_sha256",
    *REPEAT_FIELDS,
    "metrics",
    "earlier_attempts",
    "people_label",
)
FIELDS = frozenset(f.name for f in dataclasses.fields(SampleRecord))
_OPTIONAL = frozenset(("line", "model", "gold_hash", *_LABELS, *_GRADE, *_LATE))
