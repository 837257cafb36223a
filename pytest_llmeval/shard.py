"""``--llm-shard=K/N``: one CI job's share of the suite, and what its report says to be merged.

A gold sample goes to the shard a sha256 of its gold file path (relative to rootdir, posix) and
sample id names, so adding a sample moves no other one and its cache entries stay with its shard;
any other test goes by its node id. Every shard collects the whole suite and deselects the rest,
so its report can state the hashes of every gold file (the merge refuses shards of different files).
"""

from __future__ import annotations

import enum
import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord

# (index variable, total variable, first index) per CI service, read by --llm-shard=auto
CI_SHARD_VARIABLES = (
    ("CI_NODE_INDEX", "CI_NODE_TOTAL", 1),  # GitLab parallel:
    ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0),
    ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
)
SHARD_ENV = (
    "LLMEVAL_SHARD"  # K/N from a matrix value (GitHub Actions has no shard index of its own)
)
# A run id shared by every job of one CI run: GitHub's run id and attempt, GitLab, Buildkite, CircleCI.
CI_RUN_VARIABLES = (
    ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT"),
    ("CI_PIPELINE_ID",),
    ("BUILDKITE_BUILD_ID",),
    ("CIRCLE_WORKFLOW_ID",),
)

# Settings that change a sample's answer or verdict (or how verdicts count): every shard must share them.
VERDICT_SETTINGS = (
    "llm_model",
    "llm_models",
    "llm_judge",
    "llm_errors",
    "llm_review_passes",
    "llm_weights",
    "llm_tiers",
    "llm_length_bands",
    "llm_accuracy",
    "llm_coarser_dates",
    "llm_citation_patterns",
    "llm_repeat",
    "llm_numeric_extractor",
    "llm_temperature",
    "llm_max_tokens",
    "llm_seed",
    "llm_extra_body",
    "llm_judge_temperature",
    "llm_judge_max_tokens",
    "llm_judge_extra_body",
    "llm_embedding_model",
    "llm_reference_metrics",
    "llm_gold_files",
)
WORKER_KEY = "llmeval_shard"  # xdist worker -> controller: the gold files the worker collected


def parse_shard(value: str, environ: Mapping[str, str] | None = None) -> tuple[int, int]:
    """``K/N`` (1 <= K <= N) or ``auto`` (from the CI variables) as (K, N)."""
    text = value.strip()
    if text.lower() == "auto":
        return shard_from_ci(os.environ if environ is None else environ)
    index, sep, total = text.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        k = n = 0
    if not sep or n < 1 or not 1 <= k <= n:
        raise ValueError("expected K/N with 1 <= K <= N (e.g. 2/4), or auto")
    return k, n


def shard_from_ci(environ: Mapping[str, str]) -> tuple[int, int]:
    """The shard the CI service names (1-based K), or a ValueError listing the variables read."""
    if environ.get(SHARD_ENV):
        return parse_shard(environ[SHARD_ENV])
    for index_var, total_var, first in CI_SHARD_VARIABLES:
        if environ.get(index_var) and environ.get(total_var):
            try:
                k, n = int(environ[index_var]) - first + 1, int(environ[total_var])
            except ValueError:
                raise ValueError(
                    f"{index_var}={environ[index_var]!r} / {total_var}={environ[total_var]!r} are not numbers"
                ) from None
            if n < 1 or not 1 <= k <= n:
                raise ValueError(
                    f"{index_var}={environ[index_var]} / {total_var}={environ[total_var]} name no shard"
                )
            return k, n
    names = [SHARD_ENV, *(f"{i}/{t}" for i, t, _ in CI_SHARD_VARIABLES)]
    raise ValueError(f"auto: none of the CI shard variables is set ({', '.join(names)})")


def ci_run_id(environ: Mapping[str, str] | None = None) -> str | None:
    """The CI run every shard of this run shares, or None outside CI."""
    env = os.environ if environ is None else environ
    for names in CI_RUN_VARIABLES:
        if env.get(names[0]):
            return "-".join(env[name] for name in names if env.get(name))
    return None


