"""The bounded worker process of the extractive-match metric, and the engine it runs.

The parent (:mod:`pytest_llmeval.metrics.extractive.match`) starts this module as a
separate Python process and talks to it with one JSON object per line on
stdin/stdout.  All sympy parsing and comparison of untrusted text happens here,
never under a Python ``SIGALRM`` handler: on POSIX this process is a template that
loads sympy once and forks an evaluator with a capped address space
(``RLIMIT_AS``); the evaluator answers on the parent's pipes itself and is killed
by its own per-request timer (the signal's default action) when it misses the
deadline, and the template forks a fresh one.  Without ``fork`` the process
evaluates itself and the parent's deadline kills it.  Module-level imports are
stdlib only: the in-process path (:mod:`.extractive_native`) runs the extraction
loop from here without loading sympy.

Safety: sympy's string parsers evaluate Python (``parse_expr`` calls ``eval``).
The worker replaces every reference to ``parse_expr`` it knows of with a guard
that accepts only plain numeric literals (what latex2sympy passes for NUMBER
tokens) and raises for anything else, and plain expressions are parsed by the
closed grammar of :mod:`pytest_llmeval.metrics.extractive.safe_expressions`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable
from itertools import groupby, product
from typing import Any

from pytest_llmeval.metrics.extractive import patterns as pats
from pytest_llmeval.metrics.extractive.safe_expressions import (
    ExprSyntaxError,
    parse_plain,
    to_sympy,
)

READY = "llmeval-math-worker-ready"
# No request may hold an evaluator longer than this (seconds); the parent refuses larger timeouts too.
MAX_TIMEOUT = 60.0
DEFAULT_MEMORY_MB = 2048

# --- extraction loop (stdlib; shared with the in-process fast path) -------------

Parser = Callable[["re.Match[str]", str], "tuple[Any, str]"]


class Candidates:
    """What the extraction loop found: parsed values (first) and the raw texts tried."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.value_texts: list[str] = []
        self.kinds: list[str] = []
        self.fallbacks: list[str] = []
        self.found_any = False


def extract_candidates(
    text: str,
    targets: Iterable[tuple[str, pats.Patterns]],
    parse: Parser,
    *,
    extraction_mode: str,
    fallback_mode: str,
    skip: Callable[[re.Match[str], str], bool] | None = None,
) -> Candidates:
    """Try patterns by priority; within a priority the right-most match first; keep what parses.

    ``extraction_mode="first_match"`` stops at the first match even if it does not
    parse; ``"any_match"`` keeps trying.  ``fallback_mode="first_match"`` also keeps
    the raw text of the first match (compared as a string).
    """
    out = Candidates()
    flat = sorted(
        ((pattern, kind, prio) for kind, patterns in targets for pattern, prio in patterns),
        key=lambda x: x[2],
    )
    for _, group in groupby(flat, key=lambda x: x[2]):
        matches = sorted(
            ((m, kind) for pattern, kind, _ in group for m in pattern.finditer(text)),
            key=lambda x: (x[0].end(), -x[0].start()),
            reverse=True,
        )
        for m, kind in matches:
            if skip is not None and skip(m, kind):
                continue
            value, raw = parse(m, kind)
            out.found_any = True
            if raw:
                out.fallbacks.append(raw)
            if value is not None:
                out.values.append(value)
                out.value_texts.append(raw)
                out.kinds.append(kind)
                break
            if extraction_mode == "first_match":
                break
        if out.values or (out.found_any and extraction_mode == "first_match"):
            break
    if fallback_mode == "first_match" and out.fallbacks:
        out.values.append(out.fallbacks[0])
        out.value_texts.append(out.fallbacks[0])
        out.kinds.append("fallback")
    return out


def number_text(m: re.Match[str]) -> str | None:
    """The normalised digits of a plain-number match ("1,000.5" -> "1000.5"), or None for an expression."""
    groups = m.groupdict()
    integer = next((v for k, v in groups.items() if k.startswith("integer") and v), "")
    decimal = next((v for k, v in groups.items() if k.startswith("decimal") and v), "")
    if not (integer or decimal):
        return None
    exponent = groups.get("exponent")
    if exponent:
        decimal = f"{decimal}e{exponent}"
    sign = "-" if integer.startswith("-") else ""
    integer = integer.lstrip("-").translate(str.maketrans("", "", ", ")).lstrip("0") or "0"
    return f"{sign}{integer}{decimal.replace(',', '.')}"


def read_choice(m: re.Match[str], kind: str) -> tuple[str, str] | None:
    """(value, raw) of a choice-letter (``index``) or literal-option (``string``) match; None
    for other kinds. Stdlib only: the worker and the in-process parser read choices alike."""
    if kind == "index":
        letter = re.sub(r"[()\[\]]", "", m.group("indices")).strip().upper()
        return letter, letter
    if kind == "string":
        raw = m.group("string_keys")
        return raw.lower(), raw
    return None


