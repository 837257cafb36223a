"""The end-of-run summary table (printed under -q too)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_llmeval.records.run import RunRecord
    from pytest_llmeval.records.sample_record import SampleRecord
    from pytest_llmeval.report.outputs import OutputLog
    from pytest_llmeval.report.tally import Tally


def _fmt(value: float | None, pattern: str = "{:.3f}") -> str:
    return "-" if value is None else pattern.format(value)


def _group_table(title: str, groups: dict[str, Tally]) -> list[str]:
    lines = [
        f"{title:<22} {'n':>4} {'pass':>5} {'acc':>5} {'fail':>5} {'err':>5} {'rate':>7} {'overall':>8}"
    ]
    for name, tally in groups.items():
        lines.append(
            f"{name[:22]:<22} {len(tally.records):>4} {tally.tiers['pass']:>5} {tally.tiers['acceptable']:>5} "
            f"{tally.tiers['fail']:>5} {tally.errors:>5} {_fmt(tally.pass_rate, '{:.1%}'):>7} "
            f"{_fmt(tally.mean('overall')):>8}"
        )
    return lines


Line = tuple[str, dict[str, bool]]
PLAIN: dict[str, bool] = {}


class _Lines(list[Line]):
    """The summary being written: text with its terminal markup."""

    def add(self, text: str, **markup: bool) -> None:
        self.append((text, markup or PLAIN))


def summary_lines(run: RunRecord, log: OutputLog, *, worst: int) -> list[Line]:
    """Lines of the summary with their terminal markup, section by section (see ``SECTIONS``)."""
    tally = run.tally()
    out = _Lines()
    if run.incomplete_reason:
        collected = run.collected
        of = f" of {collected} collected test(s)" if collected else ""
        out.add(
            f"INCOMPLETE run: {run.incomplete_reason}; these figures cover only the "
            f"{len(run.records)} result(s) recorded{of}",
            red=True,
            bold=True,
        )
    if not tally.records:
        helpers = run.helper_records()
        if helpers or not run.gates:
            out.add(_helpers_line(helpers))
        _gates(out, run, log, tally, worst)  # a gate over no sample fails, and says why
        return out
    for section in SECTIONS:
        section(out, run, log, tally, worst)
    return out


def _counts(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    """How many samples in each tier, the pass rate, and the mean of each component."""
    skipped = tally.tiers["skipped"]
    out.add(
        f"samples: {len(tally.graded)} graded, {tally.errors} error(s)"
        + (f", {skipped} skipped" if skipped else "")
        + f" | pass {tally.tiers['pass']}  acceptable {tally.tiers['acceptable']}  "
        f"fail {tally.tiers['fail']}  error {tally.errors}"
    )
    out.add(
        f"pass rate: {_fmt(tally.pass_rate, '{:.1%}')} ({tally.passed} of {tally.denominator} in the pass tier; "
        f"errors count as {run.settings.errors.value})"
    )
    means = [f"mean overall {_fmt(tally.mean('overall'))}"]
    for component in run.components:
        value = tally.mean(component)
        if value is not None:
            means.append(
                f"{component}{' (info)' if tally.info_only(component) else ''} {value:.3f}"
            )
    out.add(" | ".join(means))
    retrieval: list[dict[str, Any]] = [
        r["retrieval_metrics"] for r in tally.graded if r.get("retrieval_metrics")
    ]
    if retrieval:
        ndcg = sum(m["ndcg_harmonic"] for m in retrieval) / len(retrieval)
        precision = sum(m["modified_precision"] for m in retrieval) / len(retrieval)
        out.add(
            f"retrieval: {len(retrieval)} samples, mean nDCG (harmonic) {ndcg:.3f}, mean precision {precision:.3f}"
        )
    out.add(f"refusals: {tally.count('refusal')}   needs review: {tally.count('needs_review')}")
    from pytest_llmeval.report.people import summary_lines as people_lines

    for line in people_lines(run.label_match, run.corrections, tuple(run.settings.models)):
        out.add(line)


def _run_notes(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    """Hand-written tests, re-verified verdicts, reference metrics, graders, warnings, outputs, model calls."""
    helpers = run.helper_records()
    if helpers:
        out.add(_helpers_line(helpers))
    reverified = [r for r in tally.graded if r.get("reverified")]
    if reverified:
        changed = sum(
            1
            for r in reverified
            if (
                r.get("components", {}).get("accuracy", {}).get("details", {}).get("verification")
                or {}
            ).get("changed")
        )
        out.add(
            f"second verification: {len(reverified)} sample(s) re-asked (LLM judge and fuzzy check disagreed), "
            f"{changed} verdict(s) changed"
        )
    reference = tally.reference_means()
    if reference:
        out.add(
            f"reference metrics (info, never scored) over {reference['samples']} samples: "
            f"BLEU {_fmt(reference['bleu'], '{:.1f}')} | ROUGE-1 {_fmt(reference['rouge1_f'])} | "
            f"ROUGE-L {_fmt(reference['rougeL_f'])} | BERTScore F1 {_fmt(reference['bertscore_f1'])}"
        )
    graders = Counter(r.get("accuracy_grader") for r in tally.graded if r.get("accuracy_grader"))
    if graders:
        out.add(
            "accuracy graders: " + ", ".join(f"{name} {n}" for name, n in sorted(graders.items()))
        )
    for warning in run.all_warnings(log.warnings):
        out.add(f"warning: {warning}", yellow=True)
    if run.human_agreement:
        from pytest_llmeval.report.review import agreement_lines

        for line in agreement_lines(run.human_agreement, limit=worst):
            out.add(line)
    for note in log.notes:
        out.add(note)
    stats = run.model_stats
    if stats:
        out.add(model_stats_line(stats))
    for key, title in (("task", "by task"), ("domain", "by domain")):
        groups = tally.groups(key)
        if len(groups) > 1:
            out.extend((line, PLAIN) for line in _group_table(title, groups))


def _needs_review(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    """The samples a person (or the judge) should look at, and who flagged them."""
    review = [r for r in tally.graded if r.get("needs_review")]
    if not review:
        return
    parties = sorted({str(r.get("review_between") or "judge and check") for r in review})
    # Name who disagreed: the offline judge with the fuzzy check, or an LLM judge with the offline verdict.
    only = parties[0] + (" disagree" if " and " in parties[0] else "")  # "offline judge (abstains)"
    out.add(
        f"needs review ({only}):"
        if len(parties) == 1
        else "needs review (verdicts disagree or evidence is thin):",
        yellow=True,
    )
    for record in review[:worst]:
        who = f"  ({record.get('review_between') or 'judge and check'})" if len(parties) > 1 else ""
        reason = " ".join(str(record.get("review_reason") or "").split())
        if len(reason) > 110:
            reason = reason[:109] + "…"
        out.add(f"  {record['nodeid']}{who}" + (f": {reason}" if reason else ""))


def _worst(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    worst_records = tally.worst(worst)
    if not worst_records:
        return
    out.add(f"worst samples (up to {worst}):")
    for record in worst_records:
        overall = record["scores"].get("overall")
        reason = " ".join(str(record.get("reason") or "").split())
        if len(reason) > 110:
            reason = reason[:109] + "…"
        color = {"error": "red", "fail": "red", "acceptable": "yellow"}[record["status"]]
        out.add(
            f"  {record['status'].upper():<10} {_fmt(overall, '{:.2f}'):>5}  {record['nodeid']}  {reason}",
            **{color: True},
        )


def _repeats(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    """``--llm-repeat``: stable and flaky samples, the mean pass rate with its interval, pass@k."""
    from pytest_llmeval.regression.repeats import aggregate as repeat_aggregate

    repeats = repeat_aggregate(tally.records)
    if repeats is None:
        return
    low, high = repeats["mean_pass_rate_ci95"]
    out.add(
        f"repeats: {run.settings.repeat} per sample | stable pass {repeats['stable_pass']}  "
        f"flaky {repeats['flaky']}  stable fail {repeats['stable_fail']} | mean pass rate "
        f"{repeats['mean_pass_rate']:.1%} (95% CI {low:.1%} to {high:.1%}) | pass@k {repeats['pass_at_k_rate']:.1%}  "
        f"pass^k {repeats['pass_all_k_rate']:.1%}"
        + (
            f" | repeat errors {repeats['repeat_errors']} (count as {run.settings.errors.value})"
            if repeats.get("repeat_errors")
            else ""
        )
    )
    flaky = [
        r for r in sorted(tally.records, key=lambda r: r["nodeid"]) if r.get("stability") == "flaky"
    ]
    if flaky:
        out.add(f"flaky samples ({len(flaky)}):", yellow=True)
        for record in flaky[:worst]:
            runs = " ".join(r["status"] for r in record["repeats"])
            out.add(
                f"  {record['nodeid']}  {record['pass_count']} of {record.get('counted_repeats', len(record['repeats']))} passed: {runs}",
                yellow=True,
            )
        if len(flaky) > worst:
            out.add(
                f"  ... and {len(flaky) - worst} more (see the JSON report's flaky_samples)",
                yellow=True,
            )


def _comparisons(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    """Several models side by side, and each comparison with the first model or the baseline."""
    tallies = run.model_tallies()
    if not tallies and run.comparison is None:  # one model, no baseline: nothing to compare
        return
    from pytest_llmeval.regression.run_comparison import comparison_lines

    if tallies:
        from pytest_llmeval.regression.multimodel import side_by_side

        out.extend((line, PLAIN) for line in side_by_side(tallies))
        for model, comparison in run.model_comparisons.items():
            if comparison is not None:
                out.extend(comparison_lines(comparison, title=f"{model} vs {run.settings.model}"))
    if run.comparison is not None:
        out.extend(comparison_lines(run.comparison))
        assert run.baseline is not None
        for model, comparison in run.baseline.by_model.items():
            out.extend(
                comparison_lines(
                    comparison, title=f"{model} vs {model} in baseline {run.baseline.shown_path}"
                )
            )


def _gates(out: _Lines, run: RunRecord, log: OutputLog, tally: Tally, worst: int) -> None:
    for gate in run.gates:
        out.add(gate.message, red=not gate.passed, green=gate.passed, bold=True)
    if run.gate_only_message and tally.records:
        out.add(run.gate_only_message, yellow=True)


# The summary's sections in the order they print; each writes its lines (or none) to ``out``.
SECTIONS: tuple[Callable[[_Lines, RunRecord, OutputLog, Tally, int], None], ...] = (
    _counts,
    _run_notes,
    _needs_review,
    _worst,
    _repeats,
    _comparisons,
    _gates,
)


def _helpers_line(helpers: list[SampleRecord]) -> str:
    failed = sum(1 for r in helpers if r.status == "failed")
    return (
        f"assertion helpers: {len(helpers)} test(s), {len(helpers) - failed} passed, {failed} failed "
        "(each on its own threshold; not in the tiers, pass rate or means above)"
    )


def model_stats_line(stats: dict[str, Any]) -> str:
    parts = [f"model calls: {stats.get('calls', 0)}", f"cache hits {stats.get('cache_hits', 0)}"]
    parts.append(f"retries {stats.get('retries', 0)}")
    tokens = f"tokens {stats.get('prompt_tokens', 0)}+{stats.get('completion_tokens', 0)}"
    if stats.get("estimated_usage"):
        from pytest_llmeval.models.usage import CHARS_PER_TOKEN

        tokens += f" ({stats['estimated_usage']} replies without usage, estimated at {CHARS_PER_TOKEN} characters a token)"
    parts.append(tokens)
    if stats.get("latency_median_s") is not None:
        from pytest_llmeval.report.latency import latency_parts

        parts.extend(latency_parts(stats))
    if stats.get("cost_usd") is not None:
        parts.append(f"cost ${stats['cost_usd']:.4f}")
    return " | ".join(parts)
