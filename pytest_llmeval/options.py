"""Every CLI flag and its ini twin, declared once, resolved once into a frozen ``Settings``.

Precedence: CLI > ini > built-in default. Option names are module constants that
tests import.
"""

from __future__ import annotations

import argparse
import enum
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field
from typing import Any

import pytest

GROUP = "llmeval"


class RecordMode(str, enum.Enum):
    """Cache record modes (after vcrpy): what happens on a cache hit or miss."""

    OFF = "off"  # no cache at all
    NONE = "none"  # replay only; a miss is an error
    ONCE = "once"  # record only if the cache directory holds nothing for this request set
    NEW = "new"  # replay hits, record misses (default)
    ALL = "all"  # call the model every time and overwrite


class ErrorsMode(str, enum.Enum):
    """How error items count in the pass rate."""

    FAIL = "fail"  # an error counts as a failed sample
    EXCLUDE = "exclude"  # errors are left out of the denominator


class RegressionMode(str, enum.Enum):
    """What the regression gate asks of a change (see docs/regression.md)."""

    DIFFERENCE = (
        "difference"  # fail on a significant drop or an observed drop beyond the margin (default)
    )
    NON_INFERIORITY = (
        "non-inferiority"  # pass only when the drop's upper confidence bound is within the margin
    )


class GateOn(str, enum.Enum):
    """What ``--llm-min-pass-rate`` is compared with when people's labels correct the pass rate."""

    ESTIMATE = "estimate"  # the corrected estimate
    LOWER_BOUND = "lower-bound"  # the lower bound of its interval


class CoarserDates(str, enum.Enum):
    """How an answer naming a coarser period that contains the gold's counts ("1968" for "November 8, 1968")."""

    PASS = "pass"
    REVIEW = "review"  # needs review: the gate does not count it as a pass (default)
    FAIL = "fail"


@dataclass(frozen=True)
class OptionSpec:
    name: str  # ini key; CLI flag is --llm-x for ini llm_x
    help: str
    default: Any
    convert: Callable[[str], Any]
    ini_type: str = "string"
    multiple: bool = False  # the flag may be repeated (ini: one value per line)
    cli: bool = True  # False: ini-only, a property of the suite rather than of one invocation

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def _fraction(value: str) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ValueError("must be between 0 and 1")
    return number


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError("must be a positive integer")
    return number