def mixed_number(m: re.Match[str]) -> tuple[str, int, int, int] | None:
    """The parts (sign, whole, numerator, denominator) of a mixed-number match.

    None when the match is no mixed number; (sign, 0, 0, 0) when it is one but its
    fraction is not a proper one ("4 4/0", "4 0/0", "11 6/6", "11 7/6"): such a number
    has no value, and neither do its pieces.
    """
    text = m.groupdict().get("mixed")
    if not text:
        return None
    found = _MIXED_PARTS.fullmatch(text)
    if found is None:
        return None
    sign, whole, numerator, denominator = found.groups()
    sign = "-" if sign == "-" else ""
    num, den = int(numerator), int(denominator)
    if den == 0 or num >= den:
        return sign, 0, 0, 0
    return sign, int(whole.replace(" ", "")), num, den


_MIXED_PARTS = re.compile(r"([-+]?)((?:\d+ )*\d+)[ \t]+(\d+)[ \t]*/[ \t]*(\d+)")


def mixed_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the mixed numbers in ``text`` ("4 4/9", "1 000 4/0")."""
    if "/" not in text:
        return []
    return [m.span("mixed") for m in pats.MIXED_NUMBER_RE.finditer(text)]


_EXPR_GROUPS = ("expr", "integer1", "integer2", "decimal3", "integer3")


def inside_mixed(spans: list[tuple[int, int]]) -> Callable[[re.Match[str], str], bool]:
    """A ``skip`` predicate: pieces of a mixed number are not answers of their own.

    "4 4/0" has no value; reading its "4" or its "0" instead would compare loosely, and
    in "4 4/9" the "4" alone is not what was written. Only the mixed-number match itself
    (``mixed`` group) is read.
    """

    def skip(m: re.Match[str], kind: str) -> bool:
        if kind != "expr" or not spans:
            return False
        groups = m.groupdict()
        if groups.get("mixed"):
            return False
        for name in _EXPR_GROUPS:
            if groups.get(name):
                start, end = m.span(name)
                if any(start < b and a < end for a, b in spans):
                    return True
        return False

    return skip


def combine_skips(
    *skips: Callable[[re.Match[str], str], bool] | None,
) -> Callable[[re.Match[str], str], bool] | None:
    """One ``skip`` predicate that skips what any of ``skips`` skips."""
    active = [s for s in skips if s is not None]
    if not active:
        return None
    if len(active) == 1:
        return active[0]
    return lambda m, kind: any(s(m, kind) for s in active)


_LATEX_ENV_START = re.compile(r"\$|\\\(|\\\[|\\boxed")
_ROMAN_CONSTANT = re.compile(r"\\(?:mathrm|text|operatorname)\{\s*([ei])\s*\}")
_MATH_ENV = re.compile(
    r"(?<!\\)\$\$(?:[^$]|\$(?!\$))+?\$\$|(?<!\\)\$[^\n$]+?(?<!\\)\$|\\\((?:.|\n)+?\\\)|\\\[(?:.|\n)+?\\\]"
)


# Sentence punctuation (and spacing) a writer ends a maths environment with: "$\\frac{1}{3}.$",
# "\\[\\sqrt{2},\\]", "$x\\,.$", "$5\\text{.}$". Not "!" (a factorial).
_TRAILING_PUNCT = re.compile(
    r"(?:\s|(?<!\\)\\[,;:! ]|\\q?quad\b|[.,;:?]|\\text\{\s*[.,;:?]\s*\})+\Z"
)
_DELIMS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))


def _strip_env_punctuation(m: re.Match[str]) -> str:
    env = m.group(0)
    for opening, closing in _DELIMS:
        if (
            env.startswith(opening)
            and env.endswith(closing)
            and len(env) > len(opening) + len(closing)
        ):
            inner = env[len(opening) : len(env) - len(closing)]
            tail = _TRAILING_PUNCT.search(inner)
            if tail is not None and ".." in tail.group(0):
                # An ellipsis ("1, 2, 3, ...") is part of the answer, not sentence punctuation:
                # only what follows its last dot can go.
                after = tail.start() + tail.group(0).rindex("..") + 2
                tail = _TRAILING_PUNCT.search(inner, after) if after < len(inner) else None
                if tail is not None and tail.start() < after:
                    tail = None
            if (
                tail is None
                or not re.search(r"[.,;:?]", tail.group(0))
                or not inner[: tail.start()].strip()
            ):
                return env  # spacing alone, or nothing but punctuation: leave it
            return f"{opening}{inner[: tail.start()]}{closing}"
    return env


def strip_math_punctuation(text: str) -> str:
    """Drop sentence punctuation at the end of each maths environment (a class, not a case:
    models end sentences inside ``$...$`` all the time)."""
    if "$" not in text and "\\[" not in text and "\\(" not in text:
        return text
    return _MATH_ENV.sub(_strip_env_punctuation, text)


_BOXED_FLAT = re.compile(r"\\boxed\{[^{}]*\}")


def _latex_mixed(m: re.Match[str]) -> str:
    parts = mixed_number(m)
    if parts is None or parts[3] == 0:
        return m.group(0)  # no proper fraction: left as written
    sign, whole, num, den = parts
    return f"{sign}{whole}\\frac{{{num}}}{{{den}}}"


def _mixed_in_maths(m: re.Match[str]) -> str:
    return pats.MIXED_NUMBER_RE.sub(_latex_mixed, m.group(0))


def latex_mixed_numbers(text: str) -> str:
    """Write mixed numbers inside maths ("$4 4/9$", "\\boxed{1 000 4/9}") as ``4\\frac{4}{9}``,
    which latex2sympy reads as 40/9 (it reads "4 4/9" as 8/9)."""
    if "/" not in text or not _LATEX_ENV_START.search(text):
        return text
    return _BOXED_FLAT.sub(_mixed_in_maths, _MATH_ENV.sub(_mixed_in_maths, text))


def preprocess(text: str) -> str:
    """Repairs applied to both sides before extraction.

    \\fbox is \\boxed; upright constants (\\mathrm{e}, \\mathrm{i}) are the letters,
    not units to strip; sentence punctuation closing a maths environment goes; mixed
    numbers inside maths become ``W\\frac{N}{D}``; Unicode maths becomes LaTeX.
    """
    text = strip_math_punctuation(text.replace("\\fbox{", "\\boxed{"))
    text = latex_mixed_numbers(text)
    text = _ROMAN_CONSTANT.sub(r"\1", text)
    if "\\$" in text and not re.search(r"(?<!\\)\$", text):
        text = text.replace("\\$", " ")  # "\\$5" outside maths is a price
    return pats.unicode_to_latex(text)


def latex_spans(text: str) -> list[tuple[int, int]]:
    """Spans of maths environments that hold LaTeX commands (a backslash inside)."""
    return [m.span() for m in _MATH_ENV.finditer(text) if "\\" in m.group(0)[1:-1]]


def inside_latex(spans: list[tuple[int, int]]) -> Callable[[re.Match[str], str], bool]:
    """A ``skip`` predicate: plain-number matches taken from inside a LaTeX environment.

    When such an environment fails to parse, a number picked out of it ("1" from
    "$1 - \\frac{1}{x}$") would compare loosely; the environment decides or nothing does.
    """

    def skip(m: re.Match[str], kind: str) -> bool:
        if kind != "expr" or not spans:
            return False
        groups = m.groupdict()
        names = ("expr", "integer1", "integer2", "decimal3", "integer3")
        start = next((m.start(k) for k in names if groups.get(k)), m.start())
        return any(a <= start < b for a, b in spans)

    return skip


def build_targets(
    targets: Iterable[str], lang_code: str, boxed_priority: int, n_choices: int
) -> list[tuple[str, pats.Patterns]]:
    out: list[tuple[str, pats.Patterns]] = []
    for t in targets:
        if t == "latex":
            out.append(("latex", pats.latex_patterns(lang_code, boxed_priority)))
        elif t == "expr":
            out.append(("expr", pats.expr_patterns(lang_code)))
        elif t == "index":
            out.append(("index", pats.index_patterns(lang_code, n_choices, boxed_priority)))
        elif t == "string":
            out.append(("string", pats.string_patterns(("A", "B", "C", "D"))))
    return out


# --- sympy side (only ever imported inside the worker) ---------------------------

_NUMERIC_LITERAL = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")


def install_guards() -> None:
    """Make sympy's string parsers refuse anything but a numeric literal, everywhere we know of."""
    import latex2sympy2_extended.latex2sympy2 as l2s
    import math_verify.parser as mvp
    import sympy.parsing
    import sympy.parsing.sympy_parser as sp

    original = sp.parse_expr
    if getattr(original, "_llmeval_guard", False):
        return

    def guarded_parse_expr(s: Any, *args: Any, **kwargs: Any) -> Any:
        if _called_from_untrusted_path() and (
            not isinstance(s, str) or not _NUMERIC_LITERAL.fullmatch(s)
        ):
            raise ValueError("llmeval: sympy string parsing of non-numeric text is disabled")
        return original(s, *args, **kwargs)

    guarded_parse_expr._llmeval_guard = True  # type: ignore[attr-defined]
    sp.parse_expr = guarded_parse_expr
    sympy.parsing.parse_expr = guarded_parse_expr
    mvp.parse_expr = guarded_parse_expr
    l2s.parse_expr = guarded_parse_expr
    mvp.parse_expr_cached = _safe_parse_expr
    mvp.parse_latex_cached = _unswallowed(mvp.parse_latex_cached)
    import math_verify.grader as mvg

    mvg.sympy_expr_eq = _unswallowed(mvg.sympy_expr_eq)
    _patch_numeric_eq()
    _patch_parse_number()


