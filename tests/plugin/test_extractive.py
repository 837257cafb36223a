"""Extractive match: extraction, parsing, comparison, safety and bounds."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.errors import GraderError, LLMEvalAssertionError
from pytest_llmeval.metrics.extractive.match import (
    MAX_INPUT_CHARS,
    ExtractiveMatch,
    assert_extractive_match,
    extractive_match,
    grade,
    start_worker,
)
from pytest_llmeval.registry import GradeContext

INDEX: dict[str, Any] = {"gold_targets": ("index",), "pred_targets": ("index",)}


@pytest.fixture(scope="module", autouse=True)
def _worker() -> None:
    start_worker()
    return


def ok(prediction: str, gold: str, **kwargs: object) -> bool:
    result = extractive_match(prediction, gold, **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, ExtractiveMatch)
    assert not result.timed_out, result.explanation
    return result.passed


# --- extraction ------------------------------------------------------------------------

COT = (
    "We need the probability that both draws are red. The first draw is red with "
    "probability $\\frac{3}{6}$ and the second with $\\frac{2}{5}$, so the product is "
)


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        (COT + "$\\frac{6}{30}$, which simplifies to $\\boxed{\\frac{1}{5}}$.", "\\frac{1}{5}"),
        (COT + "\\fbox{0.2}.", "$\\frac{1}{5}$"),
        (COT + "$$\\frac{1}{5}$$", "0.2"),
        (COT + "\\(\\frac{1}{5}\\).", "1/5"),
        (COT + "\\[ \\dfrac{1}{5} \\]", "$\\frac15$"),
        (COT + "one fifth. The final answer is $\\frac{1}{5}$. I hope it is correct.", "0.2"),
        ("Multiplying gives 6/30. Answer: $\\frac{1}{5}$ (after simplifying).", "0.2"),
        (
            "First I got $\\frac{1}{4}$, but I forgot a case; correcting it gives $\\frac{1}{5}$.",
            "1/5",
        ),
        ("So the probability is 0.2.", "$\\frac{1}{5}$"),
    ],
)
def test_latex_answer_found_in_every_usual_wrapper(prediction: str, gold: str) -> None:
    assert ok(prediction, gold)


def test_boxed_priority_decides_between_boxed_and_final_answer() -> None:
    text = "The final answer is $9$, although earlier I wrote \\boxed{7}."
    # Default 50 ties with "final answer ... is": within a priority the last match wins.
    assert ok(text, "7")
    assert ok(text, "7", boxed_priority=0)
    assert ok(text, "9", boxed_priority=100)
    assert not ok(text, "7", boxed_priority=100)


def test_last_answer_wins_and_trailing_text_is_ignored() -> None:
    text = "Trying $x = 3$ fails the check. Trying $x = 4$ works, so the answer is $4$. Done!"
    assert ok(text, "4")
    assert not ok(text, "3")


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("Half of the pizza is left, so the answer is 1/2", "0.5"),
        ("The ratio comes to 0.5.", "$\\frac{1}{2}$"),
        ("Subtracting, the temperature drops to -3 degrees.", "-3"),
        ("There are 2^10 subsets in total.", "1024"),
        ("So the company sold 1,000 units.", "1000"),
        ("Each child gets 3 1/2 apples.", "$\\frac{7}{2}$"),
        ("The rope is 12 cm long.", "12"),
        ("The price went up by 25%.", "25"),
        ("It costs $1,250.50 in total.", "1250.5"),
        ("The population is about 1.5e3 people.", "1500"),
    ],
)
def test_plain_expressions(prediction: str, gold: str) -> None:
    assert ok(prediction, gold)


@pytest.mark.parametrize(
    ("prediction", "gold", "language"),
    [
        ("A", "A", "en"),
        ("(B)", "B", "en"),
        ("Option B is wrong because of the sign. Answer: C", "C", "en"),
        ("After checking each option, the correct option is D.", "D", "en"),
        ("The photosynthesis question: it must be **B**", "B", "en"),
        ("It is not A, since that ignores friction, so the answer is (C).", "C", "en"),
        ("A is tempting, but the final answer is $\\boxed{D}$", "D", "en"),
        ("L'option A est fausse. La bonne réponse est (B).", "B", "fr"),
        ("Réponse : C", "C", "fr"),
        ("选项A不对，因为单位错了。答案是C。", "C", "zh"),
        ("故选：B", "B", "zh"),
        ("Die richtige Antwort ist B.", "B", "de"),
        ("Правильный ответ: D", "D", "ru"),
        ("Looking at the units, I would pick option (c).", "C", "en"),
    ],
)
def test_multiple_choice_letters(prediction: str, gold: str, language: str) -> None:
    assert ok(prediction, gold, language=language, **INDEX)


def test_multiple_choice_wrong_letter_fails_and_says_what_was_read() -> None:
    result = extractive_match("Eliminating A and B, the answer is D.", "C", **INDEX)
    assert not result.passed
    assert result.pred_extracted == "D"
    assert "'D'" in result.explanation
    assert "'C'" in result.explanation


def test_choice_letter_inside_words_is_not_an_answer() -> None:
    assert not ok("DNA replication is semi-conservative.", "D", **INDEX)


def test_string_target_matches_literal_options_and_lowercases_them() -> None:
    result = extractive_match(
        "Because B is valid.", "B", gold_targets=("string",), pred_targets=("string",)
    )
    assert result.passed
    assert result.pred_parsed == "b"
    assert not ok("Because C is valid.", "B", gold_targets=("string",), pred_targets=("string",))


def test_only_parsing_answers_are_accepted_fallback_compares_text() -> None:
    # \boxed{} with unparseable content: first_match fallback compares the raw text.
    text = "The answer is \\boxed{\\weird{xyz}}"
    assert ok(text, "\\boxed{\\weird{xyz}}")
    assert not ok(text, "\\boxed{\\weird{xyz}}", fallback_mode="no_fallback")


def test_unknown_letter_gold_points_to_index_targets() -> None:
    result = extractive_match("The answer is (C).", "C")
    assert not result.passed
    assert "gold_targets/pred_targets=('index',)" in result.explanation


# --- parsing and comparison -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("$\\sqrt{2} \\cdot \\sqrt{8}$", "4"),
        ("$3 \\times 4 \\div 2$", "6"),
        ("$2\\pi$", "$\\pi + \\pi$"),
        ("The limit is $\\infty$.", "$\\infty$"),
        ("$\\left( \\frac{1}{2} \\right)^2$", "0.25"),
        ("The direction is $\\text{north}$.", "$\\text{North}$"),
        ("$\\frac12$", "0.5"),
        ("$\\sqrt2 \\cdot \\sqrt2$", "2"),
        ("The diagonal is √2.", "$\\sqrt{2}$"),
        ("The area is 4π.", "$4\\pi$"),
        ("So x ≤ 3.", "$x \\leq 3$"),
        ("The sum diverges to ∞", "$\\infty$"),
        ("The product 3 × 4 = 12", "12"),
    ],
)
def test_latex_and_unicode_parsing(prediction: str, gold: str) -> None:
    assert ok(prediction, gold)


def test_float_tolerance_follows_float_rounding() -> None:
    assert ok("The probability is 0.333333.", "$\\frac{1}{3}$")
    assert not ok("The probability is 0.3333.", "$\\frac{1}{3}$")
    assert ok("The probability is 0.3333.", "$\\frac{1}{3}$", float_rounding=4)
    assert not ok("The probability is 0.33.", "$\\frac{1}{3}$", float_rounding=4)


def test_percent_conventions() -> None:
    # "50%" equals 0.5 and also 50 (a percentage gold accepts its number without %).
    assert ok("The discount is 50%.", "0.5")
    assert ok("The discount is 50%.", "50")
    assert ok("The discount is $50\\%$.", "$\\frac{1}{2}$")
    assert not ok("The discount is 40%.", "0.5")


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("Factoring: $(x-1)(x+1)$", "$x^2-1$", True),
        ("So $k = 1$.", "1", True),
        ("Hence $x = 2 + 3 = 5$", "5", True),
        ("$a < 2$", "$2 > a$", True),
        ("$a \\geq 2$", "$a \\leq 2$", False),
        ("The roots are $\\{1, 2\\}$", "$\\{2, 1\\}$", True),
        ("The point is $(1, 2)$", "$(1,2)$", True),
        ("$x \\in [1, 3)$", "$[1,3)$", True),
        ("$x \\in [1, 3]$", "$[1,3)$", False),
        ("$(-\\infty, 0) \\cup (1, \\infty)$", "$(-\\infty,0)\\cup(1,\\infty)$", True),
        ("$[0, 2] \\cap [1, 3]$", "$[1,2]$", True),
        (
            "$\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$",
            "$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$",
            True,
        ),
        (
            "$\\begin{pmatrix} 1 & 2 \\\\ 3 & 5 \\end{pmatrix}$",
            "$\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$",
            False,
        ),
    ],
)
def test_symbolic_relations_sets_matrices(prediction: str, gold: str, expected: bool) -> None:
    assert ok(prediction, gold) is expected


def test_set_vs_relation_needs_the_option() -> None:
    text = "Solving the inequality gives $1 < x < 2$."
    assert not ok(text, "$(1, 2)$")
    assert ok(text, "$(1, 2)$", allow_set_relation_comparison=True)


def test_strict_keeps_variable_names() -> None:
    assert not ok("$f(y)$", "$f(x)$")
    assert ok("$f(y)$", "$f(x)$", strict=False)


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("$1 + \\frac{1}{\\mathrm{e}}$", "$1 - \\frac{1}{\\mathrm{e}}$"),
        ("The count is 1234568.", "1234567"),
        ("$1234568$", "$1234567$"),
        ("The area is $\\int_0^1 x^2 \\, dx$.", "$\\frac{1}{3}$"),
        ("$\\frac{1}{2^{98}}$", "$\\frac{1}{2^{99}}$"),
        ("$\\frac{1}{2006!}$", "$\\frac{1}{2004!}$"),
    ],
)
def test_no_false_positive_from_loose_comparison(prediction: str, gold: str) -> None:
    assert not ok(prediction, gold)


def test_result_fields_and_explanation() -> None:
    result = extractive_match("so $\\boxed{\\frac{2}{4}}$", "0.5")
    assert result.passed
    assert result.score == 1.0
    assert result.metric == "extractive"
    assert result.pred_extracted == "\\frac{2}{4}"
    assert result.pred_parsed == "1/2"
    assert result.gold_parsed is not None
    assert result.gold_parsed.startswith("0.5")
    assert "rounded to 6 places" in result.comparison
    assert "'\\\\frac{2}{4}'" in result.explanation
    assert "equal" in result.explanation


def test_assert_helper_raises_with_explanation() -> None:
    assert_extractive_match("so the answer is 0.5", "1/2")
    with pytest.raises(LLMEvalAssertionError, match=r"extractive failed.*not equal") as info:
        assert_extractive_match("so the answer is 0.4", "1/2")
    assert isinstance(info.value.result, ExtractiveMatch)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"gold_targets": ("latex", "words")}, "gold_targets"),
        ({"extraction_mode": "all"}, "extraction_mode"),
        ({"fallback_mode": "maybe"}, "fallback_mode"),
        ({"language": "klingon"}, "unsupported language"),
        ({"timeout": 0}, "timeout"),
        ({"float_rounding": -1}, "float_rounding"),
    ],
)
def test_invalid_options_raise(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        extractive_match("1", "1", **kwargs)  # type: ignore[arg-type]


# --- rubric grader -----------------------------------------------------------------------


def _ctx(response: str, expected: str, criteria: object) -> GradeContext:
    return GradeContext(
        response=response, expected=expected, question="q", criteria={"extractive": criteria}
    )


def test_grade_uses_criteria_options() -> None:
    assert grade(_ctx("so the answer is $\\frac{1}{2}$", "0.5", True)).passed
    result = grade(
        _ctx(
            "Réponse : B",
            "B",
            {"gold_targets": ["index"], "pred_targets": ["index"], "language": "fr"},
        )
    )
    assert result.passed
    assert result.score == 1.0


@pytest.mark.parametrize("criteria", [{"tolerance": 2}, "yes", {"language": "xx"}])
def test_grade_bad_criteria_is_a_grader_error(criteria: object) -> None:
    with pytest.raises(GraderError, match=r"eval_criteria\.extractive"):
        grade(_ctx("1", "1", criteria))


def test_grade_timeout_is_a_non_pass_not_an_exception() -> None:
    result = grade(_ctx("$2^{2^{30}}$", "1", {"timeout": 0.5}))
    assert not result.passed
    assert result.score == 0.0
    assert isinstance(result, ExtractiveMatch)
    assert result.timed_out
    assert "timeout" in result.explanation
    start_worker()


# --- safety ---------------------------------------------------------------------------------


def _payload(marker: Path) -> str:
    return f"__import__('os').system('touch {marker}')"


@pytest.mark.parametrize(
    "wrap",
    [
        "The answer is {p}",
        "The answer is $\\text{{{p}}}$",
        "The answer is $\\boxed{{{p}}}$",
        "Answer: $\\mathrm{{{p}}}$",
        "{p} = 1+1",
    ],
)
def test_model_output_is_never_evaluated(tmp_path: Path, wrap: str) -> None:
    marker = tmp_path / "pwned"
    result = extractive_match(wrap.format(p=_payload(marker)), "1", timeout=5)
    assert not marker.exists()
    assert not result.passed


def test_sympy_string_parsers_are_guarded_in_the_worker(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    code = (
        "from pytest_llmeval.metrics.extractive.worker import install_guards\n"
        "install_guards()\n"
        "import sympy\n"
        "assert sympy.sympify('12.5') == sympy.Float('12.5')\n"
        "try:\n"
        f"    sympy.sympify({_payload(marker)!r})\n"
        "except Exception as exc:\n"
        "    print('refused', type(exc).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "refused" in out.stdout, out.stderr
    assert not marker.exists()


# --- bounds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prediction",
    ["$10^{10^{10^{10}}}$", "$2^{2^{30}}$", "$10000000!$", "So the answer is 9^9^9^9^9."],
)
def test_blowups_end_within_the_timeout(prediction: str) -> None:
    start_worker()  # a restart after the previous kill is not part of the deadline
    t0 = time.perf_counter()
    result = extractive_match(f"Computing carefully, {prediction}", "5", timeout=0.75)
    elapsed = time.perf_counter() - t0
    assert elapsed < 0.75 + 0.5
    assert not result.passed
    if result.timed_out:
        assert "timeout" in result.explanation
    # The session goes on: the next call works.
    start_worker()
    assert ok("so the answer is $\\frac{1}{2}$", "0.5")


def test_huge_power_reports_timed_out() -> None:
    start_worker()
    result = extractive_match("$2^{2^{30}}$", "1", timeout=0.5)
    assert result.timed_out
    assert not result.passed
    assert "0.5 s timeout" in result.explanation
    assert "restarts" in result.explanation


def test_100k_character_inputs_are_capped_and_bounded() -> None:
    start_worker()
    filler = "Let me reconsider the previous step carefully. " * 2200
    assert len(filler) > 100_000
    t0 = time.perf_counter()
    result = extractive_match(filler + "Therefore the answer is $\\boxed{42}$.", "42", timeout=2)
    assert time.perf_counter() - t0 < 2.5
    assert result.passed
    assert f"only its last {MAX_INPUT_CHARS:,} were searched" in result.explanation

    nested = filler + "$$" + "x^{2}+" * 3000 + "\\sqrt{" * 300 + "2" + "}" * 300 + "$$"
    t0 = time.perf_counter()
    result = extractive_match(nested, "5", timeout=0.75)
    assert time.perf_counter() - t0 < 0.75 + 0.5
    assert not result.passed
    assert result.explanation
    start_worker()


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(-999, 999), st.integers(1, 999))
def test_fraction_latex_vs_plain_and_off_by_one(p: int, q: int) -> None:
    assert ok(f"so the answer is $\\frac{{{p}}}{{{q}}}$", f"{p}/{q}")
    assert not ok(f"so the answer is $\\frac{{{p + 1}}}{{{q}}}$", f"{p}/{q}")


@settings(max_examples=40, deadline=None)
@given(
    st.decimals(min_value=-10_000, max_value=10_000, places=3, allow_nan=False), st.integers(0, 6)
)
def test_fast_path_agrees_with_the_worker(value: object, rounding: int) -> None:
    from pytest_llmeval.metrics.extractive import match as mod

    gold = "12.345"
    prediction = f"After simplifying, the total is {value}."
    fast = extractive_match(prediction, gold, float_rounding=rounding)
    # The same request straight to the worker, bypassing the fast path.
    opts = mod._options(
        gold_targets=("latex", "expr"),
        pred_targets=("latex", "expr"),
        extraction_mode="any_match",
        fallback_mode="first_match",
        boxed_priority=None,
        float_rounding=rounding,
        strict=True,
        allow_set_relation_comparison=False,
        language="en",
        timeout=5.0,
    )
    reply = mod._WORKER.call(opts.request(gold, prediction), 5.0)
    assert reply is not None
    assert fast.passed == bool(reply["passed"]), (fast.explanation, reply)


def test_plain_numbers_take_the_in_process_fast_path() -> None:
    result = extractive_match("Adding the two groups gives 42 students.", "42")
    assert result.passed
    assert result.comparison == "numeric (exact), in-process"
    result = extractive_match("The mean is 3.14159.", "3.14159265", float_rounding=4)
    assert result.passed
    assert "in-process" in result.comparison


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("\\sqrt3", "\\sqrt{3}", True),
        ("2\\sqrt{3}", "$2\\sqrt{3}$", True),
        ("$2$", "2\\sqrt{3}", False),
        ("10\\text{ cm}", "10", True),
        ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\frac{\\pi}{2})", True),
        ("\\$5", "5", True),
        ("x \\in [1, 3)", "[1,3)", True),
        ("y = 2x+1", "y=1+2x", True),
        ("3+2i", "2i+3", True),
        ("30^\\circ", "30", True),
        ("\\tfrac{1}{2} + \\frac1{72}", "\\frac{1}{2} + 2/3", False),
    ],
)
def test_bare_latex_answers_without_dollars(prediction: str, gold: str, expected: bool) -> None:
    assert ok(prediction, gold) is expected


def test_without_fork_the_parent_deadline_kills_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Windows path (no fork): the worker evaluates itself and the parent kills it."""
    from pytest_llmeval.metrics.extractive import match as mod

    monkeypatch.setenv("PYTEST_LLMEVAL_MATH_NOFORK", "1")
    worker = mod._Worker()
    monkeypatch.setattr(mod, "_WORKER", worker)
    try:
        worker.start()
        t0 = time.perf_counter()
        result = extractive_match("$2^{2^{30}}$", "1", timeout=0.5)
        assert time.perf_counter() - t0 < 0.5 + 0.5
        assert result.timed_out
        worker.start()  # the replacement worker (started in the background) is ready
        assert ok("so $\\frac{1}{2}$", "0.5")
        assert worker.starts >= 2
    finally:
        worker.stop()


