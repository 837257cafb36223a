"""The rubric: component scores -> weighted overall score -> tier.

Components: accuracy (a grader from the registry), citation, length, keywords, and
retrieval (weight 0 by default: reported, not scored). A component that does not
apply drops out and the remaining weights renormalise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.registry import GradeContext, GraderRegistry

if TYPE_CHECKING:
    from pytest_llmeval.metrics.base import MetricResult
    from pytest_llmeval.models.base import Answer, ChatModel
    from pytest_llmeval.options import Settings
    from pytest_llmeval.sample import Sample

COMPONENTS = ("accuracy", "citation", "length", "keywords", "retrieval")
DEFAULT_WEIGHTS = {"accuracy": 0.5, "citation": 0.25, "length": 0.15, "keywords": 0.10, "retrieval": 0.0}
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
    accuracy_grader: str
    refusal: bool = False
    needs_review: bool = False
    length_tokens: int = 0

    def scores(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {"overall": round(self.overall, 4)}
        for name in ("accuracy", "citation", "length", "keywords", "retrieval"):
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
            lines.append(f"  {comp.name:<10} {comp.score:>6.3f} {weight:>7}  {comp.metric + ': ' if comp.metric else ''}{comp.reason}")
        lines.append(f"  question: {_clip(sample.question)}")
        lines.append(f"  expected: {_clip(sample.expected)}")
        lines.append(f"  response: {_clip(self.response)}")
        return "\n".join(lines)

    def to_builtins(self) -> dict[str, Any]:
        return {
            "overall": self.overall,
            "tier": self.tier,
            "scores": self.scores(),
            "components": {
                c.name: {"score": c.score, "weight": c.weight, "reason": c.reason, "metric": c.metric}
                for c in self.components.values()
            },
            "accuracy_grader": self.accuracy_grader,
            "refusal": self.refusal,
            "needs_review": self.needs_review,
            "length_tokens": self.length_tokens,
            "reason": self.worst_reason(),
            "retrieval_metrics": self.components["retrieval"].details if "retrieval" in self.components else None,
            "accuracy_fallback": self.components["accuracy"].details.get("fallback"),
            "review_between": self.components["accuracy"].details.get("review_between") if self.needs_review else None,
        }


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _default_run_weights() -> dict[str, float]:
    from pytest_llmeval.options import OPTIONS_BY_NAME

    weights: dict[str, float] = OPTIONS_BY_NAME["llm_weights"].convert(OPTIONS_BY_NAME["llm_weights"].default)
    return weights


def tier_for(overall: float, cutoffs: tuple[float, float]) -> str:
    pass_cut, acceptable_cut = cutoffs
    # Round so 0.8999999 from float weights does not miss a 0.9 cut-off.
    overall = round(overall, 9)
    if overall >= pass_cut:
        return "pass"
    if overall >= acceptable_cut:
        return "acceptable"
    return "fail"


def looks_numeric(expected: str | int | float) -> bool:
    from pytest_llmeval.metrics.numeric import looks_numeric as numeric_gold

    # numeric's looks_numeric takes JSON numbers too (finite ones are numeric golds).
    return bool(numeric_gold(expected))  # type: ignore[arg-type]


def choose_accuracy_grader(criteria: dict[str, Any], expected: str | int | float, default: str) -> str:
    """Explicit ``accuracy`` > ``extractive`` settings > ``numeric`` settings > numeric gold >
    ``min_similarity`` (a cosine threshold asks for ``semantic_similarity``) > default."""
    if criteria.get("accuracy"):
        return str(criteria["accuracy"])
    if criteria.get("extractive"):
        return "extractive"
    if criteria.get("numeric"):
        return "numeric"
    if looks_numeric(expected):
        return "numeric"
    if criteria.get("min_similarity") is not None:
        return "semantic_similarity"
    return default


class Rubric:
    """Grades one answer against one sample with the run's settings."""

    def __init__(self, settings: Settings, registry: GraderRegistry, judge: ChatModel | None = None) -> None:
        self.settings = settings
        self.registry = registry
        self.judge = judge

    def weights_for(self, criteria: dict[str, Any]) -> dict[str, float]:
        weights = dict(DEFAULT_WEIGHTS)
        weights.update(self.settings.weights)
        weights.update({k: float(v) for k, v in (criteria.get("weights") or {}).items()})
        unknown = sorted(set(weights) - set(COMPONENTS))
        if unknown:
            raise GraderError(f"unknown rubric component(s) {unknown} in weights; known: {', '.join(COMPONENTS)}")
        return weights

    def grade(self, sample: Sample, answer: Answer) -> GradeResult:
        from pytest_llmeval.metrics.length import LengthBands, length_applies, length_score

        criteria = sample.criteria
        weights = self.weights_for(criteria)
        response = answer.text
        # Every grader reads at most MAX_GRADED_CHARS of an answer (a 50 MB reply must not cost
        # minutes); the accuracy reason says so.
        truncated = len(response) > MAX_GRADED_CHARS
        if truncated:
            response = response[:MAX_GRADED_CHARS]
        contexts = tuple(answer.contexts) if answer.contexts is not None else sample.contexts
        components: dict[str, Component] = {}

        grader_name = choose_accuracy_grader(criteria, sample.gold, self.settings.accuracy)
        grader = self.registry.get(grader_name)
        ctx = GradeContext(
            response=response,
            expected=sample.expected,
            question=sample.question,
            criteria=criteria,
            sample=sample,
            judge=self.judge,
            contexts=contexts,
            options={"embedding_model": self.settings.embedding_model},
            expected_number=sample.expected_number,
        )
        accuracy = grader(ctx)
        if "refusal" in accuracy.details:
            refusal = bool(accuracy.details["refusal"])
        else:
            # Every grader, not only answer_correctness: a refusal is never a correct answer
            # and the report counts refusals apart.
            from pytest_llmeval.metrics.refusal import is_refusal

            refusal = is_refusal(response)
        components["accuracy"] = self._component("accuracy", accuracy, weights, score=0.0 if refusal else None)
        if truncated:
            components["accuracy"].reason = (
                f"answer of {len(answer.text)} characters truncated to its first {MAX_GRADED_CHARS} for grading; "
                + components["accuracy"].reason
            )

        citation = self._citation(response, criteria, sample, contexts)
        if citation is not None:
            components["citation"] = self._component("citation", citation, weights)

        bands = LengthBands.from_mapping({**self.settings.length_bands, **(criteria.get("length_bands") or {})})
        length = length_score(response, max_tokens=criteria.get("max_tokens"), bands=bands)
        # Length judges long-form answers, or wherever the suite asks for it; a correct
        # one-line answer to a one-line gold is not penalised for being short.
        run_weights_changed = "length" in self.settings.weights and self.settings.weights != _default_run_weights()
        if length_applies(
            sample.expected, criteria, bands, run_bands=self.settings.length_bands, run_weights_changed=run_weights_changed
        ):
            components["length"] = self._component("length", length, weights)

        keywords = criteria.get("must_include") or []
        if keywords:
            from pytest_llmeval.metrics.keywords import must_include

            components["keywords"] = self._component("keywords", must_include(response, keywords), weights)

        retrieved = answer.retrieved if answer.retrieved is not None else sample.retrieved
        if retrieved is not None and sample.relevant:
            from pytest_llmeval.metrics.retrieval import retrieval_component

            retrieval = retrieval_component(list(retrieved), sample.relevant, k=criteria.get("k"))
            if retrieval is not None:
                components["retrieval"] = self._component("retrieval", retrieval, weights)
                components["retrieval"].details = {
                    name: getattr(retrieval, name)
                    for name in ("modified_precision", "ndcg_harmonic", "precision_at_k", "recall_at_k",
                                 "hit_rate", "mrr", "average_precision", "ndcg_at_k", "k")
                }

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
            response=response,
            accuracy_grader=grader_name,
            refusal=refusal,
            needs_review=bool(accuracy.details.get("needs_review", False)),
            length_tokens=length.tokens,
        )

    def _citation(
        self, response: str, criteria: dict[str, Any], sample: Sample, contexts: tuple[str, ...]
    ) -> MetricResult | None:
        required = bool(criteria.get("citation_required", False))
        patterns = list(self.settings.citation_patterns) + list(criteria.get("citation_patterns") or [])
        from pytest_llmeval.metrics.citation import citation_component

        return citation_component(
            response,
            required=required,
            patterns=patterns or None,
            # source_ids are slugs, not titles: only an explicit id -> title map resolves law references.
            sources=sample.metadata.get("sources"),
            contexts=list(contexts) or None,
        )

    @staticmethod
    def _component(name: str, result: MetricResult, weights: dict[str, float], score: float | None = None) -> Component:
        value = result.score if score is None else score
        reason = result.explanation
        if score is not None and name == "accuracy":
            reason = "refusal (never a correct answer); " + reason
        return Component(
            name=name,
            score=max(0.0, min(1.0, float(value))),
            weight=weights.get(name, 0.0),
            reason=" ".join(reason.split()),
            metric=result.metric,
            details=result.details,
        )