# What latex2sympy's parse_number hands sympy for a written number, read without parse_expr:
# sympy.Number(str) tokenises, compiles and evals a line of Python (about half of parsing
# "12" as LaTeX). ASCII only: str.isdigit() also accepts "²" and other scripts' digits.
_PLAIN_INTEGER = re.compile(r"[0-9]{1,100}")
_PLAIN_DECIMAL = re.compile(r"[0-9]{1,100}\.[0-9]{1,100}")


def _patch_parse_number() -> None:
    """Build the sympy number latex2sympy would get from ``sympy.Number(text)`` directly.

    For ASCII digits ``sympy.Number`` ends in ``Integer(int(text))`` (latex2sympy strips the
    leading zeros first, which ``int`` ignores) and for ``digits.digits`` in ``Float(text)``
    (parse_expr's ``auto_number`` writes exactly that call); anything else takes the
    original path, guard included.
    """
    import latex2sympy2_extended.latex2sympy2 as l2s
    from sympy import Float, Integer

    original = l2s._Latex2Sympy.parse_number
    if getattr(original, "_llmeval_patch", False):
        return

    def parse_number(self: Any, text: str) -> Any:
        plain = text.replace(",", "")
        if _PLAIN_INTEGER.fullmatch(plain):
            return Integer(int(plain))
        if _PLAIN_DECIMAL.fullmatch(plain):
            return Float(plain)
        return original(self, text)

    parse_number._llmeval_patch = True  # type: ignore[attr-defined]
    l2s._Latex2Sympy.parse_number = parse_number