# --- gold files through the plugin ------------------------------------------------------------


def test_gold_file_selects_extractive_match(pytester: pytest.Pytester) -> None:
    from tests.conftest import write_suite

    only_accuracy = {"weights": {"accuracy": 1, "length": 0}}
    write_suite(
        pytester,
        [
            {
                "id": "half",
                "question": "What fraction of the pizza is left?",
                "expected": "\\frac{1}{2}",
                "response": "Two of four slices remain, so the answer is $\\boxed{0.5}$.",
                "eval_criteria": {"extractive": True, **only_accuracy},
            },
            {
                "id": "choice",
                "question": "Which gas do plants absorb? (A) O2 (B) CO2 (C) N2",
                "expected": "B",
                "response": "Plants take in carbon dioxide, so the answer is (B).",
                "eval_criteria": {
                    "extractive": {"gold_targets": ["index"], "pred_targets": ["index"]},
                    **only_accuracy,
                },
            },
            {
                "id": "wrong",
                "question": "Solve 2x = 6.",
                "expected": "3",
                "response": "Dividing both sides by 2 gives $x = 4$.",
                "eval_criteria": {"extractive": True, **only_accuracy},
            },
        ],
    )
    result = pytester.runpytest("-p", "no:randomly")
    assert result.parseoutcomes() == {"passed": 2, "failed": 1}
    result.stdout.fnmatch_lines(["*wrong*"])


