"""``python -m pytest_llmeval merge SHARD.json... -o merged.json``: N shard reports as one run.

The shards are checked to be the N parts of one run (one clear error otherwise), then replayed
through pytest with this module's plugin: each recorded test's reports are filed again with their
outcome and record (as pytest-xdist's controller files its workers' reports), so the session computes
the summary, gates, baseline comparison, JSON, HTML, JUnit and history exactly as a run of the whole
suite in one job would.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

MERGE_PLUGIN = "llmeval-merge"  # the name the merge plugin is registered under

# recorded statuses that fail an item in setup (errors) or skip it; every other fails or passes at call
_SETUP_STATUSES = ("error", "skipped")
_FAILED_STATUSES = ("fail", "failed")


class MergeError(Exception):
    """Shards that are not the parts of one run (the message says which and why)."""


def load_shards(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Each shard report, checked: valid JSON, a ``shard`` section, the same run, all N shards once."""
    from pytest_llmeval.bounded_json import loads

    shards = []
    for path in paths:
        try:
            report = loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeError) as exc:
            raise MergeError(f"{path}: cannot read the shard report: {exc}") from None
        shard = report.get("shard") if isinstance(report, dict) else None
        if not isinstance(shard, dict) or not isinstance(report.get("sample_results"), list):
            raise MergeError(
                f"{path}: not a shard report (run pytest with --llm-shard=K/N --llm-report=PATH)"
            )
        problem = _header_problem(shard)
        if problem:
            raise MergeError(f"{path}: shard.{problem}")
        # only what the merged run needs stays in memory: 100 shards of 1,000 samples fit in well under 1 GB
        try:
            tests = list(records(report))
        except MergeError as exc:
            raise MergeError(f"{path}: {exc}") from None
        shard.pop("record_extras", None)
        kept = {
            "metadata": report.get("metadata") or {},
            "shard": shard,
            "model_stats": report.get("model_stats"),
            "tests": tests,
        }
        del report
        shards.append((path, kept))
    check_shards(shards)
    return [report for _, report in shards]


def check_shards(shards: list[tuple[Path, dict[str, Any]]]) -> None:
    """Refuse shards of different runs, files or settings, a shard twice or missing, a sample twice."""
    first_path, first = shards[0]
    head = first["shard"]
    for path, report in shards[1:]:
        shard = report["shard"]
        for key, what in (("total", "shard count"), ("run_id", "run id")):
            if shard.get(key) != head.get(key):
                raise MergeError(
                    f"{path} is not of the run of {first_path}: {what} {shard.get(key)!r} != {head.get(key)!r}"
                )
        if shard.get("gold_files") != head.get("gold_files"):
            raise MergeError(
                f"{path} and {first_path} graded different gold files: {_diff(head.get('gold_files'), shard.get('gold_files'))}"
            )
        if shard.get("settings") != head.get("settings"):
            raise MergeError(
                f"{path} and {first_path} ran with different verdict settings: {_diff(head.get('settings'), shard.get('settings'))}"
            )
    seen: dict[int, Path] = {}
    for path, report in shards:
        index = report["shard"].get("index")
        if index in seen:
            raise MergeError(f"shard {index}/{head['total']} given twice: {seen[index]} and {path}")
        seen[index] = path
    missing = [k for k in range(1, int(head.get("total") or 0) + 1) if k not in seen]
    if missing:
        total, run_id = head.get("total"), head.get("run_id")
        raise MergeError(
            f"missing shard(s) {', '.join(f'{k}/{total}' for k in missing)} of run {run_id!r}"
        )
    owner: dict[str, Path] = {}
    for path, report in shards:
        for entry, _phase in report["tests"]:
            nodeid = entry.get("nodeid")
            if nodeid in owner:
                raise MergeError(f"sample {nodeid} is in two shards: {owner[nodeid]} and {path}")
            owner[nodeid] = path


def _diff(a: Any, b: Any) -> str:
    if not isinstance(a, dict) or not isinstance(b, dict):
        return f"{a!r} != {b!r}"
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return "; ".join(f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in keys[:5])


