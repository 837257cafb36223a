"""People's labels in the outputs: the corrected pass rate and the grader's error rates as summary
lines, JSON fields and JUnit properties (one set per model in a multi-model run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_llmeval.labels import LabelMatch


def json_fields(effect: dict[str, Any] | None, match: LabelMatch | None = None) -> dict[str, Any]:
    """``corrected_pass_rate`` and ``grader_error`` (null without labels that can correct), and
    ``people_labels``: how many applied, how many did not and why, and why no correction."""
    effect = effect or {}
    fields: dict[str, Any] = {
        "corrected_pass_rate": effect.get("corrected"),
        "grader_error": effect.get("grader_error"),
    }
    if match is not None and (match.read or match.given):
        fields["people_labels"] = {
            **match.summary(),
            **(effect.get("labels") or {}),
            "not_corrected": effect.get("not_corrected"),
        }
    return fields


def _interval(part: dict[str, Any]) -> str:
    return f"{part['low']:.1%} to {part['high']:.1%}"


def effect_lines(effect: dict[str, Any], prefix: str = "") -> list[str]:
    """The corrected rate (or why there is none) and the grader's error rates on random labels."""
    lines: list[str] = []
    corrected = effect.get("corrected")
    if corrected:
        lines.append(
            f"{prefix}corrected pass rate: {corrected['estimate']:.1%} ({corrected['confidence']:.0%} interval "
            f"{_interval(corrected)}) vs the grader's {corrected['grader_rate']:.1%}; {corrected['method']}, "
            f"lambda {corrected['lam']:.2f}, from {corrected['labels']} random labels of {corrected['population']} "
            f"samples; the interval rests on the {corrected['rests_on']}"
        )
    elif effect.get("not_corrected"):
        lines.append(
            f"{prefix}pass rate not corrected by people's labels: {effect['not_corrected']}"
        )
    picked = (effect.get("labels") or {}).get("not_random")
    if picked and corrected:
        lines.append(
            f"{prefix}{picked} label(s) not from a random selection (review rows picked because they failed or need "
            "review, a labels file without a random header) count for agreement only, not in the correction"
        )
    error = effect.get("grader_error")
    if error:
        parts = []
        for key, name, of in (
            ("false_pass", "false pass", "incorrect"),
            ("false_fail", "false fail", "correct"),
        ):
            part = error[key]
            if part["rate"] is None:
                parts.append(f"{name} - (no {of} answer labelled)")
            else:
                parts.append(
                    f"{name} {part['rate']:.1%} ({_interval(part)}, {part['count']} of {part['of']} {of})"
                )
        lines.append(
            f"{prefix}grader error on {error['labels']} random labels: " + "; ".join(parts)
        )
    return lines


def summary_lines(
    match: LabelMatch | None,
    corrections: Mapping[str | None, dict[str, Any]],
    models: tuple[str, ...],
) -> list[str]:
    """Lines of the terminal summary (none when no label was given)."""
    if match is None or not (match.read or match.given):
        return []
    summary = match.summary()
    missed = summary["not_applied"]
    line = (
        f"people's labels: {summary['read']} read, {summary['applied']} applied to this run's answers "
        f"({summary['random']} from a random selection)"
    )
    if missed:
        line += (
            f", {sum(missed.values())} did not apply ("
            + ", ".join(f"{n} {why}" for why, n in missed.items())
            + ")"
        )
    lines = [line]
    if missed.get("answer changed") and summary["random"]:
        lines.append(
            f"  {missed['answer changed']} label(s) did not apply because the answer changed: the correction assumes the "
            "grader errs on changed answers as on the others; label a fresh random spot check to be sure"
        )
    if len(models) > 1:
        for model in models:
            lines.extend(effect_lines(corrections.get(model) or {}, prefix=f"[{model}] "))
    else:
        lines.extend(effect_lines(corrections.get(None) or {}))
    return lines


def junit_properties(corrections: Mapping[str | None, dict[str, Any]]) -> list[tuple[str, str]]:
    """Suite-level JUnit properties: ``llmeval_corrected_pass_rate`` and friends, ``[model]`` suffixed per model."""
    properties: list[tuple[str, str]] = []
    for model, effect in corrections.items():
        suffix = f"[{model}]" if model is not None else ""
        corrected = effect.get("corrected")
        if corrected:
            properties.extend(
                (f"llmeval_corrected_{key}{suffix}", f"{corrected[field]:.4f}")
                for key, field in (
                    ("pass_rate", "estimate"),
                    ("low", "low"),
                    ("high", "high"),
                    ("grader_rate", "grader_rate"),
                )
            )
            properties.append((f"llmeval_corrected_labels{suffix}", str(corrected["labels"])))
            properties.append((f"llmeval_corrected_interval{suffix}", corrected["interval"]))
        elif effect.get("not_corrected"):
            properties.append((f"llmeval_not_corrected{suffix}", effect["not_corrected"]))
        error = effect.get("grader_error")
        if error:
            for key in ("false_pass", "false_fail"):
                if error[key]["rate"] is not None:
                    properties.append((f"llmeval_{key}_rate{suffix}", f"{error[key]['rate']:.4f}"))
    return properties
