"""People's labels on answers: read from ``--llm-labels`` and ``--llm-review-import``, matched to the
run's samples by the hash of the exact answer text, and turned into the corrected pass rate.

A labels file is JSONL, one object per line::

    {"llmeval_labels": {"selection": "random", "seed": "spot-2026-11"}}      (optional header line)
    {"sample_id": "q1", "response": "<the answer labelled>", "label": "correct"}
    {"sample_id": "q2", "response_sha256": "<hex>", "label": "incorrect", "file": "evals/qa_eval.jsonl", "model": "m"}

A label applies only to a sample whose answer text is the one labelled (SHA-256 of the text), so labels
from an earlier run keep working on replayed answers and stop applying when the answer changes.

Only labels on a **random** selection correct the pass rate: a header ``"selection": "random"`` (or
``"selection": "random"`` on a row) says the labelled samples were drawn uniformly at random from the
run's graded samples, independently of their verdicts. A plain file says nothing about how its rows
were chosen; hand-picked rows (say, the failures) would bias the correction, so they count for the
agreement figures only and the run says why they did not correct.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.report.review import HumanVerdict
    from pytest_llmeval.report.tally import Tally

HEADER_KEY = "llmeval_labels"
LABEL_WORDS = {"correct": True, "incorrect": False}
RANDOM = "random"
MAX_LABEL_BYTES = 64 * 1024 * 1024
MAX_LABEL_LINES = 1_000_000
PROBLEMS_LISTED = 10  # located errors listed one by one before the rest are counted
_HEX = frozenset("0123456789abcdef")
# Why a label did not apply, in the order the summary names them.
NOT_APPLIED = (
    "answer changed",
    "label the baseline's answer",
    "sample not graded",
    "sample not in run",
    "labels disagree",
)


def answer_hash(text: str) -> str:
    """The SHA-256 (hex) of an answer text, as labels and records carry it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Label:
    sample_id: str
    answer_sha256: str
    correct: bool
    random: bool
    source: str  # "labels.jsonl:3" or "review.csv row 4"
    file: str | None = None
    model: str | None = None
    origin: str = "labels"  # "labels" (--llm-labels) or "review" (--llm-review-import)


def label_field(label: Label) -> dict[str, Any]:
    """``sample_results[].people_label``: the verdict that applied to the answer, and whether it may
    correct a rate (a later run's baseline comparison reads it)."""
    return {
        "label": "correct" if label.correct else "incorrect",
        "random": label.random,
        "origin": label.origin,
    }


def _text_field(row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"field {key!r}: must be a string, got {type(value).__name__}")
    return str(value)


def _row_label(row: Any, where: str, default_selection: str | None) -> Label:
    """One label from a parsed line; ``ValueError`` naming the field otherwise."""
    if not isinstance(row, dict):
        raise ValueError(f"expected a JSON object, got {type(row).__name__}")
    sample_id = _text_field(row, "sample_id")
    if not sample_id:
        raise ValueError("field 'sample_id' missing")
    word = row.get("label")
    if word is None:
        raise ValueError("field 'label' missing")
    if not isinstance(word, str) or word.strip().lower() not in LABEL_WORDS:
        raise ValueError(f"field 'label': {str(word)[:40]!r} is not 'correct' or 'incorrect'")
    digest = _text_field(row, "response_sha256")
    if digest is not None:
        digest = digest.strip().lower()
        if len(digest) != 64 or not set(digest) <= _HEX:
            raise ValueError("field 'response_sha256': not 64 hex digits")
    else:
        response = row.get("response")
        if not isinstance(response, str):
            raise ValueError(
                "field 'response' missing (the exact answer text that was labelled, or 'response_sha256')"
            )
        digest = answer_hash(response)
    selection = row.get("selection", default_selection)
    return Label(
        sample_id=sample_id,
        answer_sha256=digest,
        correct=LABEL_WORDS[word.strip().lower()],
        random=selection == RANDOM,
        source=where,
        file=_text_field(row, "file"),
        model=_text_field(row, "model"),
    )