def test_concurrent_calls_from_threads_share_the_worker_safely() -> None:
    from concurrent.futures import ThreadPoolExecutor

    cases = [(f"so the answer is $\\frac{{{n}}}{{{n + 1}}}$", f"{n}/{n + 1}") for n in range(1, 13)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda c: extractive_match(*c), cases))
    assert all(r.passed for r in results), [r.explanation for r in results if not r.passed]


def test_worker_environment_carries_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_llmeval.metrics.extractive import match as mod

    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    captured: dict[str, dict[str, str]] = {}
    real_popen = subprocess.Popen

    def spy(*args: Any, **kwargs: Any) -> Any:
        captured["env"] = kwargs["env"]
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", spy)
    worker = mod._Worker()
    try:
        worker.start()
    finally:
        worker.stop()
    assert "OPENAI_API_KEY" not in captured["env"]
    assert "PATH" in captured["env"]


def test_fast_path_defers_bare_algebra_to_the_worker() -> None:
    result = extractive_match("x = 5 + y", "5")
    assert not result.passed
    assert "in-process" not in result.comparison


# --- mixed numbers ----------------------------------------------------------------------
# A whole part and a proper fraction on one line ("2 3/8") are one number, wherever it stands;
# its pieces are never answers of their own, and a percent sign applies to all of it.