def _non_negative_int(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must be 0 or more")
    return number


def _bool(value: str) -> bool:
    text = value.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("must be true or false")


def _alpha(value: str) -> float:
    number = float(value)
    if not 0.0 < number < 1.0:
        raise ValueError("must be between 0 and 1 (exclusive)")
    return number


def _model_specs(value: str) -> tuple[str, ...]:
    specs = tuple(part.strip() for part in value.splitlines() if part.strip())
    duplicates = sorted({s for s in specs if specs.count(s) > 1})
    if duplicates:
        raise ValueError(f"model {duplicates[0]!r} given twice")

    for spec in specs:
        problem = path_like_problem(spec)
        if problem:
            raise ValueError(f"{spec!r} {problem}" if len(specs) > 1 else problem)
    return specs


def _optional_fraction(value: str) -> float | None:
    return None if value in ("", "none", "None") else _fraction(value)


def _optional_int(value: str) -> int | None:
    return None if value in ("", "none", "None") else int(value)


def _optional_positive_int(value: str) -> int | None:
    return None if value in ("", "none", "None") else _positive_int(value)


def _str(value: str) -> str:
    return value.strip()


def _optional_str(value: str) -> str | None:
    value = value.strip()
    return value or None


def _output_path(value: str) -> str | None:
    """A file to write at the end of the run: refused up front if it names a directory."""
    import os.path

    value = value.strip()
    if value and os.path.isdir(value):
        raise ValueError("is a directory; give the path of a file to write")
    return value or None


MAX_TIMEOUT_S = 3600.0


def _timeout(value: str) -> float:
    number = float(value)
    if not 0 < number <= MAX_TIMEOUT_S:  # also NaN
        raise ValueError(f"must be a number of seconds > 0 and <= {MAX_TIMEOUT_S:g}")
    return number


def _optional_timeout(value: str) -> float | None:
    return None if value.strip() in ("", "none", "None") else _timeout(value)


def _optional_positive(value: str) -> float | None:
    if value in ("", "none", "None"):
        return None
    number = float(value)
    if not 0 < number < float("inf"):  # also NaN
        raise ValueError("must be a finite number > 0, or none")
    return number


def _finite(value: str) -> float:
    number = float(value)
    if not -1e6 < number < 1e6:  # also NaN and infinities
        raise ValueError("must be a finite number")
    return number


def _html_path(value: str) -> str | None:
    import importlib.util

    value = value.strip()
    # Checked here (cheap, no import) so a missing extra stops the run before it starts, not after.
    if value and importlib.util.find_spec("jinja2") is None:
        from pytest_llmeval.errors import install_hint

        raise ValueError(f"the HTML report needs jinja2: {install_hint('html')}")
    return _output_path(value)


def _review_path(value: str) -> str | None:
    value = value.strip()
    if value and not value.lower().endswith((".csv", ".jsonl")):
        raise ValueError("must end in .csv or .jsonl")
    return _output_path(value)


def _embedding_model(value: str) -> str | None:
    name = _optional_str(value)
    if name is not None:
        from pytest_llmeval.metrics.freetext.semantic import model_problem

        problem = model_problem(name)
        if problem:
            raise ValueError(problem)
    return name


def _json_object(value: str) -> dict[str, Any]:
    if not value.strip():
        return {}
    parsed = json.loads(value)
    if not isinstance(parsed, dict):
        raise ValueError("must be a JSON object")
    return parsed


def _weights(value: str) -> dict[str, float]:
    """``accuracy=0.5,citation=0.25`` or a JSON object."""
    value = value.strip()
    if not value:
        return {}
    if value.startswith("{"):
        return {k: _weight(k, v) for k, v in _json_object(value).items()}
    weights: dict[str, float] = {}
    for part in value.replace("\n", ",").split(","):
        if not part.strip():
            continue
        key, sep, number = part.partition("=")
        if not sep:
            raise ValueError(f"expected name=weight, got {part.strip()!r}")
        weights[key.strip()] = _weight(key.strip(), number)
    return weights


MAX_WEIGHT = 1000.0  # as in gold files: weights are relative, a larger one is a typo or an attack


def _weight(name: str, value: Any) -> float:
    number = float(value)
    if not 0 <= number <= MAX_WEIGHT:  # also NaN and infinities
        raise ValueError(f"weight {name}={value!r} must be a number from 0 to {MAX_WEIGHT:g}")
    return number


def _tiers(value: str) -> tuple[float, float]:
    """``pass,acceptable`` cut-offs, e.g. ``0.9,0.75``."""
    parts = [p for p in value.replace(" ", ",").split(",") if p]
    if len(parts) != 2:
        raise ValueError("expected two numbers: pass,acceptable (e.g. 0.9,0.75)")
    pass_cut, acceptable_cut = float(parts[0]), float(parts[1])
    problem = tiers_problem(pass_cut, acceptable_cut)
    if problem:
        raise ValueError(problem)
    return pass_cut, acceptable_cut


def tiers_problem(pass_cut: float, acceptable_cut: float) -> str | None:
    """Why ``pass,acceptable`` cut-offs are unusable, or None; shared by ini ``llm_tiers`` and gold ``tiers``."""
    if not (math.isfinite(pass_cut) and math.isfinite(acceptable_cut)):
        return "cut-offs must be finite numbers"
    if not 0 <= acceptable_cut <= pass_cut <= 1:
        return f"need 0 <= acceptable <= pass <= 1, got pass {pass_cut:g}, acceptable {acceptable_cut:g}"
    if pass_cut == 0:
        # Every answer, even an empty one, would pass: the gate could never fail.
        return "the pass cut-off must be above 0: 0 passes every answer"
    return None


def _lines(value: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in value.splitlines() if line.strip())


def _choice(enum_type: type[enum.Enum]) -> Callable[[str], Any]:
    def convert(value: str) -> Any:
        try:
            return enum_type(value.strip().lower())
        except ValueError:
            valid = "|".join(str(m.value) for m in enum_type)
            raise ValueError(f"must be one of {valid}") from None

    return convert


class NumericExtractor(str, enum.Enum):
    """Who reads the figure a numeric grader compares: the heuristic alone, or also the judge."""

    HEURISTIC = "heuristic"
    LLM = "llm"  # the --llm-judge model reads it too; disagreement needs review (numeric_llm)


_FILE_SUFFIXES = (".jsonl", ".json", ".ndjson", ".csv", ".tsv", ".txt")


def _shard(value: str) -> tuple[int, int] | None:
    from pytest_llmeval.shard import parse_shard

    return parse_shard(value)


def path_like_problem(spec: str) -> str | None:
    """Why a bare ``--llm-model`` value must be a file path given without ``file:`` (else None).

    A bare value is an OpenAI-compatible model name; taken as one, a predictions file would ask
    for an API key. Names with ``/`` (``meta-llama/Llama-3-8B``) stay model names.
    """
    import os.path

    spec = spec.strip()
    kind, sep, _ = spec.partition(":")
    if sep and kind in ("openai", "python", "file"):
        return None
    looks_like_path = (
        spec.lower().endswith(_FILE_SUFFIXES)
        or spec.startswith(("./", "../", "/", "~", ".\\", "..\\"))
        or os.path.isfile(spec)
    )
    if not looks_like_path:
        return None
    return (
        f"looks like a file path, not a model name; a predictions file is given as file:{spec} "
        f"(write openai:{spec} if it really is a model name)"
    )


OPTIONS: tuple[OptionSpec, ...] = (
    # plugin core
    OptionSpec(
        "llm_gold_files",
        "Glob patterns of gold JSONL files to collect",
        "*_eval.jsonl *.llmeval.jsonl",
        _str,
        cli=False,
    ),
    OptionSpec(
        "llm_min_pass_rate",
        "Fail the run when the fraction of samples in the pass tier is below this",
        None,
        _optional_fraction,
    ),
    OptionSpec(
        "llm_errors",
        "How error items count in the pass rate: fail|exclude",
        "fail",
        _choice(ErrorsMode),
        cli=False,
    ),
    OptionSpec(
        "llm_gate_only",
        "Failed samples are still reported, but only the gates (pass rate, regression), errors and other tests decide the exit status",
        False,
        _bool,
    ),
    OptionSpec(
        "llm_baseline",
        "Compare with this earlier --llm-report JSON (samples pair by file and id)",
        None,
        _optional_str,
    ),
    OptionSpec(
        "llm_fail_on_regression",
        "Fail the run when it is worse than --llm-baseline (see --llm-regression)",
        False,
        _bool,
    ),
    OptionSpec("llm_alpha", "Significance level of the paired regression test", 0.05, _alpha),
    OptionSpec(
        "llm_regression",
        "Regression gate: difference (fail on a significant drop or a drop beyond the margin) | non-inferiority (pass only when the drop's one-sided upper confidence bound is within the margin)",
        "difference",
        _choice(RegressionMode),
    ),
    OptionSpec(
        "llm_regression_margin",
        "Largest drop in pass rate the regression gate accepts (a fraction: 0.05 is 5 points)",
        0.05,
        _fraction,
    ),
    OptionSpec(
        "llm_repeat",
        "Answer and grade each sample this many times (the tier comes from the mean overall)",
        1,
        _positive_int,
    ),
    OptionSpec("llm_report", "Write a JSON report to this path", None, _output_path),
    OptionSpec(
        "llm_html",
        "Write a self-contained HTML report to this path (needs the [html] extra)",
        None,
        _html_path,
    ),
    OptionSpec(
        "llm_weights",
        "Rubric weights as name=weight pairs",
        "accuracy=0.5,citation=0.25,length=0.15,keywords=0.1",
        _weights,
        cli=False,
    ),
    OptionSpec("llm_tiers", "Tier cut-offs pass,acceptable", "0.9,0.75", _tiers, cli=False),
    OptionSpec(
        "llm_length_bands",
        'Length bands as JSON: {"ideal":[100,250],"ok":[50,300],"ok_score":0.8,"short_score":0.5}',
        "",
        _json_object,
        cli=False,
    ),
    OptionSpec(
        "llm_accuracy",
        "Default accuracy grader for free-text golds that do not pick one",
        "answer_correctness",
        _str,
        cli=False,
    ),
    OptionSpec(
        "llm_coarser_dates",
        'An answer naming a coarser period that contains the gold\'s ("1968" for "November 8, 1968"): pass|review|fail',
        "review",
        _choice(CoarserDates),
        cli=False,
    ),
    OptionSpec(
        "llm_review_passes",
        "Count needs-review samples as passes in the pass-rate gate (by default they are not: thin evidence is not a pass)",
        False,
        _bool,
        cli=False,
    ),
    OptionSpec(
        "llm_citation_patterns",
        "Extra citation regexes, one per line",
        "",
        _lines,
        "linelist",
        cli=False,
    ),
    OptionSpec(
        "llm_worst", "How many worst samples the summary lists", 5, _non_negative_int, cli=False
    ),
    # human review
    OptionSpec(
        "llm_review_export",
        "Write a random spot check of the graded samples, and every failed or needs-review sample, for human review to this path (.csv or .jsonl)",
        None,
        _review_path,
    ),
    OptionSpec(
        "llm_review_fraction",
        "Share of the graded samples the review export draws at random for its spot check (failed and needs-review samples are added)",
        0.2,
        _fraction,
        cli=False,
    ),
    OptionSpec(
        "llm_review_seed",
        "Seed of the random spot check (hashed with each sample id; stated in each exported row)",
        "llmeval",
        _str,
        cli=False,
    ),
    OptionSpec(
        "llm_review_import",
        "A filled-in review export (.csv or .jsonl): agreement of the plugin with its human_verdict column; the random spot check's verdicts also correct the pass rate",
        None,
        _review_path,
    ),
    OptionSpec(
        "llm_labels",
        "People's labels (JSONL: sample_id, response, label correct|incorrect); labels on a random selection correct the pass rate",
        None,
        _optional_str,
    ),
    OptionSpec(
        "llm_gate_on",
        "What --llm-min-pass-rate is compared with when people's labels correct the pass rate: estimate|lower-bound",
        "estimate",
        _choice(GateOn),
    ),
    # model layer
    OptionSpec(
        "llm_model",
        "Model answering the samples: openai:MODEL, MODEL, python:pkg.mod:func or file:predictions.jsonl; repeat the flag (ini: one per line) to compare models",
        None,
        _model_specs,
        multiple=True,
    ),
    OptionSpec(
        "llm_base_url",
        "Base URL of an OpenAI-compatible API (else OPENAI_BASE_URL)",
        None,
        _optional_str,
    ),
    OptionSpec(
        "llm_api_key_env",
        "Environment variable holding the API key",
        "OPENAI_API_KEY",
        _str,
        cli=False,
    ),
    OptionSpec("llm_temperature", "Sampling temperature", 0.0, _finite, cli=False),
    OptionSpec("llm_max_tokens", "Max tokens per answer", None, _optional_int, cli=False),
    OptionSpec("llm_seed", "Seed sent with each request", None, _optional_int, cli=False),
    OptionSpec(
        "llm_timeout", "Per-request timeout in seconds (0 < t <= 3600)", 60.0, _timeout, cli=False
    ),
    OptionSpec(
        "llm_extra_body", "Extra JSON merged into each request body", "", _json_object, cli=False
    ),
    OptionSpec("llm_concurrency", "Concurrent model requests", 8, _positive_int),
    OptionSpec(
        "llm_rpm",
        "Request-per-minute limit (none = unlimited)",
        None,
        _optional_positive,
        cli=False,
    ),
    OptionSpec(
        "llm_max_retries",
        "Retries for 429, 5xx, timeouts and dropped connections",
        4,
        _non_negative_int,
        cli=False,
    ),
    OptionSpec(
        "llm_record", "Cache record mode: off|none|once|new|all", "new", _choice(RecordMode)
    ),
    OptionSpec(
        "llm_cache_dir",
        "Directory of the response cache (commit it to replay in CI)",
        ".llmeval_cache",
        _str,
    ),
    OptionSpec(
        "llm_prices",
        "Price table as JSON {model: [usd_per_1k_prompt, usd_per_1k_completion]}",
        "",
        _json_object,
        cli=False,
    ),
    # provider batch API (docs/batch.md)
    OptionSpec(
        "llm_batch",
        "Send the uncached model requests as one provider batch (files + batches endpoints) and grade once it ends",
        False,
        _bool,
    ),
    OptionSpec(
        "llm_batch_size",
        "Most requests in one batch (more are split over several)",
        50000,
        _positive_int,
    ),
    OptionSpec(
        "llm_batch_price",
        "Share of llm_prices a batch request costs (run budget and cost)",
        0.5,
        _fraction,
        cli=False,
    ),
    OptionSpec(
        "llm_batch_poll", "Seconds between two looks at a running batch", 30.0, _timeout, cli=False
    ),
    OptionSpec(
        "llm_batch_wait",
        "Longest wait in seconds for a batch to end before the run goes on incomplete (the batch is picked up by the next run; none = until it ends)",
        None,
        _optional_positive,
        cli=False,
    ),
    # judging
    OptionSpec(
        "llm_judge",
        "Judge for free-form graders: offline or a model spec like openai:MODEL",
        "offline",
        _str,
    ),
    OptionSpec(
        "llm_numeric_extractor",
        "Who reads the answer's figure for the numeric grader: heuristic|llm (llm: the --llm-judge model reads it too, and readings that disagree need review)",
        "heuristic",
        _choice(NumericExtractor),
        cli=False,
    ),
    OptionSpec(
        "llm_judge_base_url",
        "Base URL of the judge's OpenAI-compatible API (else the --llm-base-url of the model)",
        None,
        _optional_str,
        cli=False,
    ),
    OptionSpec(
        "llm_judge_api_key_env",
        "Environment variable holding the judge's API key (else llm_api_key_env)",
        None,
        _optional_str,
        cli=False,
    ),
    OptionSpec(
        "llm_judge_temperature",
        "Judge sampling temperature (never the model's llm_temperature)",
        0.0,
        _finite,
        cli=False,
    ),
    OptionSpec(
        "llm_judge_max_tokens",
        "Max tokens per judge reply (never the model's llm_max_tokens; unset: 1024)",
        None,
        _optional_int,
        cli=False,
    ),
    OptionSpec(
        "llm_judge_timeout",
        "Per-request timeout of judge calls in seconds (else llm_timeout)",
        None,
        _optional_timeout,
        cli=False,
    ),
    OptionSpec(
        "llm_judge_extra_body",
        "Extra JSON merged into each judge request body (the model's llm_extra_body is not)",
        "",
        _json_object,
        cli=False,
    ),
    OptionSpec(
        "llm_reference_metrics",
        "Also report BLEU, ROUGE-1, ROUGE-L and a BERTScore-style F1 against the gold answer (informational, never scored): true|false",
        False,
        _bool,
        cli=False,
    ),
    OptionSpec(
        "llm_embedding_model",
        "Sentence-transformers model name or path (default: bundled all-MiniLM-L6-v2)",
        None,
        _embedding_model,
        cli=False,
    ),
    # history and run budget
    OptionSpec(
        "llm_history",
        "Append a record of each run to this history directory (read it with python -m pytest_llmeval history)",
        None,
        _optional_str,
    ),
    OptionSpec(
        "llm_history_keep",
        "Keep only the newest N runs in --llm-history (none = keep all)",
        None,
        _optional_positive_int,
        cli=False,
    ),
    OptionSpec(
        "llm_budget_usd",
        "Stop new model and judge requests once the run has spent this many USD (needs llm_prices; none = no cap)",
        None,
        _optional_positive,
    ),
    OptionSpec(
        "llm_budget_tokens",
        "Stop new model and judge requests once the run has used this many tokens (none = no cap)",
        None,
        _optional_positive_int,
    ),
    # CI shards (see docs/ci.md)
    OptionSpec(
        "llm_shard",
        "Run only shard K of N (K/N, 1-based) of the gold samples and tests, or auto: from the CI variables (LLMEVAL_SHARD, GitLab, Buildkite, CircleCI)",
        None,
        _shard,
    ),
    OptionSpec(
        "llm_run_id",
        "Run id shared by every shard of one CI run (else from the CI variables: GITHUB_RUN_ID, CI_PIPELINE_ID, BUILDKITE_BUILD_ID, CIRCLE_WORKFLOW_ID)",
        None,
        _optional_str,
    ),
)

OPTIONS_BY_NAME = {spec.name: spec for spec in OPTIONS}


def addoption(parser: pytest.Parser) -> None:
    """Register each option as an ini key, and as a CLI flag with the same dest where it has one."""
    group = parser.getgroup(GROUP, "LLM evaluation (pytest-llmeval)")
    for spec in OPTIONS:
        parser.addini(spec.name, help=spec.help, type=spec.ini_type, default=None)  # type: ignore[arg-type]
        shown = " ".join(spec.default) if isinstance(spec.default, tuple) else spec.default
        if not spec.cli:
            # Hidden, so that an old command line stops with one message instead of argparse's
            # "unrecognized arguments"; argparse sees addopts and PYTEST_ADDOPTS too.
            group.addoption(
                spec.flag,
                dest="_ini_only_" + spec.name,
                action=_IniOnlyFlag,
                nargs=0 if spec.convert is _bool else "?",
                help=argparse.SUPPRESS,
            )
        elif spec.multiple:
            group.addoption(
                spec.flag,
                dest=spec.name,
                action="append",
                default=None,
                help=f"{spec.help}. Default: {shown!r}",
            )
        elif spec.convert is _bool:
            # a switch on the command line (--llm-gate-only), true/false in the ini file
            group.addoption(
                spec.flag,
                dest=spec.name,
                action="store_const",
                const="true",
                default=None,
                help=f"{spec.help}. Default: {shown!r}",
            )
        else:
            group.addoption(
                spec.flag, dest=spec.name, default=None, help=f"{spec.help}. Default: {shown!r}"
            )


def ini_only_message(spec: OptionSpec, value: str | None = None) -> str:
    """The usage error for a flag whose setting lives in the ini file only."""
    if value is None:
        value = "true" if spec.convert is _bool else "VALUE"
    return (
        f"{spec.flag} is not a command-line flag: set {spec.name} in the ini file "
        f"(pytest.ini or [tool.pytest.ini_options]), or for one run: -o {spec.name}={value}"
    )


class _IniOnlyFlag(argparse.Action):
    """A hidden flag for an ini-only setting: using it is a usage error naming the ini key."""

    def __call__(
        self, parser: Any, namespace: Any, values: Any, option_string: str | None = None
    ) -> None:
        name = self.dest.removeprefix("_ini_only_")
        raise pytest.UsageError(
            ini_only_message(OPTIONS_BY_NAME[name], values if isinstance(values, str) else None)
        )


class Source(str, enum.Enum):
    """Where a setting's value came from."""

    CLI = "cli"  # its --llm-x flag
    INI = "ini"  # the ini file, or -o llm_x=VALUE
    DEFAULT = "default"


@dataclass(frozen=True)
class Settings:
    """All options, resolved once per run: one typed field per ini key without the ``llm_`` prefix."""

    gold_files: str
    min_pass_rate: float | None
    errors: ErrorsMode
    gate_only: bool
    baseline: str | None
    fail_on_regression: bool
    alpha: float
    regression: RegressionMode
    regression_margin: float
    repeat: int
    report: str | None
    html: str | None
    weights: dict[str, float]
    tiers: tuple[float, float]
    length_bands: dict[str, Any]
    accuracy: str
    coarser_dates: CoarserDates
    review_passes: bool
    citation_patterns: tuple[str, ...]
    worst: int
    review_export: str | None
    review_fraction: float
    review_seed: str
    review_import: str | None
    labels: str | None
    gate_on: GateOn
    model: str | None  # the first of ``models``: what most code needs
    base_url: str | None
    api_key_env: str
    temperature: float
    max_tokens: int | None
    seed: int | None
    timeout: float
    extra_body: dict[str, Any]
    concurrency: int
    rpm: float | None
    max_retries: int
    record: RecordMode
    cache_dir: str
    prices: dict[str, Any]
    batch: bool
    batch_size: int
    batch_price: float
    batch_poll: float
    batch_wait: float | None
    judge: str
    numeric_extractor: NumericExtractor
    judge_base_url: str | None
    judge_api_key_env: str | None
    judge_temperature: float
    judge_max_tokens: int | None
    judge_timeout: float | None
    judge_extra_body: dict[str, Any]
    reference_metrics: bool
    embedding_model: str | None
    history: str | None
    history_keep: int | None
    budget_usd: float | None
    budget_tokens: int | None
    shard: tuple[int, int] | None
    run_id: str | None
    models: tuple[str, ...] = ()  # every --llm-model spec, in order
    role: str = (
        "model"  # "judge": the request fields are the judge's (error messages name its keys)
    )
    # max_tokens sent when the role's own max_tokens is unset (the judge's bound on a runaway reply)
    default_max_tokens: int | None = None
    sources: Mapping[str, Source] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_values(
        cls, values: Mapping[str, Any], sources: Mapping[str, Source] | None = None
    ) -> Settings:
        """Settings from ``{"llm_x": value}``; options not given take their built-in default."""
        unknown = sorted(set(values) - set(OPTIONS_BY_NAME) - {"llm_models", "llm_role"})
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(unknown)}")
        fields: dict[str, Any] = {spec.name[4:]: values.get(spec.name, MISSING) for spec in OPTIONS}
        for name, value in fields.items():
            if value is MISSING:
                fields[name] = default_value(OPTIONS_BY_NAME["llm_" + name])
        models = values.get("llm_models", (fields["model"],) if fields["model"] else ())
        return cls(
            **fields,
            models=tuple(models),
            role=values.get("llm_role", "model"),
            sources=dict(sources or {}),
        )

    @classmethod
    def defaults(cls, **overrides: Any) -> Settings:
        """The built-in defaults, with some fields replaced (``Settings.defaults(timeout=5.0)``)."""
        return cls.from_values({"llm_" + name: value for name, value in overrides.items()})

    def source(self, name: str) -> Source:
        """Where ``name`` (a field, ``min_pass_rate``) came from."""
        return self.sources.get(name, Source.DEFAULT)

    @property
    def judge_model(self) -> str | None:
        """The ``--llm-judge`` model spec, or None for the offline judge."""
        return None if self.judge in ("", "offline", "none") else self.judge


