"""Several ``--llm-model`` specs in one run: the models side by side, each compared with the first.

Every sample is one item per model; the comparison of model B with model A pairs the same samples and uses
the same paired test as a baseline comparison (McNemar exact, or the permutation test with repeats).
"""

from __future__ import annotations

from typing import Any

from pytest_llmeval.regression.run_comparison import compare


def compare_models(
    sample_results: list[dict[str, Any]],
    models: tuple[str, ...],
    *,
    alpha: float,
    errors_mode: str,
    **gate: Any,
) -> dict[str, dict[str, Any] | None]:
    """For each model, its comparison with the first model (None for the first); ``gate`` (margin,
    mode) as for a baseline, so each block states what the pairing could detect."""
    if len(models) < 2:
        return {}
    first = models[0]
    reference = {"metadata": {"model": first}, "sample_results": sample_results}
    out: dict[str, dict[str, Any] | None] = {first: None}
    for model in models[1:]:
        out[model] = compare(
            reference,
            sample_results,
            {"model": model},
            baseline_path=f"--llm-model={first}",
            alpha=alpha,
            errors_mode=errors_mode,
            run_model=model,
            baseline_model=first,
            **gate,
        )
    return out


def side_by_side(tallies: dict[str, Any]) -> list[str]:
    """Rows: all samples, then each task; columns: each model's pass rate (pass tier) and counts."""
    models = list(tallies)
    tasks = sorted({task for tally in tallies.values() for task in tally.groups("task")})

    def cell(tally: Any) -> str:
        rate = tally.pass_rate
        return f"{'-' if rate is None else f'{rate:.1%}'} ({tally.passed}/{tally.denominator})"

    rows: list[tuple[str, list[str]]] = [("(all)", [cell(tallies[m]) for m in models])]
    if len(tasks) > 1:
        for task in tasks:
            per_task = [tallies[m].groups("task") for m in models]
            rows.append(
                (task[:22], [cell(groups[task]) if task in groups else "-" for groups in per_task])
            )
    widths = [max(len(m), *(len(cells[i]) for _, cells in rows)) for i, m in enumerate(models)]
    lines = [
        f"{'by model (pass rate)':<22}  "
        + "  ".join(f"{m:>{w}}" for m, w in zip(models, widths, strict=True))
    ]
    lines.extend(
        f"{name:<22}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))
        for name, cells in rows
    )
    return lines