def _patch_numeric_eq() -> None:
    """Replace math-verify's chopped numeric check by a relative one for exact expressions.

    math-verify compares non-float expressions with ``(a - b).evalf(chop=True) == 0``;
    ``chop`` zeroes anything tiny, so 1/2^98 "equals" 1/2^99 and 1/2004! "equals"
    1/2006!.  Here the difference must be negligible *relative to the values*.
    """
    import math_verify.grader as mvg
    from sympy import Float, MatrixBase, MatrixExpr, Number

    original = mvg.sympy_numeric_eq
    if getattr(original, "_llmeval_patch", False):
        return

    def numeric_eq(a: Any, b: Any, float_rounding: int, numeric_precision: int) -> bool:
        if (
            (isinstance(a, (MatrixBase, MatrixExpr)) and isinstance(b, (MatrixBase, MatrixExpr)))
            or mvg.is_atomic_or_pct_atomic(a, Number)
            or mvg.is_atomic_or_pct_atomic(b, Number)
        ):
            return bool(original(a, b, float_rounding, numeric_precision))
        try:
            diff = (a - b).evalf(n=numeric_precision)
            if not isinstance(diff, Number):
                return False
            if diff == 0:
                return True
            scale = max(abs(a.evalf(n=numeric_precision)), abs(b.evalf(n=numeric_precision)))
            if not isinstance(scale, Number):
                return False
            has_float = bool(a.atoms(Float) or b.atoms(Float))
            # Exact inputs: only evaluation noise may remain; floats: their rounding.
            tol = Float(10) ** (-float_rounding if has_float else -(numeric_precision - 3))
            return bool(abs(diff) <= tol * scale)
        except Exception:
            return False

    numeric_eq._llmeval_patch = True  # type: ignore[attr-defined]
    mvg.sympy_numeric_eq = numeric_eq


def _called_from_untrusted_path() -> bool:
    """False only when sympy is parsing its own constants while a module is being imported.

    sympy sympifies constant strings at import time (unit names when
    ``sympy.physics.units`` is first imported by ``solve``, for instance); those
    are trusted.  Any other string reaching ``parse_expr`` in the worker is treated
    as untrusted and must be a numeric literal.
    """
    frame = sys._getframe(2)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name.startswith(("importlib", "_frozen_importlib")):
            return False
        if not name.startswith(("sympy", "mpmath")):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return True


class ResourceExhausted(BaseException):
    """Memory ran out; a BaseException so that math-verify's ``except Exception`` lets it through.

    Otherwise a failed parse of ``2^{2^{30}}`` would silently fall back to a
    fragment such as ``2`` and could compare equal to the gold.
    """