EXPR: dict[str, Any] = {"gold_targets": ("expr",), "pred_targets": ("expr",)}


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("2 3/8", "19/8", True),
        ("So each share is 2 3/8.", "19/8", True),  # sentence full stop after it
        ("So each share is 2 3/8.", "2", False),  # not just its whole part
        ("So each share is 2 3/8.", "3/8", False),
        ("Final answer: -2 3/8", "-19/8", True),
        ("+2 3/8", "19/8", True),  # explicit plus sign
        ("It weighs 2 000 1/4 kg", "8001/4", True),  # space-grouped thousands
        ("0 5/7", "5/7", True),
        ("6 0/7", "6", True),
        ("It is 2 3/8 kg, or rather 2 1/8", "17/8", True),  # the last one wins, as ever
        ("The answer is 2 3/8 kg, not 2 1/8", "19/8", True),  # unless the other is the answer
        ("2 3/8 5", "5", True),  # a number after it is a separate answer
        ("12/5 3/8", "111/40", False),  # a fraction is no whole part
        ("12.0 3/8", "99/8", False),  # nor is a decimal
    ],
)
def test_mixed_numbers(prediction: str, gold: str, expected: bool) -> None:
    assert ok(prediction, gold, **EXPR) is expected


@pytest.mark.parametrize(
    "prediction", ["7 2/0", "7 0/0", "-7 0/0", "The total is 7 9/9.", "7 11/9"]
)
@pytest.mark.parametrize("gold", ["7", "0", "2", "9", "1", "8", "11/9", "74/9"])
def test_a_mixed_number_without_a_proper_fraction_has_no_value(prediction: str, gold: str) -> None:
    # Neither the whole, nor the numerator, nor a sum of the pieces may match.
    assert not ok(prediction, gold, **EXPR)


