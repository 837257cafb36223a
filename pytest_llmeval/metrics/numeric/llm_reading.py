"""LLM-assisted numeric extraction: the judge reads the answer's figure, the numeric engine compares it.

With ``eval_criteria.numeric.extractor: "llm"`` (or ``-o llm_numeric_extractor=llm``) and a judge
model (``--llm-judge``), the numeric grader asks the judge for one JSON object: ``value`` (the
number as written, without its scale), ``unit``, ``scale``, ``category`` and ``quote`` (schema
``judge/numeric_reading.schema.json``). The reading counts only when its quote is in the answer
word for word (whitespace aside) and holds its value; it is then compared with the gold by the
heuristic's own comparison (same tolerance, rounding, sign and currency rules). When the two
readings disagree, or the LLM's cannot be used, the sample needs review and does not pass.
See docs/numeric_llm.md.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.numeric.agreement import read_against, reading_difference
from pytest_llmeval.metrics.numeric.candidates import Candidate, extract_values
from pytest_llmeval.metrics.numeric.explanation import (
    NumericMatch,
    format_value,
    tolerance_text,
    units_match,
)
from pytest_llmeval.metrics.numeric.gold import (
    Gold,
    parse_gold,
    question_hints,
    response_scale,
)
from pytest_llmeval.metrics.numeric.locale_tables import detect_language, language_for_locale
from pytest_llmeval.metrics.numeric.tokens import (
    NUM_RE,
    parse_number_text,
    parse_word_number,
    rounding_unit,
)

if TYPE_CHECKING:
    from pytest_llmeval.models.base import ChatModel
    from pytest_llmeval.registry import GradeContext

__all__ = ["REVIEW_BETWEEN", "apply_extractor", "parse_value", "read_figure"]

SCALES = {"one": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}
REVIEW_BETWEEN = "heuristic and LLM numeric readings"
SCHEMA = "numeric_reading"

_SYSTEM = (
    "You read the figure that a text gives as its answer to a question. Do not compute, "
    "convert or correct anything: report what the text states. Fields:\n"
    "- value: the number exactly as the text writes it, with its sign or accounting brackets "
    '("-3.4", "(0.28)", "1,250.5", "12,5"; in words when the text writes it in words: "five"), '
    "without currency symbol, percent sign or scale word; "
    '"" when the text states no figure as its answer.\n'
    '- unit: the ISO 4217 code of the figure\'s currency ("USD" for $), "%" for a percentage, '
    'or "" for none.\n'
    "- scale: one, thousand, million or billion: the scale word written with the figure "
    '("$1.5 billion": value "1.5", scale "billion"), or given by a heading such as "in millions"; '
    "one when there is none.\n"
    '- category: what the figure measures, in a few words ("revenue", "diluted EPS").\n'
    "- quote: the words of the text you read the figure from, copied character for character "
    '(a short span that contains the number, at most 200 characters); "" when value is "".\n'
    "The figure is the one that answers the question, not one it was computed from or compared "
    "with. {data_rule} "
    'Reply with JSON only: {{"value": "...", "unit": "...", "scale": "one", "category": "...", '
    '"quote": "..."}}.'
)


def reading_messages(
    response: str, *, question: str | None, category: str | None
) -> list[dict[str, str]]:
    """The judge prompt. The gold is not in it: the reading must not lean towards it."""
    from pytest_llmeval.judge.prompts import DATA_RULE, delimit

    system = _SYSTEM.format(data_rule=DATA_RULE.format(tag="answer"))
    parts = []
    if question:
        parts.append("Question (data):\n" + delimit("question", question))
    if category:
        parts.append(f"The figure asked for is: {' '.join(str(category).split())[:200]}")
    parts.append("Text to read:\n" + delimit("answer", response))
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


# --------------------------------------------------------------------------- reading the reply

_SIGNS = ("-", "\u2212", "\u2013")


def parse_value(text: str, decimal_comma: bool) -> tuple[float, int, int, bool] | None:
    """``value`` as written -> (magnitude, decimals shown, significant digits, negative).

    The numeric engine's own token readers decide ("1,500" vs "12,5" by the text's decimal
    convention; English number words without a scale word); anything but one number with an
    optional sign or brackets is None. Nothing is evaluated.
    """
    t = text.strip()
    negative = False
    if t.startswith("(") and t.endswith(")"):
        negative, t = True, t[1:-1].strip()
    if t.startswith(_SIGNS):
        negative, t = True, t[1:].strip()
    elif t.startswith("+"):
        t = t[1:].strip()
    if not t:
        return None
    if NUM_RE.fullmatch(t) is None:
        # A figure written in words ("five", "twelve point five"); its scale goes in ``scale``.
        words = parse_word_number(t) if len(t) <= 64 else None
        if words is None or words[2]:
            return None
        return words[0], words[1], 2, negative  # significant digits as the word reader counts them
    parsed = parse_number_text(t, decimal_comma, padding=False)
    if parsed is None:
        return None
    magnitude, decimals, sig = parsed
    return magnitude, decimals, sig, negative


def _checker(decimal_comma: bool) -> Any:
    """Problems that make a reply malformed (one repair request, then an error outcome)."""

    def check(reply: dict[str, Any]) -> list[str]:
        value, quote = reply["value"].strip(), reply["quote"].strip()
        problems = []
        if value and parse_value(value, decimal_comma) is None:
            problems.append(
                f"value: {value[:64]!r} is not one number as written (digits and separators, "
                "an optional sign or brackets; no unit, no scale word)"
            )
        if bool(value) != bool(quote):
            problems.append('value and quote are both "" (no figure stated) or both given')
        return problems

    return check


def read_figure(
    model: ChatModel,
    response: str,
    *,
    question: str | None,
    category: str | None,
    decimal_comma: bool,
) -> dict[str, Any]:
    """One schema-checked reading from the judge; a failed call or unusable JSON raises GraderError."""
    from pytest_llmeval.judge.llm import call_json, load_schema

    messages = reading_messages(response, question=question, category=category)
    return call_json(model, messages, load_schema(SCHEMA), check=_checker(decimal_comma))


_WS_RE = re.compile(r"\s+")


def locate_quote(response: str, quote: str, near: int | None = None) -> tuple[int, int] | None:
    """Span of ``quote`` in ``response`` when it is there verbatim after whitespace runs are
    squashed to one space on both sides; otherwise None. Nothing else is forgiven.

    A quote found more than once ("$2,544 million" in the sum and in the conclusion) is taken
    where it covers offset ``near`` (where the heuristic read its figure), else at its first place.
    """
    wanted = _WS_RE.sub(" ", quote).strip()
    if not wanted:
        return None
    chars: list[str] = []
    where: list[int] = []
    for m in re.finditer(r"\s+|\S+", response):
        if m.group().isspace():
            chars.append(" ")
            where.append(m.start())
        else:
            chars.append(m.group())
            where.extend(range(m.start(), m.end()))
    squashed = "".join(chars)
    spans: list[tuple[int, int]] = []
    at = squashed.find(wanted)
    while at >= 0 and len(spans) < 1000:
        spans.append((where[at], where[at + len(wanted) - 1] + 1))
        at = squashed.find(wanted, at + 1)
    if not spans:
        return None
    return next((sp for sp in spans if near is not None and sp[0] <= near < sp[1]), spans[0])


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _quote_holds(
    quote: str, magnitude: float, mult: float, decimal_comma: bool, locale: str | None
) -> bool:
    """Does the quote write the value (as digits, or in words the numeric engine reads)?"""
    for m in NUM_RE.finditer(quote):
        parsed = parse_number_text(m.group(0), decimal_comma, padding=False)
        if parsed is not None and _same(parsed[0], magnitude):
            return True
    return any(
        _same(c.number, magnitude) or _same(c.number, magnitude * mult)
        for c in extract_values(quote, locale=locale, count_words=True, padding=False)
    )


@dataclass(frozen=True)
class _Reading:
    """The judge's reading made into a candidate, or why it cannot be used."""

    reply: dict[str, Any]
    cand: Candidate | None = None
    problem: str | None = None