def _unswallowed(func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MemoryError as exc:
            raise ResourceExhausted("memory limit reached") from exc

    wrapper.__wrapped__ = func  # type: ignore[attr-defined]
    return wrapper


def _safe_parse_expr(expr: str) -> Any:
    return to_sympy(parse_plain(expr.replace("**", "^")))


def _sympy_number(digits: str) -> Any:
    import sympy

    if "." in digits:
        return sympy.Float(digits, max(15, len(digits.replace(".", "").lstrip("-0"))))
    return sympy.Integer(int(digits))


def _latex_config(boxed_priority: int) -> Any:
    from math_verify.parser import LatexExtractionConfig

    return _latex_configs.setdefault(
        boxed_priority, LatexExtractionConfig(boxed_match_priority=boxed_priority)
    )


_latex_configs: dict[int, Any] = {}


# Identical LaTeX answers recur (one gold graded against many samples, "\\boxed{5}" in many
# answers): each is normalised and parsed by ANTLR once per evaluator. Bounded in entries, and
# only short texts are kept, so the cache stays far below the evaluator's memory cap. Only
# shallow ones too: near the recursion limit (about 90 nested groups) whether a parse fails
# depends on how deep the stack already is, and a cached reading must not depend on its caller.
LATEX_CACHE_SIZE = 1024
MAX_CACHED_LATEX = 1000
MAX_CACHED_NESTING = 30
_latex_cache: OrderedDict[tuple[Any, ...], tuple[Any, str]] = OrderedDict()


def _extract_latex(m: re.Match[str], boxed_priority: int) -> tuple[Any, str]:
    from math_verify.parser import extract_latex

    # Past math-verify's own cache, which is keyed on the match object and never hits.
    read = getattr(extract_latex, "__wrapped__", extract_latex)
    return read(m, _latex_config(boxed_priority))  # type: ignore[no-any-return]


def read_latex(m: re.Match[str], boxed_priority: int) -> tuple[Any, str]:
    """math-verify's reading of a LaTeX match: a function of its non-empty named groups only
    (``extract_latex`` reads nothing else of the match), so those groups are the cache key."""
    groups = tuple((name, value) for name, value in m.groupdict().items() if value)
    text = "".join(value for _, value in groups)
    if len(text) > MAX_CACHED_LATEX or sum(map(text.count, "{([^_")) > MAX_CACHED_NESTING:
        return _extract_latex(m, boxed_priority)
    key = (groups, boxed_priority)
    hit = _latex_cache.get(key)
    if hit is not None:
        _latex_cache.move_to_end(key)
        return hit
    found = _extract_latex(m, boxed_priority)
    if found[0] is None or _immutable(found[0]):
        # A mutable value (a sympy Matrix) is not kept: no evaluation sees another's changes.
        _latex_cache[key] = found
        if len(_latex_cache) > LATEX_CACHE_SIZE:
            _latex_cache.popitem(last=False)
    return found


def _immutable(value: Any) -> bool:
    from sympy import Basic

    return isinstance(value, Basic)


def make_parser(boxed_priority: int) -> Parser:
    def parse(m: re.Match[str], kind: str) -> tuple[Any, str]:
        if kind == "latex":
            return read_latex(m, boxed_priority)
        if kind == "expr":
            from latex2sympy2_extended.latex2sympy2 import convert_to_pct

            mixed = mixed_number(m)
            if mixed is not None:
                raw = m.group("mixed")
                sign, whole, num, den = mixed
                if den == 0:
                    return None, raw  # not a proper fraction: no value
                fraction = ("div", ("num", str(num)), ("num", str(den)))
                node: Any = ("add", ("num", str(whole)), fraction)
                value = to_sympy(("neg", node) if sign else node)
                if m.groupdict().get("mixed_percent"):
                    value = convert_to_pct(value)
                return value, raw
            digits = number_text(m)
            if digits is not None:
                number = _sympy_number(digits)
                if m.groupdict().get("percent"):
                    number = convert_to_pct(number)
                return number, digits
            expr = m.groupdict().get("expr") or ""
            try:
                return to_sympy(parse_plain(expr)), expr
            except (ExprSyntaxError, ZeroDivisionError, ValueError):
                return None, expr
        choice = read_choice(m, kind)
        if choice is None:
            raise ValueError(kind)
        return choice

    return parse


def _has_unevaluated(expr: Any) -> bool:
    from sympy import Basic, Derivative, Integral, Limit, Product, Sum

    try:
        return isinstance(expr, Basic) and bool(expr.has(Integral, Derivative, Limit, Sum, Product))
    except Exception:
        return False


def _eval_set_ops(expr: Any) -> Any:
    """Evaluate unions/intersections/complements of explicit sets ([0,2] ∩ [1,3] -> [1,2])."""
    from sympy import Complement, Intersection, Union

    if isinstance(expr, (Intersection, Union, Complement)):
        try:
            return expr.doit()
        except Exception:
            return expr
    return expr


def _comparison_label(gold: Any, pred: Any, float_rounding: int) -> str:
    from sympy import Float, MatrixBase, Number, Set, Tuple
    from sympy.core.relational import Relational

    if isinstance(gold, str) or isinstance(pred, str):
        return "string equality"
    if isinstance(gold, MatrixBase) or isinstance(pred, MatrixBase):
        return "matrix (element-wise)"
    if isinstance(gold, (Set, Tuple)) or isinstance(pred, (Set, Tuple)):
        return "set/interval/tuple"
    if isinstance(gold, Relational) or isinstance(pred, Relational):
        return "relation/equation"
    if gold.atoms(Float) or pred.atoms(Float):
        return f"numeric (floats rounded to {float_rounding} places)"
    if isinstance(gold, Number) and isinstance(pred, Number):
        return "numeric (exact)"
    return "symbolic or high-precision numeric (sympy)"


def _short(value: Any, limit: int = 300) -> str:
    try:
        text = str(value)
    except Exception:  # huge integers refuse str(); sympy printers can fail too
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def compare(gold: list[Any], pred: list[Any], req: dict[str, Any]) -> tuple[bool, str, int, int]:
    """math-verify's comparison, pair by pair, without its signal timeout; plus an integral guard."""
    from math_verify.grader import verify

    for gi, pi in product(range(len(gold)), range(len(pred))):
        g, p = gold[gi], pred[pi]
        if isinstance(g, str) != isinstance(p, str):
            continue
        g, p = _eval_set_ops(g), _eval_set_ops(p)
        if _has_unevaluated(g) != _has_unevaluated(p):
            # An integral/limit/sum is not evaluated into a number that equals the gold.
            continue
        ok = verify(
            g,
            p,
            float_rounding=req["float_rounding"],
            numeric_precision=15,
            strict=req["strict"],
            allow_set_relation_comp=req["allow_set_relation_comparison"],
            timeout_seconds=None,
            raise_on_error=False,
        )
        if ok:
            return True, _comparison_label(g, p, req["float_rounding"]), gi, pi
    label = _comparison_label(gold[0], pred[0], req["float_rounding"]) if gold and pred else "none"
    return False, label, 0, 0


# LaTeX commands, \text{...} and environment names (\begin{pmatrix}) are not prose words.
_BARE_MATH_WORDS = re.compile(r"\\text\{[^{}]*\}|\\(?:begin|end)\{[A-Za-z]+\*?\}|\\[A-Za-z]+")


def looks_like_bare_math(text: str) -> bool:
    """Maths without a wrapper and without prose: LaTeX or algebra, no word of 3+ letters."""
    if len(text) > 300:
        return False
    latexy = re.search(r"[\\^_{]", text)
    # "y=1+2x", "2i+3": letters (variables) joined by operators, no prose.
    # ("x = 4,149" keeps its thousands separator: the plain-number patterns read it.)
    algebra = (
        re.search(r"[A-Za-z]", text)
        and re.search(r"[=+*/<>-]", text)
        and not re.search(r"\d,\d{3}(?!\d)", text)
    )
    if not (latexy or algebra):
        return False
    return not re.search(r"[A-Za-z]{3,}", _BARE_MATH_WORDS.sub(" ", text))


def _bare_answer(text: str) -> bool:
    """A short answer made of maths only: no word of 3+ letters outside LaTeX commands."""
    return 0 < len(text) <= 300 and not re.search(r"[A-Za-z]{3,}", _BARE_MATH_WORDS.sub(" ", text))


# A bare answer that is a list of plain numbers ("10, 4, 2", "-1,3,5", "1/2, 3/4") is read
# like "$10, 4, 2$", not as its last number. One number with a thousands separator
# ("1,000", "12,500,000") or a decimal comma ("2,5") is no list.
_LIST_ITEM = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[ \t]*/[ \t]*\d+)?")