@pytest.mark.parametrize("suffix", ["%", " %", "percent", " percent", "percentage", " pct"])
def test_percent_after_a_mixed_number_scales_the_whole_number(suffix: str) -> None:
    prediction = f"The rate is 2 1/2{suffix}"
    assert ok(prediction, "0.025", **EXPR)
    assert not ok(prediction, "5/2", **EXPR)
    assert not ok(prediction, "0.5", **EXPR)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_line_break_does_not_join_a_mixed_number(newline: str) -> None:
    prediction = f"3{newline}7/8"
    assert not ok(prediction, "31/8", **EXPR)
    assert ok(prediction, "7", **EXPR)  # the last line's number, as for any two lines


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("The answer is $2 3/8$.", "19/8", True),  # latex2sympy alone reads "2 3/8" as 5/8
        ("\\boxed{2 3/8}", "19/8", True),
        ("$\\boxed{1 000 1/2}$", "2001/2", True),
        ("The answer is $2 3/8$.", "2", False),
        ("The answer is $2 3/0$.", "2", False),
    ],
)
def test_mixed_numbers_inside_maths(prediction: str, gold: str, expected: bool) -> None:
    assert ok(prediction, gold) is expected


def test_mixed_numbers_in_process_agree_with_the_worker_and_percent_is_left_to_it() -> None:
    from pytest_llmeval.metrics.extractive import match as mod
    from pytest_llmeval.metrics.extractive import reader as extractive_native
    from pytest_llmeval.metrics.extractive.match import _options

    opts = _options(
        gold_targets=("expr",), pred_targets=("expr",), extraction_mode="any_match",
        fallback_mode="first_match", boxed_priority=None, float_rounding=6, strict=True,
        allow_set_relation_comparison=False, language="en", timeout=5.0,
    )  # fmt: skip
    for prediction, passed in (
        ("2 3/8", True),
        ("The answer is 2 3/8.", True),
        ("7 2/0", False),
        ("2 1/4", False),
    ):
        request = opts.request("19/8", prediction)
        reply = extractive_native.evaluate(request)
        assert reply is not None
        assert bool(reply["passed"]) is passed
        assert bool(mod._WORKER.call(request, 5.0)["passed"]) is passed  # type: ignore[index]
    assert extractive_native.evaluate(opts.request("19/8", "2 1/2%")) is None