def default_value(spec: OptionSpec) -> Any:
    """The built-in default of an option, converted as a value from the ini file would be."""
    return spec.convert(spec.default) if isinstance(spec.default, str) else spec.default


def resolve(config: pytest.Config) -> Settings:
    """CLI > ini > default; a bad value is a ``pytest.UsageError`` naming both spellings."""
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for spec in OPTIONS:
        raw: Any = config.getoption(spec.name, default=None) if spec.cli else None
        if isinstance(raw, list):  # a repeated flag
            raw = "\n".join(raw)
        origin, source = spec.flag, Source.CLI
        if raw is None:
            ini_value = config.getini(spec.name)
            if ini_value not in (None, "", []):
                raw = "\n".join(ini_value) if isinstance(ini_value, list) else ini_value
                origin, source = f"ini {spec.name}", Source.INI
        if raw is None:
            continue
        sources[spec.name[4:]] = source
        try:
            value = spec.convert(str(raw))
        except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
            spellings = f" (ini {spec.name} / {spec.flag})" if spec.cli else ""
            raise pytest.UsageError(f"{origin}={raw!r}{spellings}: {exc}") from None
        if spec.multiple:
            values[spec.name + "s"] = value
            value = value[0] if value else None
        values[spec.name] = value
    settings = Settings.from_values(values, sources)
    if settings.numeric_extractor is NumericExtractor.LLM and settings.judge_model is None:
        raise pytest.UsageError(
            "ini llm_numeric_extractor=llm needs a judge model: --llm-judge=openai:MODEL"
        )
    return settings