def bare_number_list(text: str) -> bool:
    """Whether ``text`` is nothing but a comma-separated list of two or more plain numbers."""
    if "," not in text or len(text) > 300:
        return False
    items = text.split(",")
    if not all(_LIST_ITEM.fullmatch(item.strip()) for item in items):
        return False
    glued = [item for item in items[1:] if not item[:1].isspace()]
    if len(items) == 2 and glued:
        return (
            False  # "2,5": a decimal comma (or a thousands group), as the number patterns read it
        )
    # "1,000,5": a group of three digits right after a comma reads as thousands.
    return not any(re.fullmatch(r"\d{3}", item) for item in glued)


def _has_parsed(c: Candidates) -> bool:
    return any(k in ("latex", "expr", "index", "string") for k in c.kinds)


Comparer = Callable[[list[Any], list[Any], dict[str, Any]], "tuple[bool, str, int, int]"]


def _known(c: Candidates) -> Candidates:
    return c


class _SideReader:
    """Reads one side (gold or prediction): the configured targets, or the whole text as maths."""

    def __init__(
        self,
        lang: str,
        boxed_priority: int,
        parse: Parser,
        modes: dict[str, Any],
        known: Callable[[Candidates], Candidates],
    ) -> None:
        self.lang, self.boxed_priority, self.parse, self.modes, self.known = (
            lang,
            boxed_priority,
            parse,
            modes,
            known,
        )

    def _plain(self, text: str, targets: list[str], n_choices: int) -> Candidates:
        built = build_targets(targets, self.lang, self.boxed_priority, n_choices)
        skip = combine_skips(
            inside_latex(latex_spans(text)) if "latex" in targets else None,
            inside_mixed(mixed_spans(text)) if "expr" in targets else None,
        )
        return extract_candidates(text, built, self.parse, skip=skip, **self.modes)

    def _as_latex(self, text: str, n_choices: int) -> Candidates:
        latex_only = build_targets(("latex",), self.lang, self.boxed_priority, n_choices)
        return self.known(
            extract_candidates(f"${text.strip()}$", latex_only, self.parse, **self.modes)
        )

    def read(self, text: str, targets: list[str], n_choices: int, *, is_gold: bool) -> Candidates:
        if "latex" not in targets or not text.strip() or _LATEX_ENV_START.search(text):
            return self._plain(text, targets, n_choices)
        if looks_like_bare_math(text.strip()):
            # A bare LaTeX answer ("2\\sqrt{3}", "x \\in [1,3)"): read it whole as maths,
            # or "2" alone would be taken by the plain-number patterns.
            wrapped = self._as_latex(text, n_choices)
            return wrapped if "latex" in wrapped.kinds else self._plain(text, targets, n_choices)
        if bare_number_list(text.strip()):
            wrapped = self._as_latex(text, n_choices)
            if "latex" in wrapped.kinds:
                return wrapped
        found = self._plain(text, targets, n_choices)
        bare = is_gold or _bare_answer(text.strip())
        if bare:
            found = self.known(found)
        if not _has_parsed(found) and bare:
            # A gold is a bare answer ("[1,3)", "x^2-1") even without LaTeX commands; so is a
            # prediction that is nothing but such maths ("(1,2)", no prose).
            wrapped = self._as_latex(text, n_choices)
            if "latex" in wrapped.kinds:
                return wrapped
        return found


