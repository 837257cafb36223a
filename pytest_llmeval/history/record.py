"""Build one run's history record from its run record (controller only)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import subprocess
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_llmeval.history.store import NOT_RUN, STATUS_CHARS, canonical

if TYPE_CHECKING:
    from pytest_llmeval.models.base import Answer
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.sample import Sample

# Settings that change answers or verdicts besides the run identity (model, judge, rubric).
VERDICT_SETTINGS = (
    "errors",
    "repeat",
    "temperature",
    "max_tokens",
    "seed",
    "citation_patterns",
    "embedding_model",
)
ANSWER_FIELDS = frozenset(
    {"response"}
)  # the answer under test, not the gold: never part of the gold hash
MAX_REASON = 300


def gold_hash(sample: Sample) -> str:
    """A short hash of the gold record (everything but a pre-recorded answer): a changed gold is
    not a regression."""
    gold = {k: v for k, v in sample.raw.items() if k not in ANSWER_FIELDS}
    return hashlib.sha256(canonical(gold)).hexdigest()[:12]


def answer_usage(
    answers: list[Answer], prices: dict[str, Any], model: str | None
) -> dict[str, Any]:
    """Tokens, latency and cost of a sample's answers (all repeats); a cached answer costs nothing."""
    from pytest_llmeval.models.usage import Stats

    tokens = sum(a.usage.prompt_tokens + a.usage.completion_tokens for a in answers)
    price = Stats(prices)._price(model or "") if prices and model else None
    cost = None
    if price is not None:
        cost = sum(
            (a.usage.prompt_tokens * price[0] + a.usage.completion_tokens * price[1]) / 1000
            for a in answers
            if not a.cached
        )
    return {"tokens": tokens, "latency_s": sum(a.latency_s for a in answers), "cost_usd": cost}


def git_info(directory: Path) -> dict[str, Any] | None:
    """Commit and branch when ``directory`` is in a git checkout (None otherwise, or without git)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=directory,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() or None if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None
    return {"commit": commit, "branch": git("symbolic-ref", "--short", "-q", "HEAD")}


def _number(value: Any, digits: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return NOT_RUN
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _columns(
    records: list[SampleRecord | None], graders: dict[str, int], repeat: int
) -> dict[str, Any]:
    status: list[str] = []
    score: list[str] = []
    grader: list[str] = []
    tokens: list[str] = []
    latency: list[str] = []
    cost: list[str] = []
    passes: list[str] = []
    reasons: dict[str, str] = {}
    for index, r in enumerate(records):
        if r is None:
            status.append(NOT_RUN)
            for column in (score, grader, tokens, latency, cost, passes):
                column.append(NOT_RUN)
            continue
        status.append(STATUS_CHARS.get(str(r.status), NOT_RUN))
        score.append(_number((r.scores or {}).get("overall"), 3))
        name = r.accuracy_grader
        grader.append(str(graders.setdefault(str(name), len(graders))) if name else NOT_RUN)
        usage = r.answer_usage or {}
        tokens.append(_number(usage.get("tokens"), 0))
        latency.append(_number(usage.get("latency_s"), 2))
        cost.append(_number(usage.get("cost_usd"), 6))
        passes.append(_number(r.pass_count, 0))
        if r.status in ("error", "skipped") and r.reason:
            reasons[str(index)] = str(r.reason)[:MAX_REASON]
    columns: dict[str, Any] = {
        "status": "".join(status),
        "score": " ".join(score),
        "grader": " ".join(grader),
    }
    for name, values in (("tokens", tokens), ("latency_s", latency), ("cost_usd", cost)):
        if any(v != NOT_RUN for v in values):
            columns[name] = " ".join(values)
    if repeat > 1:
        columns["pass_count"] = " ".join(passes)
    if reasons:
        columns["reasons"] = reasons
    return columns


def build_run(
    run: RunRecord, *, exitstatus: int | None, finished: dt.datetime | None = None
) -> tuple[dict[str, Any], list[list[Any]]]:
    """(run metadata with result columns, sample rows) for :func:`store.write_run`."""
    from pytest_llmeval import __version__
    from pytest_llmeval.report.json_report import run_identity

    settings = run.settings
    identity = run_identity(settings)
    gold = [r for r in run.records if r.kind == "gold"]
    known: dict[tuple[str, str], Any] = {(str(r.file or ""), str(r.sample_id)): r for r in gold}
    for sample in run.collected_gold:  # collected, never run: shown as not run
        known.setdefault(
            (sample.path, sample.sample_id), {"line": sample.line, "gold_hash": sample.gold_hash}
        )
    keys = sorted(known.items(), key=lambda kv: (kv[0][0], _line(kv[1].get("line")), kv[0][1]))
    rows = [
        [file, sample_id, _line(r.get("line")), r.get("gold_hash")] for (file, sample_id), r in keys
    ]
    position = {key: index for index, (key, _r) in enumerate(keys)}
    models = list(settings.models) or [str(identity["model"])]
    by_model: dict[str, list[SampleRecord | None]] = {m: [None] * len(rows) for m in models}
    for r in gold:
        model = str(r.model or identity["model"])
        by_model.setdefault(model, [None] * len(rows))[
            position[(str(r.file or ""), str(r.sample_id))]
        ] = r
    graders: dict[str, int] = {}
    results = {m: _columns(recs, graders, int(settings.repeat)) for m, recs in by_model.items()}
    finished = finished or dt.datetime.now(dt.timezone.utc)
    started = run.started_at
    stats = run.model_stats or {}
    entry = {
        "run_id": uuid.uuid4().hex[:16],
        "started": started.isoformat(timespec="microseconds") if started else None,
        "finished": finished.isoformat(timespec="microseconds"),
        "git": git_info(run.rootpath),
        "complete": run.incomplete_reason is None,
        "incomplete_reason": run.incomplete_reason,
        "plugin_version": __version__,
        "exitstatus": exitstatus,
        "gates": [{"name": g.name, "passed": g.passed, "model": g.model} for g in run.gates],
        "identity": identity,
        "models": list(by_model),
        "settings": {name: _plain(getattr(settings, name, None)) for name in VERDICT_SETTINGS},
        "totals": {
            k: stats.get(k)
            for k in (
                "calls",
                "cache_hits",
                "errors",
                "prompt_tokens",
                "completion_tokens",
                "cost_usd",
            )
        },
        "graders": list(graders),
        "results": results,
    }
    if run.budget_note:
        entry["budget"] = run.budget_note
    return entry, rows


def _plain(value: Any) -> Any:
    value = getattr(value, "value", value)  # enums
    return json.loads(json.dumps(value, default=str))


def _line(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
