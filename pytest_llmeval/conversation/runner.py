"""Answering and grading a conversation turn by turn.

The model is asked once per expected assistant turn with the conversation so far: its own earlier
replies (``eval_criteria.conversation.context: "model"``, the default) or the gold ones
(``"gold"``). Each turn is graded by the rubric like a single answer, with the sample's criteria
under the turn's own; the sample's score is the mean of the turns or the worst (``aggregate: "min"``).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.rubric import Component, GradeResult, tier_for

if TYPE_CHECKING:
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.sample import Sample

CONTEXTS = ("model", "gold")
AGGREGATES = ("mean", "min")


@dataclass
class ConversationGrade(GradeResult):
    """The grade of a whole conversation; ``turns`` holds each assistant turn's verdict."""

    turns: list[dict[str, Any]] = field(default_factory=list)

    def failure_message(self, sample: Sample) -> str:
        pass_cut, acceptable_cut = self.cutoffs
        how = "worst" if self.record.get("conversation_aggregate") == "min" else "mean"
        lines = [
            f"conversation {sample.id!r} ({sample.path}:{sample.line}) graded FAIL: {how} of {len(self.turns)} "
            f"turns {self.overall:.3f} < {acceptable_cut:.2f} (acceptable), pass needs >= {pass_cut:.2f}",
        ]
        for turn in self.turns:
            lines.append(
                f"  turn {turn['turn']}: {turn['tier'].upper():<10} {turn['overall']:.3f}  {turn['reason']}"
            )
            lines.append(f"    user:     {_clip(turn['question'])}")
            lines.append(f"    expected: {_clip(turn['expected'])}")
            lines.append(f"    response: {_clip(turn['predicted'])}")
        return "\n".join(lines)


def _clip(text: str | None, limit: int = 200) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def settings_of(sample: Sample) -> tuple[str, str]:
    conversation = sample.criteria.get("conversation") or {}
    context = conversation.get("context", "model")
    aggregate = conversation.get("aggregate", "mean")
    if context not in CONTEXTS or aggregate not in AGGREGATES:
        raise GraderError(
            f"eval_criteria.conversation: context one of {CONTEXTS}, aggregate one of {AGGREGATES}"
        )
    return context, aggregate


def turn_sample(sample: Sample, index: int, history: list[dict[str, Any]]) -> Sample:
    """The single-answer sample of turn ``index`` (1-based): history so far + this user message."""
    turn = sample.turns[index - 1]
    criteria = {k: v for k, v in sample.criteria.items() if k != "conversation"}
    if criteria.get("accuracy") == "structured" and turn.get("expected_structured") is None:
        criteria.pop("accuracy")
    criteria.update(turn.get("criteria") or {})
    if "accuracy" not in (turn.get("criteria") or {}):
        if turn.get("criteria", {}).get("clarify"):
            criteria["accuracy"] = "clarify"
        elif (
            turn.get("expected_structured") is not None
            or turn.get("expected_tool_calls") is not None
        ):
            criteria["accuracy"] = "structured"
    return dataclasses.replace(
        sample,
        id=f"{sample.id}/turn{index}",
        question=turn["user"],
        expected=turn["expected"],
        expected_number=None,
        messages=(*history, {"role": "user", "content": turn["user"]}),
        response=turn.get("response"),
        criteria=criteria,
        expected_structured=turn.get("expected_structured"),
        expected_tool_calls=turn.get("expected_tool_calls"),
        turns=(),
    )


def grade_conversation(
    sample: Sample,
    *,
    answer: Callable[[Sample], Answer],
    grade: Callable[[Sample, Answer], GradeResult],
) -> ConversationGrade:
    """Ask and grade every assistant turn in order (``answer`` and ``grade``: the grading pipeline's
    stages); one grade for the sample."""
    context, aggregate = settings_of(sample)
    preamble = [m for m in sample.messages if m["role"] in ("system", "developer")]
    history: list[dict[str, Any]] = [dict(m) for m in preamble]
    grades: list[tuple[Sample, Answer, GradeResult]] = []
    for index, turn in enumerate(sample.turns, start=1):
        asked = turn_sample(sample, index, history)
        replied = answer(asked)
        grades.append((asked, replied, grade(asked, replied)))
        reply = replied.text if context == "model" else turn["expected"]
        history += [
            {"role": "user", "content": turn["user"]},
            {"role": "assistant", "content": reply},
        ]
    return combine(grades, aggregate)


def combine(grades: list[tuple[Sample, Answer, GradeResult]], aggregate: str) -> ConversationGrade:
    pick = min if aggregate == "min" else statistics.fmean
    overall = float(pick(g.overall for _, _, g in grades))
    cutoffs = grades[-1][2].cutoffs
    turns = [
        {
            "turn": index,
            "question": asked.question,
            "expected": asked.expected,
            "predicted": answer.text,
            "tier": grade.tier,
            "overall": round(grade.overall, 4),
            "reason": grade.worst_reason(),
            "accuracy_grader": grade.record.get("accuracy_grader", ""),
            "scores": grade.scores(),
        }
        for index, (asked, answer, grade) in enumerate(grades, start=1)
    ]
    record = dict(grades[-1][2].record)
    record.update(
        accuracy_grader="conversation",
        refusal=any(g.record.get("refusal") for _, _, g in grades),
        needs_review=any(g.record.get("needs_review") for _, _, g in grades),
        length_tokens=sum(int(g.record.get("length_tokens") or 0) for _, _, g in grades),
        turns=turns,
        conversation_aggregate=aggregate,
    )
    return ConversationGrade(
        overall=overall,
        tier=tier_for(overall, cutoffs),
        components=_components([g for _, _, g in grades], pick),
        cutoffs=cutoffs,
        response=grades[-1][1].text,
        names=grades[-1][2].names,
        record=record,
        turns=turns,
    )


def _components(grades: list[GradeResult], pick: Any) -> dict[str, Component]:
    """Each component over the turns it applied to: mean (or worst) score, the worst turn's reason."""
    out: dict[str, Component] = {}
    names = [n for g in grades for n in g.components]
    for name in dict.fromkeys(names):
        applied = [
            (i, g.components[name]) for i, g in enumerate(grades, start=1) if name in g.components
        ]
        worst_turn, worst = min(applied, key=lambda pair: pair[1].score)
        out[name] = Component(
            name=name,
            score=float(pick(c.score for _, c in applied)),
            weight=statistics.fmean(c.weight for _, c in applied),
            reason=f"turn {worst_turn}: {worst.reason}",
            metric=worst.metric,
            details={"turns": {str(i): round(c.score, 4) for i, c in applied}},
        )
    return out