def read_labels(path: Path, shown: str | None = None) -> tuple[list[Label], list[str]]:
    """Labels of a labels file and one located problem per unusable line (nothing else stops)."""
    from pytest_llmeval.bounded_json import parse_line, read_lines

    shown = shown or str(path)
    problems: list[str] = []
    try:
        size = path.stat().st_size
    except OSError as exc:
        return [], [f"{shown}: cannot read it: {exc}"]
    if size > MAX_LABEL_BYTES:
        return [], [f"{shown}: {size} bytes is over the {MAX_LABEL_BYTES} byte limit; not read"]
    labels: list[Label] = []
    selection: str | None = None
    first = True
    try:
        for number, line, problem in read_lines(path):
            if number > MAX_LABEL_LINES:
                problems.append(
                    f"{shown}:{number}: more than {MAX_LABEL_LINES} lines; the rest not read"
                )
                break
            where = f"{shown}:{number}"
            if problem is not None:
                problems.append(f"{where}: {problem}")
                continue
            assert line is not None
            row, problem = parse_line(line)
            if problem is not None:
                problems.append(f"{where}: not JSON: {problem}")
                continue
            if isinstance(row, dict) and HEADER_KEY in row:
                header = row[HEADER_KEY]
                if not first:
                    problems.append(
                        f"{where}: field {HEADER_KEY!r}: the header must be the first line; ignored"
                    )
                elif not isinstance(header, dict) or not isinstance(
                    header.get("selection", ""), str
                ):
                    problems.append(
                        f"{where}: field '{HEADER_KEY}.selection': must be a string in an object; ignored"
                    )
                else:
                    selection = header.get("selection")
                first = False
                continue
            first = False
            try:
                labels.append(_row_label(row, where, selection))
            except ValueError as exc:
                problems.append(f"{where}: {exc}; skipped")
    except OSError as exc:
        problems.append(f"{shown}: cannot read it: {exc}")
    return labels, problems


def labels_from_review(verdicts: dict[str, HumanVerdict]) -> list[Label]:
    """Imported review rows that name their answer: rows of the random spot check are random labels;
    rows selected because they failed or need review are not."""
    labels = []
    for row_id, verdict in verdicts.items():
        if verdict.answer_sha256 is None:
            continue
        file, _, sample_id = row_id.partition("::")
        labels.append(
            Label(
                sample_id=sample_id,
                answer_sha256=verdict.answer_sha256,
                correct=verdict.verdict == "pass",
                random=verdict.selected_because == RANDOM,
                source=verdict.source,
                file=file or None,
                origin="review",
            )
        )
    return labels


@dataclass
class LabelMatch:
    """Which labels applied to which records (by node id), and why the others did not."""

    applied: dict[str, Label] = field(default_factory=dict)
    not_applied: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    read: int = 0
    given: bool = False  # a labels file was given (even one holding no label)

    def summary(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "applied": len(self.applied),
            "random": sum(1 for label in self.applied.values() if label.random),
            "not_applied": {
                reason: self.not_applied[reason]
                for reason in NOT_APPLIED
                if self.not_applied[reason]
            },
        }


def _matches(label: Label, record: Mapping[str, Any]) -> bool:
    if str(record.get("sample_id")) != label.sample_id:
        return False
    if label.file is not None and str(record.get("file")) != label.file:
        return False
    return label.model is None or record.get("model") == label.model


def match_labels(
    records: Sequence[Mapping[str, Any]],
    labels: list[Label],
    baseline_answers: frozenset[tuple[str, str]] = frozenset(),
) -> LabelMatch:
    """Apply each label to the run's samples with its id (file, model) and the identical answer text.

    Two labels that disagree on one answer are one located error, and neither is used. A label of
    another answer that is the baseline's (``baseline_answers``: (sample id, answer hash)) is there for
    the baseline comparison, not a changed answer."""
    match = LabelMatch(read=len(labels))
    by_id: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        if record.get("kind") == "gold":
            by_id.setdefault(str(record.get("sample_id")), []).append(record)
    conflicts: set[str] = set()
    unknown: list[Label] = []
    for label in labels:
        candidates = [r for r in by_id.get(label.sample_id, ()) if _matches(label, r)]
        if not candidates:
            match.not_applied["sample not in run"] += 1
            unknown.append(label)
            continue
        graded = [r for r in candidates if r.get("status") in ("pass", "acceptable", "fail")]
        same = [r for r in graded if r.get("answer_sha256") == label.answer_sha256]
        if not same:
            if (label.sample_id, label.answer_sha256) in baseline_answers:
                match.not_applied["label the baseline's answer"] += 1
            else:
                match.not_applied["answer changed" if graded else "sample not graded"] += 1
            continue
        for record in same:
            nodeid = record["nodeid"]
            earlier = match.applied.get(nodeid)
            if nodeid in conflicts:
                continue
            if earlier is not None and earlier.correct != label.correct:
                match.problems.append(
                    f"{label.source}: field 'label': the answer of {label.sample_id!r} is labelled "
                    f"{'correct' if label.correct else 'incorrect'} here and "
                    f"{'correct' if earlier.correct else 'incorrect'} at {earlier.source}; neither used"
                )
                conflicts.add(nodeid)
                del match.applied[nodeid]
                match.not_applied["labels disagree"] += 2
                continue
            if earlier is None or (label.random and not earlier.random):
                match.applied[nodeid] = label
    match.problems.extend(
        f"{label.source}: field 'sample_id': {label.sample_id[:200]!r} matches no sample of this run"
        + (f" in {label.file!r}" if label.file else "")
        + (f" for model {label.model!r}" if label.model else "")
        for label in unknown[:PROBLEMS_LISTED]
    )
    if len(unknown) > PROBLEMS_LISTED:
        match.problems.append(
            f"labels: {len(unknown) - PROBLEMS_LISTED} more labels match no sample of this run"
        )
    return match


