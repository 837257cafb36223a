"""``python -m pytest_llmeval compare BASE.json NEW.json``: compare two ``--llm-report`` files offline;
``python -m pytest_llmeval history [DIR]``: what an ``--llm-history`` directory says (see docs/history.md);
``python -m pytest_llmeval merge SHARD.json... -o merged.json``: the reports of ``--llm-shard`` runs as one run
(see docs/ci.md).

Prints the same comparison block as a run with ``--llm-baseline`` (the same code computes it) and runs
nothing. Exit status: 0, 1 with ``--fail-on-regression`` when the regression gate fails on NEW against BASE,
4 when a file or an argument cannot be used (as pytest's usage errors).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

USAGE_ERROR = 4


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _alpha(value: str) -> float:
    from pytest_llmeval.options import _alpha as convert

    try:
        return convert(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m pytest_llmeval", description="pytest-llmeval tools that run no tests"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    compare = commands.add_parser(
        "compare", help="Compare a --llm-report JSON with a baseline report"
    )
    compare.add_argument("baseline", help="The baseline report (e.g. main's)")
    compare.add_argument("run", help="The report to judge against it")
    compare.add_argument(
        "--fail-on-regression", action="store_true", help="Exit 1 when the regression gate fails"
    )
    compare.add_argument(
        "--alpha", type=_alpha, default=0.05, help="Significance level. Default: 0.05"
    )
    compare.add_argument(
        "--regression",
        choices=("difference", "non-inferiority"),
        default="difference",
        help="What the gate asks (as --llm-regression). Default: difference",
    )
    compare.add_argument(
        "--margin",
        type=_margin,
        default=0.05,
        help="Largest drop in pass rate the gate accepts (as --llm-regression-margin). Default: 0.05",
    )
    compare.add_argument(
        "--json", action="store_true", help="Print the comparison object as JSON instead"
    )
    from pytest_llmeval.history.cli import add_parser as add_history

    add_history(commands, _alpha, _positive)
    merge = commands.add_parser(
        "merge",
        help="Merge the --llm-report files of the --llm-shard runs of one CI run into one run",
        description="Any other option is a pytest option of a normal run: --llm-min-pass-rate, --llm-baseline, "
        "--llm-fail-on-regression, --llm-html, --llm-history, --junitxml, ...",
    )
    merge.add_argument(
        "reports", nargs="+", help="The shard reports (every shard of the run, once)"
    )
    merge.add_argument("-o", "--output", required=True, help="Where the merged JSON report goes")
    return parser


def _margin(value: str) -> float:
    from pytest_llmeval.options import _fraction

    try:
        return _fraction(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def _positive(value: str) -> int:
    from pytest_llmeval.options import _positive_int

    try:
        return _positive_int(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def first_of_several(report: dict[str, Any]) -> str | None:
    """A report that compared several models pairs by its first, as the in-run comparison does."""
    models = (report.get("metadata") or {}).get("models")
    return str(models[0]) if isinstance(models, list) and len(models) > 1 else None


def compare_command(args: argparse.Namespace) -> int:
    from pytest_llmeval.regression.run_comparison import (
        BaselineError,
        compare,
        comparison_lines,
        load_report,
        regression_gate_message,
    )

    try:
        baseline = load_report(Path(args.baseline), role="baseline")
        run = load_report(Path(args.run), role="run")
    except BaselineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    aggregate = run.get("aggregate_metrics") or {}
    errors_mode = "exclude" if aggregate.get("errors_mode") == "exclude" else "fail"
    comparison = compare(
        baseline,
        run["sample_results"],
        run.get("metadata") or {},
        baseline_path=args.baseline,
        alpha=args.alpha,
        errors_mode=errors_mode,
        run_model=first_of_several(run),
        baseline_model=first_of_several(baseline),
        margin=args.margin,
        mode=args.regression,
        labels=(),  # people's labels both reports carry
    )
    if args.json:
        print(json.dumps(comparison, indent=2, ensure_ascii=False))
    else:
        for line, _markup in comparison_lines(comparison):
            print(line)
    if args.fail_on_regression:
        passed, message = regression_gate_message(comparison)
        print(message, file=sys.stderr if args.json else sys.stdout)
        return 0 if passed else 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.command == "merge":
        from pytest_llmeval.report.merge import merge

        return merge([Path(p) for p in args.reports], args.output, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "compare":
        return compare_command(args)
    if args.command == "history":
        from pytest_llmeval.history.cli import history_command

        return history_command(args)
    return USAGE_ERROR  # pragma: no cover - argparse requires a known command


if __name__ == "__main__":
    sys.exit(main())
