"""The rubric: component scores -> weighted overall score -> tier.

Components come from a registry (:mod:`pytest_llmeval.components`): the built-ins and any a
conftest adds with ``pytest_llmeval_components``. A component that does not apply drops out
and the remaining weights renormalise; one with weight 0 is reported, not scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult

# The accuracy grader's choice lives with the graders (components use it without the rubric);
# re-exported here, beside the rubric that applies it.
from pytest_llmeval.registry import GraderRegistry, choose_accuracy_grader, looks_numeric  # noqa: F401

if TYPE_CHECKING:
    from pytest_llmeval.components import ComponentRegistry
    from pytest_llmeval.models.base import Answer, ChatModel
    from pytest_llmeval.options import Settings
    from pytest_llmeval.sample import Sample

TIERS = ("pass", "acceptable", "fail")
# Graders read at most this many characters of an answer (documented in the README).
MAX_GRADED_CHARS = 50_000


@dataclass
class Component:
    name: str
    score: float
    weight: float
    reason: str
    metric: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class GradeResult:
    """Every component of one sample, its overall score and tier."""

    overall: float
    tier: str
    components: dict[str, Component]
    cutoffs: tuple[float, float]
    response: str
    names: tuple[str, ...] = ()  # every registered component, applied or not
    record: dict[str, Any] = field(default_factory=dict)  # sample-level fields set by components
    tool_calls: list[dict[str, Any]] | None = None  # the answer's, shown when it has no text

    def scores(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {"overall": round(self.overall, 4)}
        for name in self.names or tuple(self.components):
            comp = self.components.get(name)
            out[name] = None if comp is None else round(comp.score, 4)
        return out

    def worst_reason(self) -> str:
        """One line: the weighted component that cost the most."""
        scored = [c for c in self.components.values() if c.weight > 0]
        if not scored:
            return ""
        worst = max(scored, key=lambda c: (1 - c.score) * c.weight)
        return f"{worst.name} {worst.score:.2f}: {worst.reason}"

    def failure_message(self, sample: Sample) -> str:
        pass_cut, acceptable_cut = self.cutoffs
        lines = [
            f"sample {sample.id!r} ({sample.path}:{sample.line}) graded FAIL: "
            f"overall {self.overall:.3f} < {acceptable_cut:.2f} (acceptable), pass needs >= {pass_cut:.2f}",
            f"  {'component':<10} {'score':>6} {'weight':>7}  why",
        ]
        for comp in self.components.values():
            weight = f"{comp.weight:.2f}" if comp.weight > 0 else "info"
            lines.append(
                f"  {comp.name:<10} {comp.score:>6.3f} {weight:>7}  {comp.metric + ': ' if comp.metric else ''}{comp.reason}"
            )
        lines.append(f"  question: {_clip(sample.question)}")
        lines.append(f"  expected: {_clip(sample.expected)}")
        silent = self.tool_calls and not self.response.strip()
        lines.append(
            f"  response: {'(no text: the answer only calls tools)' if silent else _clip(self.response)}"
        )
        if self.tool_calls:
            lines.append(f"  tool calls: {_clip(shown_tool_calls(self.tool_calls))}")
        return "\n".join(lines)

    def components_json(self) -> dict[str, Any]:
        """Each applied component as plain JSON data (what a record and the JSON report keep)."""
        return {
            c.name: {
                "score": c.score,
                "weight": c.weight,
                "reason": c.reason,
                "metric": c.metric,
                "details": _builtins(c.details),
            }
            for c in self.components.values()
        }


class _NotPlain(Exception):
    """A value :func:`_plain_copy` leaves to the JSON round trip."""


_SCALARS = (str, int, float, bool, type(None))


def _plain_copy(value: Any, depth: int = 0) -> Any:
    """A copy of plain JSON data (exact built-in types, str keys), as a JSON round trip gives it."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth > 100:  # deep or circular: the round trip decides
        raise _NotPlain
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _plain_copy(item, depth + 1)
        return out
    if kind is list or kind is tuple:
        return [_plain_copy(item, depth + 1) for item in value]
    raise _NotPlain


def _builtins(value: dict[str, Any]) -> dict[str, Any]:
    """Plain JSON types only: records cross xdist and land in the JSON report."""
    if type(value) is dict:
        try:
            return _plain_copy(value)  # type: ignore[no-any-return]
        except _NotPlain:
            pass
    import json

    try:
        return dict(json.loads(json.dumps(value, default=str)))
    except (TypeError, ValueError):
        return {"unserialisable": repr(value)[:200]}