def _choices_named(gold: Candidates, lang: str) -> int:
    """How many options the prediction may pick from: at least four, more if the gold names a later one."""
    n_choices = 4
    for value, kind in zip(gold.values, gold.kinds, strict=False):
        if kind == "index" and isinstance(value, str):
            native = pats.LANGUAGES[lang].native
            if value in native:
                n_choices = max(n_choices, native.index(value) + 1)
            elif len(value) == 1 and "A" <= value.upper() <= "Z":
                n_choices = max(n_choices, ord(value.upper()) - ord("A") + 1)
    return n_choices


def evaluate(
    req: dict[str, Any],
    *,
    parser: Parser | None = None,
    comparer: Comparer | None = None,
    known: Callable[[Candidates], Candidates] = _known,
) -> dict[str, Any]:
    """Extract, parse and compare one (gold, prediction) pair; returns builtins only.

    The worker parses with sympy (``make_parser``/``compare``); the parent passes the
    stdlib-only parser and comparer of :mod:`.extractive_native` instead, and ``known``,
    which raises where the path taken depends on whether a candidate it could not read parses.
    """
    lang = pats.resolve_language(req["language"]).code
    boxed_priority = req["boxed_priority"]
    parse = parser or make_parser(boxed_priority)
    compare_values = comparer or compare
    modes: dict[str, Any] = {
        "extraction_mode": req["extraction_mode"],
        "fallback_mode": req["fallback_mode"],
    }

    reader = _SideReader(lang, boxed_priority, parse, modes, known)
    gold = reader.read(preprocess(req["gold"]), req["gold_targets"], 26, is_gold=True)
    pred = reader.read(
        preprocess(req["prediction"]),
        req["pred_targets"],
        _choices_named(gold, lang),
        is_gold=False,
    )
    result: dict[str, Any] = {
        "gold_extracted": gold.value_texts,
        "gold_parsed": [_short(v) for v in gold.values],
        "gold_kinds": gold.kinds,
        "pred_extracted": pred.value_texts,
        "pred_parsed": [_short(v) for v in pred.values],
        "pred_kinds": pred.kinds,
    }
    if not gold.values or not pred.values:
        result.update(passed=False, comparison="none", match=None)
        return result
    passed, label, gi, pi = compare_values(gold.values, pred.values, req)
    result.update(passed=passed, comparison=label, match=[gi, pi] if passed else None)
    return result


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # Windows: only the deadline applies
        return
    try:
        mb = int(os.environ.get("PYTEST_LLMEVAL_MATH_MEMORY_MB", DEFAULT_MEMORY_MB))
    except ValueError:
        mb = DEFAULT_MEMORY_MB
    limit = mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _serve_one(line: str | bytes) -> str:
    request_id = None
    try:
        request = json.loads(line)
        request_id = request.get("id") if isinstance(request, dict) else None
        reply = evaluate(request)
    except (MemoryError, ResourceExhausted):
        reply = {"error": "memory", "message": "memory limit reached while parsing/comparing"}
    except RecursionError:
        reply = {"error": "recursion", "message": "expression nested too deeply"}
    except Exception as exc:  # the parent turns this into a non-pass with an explanation
        reply = {"error": "exception", "message": f"{type(exc).__name__}: {_short(exc, 200)}"}
    reply["id"] = request_id
    return json.dumps(reply) + "\n"