def group_of(record: Mapping[str, Any]) -> str:
    """The cluster of a sample: its gold ``group`` (per file), else the sample itself (so one sample
    answered by several models is one cluster)."""
    group = record.get("group")
    key = f"group {group}" if group is not None else f"sample {record.get('sample_id')}"
    return f"{record.get('file')}::{key}"


def correction(tally: Tally, match: LabelMatch, *, alpha: float) -> dict[str, Any]:
    """The labels' effect on one tally: ``corrected`` (the corrected pass rate, or None), ``grader_error``
    (or None), ``labels`` (counts) and ``not_corrected`` (why not, or None)."""
    from pytest_llmeval.regression.ppi import MIN_LABELS, Labelled, grader_error, ppi_mean, scaled

    graded = tally.graded
    review_passes = tally.review_passes
    verdicts = [
        int(r["status"] == "pass" and (review_passes or not r.get("needs_review"))) for r in graded
    ]
    applied = [
        (r, match.applied[r["nodeid"]], v)
        for r, v in zip(graded, verdicts, strict=True)
        if r["nodeid"] in match.applied
    ]
    random_labels = [
        Labelled(int(label.correct), v, group_of(r)) for r, label, v in applied if label.random
    ]
    counts = {"applied": len(applied), "random": len(random_labels)}
    result: dict[str, Any] = {
        "corrected": None,
        "grader_error": None,
        "labels": counts,
        "not_corrected": None,
    }
    if not applied:
        if match.read or match.given:
            result["not_corrected"] = (
                f"none of the {match.read} label(s) applied to this run's answers"
                if match.read
                else "no label was read"
            )
        return result
    if len(random_labels) < len(applied):
        counts["not_random"] = len(applied) - len(random_labels)
    if random_labels:
        result["grader_error"] = grader_error(random_labels, alpha=alpha)
    if not random_labels:
        result["not_corrected"] = (
            f"the {len(applied)} label(s) that applied are not from a random selection (a labels file without "
            f'\'"selection": "random"\', or review rows picked because they failed or need review): they '
            "count for agreement only"
        )
        return result
    if len(random_labels) < MIN_LABELS:
        result["not_corrected"] = (
            f"{len(random_labels)} random label(s) applied, fewer than the {MIN_LABELS} a correction needs"
        )
        return result
    corrected = ppi_mean(random_labels, verdicts, alpha=alpha)
    if tally.denominator > len(graded):  # error items count as failures: known zeros for people too
        corrected = scaled(corrected, len(graded) / tally.denominator, tally.denominator)
    result["corrected"] = corrected.to_builtins()
    return result


@dataclass(frozen=True)
class AppliedLabels:
    """People's labels matched to a run: the records with the label that applied, and what did not."""

    records: tuple[SampleRecord, ...]
    match: LabelMatch
    labels: tuple[Label, ...] = ()  # as read: they may also label the baseline's answers
    warnings: tuple[str, ...] = ()


def apply_labels(
    records: tuple[SampleRecord, ...],
    labels_path: Path | None,
    shown: str | None,
    review_verdicts: dict[str, HumanVerdict] | None,
    baseline_answers: frozenset[tuple[str, str]] = frozenset(),
) -> AppliedLabels:
    """``--llm-labels`` (``labels_path``, shown as ``shown``) and the random rows of ``--llm-review-import``
    (``review_verdicts``) matched to the run's answers."""
    labels: list[Label] = []
    warnings: list[str] = []
    if labels_path is not None:
        read, problems = read_labels(labels_path, shown)
        labels.extend(read)
        warnings.extend(f"labels error: {p}" for p in problems)
    if review_verdicts is not None:
        labels.extend(labels_from_review(review_verdicts))
    if not labels and labels_path is None:
        return AppliedLabels(records, LabelMatch(), (), tuple(warnings))
    match = match_labels(list(records), labels, baseline_answers)
    match.given = labels_path is not None
    labelled = tuple(
        r
        if r.nodeid not in match.applied
        else r.replace(people_label=label_field(match.applied[r.nodeid]))
        for r in records
    )
    warnings.extend(f"labels error: {p}" for p in match.problems)
    return AppliedLabels(labelled, match, tuple(labels), tuple(warnings))