def _candidate(
    reply: dict[str, Any],
    parsed: tuple[float, int, int, bool],
    span: tuple[int, int],
    heuristic: list[Candidate],
) -> Candidate:
    """The reading as the numeric engine's candidate. Signs carried by words ("a loss of $0.28")
    are read as the heuristic reads them at the same place: ``value`` cannot write them."""
    magnitude, decimals, sig, negative = parsed
    mult = SCALES[reply["scale"]]
    percent = reply["unit"] == "%"
    value, ulp = magnitude * mult, rounding_unit(decimals, magnitude, sig) * mult
    if percent:
        value, ulp = value / 100.0, ulp / 100.0
    twin = next(
        (c for c in heuristic if span[0] <= c.span[0] < span[1] and _same(c.number, magnitude)),
        None,
    )
    brackets = reply["value"].strip().startswith("(")
    sign_source = ("parentheses" if brackets else "symbol") if negative else None
    worded = not negative and twin is not None and twin.sign_source == "word"
    if worded:
        sign_source = "word"
    return Candidate(
        span=span,
        raw=reply["quote"],
        value=-value if negative else value,
        number=magnitude,
        scale=mult,
        scale_word=None if mult == 1.0 else reply["scale"],
        currency=None if percent else (reply["unit"] or None),
        percent=percent,
        negative=negative,
        sign_source=sign_source,
        decimals=decimals,
        ulp=ulp,
        sig_digits=sig,
        decrease_verb=bool(worded and twin is not None and twin.decrease_verb),
        outflow_line=bool(twin is not None and brackets and twin.outflow_line),
    )