def _deadline(line: bytes) -> float:
    """The request's own timeout, within (0, MAX_TIMEOUT]; 5 s when it has none or a bad one."""
    try:
        deadline = float(json.loads(line).get("timeout", 5.0))
    except (ValueError, AttributeError, TypeError):
        return 5.0
    if deadline != deadline or deadline <= 0:  # NaN, zero, negative
        return 5.0
    return min(deadline, MAX_TIMEOUT)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def _exit_with_parent() -> None:
    """Leave as soon as the process that started us is gone (``kill -9`` of pytest).

    The template may be waiting on a busy evaluator for up to ``MAX_TIMEOUT`` and not reading
    stdin, so EOF alone would notice too late: a thread watches the parent pid instead (any
    POSIX; the evaluator then dies with us through ``PR_SET_PDEATHSIG``).
    """
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, name="llmeval-math-parent-watch", daemon=True).start()


def _die_with_parent() -> None:
    """Linux: have the kernel kill this evaluator if the template process dies."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        libc = ctypes.CDLL(None)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _evaluator(reply_fd: int) -> None:
    """A forked evaluator: reads requests from stdin and replies on ``reply_fd`` itself.

    The parent talks to it directly (one pipe hop each way). Each request arms a
    real-time timer whose *default* action kills this process at the deadline, even
    inside C code: nothing here can catch or swallow it. The template sees the death
    and tells the parent.
    """
    import signal

    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    _die_with_parent()
    _limit_memory()
    with os.fdopen(0, "rb", closefd=False) as requests:
        for line in requests:
            if not line.strip():
                continue
            signal.setitimer(signal.ITIMER_REAL, _deadline(line))
            reply = _serve_one(line)
            signal.setitimer(signal.ITIMER_REAL, 0)
            _write_all(reply_fd, reply.encode("utf-8"))
    os._exit(0)


def _supervise(reply_fd: int) -> None:
    """Fork evaluators one after another; report each one's death to the parent.

    The template never reads stdin: the evaluator does. When an evaluator dies, the
    request it was serving gets ``timeout`` (its deadline timer fired) or ``crash``
    (memory cap, segfault) on the reply pipe, and a fresh fork serves the next one.
    A leading newline ends whatever line the dead evaluator was writing.
    """
    import signal

    while True:
        pid = os.fork()
        if pid == 0:
            try:
                _evaluator(reply_fd)
            finally:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            return  # stdin closed: the parent is done with us
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
            reply = {"error": "timeout"}
        else:
            reply = {
                "error": "crash",
                "message": "the evaluator process died (memory cap or crash)",
            }
        _write_all(reply_fd, ("\n" + json.dumps(reply) + "\n").encode("utf-8"))


_WARM_UP = (
    ("so the answer is $\\boxed{\\frac{1}{2}}$", "0.5", ("latex", "expr")),
    ("$x^2 - 1 = 0$ gives $x \\in \\{-1, 1\\}$", "$\\{1,-1\\}$", ("latex", "expr")),
    ("$a < 2$", "$2 > a$", ("latex", "expr")),
    ("Answer: (C)", "C", ("index",)),
)


def _warm_up() -> None:
    for prediction, gold, targets in _WARM_UP:
        with contextlib.suppress(Exception):
            evaluate(
                {
                    "gold": gold,
                    "prediction": prediction,
                    "gold_targets": list(targets),
                    "pred_targets": list(targets),
                    "extraction_mode": "any_match",
                    "fallback_mode": "first_match",
                    "boxed_priority": 50,
                    "float_rounding": 6,
                    "strict": True,
                    "allow_set_relation_comparison": False,
                    "language": "en",
                }
            )


def main() -> None:
    """Serve requests: one JSON object per line in, one per line out.

    On POSIX this process is a template: it loads sympy once and forks evaluators that
    read and answer requests themselves (see :func:`_supervise`); a missed deadline
    kills the evaluator and a fresh fork takes over in milliseconds. Elsewhere requests
    are evaluated here and the parent's own deadline kills the whole process.
    """
    import logging

    _exit_with_parent()
    reply_fd = os.dup(sys.stdout.fileno())
    # Libraries that print must not corrupt the protocol.
    sys.stdout = sys.stderr
    logging.disable(logging.CRITICAL)
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(5000)
    import math_verify  # noqa: F401  (import cost paid before READY)

    install_guards()
    can_fork = hasattr(os, "fork") and not os.environ.get("PYTEST_LLMEVAL_MATH_NOFORK")
    # The parent learns whether deadlines are enforced here (fork) or only by itself.
    _write_all(reply_fd, f"{READY} {'fork' if can_fork else 'single'}\n".encode())
    if not can_fork:
        _limit_memory()
        for line in sys.stdin.buffer:
            if line.strip():
                _write_all(reply_fd, _serve_one(line).encode("utf-8"))
        return
    # Warm caches (regexes, the ANTLR automaton, sympy's lazy imports) once in the
    # template so that every forked evaluator, including replacements after a
    # timeout, starts warm. A request arriving meanwhile waits in the pipe.
    _warm_up()
    _supervise(reply_fd)


if __name__ == "__main__":
    main()