# --- bare lists and matrices, ellipses ---------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("3, 8, 1", "8, 3, 1", True),  # the same numbers: compared as $3, 8, 1$ is
        ("3, 9, 1", "8, 3, 1", False),  # not as the last numbers (1 and 1)
        ("3, 8", "3", False),  # two answers are not the gold's one
        ("-2,5,7", "5, 7, -2", True),
        ("1/3, 0.5", "0.5, 1/3", True),
        ("1,250", "1250", True),  # one number with a thousands separator
        ("2,5", "2.5", True),  # one number with a decimal comma
    ],
)
def test_bare_number_lists(prediction: str, gold: str, expected: bool) -> None:
    assert ok(prediction, gold) is expected


def test_bare_number_list_detection() -> None:
    from pytest_llmeval.metrics.extractive.worker import bare_number_list

    for text in ("10, 4, 2", "10,4,2", "1/2, 3", "-1, .5"):
        assert bare_number_list(text), text
    for text in ("1,000", "2,5", "1,000,5", "x, 4", "4", "10, 4 apples"):
        assert not bare_number_list(text), text


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("\\begin{pmatrix} 2 & 0 \\\\ 1 & 5 \\end{pmatrix}", True),
        ("\\begin{pmatrix} 2 & 0 \\\\ 1 & 6 \\end{pmatrix}", False),
        ("\\begin{bmatrix} 2 & 0 \\\\ 1 & 5 \\end{bmatrix}", True),
    ],
)
def test_bare_matrix_prediction(prediction: str, expected: bool) -> None:
    assert ok(prediction, "$\\begin{pmatrix} 2 & 0 \\\\ 1 & 5 \\end{pmatrix}$") is expected


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("The sequence is $2, 4, 6, ...$", False),  # an ellipsis is part of the answer
        ("The sequence is $2, 4, 6, \\ldots$", False),
        ("The values are $2, 4, 6.$", True),  # a full stop is not
        ("The values are $2, 4, 6;$", True),
    ],
)
def test_an_ellipsis_is_not_sentence_punctuation(prediction: str, expected: bool) -> None:
    assert ok(prediction, "$2, 4, 6$") is expected


def test_ellipsis_kept_when_stripping_punctuation() -> None:
    from pytest_llmeval.metrics.extractive.worker import strip_math_punctuation

    assert strip_math_punctuation("$1, 2, 3, ...$") == "$1, 2, 3, ...$"
    assert strip_math_punctuation("$1, 2, 3, ... .$") == "$1, 2, 3, ...$"
    assert strip_math_punctuation("$1, 2, 3.$") == "$1, 2, 3$"