def _reading(
    reply: dict[str, Any],
    response: str,
    heuristic: NumericMatch,
    decimal_comma: bool,
    locale: str | None,
) -> _Reading:
    value = reply["value"].strip()
    if not value:
        return _Reading(reply)  # the judge read no figure stated as the answer
    parsed = parse_value(value, decimal_comma)
    if parsed is None:  # the checker refuses such replies; kept for callers that skip it
        return _Reading(reply, problem=f"its value {value[:64]!r} is not one number as written")
    near = heuristic.found.span[0] if heuristic.found is not None else None
    span = locate_quote(response, reply["quote"], near)
    if span is None:
        return _Reading(reply, problem=f"its quote {reply['quote'][:120]!r} is not in the answer")
    if not _quote_holds(reply["quote"], parsed[0], SCALES[reply["scale"]], decimal_comma, locale):
        return _Reading(
            reply, problem=f"its value {value!r} is not in its quote {reply['quote'][:120]!r}"
        )
    return _Reading(reply, cand=_candidate(reply, parsed, span, heuristic.candidates))


# --------------------------------------------------------------------------- comparing


def _compare(
    gold: Gold, cand: Candidate, response: str, question: str | None, opts: dict[str, Any]
) -> tuple[bool, float, str]:
    """(passed, value compared, verdict) by the heuristic's rules, applied as numeric_match does."""
    from pytest_llmeval.metrics.numeric.agreement import currency_as_expected

    tol = float(opts.get("tolerance", 0.0))
    mode = str(opts.get("tolerance_mode", "relative"))
    percent_mode = str(opts.get("percent", "ratio-or-percent"))
    hints = question_hints(question)
    resp_scale = response_scale(response)
    reading = read_against(gold, cand, hints, resp_scale, tol, mode, percent_mode)
    ok, val, note = reading.ok, reading.value, reading.note
    exp_currency = gold.currency or hints.currency
    found_currency = currency_as_expected(cand, exp_currency)
    if opts.get("require_currency") and exp_currency and found_currency != exp_currency:
        return False, val, "currency required to match (require_currency=True)"
    if percent_mode == "strict" and gold.percent != cand.percent:
        return False, val, "percent required to match (percent='strict')"
    if not units_match(gold, cand, exp_currency, found_currency):
        note = "; ".join(n for n in (note, f"unit differs ({found_currency or '%'})") if n)
    pdiff = reading_difference(reading)
    diff = f"difference {pdiff:.4g}%" if math.isfinite(pdiff) else "difference inf%"
    verdict = (
        f"match within {tolerance_text(tol, mode)}"
        if ok
        else f"{diff} exceeds {tolerance_text(tol, mode)}"
    )
    return ok, val, verdict + (f" [{note}]" if note else "")


