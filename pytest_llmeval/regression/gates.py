"""Gates and the exit status: which failures a ``--llm-gate-only`` run may leave to the gates.

Pytest's exit status is only ever changed on the controller, in ``pytest_sessionfinish``:
``TESTS_FAILED -> OK`` when every failure is a graded sample in the fail tier and every gate
passed (``--llm-gate-only``), and ``OK -> TESTS_FAILED`` when a gate failed (as ``--max-warnings``
escalates). Codes are never OR-ed together: 2|1 would read as 3, an internal error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_llmeval.options import Settings
    from pytest_llmeval.report.tally import Tally


@dataclass(frozen=True)
class GateResult:
    """One gate's verdict and the one line the summary prints for it."""

    name: str  # "min_pass_rate" | "regression"
    passed: bool
    message: str
    model: str | None = None  # whose gate, when several --llm-model specs are gated apart


@dataclass
class FailureLedger:
    """Counts failed reports on the controller: graded fail-tier samples apart from everything else."""

    graded_failures: int = 0
    other_failures: list[str] = field(default_factory=list)

    def add(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if not report.failed or hasattr(report, "wasxfail"):
            return
        record: dict[str, Any] | None = getattr(report, "llmeval", None)
        if (
            isinstance(report, pytest.TestReport)
            and report.when == "call"
            and record is not None
            and record.get("kind") == "gold"
            and record.get("status") == "fail"
        ):
            self.graded_failures += 1
        else:
            # errors (model, grader, bad line), hand-written tests, teardown and collection failures
            self.other_failures.append(report.nodeid or "<collection>")

    def only_graded(self, testsfailed: int) -> bool:
        """True when every failure pytest counted is a graded sample (the ones gate-only may leave to gates)."""
        return not self.other_failures and self.graded_failures == testsfailed


def decide_exit(
    exitstatus: int,
    gates: list[GateResult],
    ledger: FailureLedger,
    *,
    gate_only: bool,
    testsfailed: int,
) -> int:
    """The run's exit status after the gates (see the module docstring for the two allowed moves)."""
    gates_passed = all(g.passed for g in gates)
    if (
        gate_only
        and gates_passed
        and exitstatus == pytest.ExitCode.TESTS_FAILED
        and ledger.only_graded(testsfailed)
    ):
        return pytest.ExitCode.OK
    if not gates_passed and exitstatus == pytest.ExitCode.OK:
        return pytest.ExitCode.TESTS_FAILED
    return exitstatus


def gate_only_line(ledger: FailureLedger, testsfailed: int) -> str | None:
    """Says why a gate-only run with failed samples exited 0, or why it could not."""
    if not ledger.graded_failures:
        return None
    if ledger.only_graded(testsfailed):
        return (
            f"llmeval gate-only: {ledger.graded_failures} failed sample(s) reported, "
            "the gates decide the exit status"
        )
    others = len(ledger.other_failures) or testsfailed - ledger.graded_failures
    return (
        f"llmeval gate-only: {others} failure(s) that are not graded samples "
        "(errors, hand-written tests, collection) still fail the run"
    )


def nothing_graded_gate(
    gate: float,
    *,
    skipped: int,
    errors: int,
    errors_excluded: bool,
    model: str | None,
    gold_samples: bool,
) -> GateResult:
    """``--llm-min-pass-rate`` over zero graded samples: a failure naming the likely causes.

    A pass rate of nothing is no evidence; exiting 0 would let a CI job with a missing model,
    missing responses or a renamed gold file pass its gate every time.
    """
    whose = f" for {model}" if model else ""
    if not gold_samples:
        seen, causes = (
            "no gold sample was collected",
            (
                "gold files not matching llm_gold_files, a wrong path, or -k/-m deselecting every sample"
            ),
        )
    elif errors:
        seen = f"{errors} error(s)" + (
            ", excluded by -o llm_errors=exclude" if errors_excluded else ""
        )
        seen += f", {skipped} skipped" if skipped else ""
        causes = "the errors above (model, judge or grader failures, bad gold lines)"
    else:
        seen = f"{skipped} sample(s) skipped"
        causes = "no --llm-model, gold lines without a 'response' field, no pytest_llmeval_generate hook returning answers"
    return GateResult(
        "min_pass_rate",
        False,
        (
            f"llmeval gate FAILED{whose}: no sample was graded ({seen}), so --llm-min-pass-rate {gate:.1%} "
            f"cannot be met; likely causes: {causes}"
        ),
        model,
    )


def pass_rate_gates(
    tally: Tally,
    by_model: Mapping[str, Tally],
    settings: Settings,
    corrections: Mapping[str | None, dict[str, Any]],
    *,
    incomplete: bool,
    collect_only: bool,
) -> list[GateResult]:
    """``--llm-min-pass-rate``: the fraction of samples in the pass tier, for each model when several
    ``--llm-model`` specs run (a pooled rate would let a good model hide a bad one)."""
    from pytest_llmeval.options import Source

    gate = settings.min_pass_rate
    if gate is None or collect_only:  # --co grades nothing: no gate to apply
        return []
    if not by_model:
        if not tally.records and (incomplete or settings.source("min_pass_rate") is not Source.CLI):
            # a run stopped before any sample (usage error, Ctrl-C), or a gate from the ini
            # file in a run without gold samples (say, unit tests only)
            return []
        return [pass_rate_verdict(tally, gate, None, settings, corrections.get(None) or {})]
    return [
        pass_rate_verdict(t, gate, m, settings, corrections.get(m) or {})
        for m, t in by_model.items()
    ]


def pass_rate_verdict(
    tally: Tally, gate: float, model: str | None, settings: Settings, effect: dict[str, Any]
) -> GateResult:
    """One pass-rate gate: on the grader's rate, or on the rate people's labels corrected (``effect``)."""
    from pytest_llmeval.options import ErrorsMode

    if tally.pass_rate is None:
        return nothing_graded_gate(
            gate,
            skipped=tally.tiers["skipped"],
            errors=tally.errors,
            model=model,
            gold_samples=bool(tally.records),
            errors_excluded=settings.errors is not ErrorsMode.FAIL,
        )
    whose = f" for {model}" if model else ""
    if effect.get("corrected"):
        return corrected_verdict(effect["corrected"], gate, model, settings)
    note = _unreviewed_note(tally, settings)
    if effect.get("not_corrected"):
        note += f"; the grader's rate, not corrected by people's labels: {effect['not_corrected']}"
    if tally.pass_rate < gate:
        return GateResult(
            "min_pass_rate",
            False,
            (
                f"llmeval gate FAILED{whose}: pass rate {tally.pass_rate:.1%} is below --llm-min-pass-rate "
                f"{gate:.1%} ({tally.passed} of {tally.denominator} samples in the pass tier, errors count as "
                f"{settings.errors.value}{note})"
            ),
            model,
        )
    return GateResult(
        "min_pass_rate",
        True,
        (
            f"llmeval gate passed{whose}: pass rate {tally.pass_rate:.1%} >= {gate:.1%} "
            f"({tally.passed} of {tally.denominator}{note})"
        ),
        model,
    )


def corrected_verdict(
    corrected: dict[str, Any], gate: float, model: str | None, settings: Settings
) -> GateResult:
    """The gate on the pass rate people's labels corrected: its estimate, or its interval's lower bound."""
    from pytest_llmeval.options import GateOn

    whose = f" for {model}" if model else ""
    on_bound = settings.gate_on is GateOn.LOWER_BOUND
    value = corrected["low"] if on_bound else corrected["estimate"]
    what = "lower bound of the corrected pass rate" if on_bound else "corrected pass rate"
    rests = (
        f"corrected pass rate {corrected['estimate']:.1%}, {corrected['confidence']:.0%} interval "
        f"{corrected['low']:.1%} to {corrected['high']:.1%} ({corrected['interval']}), PPI++ from "
        f"{corrected['labels']} people's labels on a random subset of {corrected['population']} samples; "
        f"grader's rate {corrected['grader_rate']:.1%}; --llm-gate-on={settings.gate_on.value}"
    )
    if value < gate:
        return GateResult(
            "min_pass_rate",
            False,
            (
                f"llmeval gate FAILED{whose}: {what} {value:.1%} is below --llm-min-pass-rate {gate:.1%} ({rests})"
            ),
            model,
        )
    return GateResult(
        "min_pass_rate",
        True,
        f"llmeval gate passed{whose}: {what} {value:.1%} >= {gate:.1%} ({rests})",
        model,
    )


def _unreviewed_note(tally: Tally, settings: Settings) -> str:
    if not tally.unreviewed_passes or settings.review_passes:
        return ""
    return f"; {tally.unreviewed_passes} pass-tier sample(s) needing review not counted, llm_review_passes counts them"