def shard_of(key: str, total: int) -> int:
    """The 1-based shard of a key: stable across runs, machines and Python versions."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % total + 1


def item_key(item: pytest.Item, rootdir: Path) -> str:
    """A gold sample by its file and id (every model and repeat of it together); other tests by node id."""
    from pytest_llmeval.run_state import sample_of

    sample = sample_of(item)
    return item.nodeid if sample is None else sample_key(sample.path, sample.id, rootdir)


def sample_key(path: str | Path, sample_id: str, rootdir: Path) -> str:
    """What decides a gold sample's shard: its file relative to rootdir (posix) and its id."""
    return f"{relative(path, rootdir)}\0{sample_id}"


def relative(path: str | Path, rootdir: Path) -> str:
    full = Path(path) if Path(path).is_absolute() else rootdir / path
    try:
        return full.resolve().relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        return full.resolve().as_posix()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


def verdict_settings(settings: Any) -> dict[str, Any]:
    """The settings that change verdicts, by ini key, as JSON values (a shard's report; the merge compares them)."""
    return {
        name: jsonable(getattr(settings, name.removeprefix("llm_"))) for name in VERDICT_SETTINGS
    }


class ShardPlugin:
    """Registered with ``--llm-shard``: deselects the other shards' tests, notes the gold files."""

    def __init__(self, config: pytest.Config, index: int, total: int) -> None:
        self.config = config
        self.index, self.total = index, total
        self.gold_files: dict[str, str] = {}  # rootdir-relative posix path -> sha256 of its bytes
        self.deselected = 0

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        rootdir = self.config.rootpath
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            (keep if shard_of(item_key(item, rootdir), self.total) == self.index else drop).append(
                item
            )
        self.note_gold_files(items)
        if drop:
            self.deselected = len(drop)
            self.config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def note_gold_files(self, items: list[pytest.Item]) -> None:
        from pytest_llmeval.run_state import sample_of

        rootdir = self.config.rootpath
        paths = {str(sample.path) for item in items if (sample := sample_of(item)) is not None}
        paths.update(str(item.path) for item in items if getattr(item, "is_llmeval_gold", False))
        for path in paths:
            full = Path(path) if Path(path).is_absolute() else rootdir / path
            name = relative(full, rootdir)
            if name not in self.gold_files and full.is_file():
                self.gold_files[name] = file_sha256(full)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_KEY] = {
                "gold_files": self.gold_files,
                "deselected": self.deselected,
            }

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = (getattr(node, "workeroutput", None) or {}).get(WORKER_KEY)
        if data:
            self.gold_files.update(data.get("gold_files") or {})
            self.deselected = max(self.deselected, int(data.get("deselected") or 0))


def register(config: pytest.Config, settings: Any) -> None:
    if settings.shard is not None:
        index, total = settings.shard
        config.pluginmanager.register(ShardPlugin(config, index, total), "llmeval-shard")


def report_fields(
    run: RunRecord,
    warnings: list[str],
    sample_result: Callable[[SampleRecord], dict[str, Any]],
) -> dict[str, Any]:
    """The ``shard`` section of a shard's JSON report (nothing without ``--llm-shard``); ``sample_result``
    is the report's own entry of a record (what it leaves out, the merge needs to aggregate as this run did)."""
    plugin = run.shard
    if not isinstance(plugin, ShardPlugin):
        return {}
    rootdir = run.rootpath
    # gold files with no sample in this shard's items still count (their samples all went elsewhere)
    plugin.note_gold_files([])
    for record in run.records:
        if record.kind == "gold" and record.file:
            name = relative(record.file, rootdir)
            full = rootdir / name
            if name not in plugin.gold_files and full.is_file():
                plugin.gold_files[name] = file_sha256(full)
    recorded = {r.nodeid for r in run.records}
    # what sample_results leave out of a record, so a merge can aggregate exactly as this run did
    extras = {}
    for record in run.records:
        shown = sample_result(record)
        extra = {k: v for k, v in record.to_json().items() if k not in shown}
        if extra:
            extras[record.nodeid] = extra
    return {
        "shard": {
            "index": plugin.index,
            "total": plugin.total,
            "run_id": run.settings.run_id or ci_run_id(),
            "gold_files": dict(sorted(plugin.gold_files.items())),
            "settings": verdict_settings(run.settings),
            "incomplete_reason": run.incomplete_reason,
            "deselected": plugin.deselected,
            # failures that have no record (hand-written tests, collection errors): they fail the merged run too
            "other_failures": [n for n in run.other_failures if n not in recorded],
            "warnings": list(warnings),
            "record_extras": extras,
        }
    }
