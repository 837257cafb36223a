"""The in-process half of extractive match agrees with the sympy worker wherever it decides."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.metrics.extractive import match as mod
from pytest_llmeval.metrics.extractive import reader as extractive_native
from pytest_llmeval.metrics.extractive.match import extractive_match, start_worker


@pytest.fixture(scope="module", autouse=True)
def _worker() -> None:
    start_worker()


def _request(gold: str, prediction: str, **options: object) -> dict[str, object]:
    settings_ = {
        "gold_targets": ("latex", "expr"),
        "pred_targets": ("latex", "expr"),
        "extraction_mode": "any_match",
        "fallback_mode": "first_match",
        "boxed_priority": None,
        "float_rounding": 6,
        "strict": True,
        "allow_set_relation_comparison": False,
        "language": "en",
        "timeout": 10.0,
    }
    settings_.update(options)
    return mod._options(**settings_).request(gold, prediction)  # type: ignore[arg-type]


def _worker_verdict(request: dict[str, object]) -> bool:
    reply = mod._WORKER.call(request, 10.0)
    assert reply is not None
    assert "error" not in reply, reply
    return bool(reply["passed"])


# Ways a number is written in golds and answers: (template, needs a fraction).
RENDERINGS = [
    "{n}",
    "${n}$",
    "\\boxed{{{n}}}",
    "The answer is $\\boxed{{{n}}}$.",
    "So the total is {n}.",
    "Therefore the answer is \\({n}\\).",
    "\\[ {n} \\]",
]
FRACTIONS = ["\\frac{{{p}}}{{{q}}}", "\\dfrac{{{p}}}{{{q}}}", "{p}/{q}", "-\\frac{{{p}}}{{{q}}}"]


@st.composite
def written_number(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["integer", "decimal", "fraction", "thousands", "whole decimal"]))
    if kind == "integer":
        text = str(draw(st.integers(-60, 60)))
    elif kind == "whole decimal":
        text = f"{draw(st.integers(-9, 9))}.{'0' * draw(st.integers(1, 3))}"
    elif kind == "decimal":
        places = draw(st.integers(1, 8))
        text = f"{draw(st.integers(-20_000, 20_000)) / 10**places:.{places}f}"
    elif kind == "thousands":
        text = f"{draw(st.integers(1000, 9_999_999)):,}"
    else:
        p, q = draw(st.integers(-1200, 1200)), draw(st.integers(1, 1200))
        text = draw(st.sampled_from(FRACTIONS)).format(p=p, q=q)
    return draw(st.sampled_from(RENDERINGS)).format(n=text)


@settings(max_examples=300, deadline=None)
@given(written_number(), written_number(), st.integers(0, 8))
def test_in_process_verdict_equals_the_worker_verdict(
    gold: str, prediction: str, rounding: int
) -> None:
    request = _request(gold, prediction, float_rounding=rounding)
    reply = extractive_native.evaluate(request)
    if reply is None:
        return  # sympy decides this one; nothing to compare
    assert bool(reply["passed"]) == _worker_verdict(request), (gold, prediction, rounding, reply)


@settings(max_examples=60, deadline=None)
@given(st.integers(-(10**6), 10**6), st.integers(1, 10**4), st.integers(0, 8))
def test_fraction_against_its_decimal_agrees_with_the_worker(p: int, q: int, rounding: int) -> None:
    decimal = f"{float(Fraction(p, q)):.{rounding + 1}f}"
    for gold, prediction in (
        (f"\\frac{{{p}}}{{{q}}}", f"$ {decimal} $"),
        (decimal, f"$\\boxed{{{p}/{q}}}$"),
    ):
        request = _request(gold, prediction, float_rounding=rounding)
        reply = extractive_native.evaluate(request)
        if reply is not None:
            assert bool(reply["passed"]) == _worker_verdict(request), (gold, prediction, rounding)


@pytest.mark.parametrize(
    ("prediction", "gold", "passed"),
    [
        ("So the answer is $\\boxed{\\frac{3}{4}}$.", "0.75", True),
        ("So the answer is $\\boxed{\\frac{3}{4}}$.", "0.76", False),
        ("The final answer is $\\dfrac74$.", "7/4", True),
        ("We get $1,000$ apples.", "1000", True),
        ("Answer: (C)", "C", True),
    ],
)
def test_plain_answers_are_decided_in_process(prediction: str, gold: str, passed: bool) -> None:
    targets = ("index",) if gold == "C" else ("latex", "expr")
    result = extractive_match(prediction, gold, gold_targets=targets, pred_targets=targets)
    assert result.passed is passed, result.explanation
    assert result.comparison.endswith("in-process"), result.comparison


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("So $x = \\boxed{\\sqrt{2}}$.", "\\sqrt{2}"),  # needs sympy
        ("The discount is $35\\%$.", "0.35"),  # percent: sympy's percent rules
        ("$\\boxed{-3, 5}$", "-3, 5"),  # a list of answers
        ("The ratio is 1/0.", "1"),  # division by zero: sympy's reading
        ("$0.5$", "1/2"),  # a tie at rounding 0 is sympy's rule
    ],
)
def test_what_sympy_must_read_goes_to_the_worker(prediction: str, gold: str) -> None:
    rounding = 0 if prediction == "$0.5$" else 6
    assert extractive_native.evaluate(_request(gold, prediction, float_rounding=rounding)) is None


def test_huge_numbers_go_to_the_worker() -> None:
    digits = "9" * 500
    assert extractive_native.evaluate(_request(digits, f"The answer is {digits}.")) is None


# Answers only sympy reads; identical ones are decided here, and must agree with the worker.
SYMBOLIC = [
    "\\sqrt{2}",
    "3\\sqrt{2}",
    "\\frac{5}{3}\\pi",
    "x^2 - 4",
    "(1, 4]",
    "\\{1, 2\\}",
    "y \\geq 7",
    "\\text{Tuesday}",
    "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
    "2 \\pm \\sqrt{3}",
    "35\\%",
    "\\frac{1}{",  # unparseable: both sides still carry the same text
    "e^{i\\pi}",
    "\\infty",
]
WRAPPERS = [
    "${a}$",
    "$\\boxed{{{a}}}$",
    "\\boxed{{{a}}}",
    "The answer is ${a}$.",
    "So we get \\[ {a} \\]",
    "{a}",
]


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(SYMBOLIC),
    st.sampled_from(WRAPPERS),
    st.sampled_from(WRAPPERS),
    st.sampled_from(SYMBOLIC),
)
def test_identical_symbolic_answers_agree_with_the_worker(
    answer: str, gold_wrap: str, pred_wrap: str, other: str
) -> None:
    for gold, prediction in (
        (gold_wrap.format(a=answer), pred_wrap.format(a=answer)),
        (gold_wrap.format(a=answer), pred_wrap.format(a=other)),
    ):
        request = _request(gold, prediction)
        reply = extractive_native.evaluate(request)
        if reply is not None:
            assert bool(reply["passed"]) == _worker_verdict(request), (gold, prediction, reply)


def test_identical_answers_need_the_text_fallback() -> None:
    request = _request("$\\sqrt{2}$", "So $\\boxed{\\sqrt{2}}$.", fallback_mode="no_fallback")
    assert extractive_native.evaluate(request) is None
    request = _request("$\\sqrt{2}$", "So $\\boxed{\\sqrt{2}}$.")
    reply = extractive_native.evaluate(request)
    assert reply is not None
    assert reply["passed"]
    assert reply["comparison"] == "identical answers, in-process"


@pytest.mark.parametrize(
    "hostile",
    ["\\[" * 1500, "\\(" * 1500 + "x", "$$" * 1000, "The answer is " + "1 " * 1500, "$" * 1000],
)
def test_shapes_that_make_extraction_quadratic_go_to_the_worker(hostile: str) -> None:
    # Unclosed openers and long digit runs make the answer patterns rescan the text from
    # every start; only the worker's deadline bounds that, so they never run in-process.
    assert not extractive_native.quick_to_extract(hostile)
    assert extractive_native.evaluate(_request("1", hostile)) is None
    result = extractive_match(hostile, "1", timeout=2.0)
    assert "in-process" not in result.comparison
    assert not result.passed or not result.timed_out


def test_ordinary_answers_are_quick_to_extract() -> None:
    answer = (
        "We need $\\frac{3}{6}$ first. \\[ x = \\frac{1}{2} \\] and \\(y = 2\\). "
        "Adding 1 + 2 + 3 gives 6. So the final answer is $\\boxed{6}$."
    )
    assert extractive_native.quick_to_extract(answer * 10)


@st.composite
def list_or_mixed(draw: st.DrawFn) -> str:
    numbers = [str(draw(st.integers(-20, 20))) for _ in range(draw(st.integers(2, 3)))]
    shapes = [
        ", ".join(numbers),
        f"${', '.join(numbers)}$",
        f"{abs(int(numbers[0]))} {draw(st.integers(0, 9))}/{draw(st.integers(0, 9))}",
        f"The answer is {abs(int(numbers[0]))} {draw(st.integers(1, 5))}/{draw(st.integers(6, 9))}.",
        f"$\\boxed{{{abs(int(numbers[0]))} 1/{draw(st.integers(2, 9))}}}$",
    ]
    return draw(st.sampled_from(shapes))


@settings(max_examples=80, deadline=None)
@given(list_or_mixed(), st.one_of(list_or_mixed(), written_number()))
def test_lists_and_mixed_numbers_agree_with_the_worker(gold: str, prediction: str) -> None:
    for g, p in ((gold, prediction), (gold, gold), (prediction, gold)):
        request = _request(g, p)
        reply = extractive_native.evaluate(request)
        if reply is not None:
            assert bool(reply["passed"]) == _worker_verdict(request), (g, p, reply)
