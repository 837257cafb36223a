"""Rubric components by name: when each applies, its default weight and how it scores.

A component is ``callable(ctx) -> MetricResult | None`` (``None``: it does not apply to this
sample and drops out; the other weights renormalise). Built-ins are import paths, loaded
when first used; a conftest adds components with ``pytest_llmeval_components``. A component
without a weight in ``llm_weights`` or ``eval_criteria.weights`` is reported, not scored.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.registry import GradeContext

if TYPE_CHECKING:
    from pytest_llmeval.metrics.base import MetricResult
    from pytest_llmeval.metrics.length import LengthBands
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.options import Settings
    from pytest_llmeval.registry import GraderRegistry


@dataclass(frozen=True)
class ComponentContext(GradeContext):
    """What a rubric component sees: the accuracy grader's context plus the run and earlier results.

    ``results`` holds the components already scored for this sample (in registry order);
    ``record`` takes sample-level fields a component adds to the report record.
    """

    retrieved: tuple[str, ...] | None = None
    answer: Answer | None = None
    settings: Settings | None = None
    graders: GraderRegistry | None = None
    results: dict[str, MetricResult] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)


ComponentScorer = Callable[[ComponentContext], "MetricResult | None"]


@dataclass(frozen=True)
class ComponentSpec:
    """A registered component: its default weight (0 = reported, not scored) and its scorer."""

    name: str
    weight: float
    path: str = ""
    scorer: ComponentScorer | None = None


# name -> (default weight, import path). Order is the order of reports and of ``ctx.results``.
BUILTIN_COMPONENTS: dict[str, tuple[float, str]] = {
    "accuracy": (0.5, "pytest_llmeval.components:accuracy"),
    "citation": (0.25, "pytest_llmeval.components:citation"),
    "length": (0.15, "pytest_llmeval.components:length"),
    "keywords": (0.10, "pytest_llmeval.components:keywords"),
    "retrieval": (0.0, "pytest_llmeval.components:retrieval"),
    "language": (0.0, "pytest_llmeval.metrics.freetext.answer_language:component"),
}

# Sample-level record fields built-in components fill through ``ctx.record``, with their
# values when no component sets them.
RECORD_DEFAULTS: dict[str, Any] = {
    "accuracy_grader": "",
    "refusal": False,
    "needs_review": False,
    "length_tokens": 0,
    "retrieval_metrics": None,
    "accuracy_fallback": None,
    "review_between": None,
    "review_reason": None,  # why the sample needs review, as its grader says
    "reverified": False,
    "matched_expected": None,  # which of several acceptable answers matched
}


class ComponentRegistry:
    """Name -> component spec. Built-ins first, then those added by ``pytest_llmeval_components``."""

    def __init__(self) -> None:
        self._specs: dict[str, ComponentSpec] = {
            name: ComponentSpec(name, weight, path)
            for name, (weight, path) in BUILTIN_COMPONENTS.items()
        }
        self.version = 0  # counts registrations: what a cache of the registry's contents keys on

    def names(self) -> list[str]:
        return list(self._specs)

    def register(self, name: str, scorer: ComponentScorer, weight: float = 0.0) -> None:
        if not callable(scorer):
            raise GraderError(
                f"rubric component {name!r} must be callable(ctx) -> MetricResult | None, got {scorer!r}"
            )
        self._specs[name] = ComponentSpec(name, weight, scorer=scorer)
        self.version += 1

    def default_weights(self) -> dict[str, float]:
        return {name: spec.weight for name, spec in self._specs.items()}

    def get(self, name: str) -> ComponentScorer:
        spec = self._specs.get(name)
        if spec is None:
            raise GraderError(
                f"unknown rubric component {name!r}; registered components: {', '.join(self.names())}"
            )
        if spec.scorer is None:
            module_name, _, attr = spec.path.partition(":")
            spec = dataclasses.replace(
                spec, scorer=getattr(importlib.import_module(module_name), attr)
            )
            self._specs[name] = spec
        assert spec.scorer is not None
        return spec.scorer

    @classmethod
    def from_hook(cls, config: Any) -> ComponentRegistry:
        """Built-ins plus every ``pytest_llmeval_components(config)`` result."""
        registry = cls()
        for extra in config.hook.pytest_llmeval_components(config=config):
            for name, scorer in (extra or {}).items():
                registry.register(str(name), scorer)
        return registry


# -- built-in components -------------------------------------------------------------------------


def accuracy(ctx: ComponentContext) -> MetricResult:
    """The accuracy grader the sample selects (``eval_criteria.accuracy``, numeric gold, the default).

    With several acceptable answers (``expected`` a list) each is graded and the best verdict
    counts: a decided pass first, then the highest score; the record names the one that matched.
    """
    golds = ctx.sample.golds if ctx.sample is not None else (ctx.expected,)
    if len(golds) == 1:
        name, result = _grade_accuracy(ctx, golds[0])
    else:
        graded = [(gold, *_grade_accuracy(_for_gold(ctx, gold), gold)) for gold in golds]
        gold, name, result = max(graded, key=lambda g: _alias_rank(g[2]))
        if name == "identity" and result.passed:
            result = _finer_alias_veto(ctx.response, golds, result)
        ctx.record["matched_expected"] = gold if result.passed else None
        result = dataclasses.replace(
            result,
            explanation=f"best of {len(golds)} acceptable answers, {str(gold)[:80]!r}: "
            + result.explanation,
        )
    if "refusal" in result.details:
        refusal = bool(result.details["refusal"])
    else:
        # Every grader, not only answer_correctness: a refusal is never a correct answer
        # and the report counts refusals apart.
        from pytest_llmeval.metrics.freetext.refusal import is_refusal

        refusal = is_refusal(ctx.response)
    needs_review = bool(result.details.get("needs_review", False))
    ctx.record.update(
        accuracy_grader=name,
        refusal=refusal,
        needs_review=needs_review,
        accuracy_fallback=result.details.get("fallback"),
        review_between=result.details.get("review_between") if needs_review else None,
        review_reason=(
            result.details.get("review_reason")
            or "; ".join(result.details.get("review_notes") or [])
            or None
        )
        if needs_review
        else None,
        reverified=bool(result.details.get("reverified", False)),
    )
    if refusal:
        result = dataclasses.replace(
            result, score=0.0, explanation="refusal (never a correct answer); " + result.explanation
        )
    full = ctx.answer.text if ctx.answer is not None else ctx.response
    if len(full) > len(ctx.response):
        result = dataclasses.replace(
            result,
            explanation=f"answer of {len(full)} characters truncated to its first {len(ctx.response)} for grading; "
            + result.explanation,
        )
    return result


def _for_gold(ctx: ComponentContext, gold: str | int | float) -> ComponentContext:
    """The context with one acceptable answer as the gold (text, and the number when it is one)."""
    if isinstance(gold, str):
        return dataclasses.replace(ctx, expected=gold, expected_number=None)
    from pytest_llmeval.schema import number_text

    return dataclasses.replace(ctx, expected=number_text(gold), expected_number=gold)


def _grade_accuracy(ctx: ComponentContext, gold: str | int | float) -> tuple[str, MetricResult]:
    from pytest_llmeval.registry import choose_accuracy_grader

    assert ctx.settings is not None
    assert ctx.graders is not None
    name = choose_accuracy_grader(ctx.criteria, gold, ctx.settings.accuracy)
    return name, ctx.graders.get(name)(ctx)


def _finer_alias_veto(
    response: str, golds: tuple[str | int | float, ...], result: MetricResult
) -> MetricResult:
    """An identity pass on a coarse alias fails when the answer names another date than a finer alias
    inside it ("January 16, 2017" for "January 2017" and "January 12, 2017")."""
    from pytest_llmeval.metrics.freetext.identity import finer_alias_conflict

    why = finer_alias_conflict(response, [g for g in golds if isinstance(g, str)])
    if not why:
        return result
    return dataclasses.replace(
        result, passed=False, score=0.0, explanation=f"{result.explanation}; but {why}"
    )


def _alias_rank(result: MetricResult) -> tuple[bool, bool, float]:
    """Order of preference among aliases: passed, then decided (not needing review), then score."""
    return (bool(result.passed), not result.details.get("needs_review", False), float(result.score))


def citation(ctx: ComponentContext) -> MetricResult | None:
    """Citations: applies when ``citation_required`` or when the answer cites something."""
    from pytest_llmeval.metrics.rag.citation import citation_component

    assert ctx.settings is not None
    patterns = list(ctx.settings.citation_patterns) + list(
        ctx.criteria.get("citation_patterns") or []
    )
    metadata = ctx.sample.metadata if ctx.sample is not None else {}
    return citation_component(
        ctx.response,
        required=bool(ctx.criteria.get("citation_required", False)),
        patterns=patterns or None,
        # source_ids are slugs, not titles: only an explicit id -> title map resolves law references.
        sources=metadata.get("sources"),
        contexts=list(ctx.contexts) or None,
    )


@functools.cache
def _default_run_weights() -> dict[str, float]:
    """The built-in ``llm_weights`` (read-only: shared by every call)."""
    from pytest_llmeval.options import OPTIONS_BY_NAME

    weights: dict[str, float] = OPTIONS_BY_NAME["llm_weights"].convert(
        OPTIONS_BY_NAME["llm_weights"].default
    )
    return weights


# (settings, its length bands, whether its llm_weights moved length): the same for every sample of
# a run, so worked out once per settings object
_RUN_LENGTH: list[tuple[Settings, LengthBands, bool]] = []


def _run_length(settings: Settings) -> tuple[LengthBands, bool]:
    from pytest_llmeval.metrics.length import LengthBands

    if not _RUN_LENGTH or _RUN_LENGTH[0][0] is not settings:
        changed = "length" in settings.weights and settings.weights != _default_run_weights()
        _RUN_LENGTH[:] = [
            (settings, LengthBands.from_mapping(dict(settings.length_bands)), changed)
        ]
    return _RUN_LENGTH[0][1], _RUN_LENGTH[0][2]


def length(ctx: ComponentContext) -> MetricResult | None:
    """Answer length in bands (``llm_length_bands`` under ``eval_criteria.length_bands``).

    Applies to long-form answers, or wherever the suite asks for it; a correct one-line
    answer to a one-line gold is not penalised for being short.
    """
    from pytest_llmeval.metrics.length import (
        LengthBands,
        count_tokens,
        length_applies,
        length_score,
    )

    assert ctx.settings is not None
    settings = ctx.settings
    run_bands, run_weights_changed = _run_length(settings)
    sample_bands = ctx.criteria.get("length_bands")
    bands = (
        LengthBands.from_mapping({**settings.length_bands, **sample_bands})
        if sample_bands
        else run_bands
    )
    ctx.record["length_tokens"] = count_tokens(ctx.response)
    if not length_applies(
        ctx.expected,
        ctx.criteria,
        bands,
        run_bands=settings.length_bands,
        run_weights_changed=run_weights_changed,
    ):
        return None
    return length_score(ctx.response, max_tokens=ctx.criteria.get("max_tokens"), bands=bands)


def keywords(ctx: ComponentContext) -> MetricResult | None:
    """``eval_criteria.must_include`` phrases; applies only when the sample lists some."""
    phrases = ctx.criteria.get("must_include") or []
    if not phrases:
        return None
    from pytest_llmeval.metrics.keywords import must_include

    return must_include(ctx.response, phrases)


_RETRIEVAL_FIELDS = (
    "modified_precision",
    "ndcg_harmonic",
    "precision_at_k",
    "recall_at_k",
    "hit_rate",
    "mrr",
    "average_precision",
    "ndcg_at_k",
    "k",
)


def retrieval(ctx: ComponentContext) -> MetricResult | None:
    """Ranking quality of the retrieved ids against the gold relevant ids (reported by default)."""
    sample = ctx.sample
    if ctx.retrieved is None or sample is None or not sample.relevant:
        return None
    from pytest_llmeval.metrics.rag.retrieval import retrieval_component

    result = retrieval_component(list(ctx.retrieved), sample.relevant, k=ctx.criteria.get("k"))
    if result is None:
        return None
    fields = {name: getattr(result, name) for name in _RETRIEVAL_FIELDS}
    ctx.record["retrieval_metrics"] = fields
    return dataclasses.replace(result, details=fields)
