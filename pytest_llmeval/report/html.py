"""``--llm-html=PATH``: the JSON report as one self-contained HTML page.

Built from the report dict (whatever keys it holds), so the page and the JSON never
disagree. Everything is inline: CSS, the table script, charts as SVG; a Content-Security-Policy
forbids any request leaving the file. Responses are untrusted: jinja2 autoescapes every
value, and the samples travel as JSON in a ``<script type="application/json">`` with ``<``,
``>`` and ``&`` escaped so no text can close that element; the script writes them with
``textContent`` only. jinja2 is imported only when this module renders.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

TEMPLATE = "report.html.j2"
TIERS = ("pass", "acceptable", "fail", "error", "skipped")
TIER_COLORS = {
    "pass": "#2e7d32",
    "acceptable": "#e0a100",
    "fail": "#c62828",
    "error": "#6a1b9a",
    "skipped": "#9e9e9e",
}
BAR_WIDTH = 420.0
HIST_BINS = 10


def _clean(value: Any) -> Any:
    """Builtins safe for strict JSON: non-finite floats become None, unknown objects strings."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return str(value)


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` can end or bend it."""
    text = json.dumps(_clean(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _segments(counts: dict[str, int], width: float = BAR_WIDTH) -> list[dict[str, Any]]:
    """Rectangles of one stacked horizontal bar (x, width, colour, label) for tier counts."""
    total = sum(counts.values())
    out: list[dict[str, Any]] = []
    x = 0.0
    for tier in TIERS:
        n = counts.get(tier, 0)
        if not n or not total:
            continue
        w = width * n / total
        out.append(
            {
                "x": round(x, 2),
                "w": round(w, 2),
                "color": TIER_COLORS[tier],
                "tier": tier,
                "n": n,
                "title": f"{tier}: {n} of {total} ({n / total:.1%})",
            }
        )
        x += w
    return out


def _tier_counts(report: dict[str, Any]) -> dict[str, int]:
    counts = {tier: 0 for tier in TIERS}
    for sample in report.get("sample_results") or []:
        status = str(sample.get("status"))
        if status in counts:
            counts[status] += 1
    return counts


def _histogram(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall-score histogram, each bin stacked by tier."""
    bins: list[dict[str, int]] = [{t: 0 for t in TIERS[:3]} for _ in range(HIST_BINS)]
    for sample in samples:
        score = _num((sample.get("scores") or {}).get("overall"))
        tier = sample.get("status")
        if score is None or tier not in TIERS[:3]:
            continue
        index = min(HIST_BINS - 1, max(0, int(score * HIST_BINS)))
        bins[index][tier] += 1
    peak = max([sum(b.values()) for b in bins] + [1])
    height, bar_w, gap = 140.0, 38.0, 4.0
    bars = []
    for index, counts in enumerate(bins):
        y = height
        lo, hi = index / HIST_BINS, (index + 1) / HIST_BINS
        for tier in TIERS[:3]:
            n = counts[tier]
            if not n:
                continue
            h = height * n / peak
            y -= h
            bars.append(
                {
                    "x": index * (bar_w + gap),
                    "y": round(y, 2),
                    "w": bar_w,
                    "h": round(h, 2),
                    "color": TIER_COLORS[tier],
                    "title": f"score {lo:.1f}-{hi:.1f}, {tier}: {n}",
                }
            )
    labels = [
        {"x": index * (bar_w + gap) + bar_w / 2, "text": f"{index / HIST_BINS:.1f}"}
        for index in range(HIST_BINS)
    ]
    return {
        "bars": bars,
        "labels": labels,
        "width": HIST_BINS * (bar_w + gap),
        "height": height,
        "peak": peak,
    }


def _group_rows(groups: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not isinstance(groups, dict):
        return rows
    for name, group in groups.items():
        if not isinstance(group, dict):
            continue
        counts = {t: int(group.get(t, 0) or 0) for t in TIERS[:4]}
        rows.append(
            {
                "name": str(name),
                "total": group.get("total", sum(counts.values())),
                "counts": counts,
                "segments": _segments(counts, 300.0),
                "pass_rate": _num(group.get("pass_rate")),
                "overall": _num(group.get("overall_score")),
            }
        )
    return rows


def _component_bars(aggregate: dict[str, Any]) -> list[dict[str, Any]]:
    keys = {
        "accuracy": "accuracy",
        "citation": "citation_coverage",
        "length": "length",
        "keywords": "keywords",
        "retrieval": "retrieval",
        "overall": "overall_score",
    }
    # Components a conftest registered (pytest_llmeval_components) come from the report's
    # per-component means; the built-ins keep their historical aggregate keys.
    extra = {
        name: value
        for name, value in (aggregate.get("components") or {}).items()
        if name not in keys
    }
    bars = []
    for name, key in keys.items():
        value = _num(aggregate.get(key))
        if value is not None:
            bars.append(
                {"name": name, "value": value, "w": round(300.0 * max(0.0, min(1.0, value)), 2)}
            )
    for name, raw in extra.items():
        value = _num(raw)
        if value is not None:
            bars.append(
                {"name": name, "value": value, "w": round(300.0 * max(0.0, min(1.0, value)), 2)}
            )
    return bars


def _scalar_rows(data: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Flatten a dict of scalars / small lists / nested dicts into (key, text) rows."""
    rows: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        return rows
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(_scalar_rows(value, name + "."))
        else:
            rows.append((name, _fmt(value)))
    return rows


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        shown = ", ".join(_fmt(v) for v in value[:20])
        return shown + (f" … (+{len(value) - 20})" if len(value) > 20 else "")
    return str(value)


def _comparison(report: dict[str, Any]) -> dict[str, Any] | None:
    comparison = report.get("comparison")
    if not isinstance(comparison, dict):
        return None
    lists = []
    for key in ("newly_failing", "newly_passing", "only_in_baseline", "only_in_run", "paired"):
        value = comparison.get(key)
        if isinstance(value, list):
            lists.append({"key": key, "n": len(value), "items": [_fmt(v) for v in value[:500]]})
        elif value is not None:
            lists.append({"key": key, "n": value, "items": []})
    scalars = [
        (k, _fmt(v))
        for k, v in comparison.items()
        if k not in {x["key"] for x in lists}
        and k != "baseline"
        and not isinstance(v, (dict, list))
    ]
    ci = comparison.get("ci95")
    if isinstance(ci, (list, tuple)):
        scalars.append(("ci95", " – ".join(_fmt(v) for v in ci)))
    return {
        "baseline": _scalar_rows(comparison.get("baseline") or {}),
        "scalars": scalars,
        "lists": lists,
        "regression": comparison.get("significant_regression"),
    }


def _repeat_count(value: Any) -> int | None:
    """``repeats`` is a list of per-repeat results (or, in older shapes, a count)."""
    if isinstance(value, list):
        return len(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _flaky(report: dict[str, Any], samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Samples whose repeats disagree: ``stability == "flaky"``, a numeric stability below 1, a pass
    count strictly between 0 and the repeats, or an id in the report's ``flaky_samples``."""
    listed = {str(i) for i in report.get("flaky_samples") or [] if isinstance(i, (str, int))}
    out = []
    for sample in samples:
        repeats = _repeat_count(sample.get("repeats"))
        passes = sample.get("pass_count")
        stability = sample.get("stability")
        numeric = _num(stability)
        flaky = (
            stability == "flaky"
            or (numeric is not None and numeric < 1.0)
            or (repeats is not None and isinstance(passes, int) and 0 < passes < repeats)
            or str(sample.get("sample_id")) in listed
        )
        if flaky:
            runs = sample.get("repeats")
            detail = (
                ", ".join(
                    f"{_fmt(r.get('status'))} {_fmt(r.get('score'))}"
                    for r in runs
                    if isinstance(r, dict)
                )
                if isinstance(runs, list)
                else ""
            )
            out.append(
                {
                    "id": str(sample.get("sample_id")),
                    "file": str(sample.get("file") or ""),
                    "repeats": _fmt(repeats),
                    "pass_count": _fmt(passes),
                    "stability": _fmt(stability),
                    "pass_at_k": _fmt(sample.get("pass_at_k")),
                    "pass_all_k": _fmt(sample.get("pass_all_k")),
                    "status": str(sample.get("status")),
                    "runs": detail,
                }
            )
    return out


def _by_model(report: dict[str, Any]) -> dict[str, Any] | None:
    """Per-model columns: rows are the union of the models' scalar keys."""
    by_model = report.get("by_model")
    if isinstance(by_model, list):
        by_model = {
            str(m.get("model", i)): m for i, m in enumerate(by_model) if isinstance(m, dict)
        }
    if not isinstance(by_model, dict) or not by_model:
        return None
    columns = [str(name) for name in by_model]
    flat = {str(name): dict(_scalar_rows(values)) for name, values in by_model.items()}
    keys: list[str] = []
    for values in flat.values():
        keys.extend(k for k in values if k not in keys)
    return {"columns": columns, "rows": [(k, [flat[c].get(k, "-") for c in columns]) for k in keys]}


def _gates(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Gate verdicts: the report's ``gates`` list when it has one, else the pass-rate gate and the
    baseline comparison's verdict."""
    listed = report.get("gates")
    if isinstance(listed, list) and listed:
        return [
            {"name": str(g.get("message") or g.get("name") or "gate"), "passed": g.get("passed")}
            for g in listed
            if isinstance(g, dict)
        ]
    aggregate = report.get("aggregate_metrics") or {}
    gates: list[dict[str, Any]] = []
    if aggregate.get("min_pass_rate") is not None:
        gates.append(
            {
                "name": f"pass rate ≥ {aggregate['min_pass_rate']:.1%}",
                "passed": aggregate.get("gate_passed"),
            }
        )
    comparison = report.get("comparison")
    if isinstance(comparison, dict) and isinstance(comparison.get("gate_line"), str):
        gates.append({"name": comparison["gate_line"], "passed": comparison.get("gate_passed")})
    elif isinstance(comparison, dict) and "significant_regression" in comparison:
        regression = comparison.get("significant_regression")
        gates.append(
            {
                "name": "no significant regression vs baseline",
                "passed": None if regression is None else not regression,
            }
        )
    return gates


PLOT_WIDTH = 420.0


def _people_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Pass rates people's labels corrected: the run's (or each model's) grader rate, corrected estimate
    and interval, with x positions on a 0-100 % axis."""
    aggregate = report.get("aggregate_metrics") or {}
    sources: list[tuple[str, Any, Any]] = [
        ("run", aggregate.get("corrected_pass_rate"), aggregate.get("grader_error"))
    ]
    by_model = report.get("by_model")
    if isinstance(by_model, dict):
        sources.extend(
            (str(m), v.get("corrected_pass_rate"), v.get("grader_error"))
            for m, v in by_model.items()
            if isinstance(v, dict)
        )
    rows = []
    for name, corrected, error in sources:
        if not isinstance(corrected, dict):
            continue
        values = {k: _num(corrected.get(k)) for k in ("estimate", "low", "high", "grader_rate")}
        if any(v is None for v in values.values()):
            continue
        error = error if isinstance(error, dict) else {}
        rows.append(
            {
                "name": name,
                **values,
                "labels": _fmt(corrected.get("labels")),
                "interval": _fmt(corrected.get("interval")),
                "confidence": _num(corrected.get("confidence")),
                "rests_on": _fmt(corrected.get("rests_on")),
                "false_pass": _num((error.get("false_pass") or {}).get("rate")),
                "false_fail": _num((error.get("false_fail") or {}).get("rate")),
                **{
                    f"x_{k}": round(PLOT_WIDTH * max(0.0, min(1.0, v)), 2)
                    for k, v in values.items()
                    if v is not None
                },
            }
        )
    gate = _num(aggregate.get("min_pass_rate"))
    for row in rows:
        row["x_gate"] = None if gate is None else round(PLOT_WIDTH * max(0.0, min(1.0, gate)), 2)
    return rows


def view_model(report: dict[str, Any]) -> dict[str, Any]:
    """Everything the template shows, computed from the report dict."""
    meta = report.get("metadata") or {}
    aggregate = report.get("aggregate_metrics") or {}
    samples = [s for s in report.get("sample_results") or [] if isinstance(s, dict)]
    counts = _tier_counts(report)
    human = report.get("human_agreement")
    tasks = sorted({str(s.get("task") or "-") for s in samples})
    domains = sorted({str(s.get("domain") or "-") for s in samples})
    return {
        "meta": meta,
        "meta_rows": _scalar_rows({k: v for k, v in meta.items() if k not in ("eval_files",)}),
        "eval_files": meta.get("eval_files") or [],
        "aggregate": aggregate,
        "pass_rate": _num(aggregate.get("pass_rate")),
        "overall": _num(aggregate.get("overall_score")),
        "gates": _gates(report),
        "counts": counts,
        "tier_colors": TIER_COLORS,
        "tier_segments": _segments(counts, 600.0),
        "histogram": _histogram(samples),
        "components": _component_bars(aggregate),
        "by_task": _group_rows(report.get("by_task")),
        "by_domain": _group_rows(report.get("by_domain")),
        "model_stats": _scalar_rows(report.get("model_stats") or {}),
        # llm_reference_metrics means (BLEU, ROUGE, BERTScore-style F1); each sample's are in its JSON.
        "reference_metrics": _scalar_rows(aggregate.get("reference_metrics") or {}),
        "comparison": _comparison(report),
        "flaky": _flaky(report, samples),
        "aggregate_rows": _scalar_rows(aggregate),
        "by_model": _by_model(report),
        "human": human if isinstance(human, dict) else None,
        "people": _people_rows(report),
        "plot_width": PLOT_WIDTH,
        "warnings": [str(w) for w in report.get("warnings") or []],
        "tasks": tasks,
        "domains": domains,
        "baseline_statuses": sorted(
            {str(s["baseline_status"]) for s in samples if s.get("baseline_status")}
        ),
        "graders": sorted({str(s["accuracy_grader"]) for s in samples if s.get("accuracy_grader")}),
        "total": len(samples),
        "samples_json": script_json({"samples": samples}),
        "flaky_json": script_json({f["id"]: True for f in _flaky(report, samples)}),
        "history_chart": _history_chart(report),
        "history_samples": _history_samples(samples),
    }


def _history_chart(report: dict[str, Any]) -> dict[str, Any] | None:
    """``--llm-history``: the trend chart of the report's ``history`` section (None without one)."""
    if not isinstance(report.get("history"), dict):
        return None
    from pytest_llmeval.history.view import chart

    return chart(report["history"])


def _history_samples(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Samples whose recent runs disagree or that fail now, most flips first."""
    rows: list[dict[str, Any]] = []
    for s in samples:
        h = s.get("history")
        if isinstance(h, dict) and (
            h.get("flips") or h.get("gold_changed") or str(h.get("recent", ""))[-1:] in ("F", "A")
        ):
            rows.append(
                {
                    "id": str(s.get("sample_id")),
                    "file": str(s.get("file") or ""),
                    "model": _fmt(s.get("model")),
                    "recent": str(h.get("recent", "")),
                    "flips": _fmt(h.get("flips")),
                    "flaky": bool(h.get("flaky")),
                    "gold_changed": bool(h.get("gold_changed")),
                    "since": _fmt(h.get("failing_since_commit"))[:10],
                }
            )
    return sorted(rows, key=lambda r: (-int(r["flips"]) if r["flips"].isdigit() else 0, r["id"]))[
        :200
    ]


def render_html(report: dict[str, Any]) -> str:
    try:
        import jinja2
    except ImportError as exc:  # pragma: no cover - options refuse --llm-html without jinja2
        from pytest_llmeval.errors import install_hint

        raise ImportError(f"the HTML report needs jinja2: {install_hint('html')}") from exc
    source = (
        resources.files("pytest_llmeval.report").joinpath("templates", TEMPLATE).read_text("utf-8")
    )
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["pct"] = lambda v: "-" if v is None else f"{v:.1%}"
    env.filters["num"] = lambda v, digits=3: "-" if _num(v) is None else f"{float(v):.{digits}f}"
    env.filters["fmt"] = _fmt
    from pytest_llmeval.display import safe_tree

    # autoescaping stops markup, not a right-to-left override in an id or an answer
    return env.from_string(source).render(**view_model(safe_tree(report)))


def write_html(path: Path, report: dict[str, Any]) -> None:
    """Write via a temp file in the same directory and ``os.replace``, like the JSON report."""
    from pytest_llmeval.fileio import write_atomic

    write_atomic(path, render_html(report))
