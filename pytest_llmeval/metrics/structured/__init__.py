"""The ``structured`` grader: an answer's JSON (or tool calls) against a gold JSON value.

Stages, one module each: :mod:`.extract` (find the JSON), :mod:`.validate` (JSON Schema),
:mod:`.rules` (which comparison each field gets), :mod:`.compare` with :mod:`.assign` (field by
field, lists by best assignment), :mod:`.balance` (postings: debits equal credits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce

if TYPE_CHECKING:
    from pytest_llmeval.registry import GradeContext

# A failed verdict (a wrong field, a schema violation, no JSON, an unbalanced posting) scores at
# most this, below every default tier cut-off: a posting with a wrong account is a wrong posting.
FAILED_CAP = 0.5
CRITERIA_KEYS = ("schema", "fields", "balance", "min_agreement", "ordered")
_SHOWN_FAILURES = 5


@dataclass(kw_only=True)
class StructuredResult(MetricResult):
    """Result of :func:`structured_match`: per-field verdicts, line P/R/F1, schema and balance."""

    metric: str = "structured"
    agreement: float = 0.0
    fields: list[dict[str, Any]] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    schema_errors: list[str] = field(default_factory=list)
    balanced: bool | None = None
    source: str = ""

    @property
    def failed_fields(self) -> list[str]:
        return [f["path"] for f in self.fields if not f["ok"]]


def structured_match(
    response: str,
    expected: Any,
    *,
    schema: Any = None,
    fields: dict[str, dict[str, Any]] | None = None,
    balance: bool | dict[str, Any] = False,
    min_agreement: float = 1.0,
    ordered: bool = False,
    tool_calls: list[dict[str, Any]] | None = None,
    question: str | None = None,
    judge: Any = None,
) -> StructuredResult:
    """Compare the JSON in ``response`` (or in ``tool_calls``' arguments) with ``expected``.

    Passes when field agreement >= ``min_agreement`` (default: every field), the JSON meets
    ``schema`` and, with ``balance``, debits equal credits per currency.
    """
    from pytest_llmeval.metrics.structured.extract import extract_json, tool_call_arguments

    found = extract_json(response, want_container=isinstance(expected, dict | list))
    if not found.found:
        found = tool_call_arguments(tool_calls) or found
    if not found.found:
        return StructuredResult(passed=False, score=0.0, explanation=found.reason, source="none")
    return _grade_value(
        found.value,
        expected,
        source=found.source,
        schema=schema,
        fields=fields,
        balance=balance,
        min_agreement=min_agreement,
        ordered=ordered,
        question=question,
        judge=judge,
    )


def tool_calls_match(
    tool_calls: list[dict[str, Any]] | None,
    expected: list[dict[str, Any]],
    *,
    fields: dict[str, dict[str, Any]] | None = None,
    ordered: bool = False,
    min_agreement: float = 1.0,
) -> StructuredResult:
    """The model's tool calls against gold ``[{"name", "arguments"}]``: name exact, arguments
    field by field, order-free unless ``ordered``."""
    from pytest_llmeval.metrics.structured.extract import parse_bounded

    calls: list[dict[str, Any]] = []
    for call in tool_calls or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str):
            parsed, problem = parse_bounded(arguments)
            arguments = {"<unreadable>": problem} if problem else parsed
        calls.append(
            {
                "name": function.get("name") if isinstance(function, dict) else None,
                "arguments": arguments,
            }
        )
    if not calls:
        return StructuredResult(
            passed=False, score=0.0, explanation="no tool call in the answer", source="none"
        )
    return _grade_value(
        calls,
        expected,
        source="tool calls",
        fields=fields,
        ordered=ordered,
        min_agreement=min_agreement,
    )


def _grade_value(
    value: Any,
    expected: Any,
    *,
    source: str,
    schema: Any = None,
    fields: Any = None,
    balance: Any = False,
    min_agreement: float = 1.0,
    ordered: bool = False,
    question: str | None = None,
    judge: Any = None,
) -> StructuredResult:
    from pytest_llmeval.metrics.structured import balance as balance_check
    from pytest_llmeval.metrics.structured.compare import Comparer
    from pytest_llmeval.metrics.structured.rules import check_rules
    from pytest_llmeval.metrics.structured.validate import violations

    rules = dict(check_rules(fields))
    if ordered:
        rules["<root>"] = {**rules.get("<root>", {}), "ordered": True}
    schema_errors = violations(value, schema) if schema is not None else []
    comparer = Comparer(rules, text_judge=judge, question=question)
    comparison = comparer.compare(expected, value)
    agreement = comparison.score
    balance_options = balance_check.settings(balance)
    balanced, balance_reason = None, ""
    if balance_options is not None:
        balanced, balance_reason, _ = balance_check.check(value, balance_options)
    passed = agreement >= min_agreement - 1e-9 and not schema_errors and balanced is not False
    verdicts = [v.to_dict() for v in comparison.verdicts]
    wrong = [v.line() for v in comparison.verdicts if not v.ok]
    parts: list[str] = []  # what failed first: the summary line is clipped
    if wrong:
        more = f"; and {len(wrong) - _SHOWN_FAILURES} more" if len(wrong) > _SHOWN_FAILURES else ""
        parts.append("wrong: " + "; ".join(wrong[:_SHOWN_FAILURES]) + more)
    if schema_errors:
        parts.append("schema violations: " + "; ".join(schema_errors))
    if balance_reason:
        parts.append(balance_reason)
    parts.append(
        f"field agreement {agreement:.3f} ({sum(v['ok'] for v in verdicts)}/{len(verdicts)} fields, JSON from {source})"
    )
    parts += [
        f"{s.path}: lines P {d['precision']:.2f} R {d['recall']:.2f} F1 {d['f1']:.2f}"
        for s in comparison.lists
        if (d := s.to_dict())["gold"] > 1 or d["answer"] > 1
    ]
    return StructuredResult(
        passed=passed,
        score=agreement if passed else min(agreement, FAILED_CAP),
        agreement=agreement,
        explanation="; ".join(parts),
        fields=verdicts,
        lines=[s.to_dict() for s in comparison.lists],
        schema_errors=schema_errors,
        balanced=balanced,
        source=source,
        details={
            "agreement": round(agreement, 4),
            "fields": verdicts,
            "lines": [s.to_dict() for s in comparison.lists],
            "schema_errors": schema_errors,
            "balanced": balanced,
            "source": source,
            "needs_review": bool(passed and comparer.review_notes),
            **(
                {
                    "review_reason": "; ".join(comparer.review_notes[:3]),
                    "review_between": "a text field's grader",
                }
                if passed and comparer.review_notes
                else {}
            ),
            "refusal": False,
        },
    )


def assert_structured_match(response: str, expected: Any, **options: Any) -> StructuredResult:
    """Like :func:`structured_match`, but records the result and raises naming each wrong field."""
    __tracebackhide__ = True
    result = structured_match(response, expected, **options)
    enforce(result)
    return result


def criteria_of(criteria: dict[str, Any]) -> dict[str, Any]:
    """``eval_criteria.structured``, checked (unknown keys raise :class:`GraderError`)."""
    settings = criteria.get("structured") or {}
    if settings is True:
        settings = {}
    if not isinstance(settings, dict):
        raise GraderError(
            f"eval_criteria.structured must be an object, got {type(settings).__name__}"
        )
    unknown = sorted(set(settings) - set(CRITERIA_KEYS))
    if unknown:
        raise GraderError(
            f"eval_criteria.structured: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(CRITERIA_KEYS)}"
        )
    return settings


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``structured``: the sample's ``expected_structured`` or ``expected_tool_calls``."""
    sample = ctx.sample
    settings = criteria_of(ctx.criteria)
    answer = getattr(ctx, "answer", None)
    tool_calls = getattr(answer, "tool_calls", None)
    text = answer.text if answer is not None else ctx.response  # the whole answer: parse is bounded
    min_agreement = float(settings.get("min_agreement", 1.0))
    if sample is not None and sample.expected_tool_calls is not None:
        return tool_calls_match(
            tool_calls,
            sample.expected_tool_calls,
            fields=settings.get("fields"),
            ordered=bool(settings.get("ordered", False)),
            min_agreement=min_agreement,
        )
    if sample is not None and sample.expected_structured is not None:
        expected = sample.expected_structured
    else:
        from pytest_llmeval.metrics.structured.extract import parse_bounded

        expected, problem = parse_bounded(ctx.expected)
        if problem is not None:
            raise GraderError(
                f"structured grader: the sample has no expected_structured and its expected text is {problem}"
            )
    return structured_match(
        text,
        expected,
        schema=settings.get("schema"),
        fields=settings.get("fields"),
        balance=settings.get("balance", False),
        min_agreement=min_agreement,
        ordered=bool(settings.get("ordered", False)),
        tool_calls=tool_calls,
        question=ctx.question,
        judge=ctx.judge,
    )
