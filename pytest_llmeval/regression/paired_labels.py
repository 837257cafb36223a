"""People's labels in a baseline comparison: which paired samples carry a person's verdict on both
answers, and whether those pairs may correct the paired difference (PPI++, ``comparison.corrected_paired``).

A report's ``sample_results`` entry carries ``people_label`` (``{"label": "correct" | "incorrect",
"random": bool, "origin": ...}``) when a person's label applied to its answer. A label belongs to an
answer text (its SHA-256), not to a run: a verdict on one side's answer is also the verdict on the other
side's answer when the two texts are identical, and a labels file given to this run (``--llm-labels``)
labels the baseline's answers it names by sample id and hash.

The **selection** is every paired sample with a random label on either answer. The pairs it yields are a
uniformly random subset of the paired samples (the union of random spot checks drawn independently of
the verdicts) only if each of them has a verdict on both answers; an error counts as incorrect for
people as for the gate. A selected sample whose answer changed and was labelled on one side only would
have to be dropped, and dropping it keeps the unchanged answers (one label covers both sides): the
correction would lean towards "no change". Then nothing is corrected and the comparison names the
answers to label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pytest_llmeval.labels import LABEL_WORDS, group_of
from pytest_llmeval.regression.ppi import MIN_DISAGREEMENTS, MIN_GROUPS, MIN_LABELS

if TYPE_CHECKING:
    from pytest_llmeval.labels import Label


class Outcome(Protocol):
    """One sample on one side of a comparison, as :class:`.run_comparison.Outcome` holds it."""

    @property
    def file(self) -> str: ...
    @property
    def sample_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def entry(self) -> dict[str, Any]: ...


LISTED = 10  # sample ids named in a reason before the rest are counted


@dataclass
class PairedLabels:
    """People's verdicts on both answers of the selected pairs, and why they may not correct."""

    verdicts: dict[tuple[str, str], tuple[bool, bool]] = field(
        default_factory=dict
    )  # (baseline, run) by pair key
    groups: dict[tuple[str, str], str] = field(default_factory=dict)
    selected: int = 0
    one_side: list[str] = field(
        default_factory=list
    )  # selected samples with a verdict on one answer only
    conflicts: list[str] = field(
        default_factory=list
    )  # an answer labelled both correct and incorrect
    not_random: int = 0  # answers whose only labels come from a hand-picked selection
    malformed: list[str] = field(default_factory=list)
    unhashed: int = 0  # baseline answers without a recorded hash: no label can reach them
    reason: str | None = None  # why no correction (None: it may correct)


def _own(entry: dict[str, Any]) -> tuple[bool | None, bool]:
    """(verdict of the entry's random label, whether it has any label at all)."""
    label = entry.get("people_label")
    if not isinstance(label, dict):
        return None, False
    word = label.get("label")
    if label.get("random") is True and isinstance(word, str) and word in LABEL_WORDS:
        return LABEL_WORDS[word], True
    return None, True


def _well_formed(entry: dict[str, Any]) -> bool:
    label = entry.get("people_label")
    return label is None or (
        isinstance(label, dict)
        and isinstance(label.get("label"), str)
        and label["label"] in LABEL_WORDS
        and isinstance(label.get("random"), bool)
    )


def _verdicts(
    entry: dict[str, Any], other: dict[str, Any], extra: Sequence[Label]
) -> tuple[set[bool], bool]:
    """A person's verdicts (random labels only) on this entry's answer, and whether any label names it."""
    found: set[bool] = set()
    own, any_label = _own(entry)
    if own is not None:
        found.add(own)
    digest = entry.get("answer_sha256")
    if isinstance(digest, str) and digest:
        if other.get("answer_sha256") == digest:
            verdict, other_any = _own(other)
            any_label = any_label or other_any
            if verdict is not None:
                found.add(verdict)
        for label in extra:
            if label.answer_sha256 != digest or label.sample_id != str(entry.get("sample_id")):
                continue
            if label.file is not None and str(entry.get("file")) != label.file:
                continue
            if label.model is not None and entry.get("model") != label.model:
                continue
            any_label = True
            if label.random:
                found.add(label.correct)
    return found, any_label