def _header_problem(shard: dict[str, Any]) -> str | None:
    """What is wrong with a report's ``shard`` section (None: nothing)."""
    index, total = shard.get("index"), shard.get("total")
    if not isinstance(total, int) or isinstance(total, bool) or total < 1:
        return f"total: {total!r} is not a shard count"
    if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= total:
        return f"index: {index!r} is not a shard of {total}"
    for key in ("other_failures", "warnings"):
        value = shard.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"{key}: not a list of strings"
    if not isinstance(shard.get("record_extras") or {}, dict):
        return "record_extras: not an object"
    return None


def _check_entry(entry: Any, where: str) -> None:
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("nodeid"), str)
        or not isinstance(entry.get("status"), str)
    ):
        raise MergeError(f"{where}: not a sample entry (needs the strings nodeid and status)")


def _extra(extras: dict[str, Any], nodeid: str) -> dict[str, Any]:
    extra = extras.get(nodeid) or {}
    if not isinstance(extra, dict):
        raise MergeError(f"shard.record_extras[{nodeid!r}]: not an object")
    return extra


def records(report: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """A shard's session records (as the shard's run held them) with the phase that reported each."""
    extras = report["shard"].get("record_extras") or {}
    for i, record in enumerate(report["sample_results"]):
        _check_entry(record, f"sample_results[{i}]")
        record.pop("baseline_status", None)  # the merged run compares with its own baseline
        record.update(_extra(extras, record["nodeid"]))
        yield record, "setup" if record.get("status") in _SETUP_STATUSES else "call"
    for i, entry in enumerate(report.get("helper_results") or []):
        _check_entry(entry, f"helper_results[{i}]")
        record = {k: v for k, v in entry.items() if v is not None or k != "earlier_attempts"}
        record = {
            "question": None,
            "expected": None,
            "predicted": None,
            "task": "assertions",
            "domain": "-",
            "scores": {},
            **record,
        }
        record.update(_extra(extras, entry["nodeid"]))
        yield record, "call"


def replayed(record: dict[str, Any] | None, nodeid: str, phase: str) -> list[pytest.TestReport]:
    """The reports of one shard's test as that shard's run filed them: the phase that decided it, then teardown.

    Plain reports, no items (as pytest-xdist's controller receives them): a merge of 100,000 samples
    holds no collector tree.
    """
    status = record["status"] if record else "failed"
    location = (nodeid.partition("::")[0], None, nodeid)
    outcome = (
        "skipped"
        if status == "skipped"
        else "failed"
        if status in ("error", *_FAILED_STATUSES)
        else "passed"
    )
    reason = str((record or {}).get("reason") or "failed in its shard")
    longrepr: Any = None
    if outcome == "skipped":
        longrepr = (location[0], 0, reason)
    elif outcome == "failed":
        longrepr = reason
    properties = []
    if record and record.get("kind") == "gold" and status in ("pass", "acceptable", "fail"):
        properties.append(("llmeval_tier", status))
        overall = (record.get("scores") or {}).get("overall")
        if overall is not None:
            properties.append(("llmeval_score", f"{overall:.4f}"))
    report = pytest.TestReport(
        nodeid,
        location,
        {},
        outcome,  # type: ignore[arg-type]
        longrepr,
        phase,  # type: ignore[arg-type]
        user_properties=properties,
    )
    if record is not None:
        report.llmeval = record  # type: ignore[attr-defined]
    # JUnit reads the properties from the teardown report, as pytest files them on every phase
    return [
        report,
        pytest.TestReport(
            nodeid, location, {}, "passed", None, "teardown", user_properties=properties
        ),
    ]


@dataclasses.dataclass(frozen=True)
class ShardInputs:
    """What a merged run takes from its shards besides their records."""

    settings: Any  # the run's settings with the shards' verdict settings
    stopped_reason: str | None  # why shards ended incomplete (None: every shard is complete)
    warnings: tuple[str, ...]
    stats: dict[str, Any] | None  # the shards' model requests as one run's


class MergePlugin:
    """Registered by the merge command: the shards' records become the run's items."""

    def __init__(self, shards: list[dict[str, Any]]) -> None:
        self.shards = shards
        self.__name__ = MERGE_PLUGIN  # pluggy registers a plugin under its __name__

    def incomplete(self) -> list[str]:
        """One line per shard that ended incomplete."""
        head = self.shards[0]["shard"]
        return [
            f"shard {s['shard']['index']}/{head['total']} ended incomplete: {s['shard'].get('incomplete_reason') or 'incomplete'}"
            for s in sorted(self.shards, key=lambda r: r["shard"]["index"])
            if s["shard"].get("incomplete_reason") or (s.get("metadata") or {}).get("incomplete")
        ]

    def inputs(self, current: Any) -> ShardInputs:
        """The shards' verdict settings over ``current``, why any ended incomplete, their warnings and stats."""
        recorded = self.shards[0]["shard"].get("settings") or {}
        changes = {
            field: _typed(getattr(current, field), value)
            for field, value in (
                (name.removeprefix("llm_"), value) for name, value in recorded.items()
            )
            if hasattr(current, field)
        }
        warnings: list[str] = []
        for report in self.shards:
            for line in report["shard"].get("warnings") or []:
                if line not in warnings:
                    warnings.append(line)
        stats = [r["model_stats"] for r in self.shards if isinstance(r.get("model_stats"), dict)]
        merged = None
        if stats:  # the shards' requests as one run's (no per-worker split: shards are not workers)
            from pytest_llmeval.models.usage import merge_stats

            merged = merge_stats(stats)
        return ShardInputs(
            dataclasses.replace(current, **changes),
            "; ".join(self.incomplete()) or None,
            tuple(warnings),
            merged,
        )

    def pytest_collection(self, session: pytest.Session) -> bool:
        self.tests: list[tuple[dict[str, Any] | None, str, str]] = []
        for report in self.shards:
            self.tests.extend(
                (record, record["nodeid"], phase) for record, phase in report.pop("tests")
            )
            self.tests.extend(
                (None, nodeid, "call") for nodeid in report["shard"].get("other_failures") or []
            )
        self.tests.sort(key=lambda test: test[1])
        session.testscollected = len(self.tests)
        session.config.hook.pytest_collection_finish(session=session)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        hook = session.config.hook
        tests, self.tests = self.tests, []
        for record, nodeid, phase in tests:
            location = (nodeid.partition("::")[0], None, nodeid)
            hook.pytest_runtest_logstart(nodeid=nodeid, location=location)
            for report in replayed(record, nodeid, phase):
                hook.pytest_runtest_logreport(report=report)
            hook.pytest_runtest_logfinish(nodeid=nodeid, location=location)
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Iterator[None]:
        yield
        # a merged run with a shard that ended incomplete is no verdict, as an interrupted run is none
        stopped = self.incomplete() or session.shouldstop or session.shouldfail
        if stopped and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = pytest.ExitCode.INTERRUPTED


def _typed(current: Any, value: Any) -> Any:
    """A recorded (JSON) setting in the type the run's own setting has."""
    if isinstance(current, enum.Enum):
        return type(current)(value)
    if isinstance(current, tuple) and isinstance(value, list):
        return tuple(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def merge(paths: Sequence[Path], output: str, pytest_args: Sequence[str]) -> int:
    """Check the shards and replay them as one run; pytest's exit status (4 on a refused merge)."""
    import sys

    try:
        shards = load_shards(paths)
    except MergeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    args = [
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-p",
        "no:randomly",
        "--assert=plain",
        "--tb=line",
        "-o",
        "addopts=",
        "-o",
        "testpaths=",
        "-o",
        "llm_shard=",
        "-o",
        "llm_report=",
        f"--llm-report={output}",
        *pytest_args,
    ]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        args[:0] = ["-p", "pytest_llmeval.plugin"]
    return int(pytest.main(args, plugins=[MergePlugin(shards)]))
