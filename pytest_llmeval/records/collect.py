"""The run's records as test reports arrive (controller, or a run without xdist)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_llmeval.records.sample_record import SampleRecord


class RecordBook:
    """One record per test: a later record of the same test (a rerun) replaces the earlier one."""

    def __init__(self) -> None:
        self.records: list[SampleRecord] = []
        self._index: dict[str, int] = {}  # nodeid -> position in records
        self._attempts: dict[str, list[str]] = {}  # nodeid -> statuses of attempts a rerun replaced
        # id(builtins) -> (builtins, record) of records built in this process whose report has
        # not arrived yet: the record is kept as built, not read back from its builtins
        self._built: dict[int, tuple[dict[str, Any], SampleRecord]] = {}

    def expect(self, data: dict[str, Any], record: SampleRecord) -> None:
        """``record``, built here, travels on a report as ``data`` (its :meth:`~SampleRecord.to_json`)."""
        self._built[id(data)] = (data, record)

    def add_report(self, report: pytest.TestReport) -> None:
        """The record a test report carries as builtins (``report.llmeval``), if any."""
        record: dict[str, Any] | None = getattr(report, "llmeval", None)
        if record is None:
            return
        built = self._built.pop(id(record), None)
        if str(report.outcome) == "rerun":  # not one of pytest's own outcomes
            # pytest-rerunfailures: this attempt is replaced by the next one; only the final
            # outcome counts, earlier attempts are listed under the sample.
            self._attempts.setdefault(record["nodeid"], []).append(record["status"])
            return
        if built is not None and built[0] is record:
            self.add(built[1])
        else:  # from an xdist worker or a shard
            self.add(SampleRecord.from_json(record))

    def add(self, record: SampleRecord) -> None:
        attempts = self._attempts.pop(record.nodeid, None)
        if attempts:
            record = record.replace(earlier_attempts=attempts)
        index = self._index.get(record.nodeid)
        if index is None:
            self._index[record.nodeid] = len(self.records)
            self.records.append(record)
        else:
            self.records[index] = record


def forget_quiet_phase(config: pytest.Config, report: pytest.TestReport) -> None:
    """Drop a gold item's silent setup/teardown report from the terminal's stats.

    pytest's failure summary scans every such report once per failure (for teardown
    output), which is quadratic: 100k failing samples never finished printing. Reports
    with captured sections stay, so nothing that would be printed is lost.
    """
    if report.when == "call" or not report.passed or report.sections:
        return
    if not str(report.location[0]).endswith(".jsonl"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    quiet = getattr(reporter, "stats", {}).get("")
    if quiet and quiet[-1] is report:
        quiet.pop()