def shown_tool_calls(calls: list[dict[str, Any]]) -> str:
    """``name(arguments), ...`` of an answer's tool calls, as the API sent them."""
    shown = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            shown.append(f"{function.get('name')}({function.get('arguments') or ''})")
    return ", ".join(shown)


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tier_for(overall: float, cutoffs: tuple[float, float]) -> str:
    pass_cut, acceptable_cut = cutoffs
    # Round so 0.8999999 from float weights does not miss a 0.9 cut-off.
    overall = round(overall, 9)
    if overall >= pass_cut:
        return "pass"
    if overall >= acceptable_cut:
        return "acceptable"
    return "fail"


class Rubric:
    """Grades one answer against one sample: every registered component, weighted, then a tier."""

    def __init__(
        self,
        settings: Settings,
        registry: GraderRegistry,
        judge: ChatModel | None = None,
        components: ComponentRegistry | None = None,
    ) -> None:
        from pytest_llmeval.components import ComponentRegistry

        self.settings = settings
        self.registry = registry
        self.judge = judge
        self.components = components if components is not None else ComponentRegistry()
        # (registry version, weights) of samples that set no weights of their own
        self._run_weights: tuple[int, dict[str, float]] | None = None

    def weights_for(self, criteria: dict[str, Any]) -> dict[str, float]:
        if criteria.get("weights"):
            return self._weights(criteria)
        version = self.components.version
        if self._run_weights is None or self._run_weights[0] != version:
            self._run_weights = (version, self._weights(criteria))
        return dict(self._run_weights[1])

    def _weights(self, criteria: dict[str, Any]) -> dict[str, float]:
        weights = self.components.default_weights()
        weights.update(self.settings.weights)
        weights.update({k: float(v) for k, v in (criteria.get("weights") or {}).items()})
        known = self.components.names()
        unknown = sorted(set(weights) - set(known))
        if unknown:
            raise GraderError(
                f"unknown rubric component(s) {unknown} in weights; known: {', '.join(known)}"
            )
        return weights

    def grade(self, sample: Sample, answer: Answer) -> GradeResult:
        from pytest_llmeval.components import RECORD_DEFAULTS, ComponentContext

        criteria = sample.criteria
        weights = self.weights_for(criteria)
        # Every component reads at most MAX_GRADED_CHARS of an answer (a 50 MB reply must not cost
        # minutes); the accuracy reason says so.
        ctx = ComponentContext(
            response=answer.text[:MAX_GRADED_CHARS],
            expected=sample.expected,
            question=sample.question,
            criteria=criteria,
            sample=sample,
            judge=self.judge,
            contexts=tuple(answer.contexts) if answer.contexts is not None else sample.contexts,
            options={"embedding_model": self.settings.embedding_model},
            retrieved=tuple(answer.retrieved) if answer.retrieved is not None else sample.retrieved,
            answer=answer,
            settings=self.settings,
            graders=self.registry,
            record=dict(RECORD_DEFAULTS),
            expected_number=sample.expected_number,
        )
        components: dict[str, Component] = {}
        for name in self.components.names():
            result = self.components.get(name)(ctx)
            if result is None:
                continue
            if not isinstance(result, MetricResult):
                raise GraderError(
                    f"rubric component {name!r} returned {type(result).__name__}, not a MetricResult or None"
                )
            ctx.results[name] = result
            components[name] = self._component(name, result, weights)

        scored = [c for c in components.values() if c.weight > 0]
        total_weight = sum(c.weight for c in scored)
        if total_weight <= 0:
            raise GraderError("no rubric component with a positive weight applies to this sample")
        overall = sum(c.score * c.weight for c in scored) / total_weight
        for comp in components.values():
            comp.weight = comp.weight / total_weight if comp.weight > 0 else 0.0
        cutoffs = tuple(criteria["tiers"]) if criteria.get("tiers") else self.settings.tiers
        return GradeResult(
            overall=overall,
            tier=tier_for(overall, cutoffs),
            components=components,
            cutoffs=cutoffs,
            response=ctx.response,
            names=tuple(self.components.names()),
            record=ctx.record,
            tool_calls=answer.tool_calls,
        )

    @staticmethod
    def _component(name: str, result: MetricResult, weights: dict[str, float]) -> Component:
        return Component(
            name=name,
            score=max(0.0, min(1.0, float(result.score))),
            weight=weights.get(name, 0.0),
            reason=" ".join(result.explanation.split()),
            metric=result.metric,
            details=result.details,
        )