def resolve(
    pairs: Sequence[tuple[Outcome, Outcome]],
    extra: Sequence[Label],
    names: dict[tuple[str, str], str],
    *,
    kind: str,
) -> PairedLabels | None:
    """The people's verdicts of the paired samples; None when no label names any of their answers."""
    out = PairedLabels()
    present = False
    for base, run in pairs:
        key = (run.file, run.sample_id)
        out.unhashed += base.status != "error" and not base.entry.get("answer_sha256")
        sides: list[bool | None] = []
        selected = False
        for outcome, other in ((base, run), (run, base)):
            if not _well_formed(outcome.entry):
                out.malformed.append(names[key])
                sides.append(None)
                continue
            found, any_label = _verdicts(outcome.entry, other.entry, extra)
            present = present or any_label
            if outcome.status == "error":
                found = {False}  # no answer: a failure for people as for the gate
            elif found:
                selected = True
            elif any_label:
                out.not_random += 1
            if len(found) > 1:
                if names[key] not in out.conflicts:
                    out.conflicts.append(names[key])
                sides.append(None)
            else:
                sides.append(next(iter(found)) if found else None)
        if not selected:
            continue
        out.selected += 1
        if sides[0] is None or sides[1] is None:
            if names[key] not in out.conflicts:
                out.one_side.append(names[key])
            continue
        out.verdicts[key] = (sides[0], sides[1])
        out.groups[key] = group_of(run.entry)
    if not present and not extra:
        return None
    out.reason = _reason(out, pairs, kind)
    return out


def _ids(ids: list[str]) -> str:
    return ", ".join(ids[:LISTED]) + (f" and {len(ids) - LISTED} more" if len(ids) > LISTED else "")


def _reason(out: PairedLabels, pairs: Sequence[tuple[Outcome, Outcome]], kind: str) -> str | None:
    if kind != "verdicts":
        return "pass fractions over repeats: a person labels one answer, not a sample's repeats"
    if not out.selected:
        if out.not_random:
            return (
                f"{out.not_random} labelled answer(s), none from a random selection: hand-picked labels count for "
                "agreement only"
            )
        return "no paired sample has a label from a random selection on either answer"
    if out.conflicts:
        return f"answers labelled both correct and incorrect: {_ids(out.conflicts)}"
    if out.one_side and pairs and out.unhashed == len(pairs):
        return (
            "the baseline records no answer hashes (a history run keeps verdicts only), so no label can reach its "
            "answers: compare with a --llm-report JSON of the baseline run"
        )
    if out.one_side:
        return (
            f"{len(out.one_side)} of the {out.selected} randomly selected paired samples have a person's verdict on "
            f"one answer only (the answer changed; the pairs left would over-represent unchanged answers): label "
            f"the other answer of {_ids(out.one_side)}"
        )
    labelled = len(out.verdicts)
    if labelled < MIN_LABELS:
        return f"{labelled} paired sample(s) labelled on both answers, fewer than the {MIN_LABELS} a correction needs"
    if labelled == len(pairs):
        return None
    outcomes = {(r.file, r.sample_id): (b.passed, r.passed) for b, r in pairs}
    differ = sum(
        1
        for key, (yb, yr) in out.verdicts.items()
        if int(yr) - int(yb) != int(outcomes[key][1]) - int(outcomes[key][0])
    )
    if differ < MIN_DISAGREEMENTS:
        return (
            f"people's change and the grader's differ on {differ} of {labelled} labelled pairs, fewer than the "
            f"{MIN_DISAGREEMENTS} a normal interval of the corrected difference needs (the grader's verdicts decide)"
        )
    groups = len(set(out.groups.values()))
    if groups < MIN_GROUPS:
        return f"{groups} label groups among the labelled pairs, fewer than the {MIN_GROUPS} a cluster-robust interval needs"
    return None
