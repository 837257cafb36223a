"""Extractive match: find the final answer of a maths or multiple-choice generation and compare it.

``extractive_match("... so $\\boxed{\\frac{1}{2}}$", "0.5")`` cycles through answer
patterns by priority (``\\boxed{}``, "final answer is", "answer:", LaTeX
environments, plain numbers/expressions, choice letters), keeps only candidates
that parse, and compares them with the gold like a mathematician would (exact
rationals, rounded floats, symbolic equivalence, relations, sets, intervals,
matrices).  Parsing and comparison of model output run in a separate worker
process with a deadline and a memory cap (see :mod:`._math_worker`); plain
numbers on both sides are compared in-process without sympy.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError, LLMEvalError
from pytest_llmeval.metrics.base import MetricResult, enforce

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest_llmeval.registry import GradeContext

__all__ = [
    "MAX_INPUT_CHARS",
    "ExtractiveMatch",
    "assert_extractive_match",
    "extractive_match",
    "grade",
    "shutdown_worker",
    "start_worker",
]

TARGETS = ("latex", "expr", "index", "string")
EXTRACTION_MODES = ("any_match", "first_match")
FALLBACK_MODES = ("first_match", "no_fallback")
DEFAULT_BOXED_PRIORITY = 50
# Longer inputs keep their last MAX_INPUT_CHARS characters: final answers come last.
MAX_INPUT_CHARS = 20_000
WORKER_START_TIMEOUT = 60.0
BACKSTOP_GRACE = 5.0
# Largest per-call timeout (seconds); the worker enforces the same ceiling (_math_worker.MAX_TIMEOUT).
MAX_TIMEOUT = 60.0


@dataclass(kw_only=True)
class ExtractiveMatch(MetricResult):
    """Result of :func:`extractive_match`.

    ``gold_extracted``/``pred_extracted`` are the answer texts found (None if
    nothing parsed), ``gold_parsed``/``pred_parsed`` their parsed values as
    strings, ``comparison`` the rule that decided, ``timed_out`` whether the
    deadline (or the worker's memory cap) stopped the evaluation.
    """

    metric: str = "extractive"
    gold_extracted: str | None = None
    gold_parsed: str | None = None
    pred_extracted: str | None = None
    pred_parsed: str | None = None
    comparison: str = "none"
    timed_out: bool = False


@dataclass
class _Options:
    gold_targets: tuple[str, ...]
    pred_targets: tuple[str, ...]
    extraction_mode: str
    fallback_mode: str
    boxed_priority: int
    float_rounding: int
    strict: bool
    allow_set_relation_comparison: bool
    language: str
    timeout: float
    notes: list[str] = field(default_factory=list)

    def request(self, gold: str, prediction: str) -> dict[str, Any]:
        return {
            "timeout": self.timeout,
            "gold": gold,
            "prediction": prediction,
            "gold_targets": list(self.gold_targets),
            "pred_targets": list(self.pred_targets),
            "extraction_mode": self.extraction_mode,
            "fallback_mode": self.fallback_mode,
            "boxed_priority": self.boxed_priority,
            "float_rounding": self.float_rounding,
            "strict": self.strict,
            "allow_set_relation_comparison": self.allow_set_relation_comparison,
            "language": self.language,
        }


def _targets(name: str, value: Sequence[str] | str) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value)
    bad = [t for t in items if t not in TARGETS]
    if not items or bad:
        raise ValueError(f"{name} must be a non-empty subset of {TARGETS}; got {value!r}")
    return items


def _options(
    *,
    gold_targets: Sequence[str] | str,
    pred_targets: Sequence[str] | str,
    extraction_mode: str,
    fallback_mode: str,
    boxed_priority: int | None,
    float_rounding: int,
    strict: bool,
    allow_set_relation_comparison: bool,
    language: str,
    timeout: float,
) -> _Options:
    from pytest_llmeval.metrics.extractive.patterns import resolve_language

    if extraction_mode not in EXTRACTION_MODES:
        raise ValueError(
            f"extraction_mode must be one of {EXTRACTION_MODES}; got {extraction_mode!r}"
        )
    if fallback_mode not in FALLBACK_MODES:
        raise ValueError(f"fallback_mode must be one of {FALLBACK_MODES}; got {fallback_mode!r}")
    if boxed_priority is not None and (
        isinstance(boxed_priority, bool) or not isinstance(boxed_priority, int)
    ):
        raise ValueError(
            f"boxed_priority must be None or an int (-1 disables \\boxed); got {boxed_priority!r}"
        )
    if (
        isinstance(float_rounding, bool)
        or not isinstance(float_rounding, int)
        or float_rounding < 0
    ):
        raise ValueError(f"float_rounding must be an int >= 0; got {float_rounding!r}")
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= MAX_TIMEOUT
    ):
        raise ValueError(
            f"timeout must be a number of seconds > 0 and <= {MAX_TIMEOUT:g}; got {timeout!r}"
        )
    return _Options(
        gold_targets=_targets("gold_targets", gold_targets),
        pred_targets=_targets("pred_targets", pred_targets),
        extraction_mode=extraction_mode,
        fallback_mode=fallback_mode,
        boxed_priority=DEFAULT_BOXED_PRIORITY if boxed_priority is None else boxed_priority,
        float_rounding=float_rounding,
        strict=bool(strict),
        allow_set_relation_comparison=bool(allow_set_relation_comparison),
        language=resolve_language(language).code,
        timeout=float(timeout),
    )


# --- worker client -----------------------------------------------------------------


class _WorkerCrash(LLMEvalError):
    """The maths worker could not start or died (reported as a timed-out non-pass)."""


_EOF = "\x00eof"  # what the reader returns when the worker's stdout closes (never a line)
_WORKER_ENV = frozenset(
    {
        "PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "HOME",
        "LANG",
        "TMPDIR",
        "TEMP",
        "TMP",
        "SYSTEMROOT",
        "COMSPEC",
    }
)


class _LineReader:
    """Lines from the worker's stdout with a deadline, read in the calling thread.

    POSIX selects on the pipe (no hand-off between threads on the hot path); elsewhere
    a daemon thread feeds a queue.
    """

    def __init__(self, stream: Any) -> None:
        self._fd = stream.fileno()
        self._buffer = b""
        self._queue: queue.Queue[str] | None = None
        if os.name != "posix":
            self._queue = queue.Queue()
            threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        assert self._queue is not None
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                self._queue.put(line.decode("utf-8", "replace").rstrip("\n"))
        self._queue.put(_EOF)

    def get(self, timeout: float) -> str | None:
        """The next line (without newline), ``_EOF`` when the stream closed, None on timeout."""
        if self._queue is not None:
            try:
                return self._queue.get(timeout=max(timeout, 0.0))
            except queue.Empty:
                return None
        end = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = end - time.monotonic()
            if remaining <= 0 or not select.select([self._fd], [], [], remaining)[0]:
                return None
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                return _EOF
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")


class _Worker:
    """One reusable worker process; killed on a missed deadline and restarted on the next call.

    Requests carry an id that the evaluator echoes, so a late reply to an abandoned
    request is never taken for the answer to the next one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: _LineReader | None = None
        self._request_id = 0
        self.starts = 0
        self._grace = BACKSTOP_GRACE
        self._stderr: Any = None
        self._generation = 0

    def _spawn(self) -> None:
        # metrics/extractive/match.py -> the directory holding the pytest_llmeval package
        package_root = os.path.dirname(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        )
        code = (
            f"import sys; sys.path.insert(0, {package_root!r}); "
            "from pytest_llmeval.metrics.extractive.worker import main; main()"
        )
        # The worker handles untrusted text: give it no secrets (API keys) from our environment.
        env = {
            k: v
            for k, v in os.environ.items()
            if k in _WORKER_ENV or k.startswith(("PYTEST_LLMEVAL_", "LC_"))
        }
        env["PYTHONIOENCODING"] = "utf-8"
        proc = subprocess.Popen(
            [sys.executable, "-u", "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr_file(),
            bufsize=0,
            env=env,
        )
        self._proc, self._reader = proc, _LineReader(proc.stdout)
        self.starts += 1
        from pytest_llmeval.metrics.extractive.worker import READY

        line = self._reader.get(WORKER_START_TIMEOUT)
        if not line or line.split()[0] != READY:
            tail = self._stderr_tail()
            self._kill()
            raise _WorkerCrash(f"the maths worker failed to start: {tail}")
        # Without fork the worker cannot kill its own evaluation: our wait is the deadline.
        self._grace = BACKSTOP_GRACE if line.split()[-1] == "fork" else 0.0

    def _stderr_file(self) -> Any:
        # A file, not a pipe: nobody drains a pipe, and a full one would block the worker.
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in _kill)
        return self._stderr

    def _stderr_tail(self, limit: int = 400) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - limit))
            tail: bytes = self._stderr.read()
            return tail.decode("utf-8", "replace").strip()
        return ""

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def start(self) -> float:
        """Start the worker if needed; return the seconds it took (0.0 if already running)."""
        with self._lock:
            return self._start_locked()

    def _start_locked(self) -> float:
        if self._proc is not None and self._proc.poll() is None:
            return 0.0
        t0 = time.perf_counter()
        self._spawn()
        return time.perf_counter() - t0

    def call(self, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """The worker's reply, or None when ``timeout`` passed (the worker is then killed)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._spawn()
            proc, reader = self._proc, self._reader
            assert proc is not None
            assert proc.stdin is not None
            assert reader is not None
            self._request_id += 1
            request_id = self._request_id
            try:
                proc.stdin.write((json.dumps({**request, "id": request_id}) + "\n").encode("utf-8"))
            except OSError as exc:
                self._kill()
                raise _WorkerCrash(f"the maths worker died ({exc})") from exc
            # The evaluator enforces the deadline itself (its timer kills it and the worker
            # replies "timeout"); this wait is the backstop if the worker itself hangs.
            end = time.monotonic() + timeout + self._grace
            while True:
                line = reader.get(end - time.monotonic())
                if line is None:
                    # Timed out: kill, and warm a fresh worker in the background so the
                    # next call does not pay the start-up.
                    self._kill()
                    threading.Thread(
                        target=self._restart_quietly, args=(self._generation,), daemon=True
                    ).start()
                    return None
                if line == _EOF:
                    tail = self._stderr_tail()
                    self._kill()
                    raise _WorkerCrash(
                        f"the maths worker crashed (exit code {proc.returncode}): {tail}"
                    )
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # the rest of a line an evaluator was killed while writing
                if not isinstance(reply, dict):
                    continue
                # An id-less error is the template reporting the death of the evaluator
                # serving this request; a reply with another id answers an abandoned one.
                if reply.get("id") == request_id or ("id" not in reply and "error" in reply):
                    return reply

    def _restart_quietly(self, generation: int) -> None:
        with self._lock, contextlib.suppress(_WorkerCrash):  # the next call retries and reports
            if generation == self._generation:  # not after an explicit stop()
                self._start_locked()

    def stop(self) -> None:
        with self._lock:
            self._generation += 1
            self._kill()


_WORKER = _Worker()
atexit.register(_WORKER.stop)


def start_worker() -> float:
    """Start (warm up) the maths worker now; returns its start time in seconds (0.0 if running).

    Raises :class:`~pytest_llmeval.errors.LLMEvalError` if the worker cannot start.
    """
    return _WORKER.start()


def shutdown_worker() -> None:
    """Stop the maths worker (it restarts on the next call)."""
    _WORKER.stop()


# --- in-process path --------------------------------------------------------------------

# Longer texts go straight to the worker: its deadline bounds the extraction too.
MAX_IN_PROCESS_CHARS = 4_000


def _in_process(gold: str, prediction: str, opts: _Options) -> ExtractiveMatch | None:
    """Decide plain numbers and letters here (no sympy, no worker); None when sympy is needed."""
    if len(gold) > MAX_IN_PROCESS_CHARS or len(prediction) > MAX_IN_PROCESS_CHARS:
        return None
    from pytest_llmeval.metrics.extractive import reader as extractive_native

    reply = extractive_native.evaluate(opts.request(gold, prediction))
    if reply is None:
        return None
    return _result(
        passed=bool(reply.get("passed")), opts=opts, reply=reply, gold=gold, prediction=prediction
    )


# --- results ---------------------------------------------------------------------


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


_LETTER_GOLD = re.compile(r"\s*\(?[A-Z]\)?\.?\s*")


def _result(
    *,
    passed: bool,
    opts: _Options,
    reply: dict[str, Any],
    timed_out: bool = False,
    gold: str = "",
    prediction: str = "",
) -> ExtractiveMatch:
    match = reply.get("match") or [0, 0]
    gi, pi = (match[0], match[1]) if passed else (0, 0)

    def pick(key: str, i: int) -> str | None:
        values = reply.get(key) or []
        return values[i] if i < len(values) else None

    gold_text, gold_value = pick("gold_extracted", gi), pick("gold_parsed", gi)
    pred_text, pred_value = pick("pred_extracted", pi), pick("pred_parsed", pi)
    comparison = reply.get("comparison", "none")
    notes = " ".join(opts.notes)
    if timed_out:
        verdict = reply.get("message", "")
    elif gold_text is None:
        verdict = (
            f"nothing in the gold parsed as {'/'.join(opts.gold_targets)}; "
            "fix the gold answer or its targets"
        )
    elif pred_text is None:
        verdict = (
            f"gold {gold_text!r} -> {gold_value}, but nothing in the prediction parsed as "
            f"{'/'.join(opts.pred_targets)} (language {opts.language!r}); it ends with "
            f"{_clip(prediction)!r}"
        )
    else:
        kind = (
            (reply.get("pred_kinds") or ["?"])[pi]
            if pi < len(reply.get("pred_kinds") or [])
            else "?"
        )
        verdict = (
            f"gold {gold_text!r} -> {gold_value}; prediction {pred_text!r} ({kind}) -> {pred_value}; "
            f"compared by {comparison}: {'equal' if passed else 'not equal'}"
        )
    if not passed and "index" not in opts.gold_targets and _LETTER_GOLD.fullmatch(gold):
        verdict += " (a choice letter needs gold_targets/pred_targets=('index',))"
    explanation = f"extractive match {'passed' if passed else 'failed'}: {verdict}"
    if notes:
        explanation += f" [{notes}]"
    return ExtractiveMatch(
        passed=passed,
        score=1.0 if passed else 0.0,
        explanation=explanation,
        gold_extracted=gold_text,
        gold_parsed=gold_value,
        pred_extracted=pred_text,
        pred_parsed=pred_value,
        comparison=comparison,
        timed_out=timed_out,
        details={
            "gold_candidates": list(
                zip(reply.get("gold_extracted") or [], reply.get("gold_parsed") or [], strict=False)
            ),
            "pred_candidates": list(
                zip(reply.get("pred_extracted") or [], reply.get("pred_parsed") or [], strict=False)
            ),
            "options": {k: v for k, v in vars(opts).items() if k != "notes"},
        },
    )


def _cap(text: str, side: str, opts: _Options) -> str:
    if len(text) <= MAX_INPUT_CHARS:
        return text
    opts.notes.append(
        f"{side} was {len(text):,} characters; only its last {MAX_INPUT_CHARS:,} were searched"
    )
    return text[-MAX_INPUT_CHARS:]


def _timeout_message(timeout: float) -> str:
    return (
        f"parsing/comparison did not finish within the {timeout:g} s timeout "
        "(e.g. a huge power or factorial); counted as not passed. The evaluator was "
        "killed and restarts for the next call."
    )


def extractive_match(
    prediction: str,
    gold: str,
    *,
    gold_targets: Sequence[str] = ("latex", "expr"),
    pred_targets: Sequence[str] = ("latex", "expr"),
    extraction_mode: str = "any_match",
    fallback_mode: str = "first_match",
    boxed_priority: int | None = None,
    float_rounding: int = 6,
    strict: bool = True,
    allow_set_relation_comparison: bool = False,
    language: str = "en",
    timeout: float = 5.0,
) -> ExtractiveMatch:
    """Extract the final answer from ``prediction`` and ``gold`` and compare them mathematically.

    Targets: ``latex``, ``expr`` (plain numbers/expressions), ``index`` (choice
    letters A, (B), **C**), ``string`` (literal A-D, case-insensitive).  A deadline
    of ``timeout`` seconds covers parsing and comparison; when it passes the result
    fails with ``timed_out=True``.  Raises ValueError for invalid options.
    """
    opts = _options(
        gold_targets=gold_targets,
        pred_targets=pred_targets,
        extraction_mode=extraction_mode,
        fallback_mode=fallback_mode,
        boxed_priority=boxed_priority,
        float_rounding=float_rounding,
        strict=strict,
        allow_set_relation_comparison=allow_set_relation_comparison,
        language=language,
        timeout=timeout,
    )
    prediction = _cap(str(prediction), "prediction", opts)
    gold = _cap(str(gold), "gold", opts)
    decided = _in_process(gold, prediction, opts)
    if decided is not None:
        return decided
    try:
        reply = _WORKER.call(opts.request(gold, prediction), opts.timeout)
    except _WorkerCrash as exc:
        reply = {"message": f"{exc}; counted as not passed. The worker restarts on the next call."}
        return _result(passed=False, opts=opts, reply=reply, timed_out=True)
    if reply is None or reply.get("error") == "timeout":
        reply = {"message": _timeout_message(opts.timeout)}
        return _result(passed=False, opts=opts, reply=reply, timed_out=True)
    if "error" in reply:
        message = reply.get("message", "")
        if reply["error"] == "crash":
            reply["message"] = (
                f"{message}; counted as not passed. A fresh evaluator serves the next call."
            )
            return _result(passed=False, opts=opts, reply=reply, timed_out=True)
        if reply["error"] == "memory":
            reply["message"] = f"{message}; counted as not passed"
            return _result(passed=False, opts=opts, reply=reply, timed_out=True)
        reply["message"] = f"the maths engine raised {message}; counted as not passed"
        return _result(passed=False, opts=opts, reply=reply, timed_out=True)
    return _result(
        passed=bool(reply.get("passed")), opts=opts, reply=reply, gold=gold, prediction=prediction
    )


def assert_extractive_match(
    prediction: str,
    gold: str,
    *,
    gold_targets: Sequence[str] = ("latex", "expr"),
    pred_targets: Sequence[str] = ("latex", "expr"),
    extraction_mode: str = "any_match",
    fallback_mode: str = "first_match",
    boxed_priority: int | None = None,
    float_rounding: int = 6,
    strict: bool = True,
    allow_set_relation_comparison: bool = False,
    language: str = "en",
    timeout: float = 5.0,
) -> ExtractiveMatch:
    """Assert that ``prediction``'s final answer equals ``gold`` (see :func:`extractive_match`)."""
    __tracebackhide__ = True
    result = extractive_match(
        prediction,
        gold,
        gold_targets=gold_targets,
        pred_targets=pred_targets,
        extraction_mode=extraction_mode,
        fallback_mode=fallback_mode,
        boxed_priority=boxed_priority,
        float_rounding=float_rounding,
        strict=strict,
        allow_set_relation_comparison=allow_set_relation_comparison,
        language=language,
        timeout=timeout,
    )
    return enforce(result)  # type: ignore[return-value]


_GRADE_KEYS = frozenset(
    {
        "gold_targets",
        "pred_targets",
        "extraction_mode",
        "fallback_mode",
        "boxed_priority",
        "float_rounding",
        "strict",
        "allow_set_relation_comparison",
        "language",
        "timeout",
    }
)


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader: options from ``eval_criteria.extractive`` (a dict of keyword args, or ``true``)."""
    raw = ctx.criteria.get("extractive", True)
    if raw is True or raw is None:
        kwargs: dict[str, Any] = {}
    elif isinstance(raw, dict):
        unknown = sorted(set(raw) - _GRADE_KEYS)
        if unknown:
            raise GraderError(
                f"eval_criteria.extractive: unknown option(s) {unknown}; allowed: {sorted(_GRADE_KEYS)}"
            )
        kwargs = dict(raw)
    else:
        raise GraderError(
            f"eval_criteria.extractive must be true or an object of options; got {raw!r}"
        )
    try:
        return extractive_match(ctx.response, ctx.expected, **kwargs)
    except ValueError as exc:
        raise GraderError(f"eval_criteria.extractive: {exc}") from exc