def apply_extractor(
    ctx: GradeContext,
    heuristic: NumericMatch,
    gold_value: Any,
    opts: dict[str, Any],
) -> NumericMatch:
    """The numeric grader's result with the LLM reading beside the heuristic one (the ``llm``
    extractor). Disagreement or an unusable reading: needs review, no pass."""
    if ctx.judge is None:
        raise GraderError(
            "eval_criteria.numeric.extractor 'llm' needs a judge model: --llm-judge=openai:MODEL "
            "(ini llm_judge); without one use the heuristic extractor"
        )
    gold = parse_gold(gold_value, ctx.question)
    if gold is None:  # grade() refuses such golds first
        raise GraderError(
            f"numeric grader: expected answer {str(gold_value)[:80]!r} holds no number"
        )
    locale = opts.get("locale") if isinstance(opts.get("locale"), str) else None
    lang = language_for_locale(locale) or detect_language(ctx.response)
    reply = read_figure(
        ctx.judge,
        ctx.response,
        question=ctx.question,
        category=opts.get("category"),
        decimal_comma=lang.decimal_comma,
    )
    reading = _reading(reply, ctx.response, heuristic, lang.decimal_comma, locale)
    return _combine(heuristic, reading, gold, ctx, opts)


def _combine(
    heuristic: NumericMatch, reading: _Reading, gold: Gold, ctx: GradeContext, opts: dict[str, Any]
) -> NumericMatch:
    from pytest_llmeval.judge import judge_name

    reply = reading.reply
    llm_ok: bool | None = None
    llm_value: float | None = None
    if reading.problem is not None:
        llm_desc = f"LLM reading unusable: {reading.problem}"
    elif reading.cand is None:
        llm_ok = False
        llm_desc = "LLM read no figure stated as the answer (fail)"
    else:
        llm_ok, llm_value, verdict = _compare(gold, reading.cand, ctx.response, ctx.question, opts)
        shown = format_value(llm_value, reading.cand.percent, reading.cand.currency)
        llm_desc = f'LLM read {shown} from "{reply["quote"][:120]}" ({"pass" if llm_ok else "fail"}: {verdict})'
    found = heuristic.found
    heur_desc = (
        f'heuristic read {format_value(heuristic.found_value, found.percent, found.currency)} from "{found.raw[:120]}"'
        if found is not None
        else "heuristic found no stated value"
    ) + f" ({'pass' if heuristic.passed else 'fail'})"
    decided = llm_ok is not None and llm_ok == heuristic.passed
    details = {
        **heuristic.details,
        "extractor": "llm",
        "judge": judge_name(ctx.judge),
        "heuristic_reading": {
            "found_raw": found.raw if found is not None else None,
            "found_value": heuristic.found_value,
            "passed": heuristic.passed,
        },
        "llm_reading": {
            **{k: reply[k] for k in ("value", "unit", "scale", "category", "quote")},
            "found_value": llm_value,
            "passed": llm_ok,
            "usable": reading.problem is None,
            "problem": reading.problem,
        },
        "needs_review": not decided,
    }
    if decided:
        return dataclasses.replace(
            heuristic,
            explanation=f"{heuristic.explanation} The LLM reading agrees: {llm_desc}.",
            details=details,
        )
    why = (
        "the LLM reading cannot be used"
        if reading.problem
        else "the heuristic and LLM readings disagree"
    )
    note = f"{why}: {heur_desc}; {llm_desc}"
    details.update(review_between=REVIEW_BETWEEN, review_notes=[note])
    return dataclasses.replace(
        heuristic,
        passed=False,
        score=0.0,
        explanation=f"NEEDS REVIEW, not a pass ({note}). Heuristic: {heuristic.explanation}",
        details=details,
    )
