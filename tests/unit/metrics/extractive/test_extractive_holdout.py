"""Adversarial hold-out for extractive match, modelled on the public test suites of math-verify
and lighteval (number extraction, LaTeX notation, sets, intervals, matrices, relations,
percentages, units, multiple choice, multilingual extraction).

Each case runs with the settings its reference test used: both sides extracted with the same
targets, ``\\boxed{}`` first for LaTeX (``boxed_match_priority=0``), ``float_rounding=6`` unless
stated.  Expected verdicts are the ones those libraries assert (or, where they are silent, what a
mathematician grading the answer would say).  The cases are new sentences, not copies.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_llmeval.metrics.extractive.match import extractive_match, start_worker

LE = ("latex", "expr")


@pytest.fixture(scope="module", autouse=True)
def _worker() -> None:
    start_worker()


def compare(
    gold: str,
    pred: str,
    match_types: tuple[str, ...] = LE,
    *,
    precision: int = 6,
    strict: bool = True,
    allow_set_relation_comp: bool = False,
    language: str = "en",
) -> int:
    """Same shape as the reference suites' ``compare_strings`` helper."""
    kwargs: dict[str, Any] = {
        "gold_targets": match_types,
        "pred_targets": match_types,
        "float_rounding": precision,
        "strict": strict,
        "allow_set_relation_comparison": allow_set_relation_comp,
        "language": language,
        "timeout": 3.0,
    }
    if "latex" in match_types:
        kwargs["boxed_priority"] = 0
    result = extractive_match(pred, gold, **kwargs)
    assert not result.timed_out, result.explanation
    return int(result.passed)


# --- numbers (test_number_extraction / test_math_numbers) ------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("-12", "The temperature dropped to -12 degrees.", 1),
        ("-12", "The temperature dropped to 12 degrees.", 0),
        ("2500000", "The city has 2,500,000 inhabitants.", 1),
        ("2500000", "The city has 2 500 000 inhabitants.", 1),
        ("48", "So the total is 48.0", 1),
        ("2500.5", "The invoice comes to 2,500.5 euros.", 1),
        ("12.75", "Le total est de 12,75 euros.", 1),
        ("3,5", "The average is 3.5", 1),
        ("0.25", "Only .25 of the tank is left.", 1),
        ("0.25", "Only .26 of the tank is left.", 0),
        ("1499.99", "The laptop costs $1,499.99 after tax.", 1),
        ("1499.99", "The laptop costs 1,499.99$ after tax.", 1),
        ("1499.99", "It is not 1500, the price is 1,499.99€", 1),
        ("250", "so the floor area is 250m²", 1),
        ("7", "The code is XK7Z, so nothing else.", 0),
        ("42", "The answer is 42.", 1),
        ("42", "The answer is 43.", 0),
        ("1234567", "Adding everything gives 1234568.", 0),
        ("15", "First I got 12, but correcting the carry it is 15", 1),
        ("8", "The final answer is 8. I hope it is correct.", 1),
    ],
)
def test_numbers(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred, ("expr",)) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("7/4", "\\frac{7}{4}", 1),
        ("-7/4", "-\\frac{7}{4}", 1),
        ("7/4", "$1.75$", 1),
        ("7/4", "$\\frac{4}{7}$", 0),
        ("1/3", "0.333333", 1),
        ("1/3", "0.3333", 0),
        ("2^10", "1024", 1),
        ("$\\frac{1}{2}$", "$\\boxed{\\frac{1}{2}}$", 1),
        ("0.5", "$\\boxed{\\frac{1}{2}}$", 1),
        ("0.5", "Thus the probability is $\\boxed{\\frac{2}{4}}$.", 1),
    ],
)
def test_fractions_and_decimals(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred) == expected


# --- LaTeX notation (test_latex_notation) ---------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$12$", "Answer \\[ 12 \\]", 1),
        ("$12$", "Answer $ 12 $", 1),
        ("$12$", "Answer $$ 12 $$", 1),
        ("$12$", "Answer \\( 12 \\)", 1),
        ("$12$", "Answer \\( (7+5) \\)", 1),
        ("$12$", "Answer $ \n 12 \n $", 0),
        ("$12$", "Answer \\[ \n 12 \n \\]", 1),
        ("$2/5$", "$\\frac25$", 1),
        ("$2$", "$\\frac4{2}$", 1),
        ("$\\sqrt{5}$", "$\\sqrt5$", 1),
        ("$2/5$", "$\\dfrac{2}{5}$", 1),
        ("$2/5$", "$\\tfrac{2}{5}$", 1),
        ("$2/5$", "$\\cfrac{2}{5}$", 1),
        ("$2/5$", "$\\left( \\frac{2}{5} \\right)$", 1),
        ("$2/5$", "$\\frac{2}{5} \\text{liters}$", 1),
        ("$2/5$", "$m = \\frac{2}{5}$", 1),
        ("$3\\sqrt{2}$", "The distance is $\\sqrt{18} = \\boxed{3\\sqrt{2}}$.", 1),
        ("$3\\sqrt{2}$", "The distance is $\\boxed{2\\sqrt{3}}$.", 0),
        ("$\\frac{\\sqrt{3}}{3}$", "$\\boxed{\\frac{1}{\\sqrt{3}}}$", 1),
        ("$\\pi$", "The area is $\\boxed{\\pi}$.", 1),
        ("$2\\pi$", "The period is $\\boxed{2 \\pi}$.", 1),
        ("$\\frac{5}{3}\\pi$", "So $V = \\boxed{\\frac53\\pi}$.", 1),
        ("$\\sqrt{3}+\\sqrt{7}$", "The answer is $\\boxed{\\sqrt 3+\\sqrt 7}$", 1),
        ("$1-\\frac{1}{e}$", "$\\boxed{1+\\frac{1}{e}}$", 0),
        ("$x^2-4$", "Expanding, $\\boxed{(x-2)(x+2)}$.", 1),
        ("$x^2-4$", "Expanding, $\\boxed{(x-2)^2}$.", 0),
        ("$\\text{Tuesday}$", "Therefore, $\\boxed{\\text{Tuesday}}$ is the day.", 1),
        ("$\\text{Tuesday}$", "Therefore, $\\boxed{\\text{Monday}}$ is the day.", 0),
        ("$60^\\circ$", "Hence the angle is $\\boxed{60^\\circ}$.", 1),
        ("$60^\\circ$", "Hence the angle is $\\boxed{60}$.", 1),
        ("$101_2$", "In base 2 we get $\\boxed{101_2}$.", 1),
        ("$2 \\pm \\sqrt{3}$", "By the quadratic formula, $x = \\boxed{2 \\pm \\sqrt{3}}.$", 1),
        ("$-3,4$", "Checking, the integer roots are $\\boxed{-3,4}.$", 1),
        ("$-3,4$", "Checking, the integer roots are $\\boxed{-3,5}.$", 0),
        ("$(2,-1)$", "So $(a,b) = \\boxed{(2,-1)}$.", 1),
        ("$(2,-1)$", "So $(a,b) = \\boxed{(-1,2)}$.", 0),
        (
            "$\\left(4, \\frac{\\pi}{3}\\right)$",
            "$\\boxed{\\left( 4, \\frac{\\pi}{3} \\right)}.$",
            1,
        ),
        ("$7$", "so $17 \\equiv \\boxed{7} \\pmod{10}$.", 1),
        ("$\\cos 2x$", "By the double-angle formula, $\\boxed{\\cos^2 x - \\sin^2 x}$.", 1),
        ("$\\frac{1}{6}$", "$\\boxed{0.1666667}$", 1),
    ],
)
def test_latex_notation(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred, ("latex",)) == expected


# --- sets and intervals (test_sets / test_intervals) -------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$\\{1,2\\}$", "$\\{2,1\\}$", 1),
        ("$\\{1,2\\}$", "The solutions form $\\boxed{\\{1,2,3\\}}$.", 0),
        ("$\\{-2, 5\\}$", "The roots are $\\boxed{\\{5, -2\\}}$.", 1),
        ("$(1,2]$", "$(1,2]$", 1),
        ("$(1,2]$", "$[1,2]$", 0),
        ("$(1,2]$", "$(1,2)$", 0),
        ("$[0,5)$", "The domain is $\\boxed{[0, 5)}$.", 1),
        ("$[0,5)$", "The domain is $x \\in [0, 5)$.", 1),
        ("$(-\\infty, 3]$", "$\\boxed{(-\\infty, 3]}$", 1),
        ("$(-\\infty, 3]$", "$\\boxed{(-\\infty, 3)}$", 0),
        ("$(-\\infty, -1) \\cup (2, \\infty)$", "$\\boxed{(2, \\infty) \\cup (-\\infty, -1)}$", 1),
        ("$(-\\infty, -1) \\cup (2, \\infty)$", "$\\boxed{(-\\infty, -1] \\cup (2, \\infty)}$", 0),
        ("$[1,4] \\cap [2,6]$", "$[2,4]$", 1),
        ("$[0,1)$", "$-[0,1)$", 0),
        ("$(\\frac{1}{4},\\frac{5}{3}]$", "$(0.25,1.67]$", 1),
        ("$\\{\\frac{1}{2}, 3\\}$", "$\\{0.5, 3\\}$", 1),
        ("$\\emptyset$", "There is no solution, so $\\boxed{\\emptyset}$.", 1),
    ],
)
def test_sets_and_intervals(gold: str, pred: str, expected: int) -> None:
    precision = 2 if "0.25" in pred else 6
    assert compare(gold, pred, precision=precision) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "allow", "expected"),
    [
        ("$(1,4)$", "$1 < x < 4$", True, 1),
        ("$(1,4)$", "$1 < x < 4$", False, 0),
        ("$1 < x < 4$", "$(1,4)$", False, 1),
        ("$x \\geq 2$", "$[2, \\infty)$", False, 1),
    ],
)
def test_set_relation(gold: str, pred: str, allow: bool, expected: int) -> None:
    assert compare(gold, pred, allow_set_relation_comp=allow) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "strict", "expected"),
    [
        ("$x=2, y=3$", "$(2,3)$", False, 1),
        ("$\\{2,3\\}$", "$(2,3)$", False, 1),
        # "(2,3)" is read as an open interval or a pair; math-verify equates it with {2,3}
        # even in strict mode, and so do we.
        ("$\\{2,3\\}$", "$(2,3)$", True, 1),
        ("$\\{2,4\\}$", "$(2,3)$", True, 0),
        ("$f(x) = x^2$", "$f(y) = y^2$", False, 1),
        ("$f(x) = x^2$", "$f(y) = y^2$", True, 0),
    ],
)
def test_strict(gold: str, pred: str, strict: bool, expected: int) -> None:
    assert compare(gold, pred, strict=strict) == expected


# --- matrices (test_matrices) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (
            r"$\begin{pmatrix}1&2\\3&4\end{pmatrix}$",
            r"The matrix is $\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}$.",
            1,
        ),
        (
            r"$\begin{pmatrix}1&2\\3&4\end{pmatrix}$",
            r"The matrix is $\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}$.",
            1,
        ),
        (
            r"$\begin{pmatrix}1&2\\3&4\end{pmatrix}$",
            r"The matrix is $\begin{pmatrix} 1 & 2 \\ 4 & 3 \end{pmatrix}$.",
            0,
        ),
        (
            r"$\begin{pmatrix}2&0\\0&2\end{pmatrix}$",
            r"Doubling: $2\begin{pmatrix}1 & 0 \\ 0 & 1\end{pmatrix}$",
            1,
        ),
        (
            r"$\begin{pmatrix}3\\-1\\2\end{pmatrix}$",
            r"So the vector is $\boxed{\begin{pmatrix} 3 \\ -1 \\ 2 \end{pmatrix}}.$",
            1,
        ),
        (
            r"$\begin{pmatrix}\frac{1}{2}\\ \frac{1}{4}\end{pmatrix}$",
            r"So the vector is $\boxed{\begin{pmatrix} 0.5 \\ 0.25 \end{pmatrix}}.$",
            1,
        ),
        (
            r"$\begin{pmatrix}5 & 6 \\ 7 & 8\end{pmatrix}$",
            r"The product is $\begin{pmatrix}1 & 0 \\ 0 & 1\end{pmatrix}\begin{pmatrix}5 & 6 \\ 7 & 8\end{pmatrix}$",
            1,
        ),
        (
            r"$\begin{pmatrix}1&2\\3&4\end{pmatrix}$",
            r"$\left[\begin{array}{cc}1 & 2 \\ 3 & 4\end{array}\right]$",
            1,
        ),
    ],
)
def test_matrices(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred, ("latex",)) == expected


# --- relations (test_relations) --------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$y \\geq 7$", "Therefore $y \\ge 7$ is the solution.", 1),
        ("$y > 7$", "Therefore $y \\gt 7$.", 1),
        ("$y > 7$", "Therefore $y \\geq 7$.", 0),
        ("$y < 7$", "Therefore $7 > y$.", 1),
        ("$y \\leq 7$", "$7 \\geq y$", 1),
        ("$y \\leq 7$", "$7 \\leq y$", 0),
        ("$t = 9$", "$t = 4+4+1 = 9$", 1),
        ("$t = 9$", "$t = 4+4 = 8$", 0),
        ("$9$", "$t=9$", 1),
        ("$9$", "$t\\approx 9$", 1),
        ("$t=9$", "$9$", 1),
        ("$3x + y = 0$", "$0$", 0),
        ("$y=2x+1$", "$2x - y + 1 = 0$", 1),
        ("$x > 2$", "$-x < -2$", 1),
        ("$x > 2$", "$x < -2$", 0),
        ("$y \\neq 0$", "$y != 0$", 1),
        ("$x^2+y^2=4$", "$2x^2+2y^2=8$", 1),
    ],
)
def test_relations(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred, ("latex",)) == expected


# --- percentages (test_percentages) ----------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$35\\%$", "The discount is 35 percent", 1),
        ("$35\\%$", "The discount is 35 pct", 1),
        ("$35\\%$", "The discount is 35 %", 1),
        ("$35\\%$", "The discount is $35$ %", 1),
        ("$35\\%$", "So the rate is $\\boxed{35\\%}$.", 1),
        ("$35\\%$", "35", 1),
        ("$0.35$", "35", 0),
        ("$35/100$", "35", 0),
        ("$35$", "35/100", 0),
        ("0.5", "So the answer is 50%.", 1),
        ("0.5", "So the answer is 40%.", 0),
        ("$50\\%$", "$\\frac{1}{2}$", 1),
        ("50", "The survey shows 50% agree.", 1),
    ],
)
def test_percentages(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred) == expected


# --- units (test_units) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("10", "The side is 10 cm", 1),
        ("10", "The side is $\\boxed{10 \\text{ cm}}$.", 1),
        ("$10$", "$\\boxed{10\\,\\mathrm{cm}}$", 1),
        ("$24\\text{ cm}^2$", "The area is $\\boxed{24\\mbox{ cm}^2}$.", 1),
        ("$80$ km", "The distance is $\\boxed{80\\textnormal{ km}}.$", 1),
        ("$80$ km", "The distance is $\\boxed{90\\textnormal{ km}}.$", 0),
        ("$5$", "It takes $\\boxed{5 \\text{ hours}}$.", 1),
        ("$\\$12.50$", "She pays $\\boxed{\\$12.50}$.", 1),
        ("12.5", "She pays \\$12.50 in total.", 1),
        ("$3.2$", "The mass is $\\boxed{3.2\\text{ kg}}$.", 1),
    ],
)
def test_units(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred) == expected


# --- multiple choice (test_extraction_abc / test_mc_extraction) ------------------------

IDX = ("index",)


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("B", "After weighing the options, I believe the correct answer is B", 1),
        ("C", "Let's think. It's not a, it's not b. The answer is C", 1),
        ("A", "The answer is definitely A, it cannot be C or D", 1),
        ("A", "The answer: A, it would make no sense for it to be C or D", 1),
        ("A", "A. it can't be C or D", 1),
        ("(B) Marcus", "B", 1),
        ("(B) Marcus", "D", 0),
        ("D Dana", "D", 1),
        ("Marcus, and the answer is\n(D) Dana", "D", 1),
        ("Marcus, and the answer is\nD Dana", "D", 1),
        ("B Bruno\nCarla wrong", "B", 1),
        ("A", "D", 0),
        ("C", "(C)", 1),
        ("C", "**C**", 1),
        ("C", "The correct option is C.", 1),
        ("C", "Answer: (C)", 1),
        ("C", "Answer: (B)", 0),
        ("D", "The final answer is $\\boxed{D}$", 1),
        ("D", "The final answer is $\\boxed{\\text{(D)}}$", 1),
        ("B", "\\boxed{\\textbf{(B)}}", 1),
        ("C", "Option A is wrong since the DNA replicates; therefore the answer is C.", 1),
        ("B", "I first thought A. However, after checking, the answer is B.", 1),
    ],
)
def test_multiple_choice(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred, IDX) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "language", "expected"),
    [
        ("B", "La réponse est B et non C", "fr", 1),
        ("B", "réponse est B non C", "fr", 1),
        ("B", "Réponse : B", "fr", 1),
        ("B", "Réponse: B", "fr", 1),
        ("B", "Réponse : D", "fr", 0),
        ("C", "答案：C", "zh", 1),
        ("C", "答案是C", "zh", 1),
        ("C", "所以答案是C。", "zh", 1),
        ("C", "C。 不是 A", "zh", 1),
        ("C", "C。不是 A", "zh", 1),
        ("C", "C不是 A", "zh", 1),
        ("C", "故选C", "zh", 1),
        ("C", "答案：B", "zh", 0),
        ("A", "Die richtige Antwort ist A.", "de", 1),
        ("A", "Antwort: A", "de", 1),
        ("D", "La respuesta correcta es D.", "es", 1),
        ("D", "Respuesta: D", "es", 1),
        ("B", "Ответ: B", "ru", 1),
        ("B", "Правильный ответ — B.", "ru", 1),
        ("D", "答えはDです。", "ja", 1),
        ("D", "答え：D", "ja", 1),
        ("A", "La risposta corretta è A.", "it", 1),
        ("A", "A resposta correta é A.", "pt", 1),
        ("C", "The answer is C", "fr", 1),
        # Languages whose choices are labelled in their own script (lighteval "NativeLetters").
        ("Б", "Ответ: Б", "ru", 1),
        ("Б", "Правильный ответ Б.", "ru", 1),
        ("Б", "Ответ: В", "ru", 0),
        ("B", "Ответ: Б", "ru", 0),
        ("Б", "Відповідь: Б", "uk", 1),
        ("ب", "الإجابة: ب", "ar", 1),
        ("ب", "الإجابة: ج", "ar", 0),
        ("ख", "उत्तर: ख", "hi", 1),
        ("খ", "উত্তর: খ", "bn", 1),
        # More languages' "answer" words (lighteval translation literals).
        ("B", "Cevap: B", "tr", 1),
        ("B", "Het antwoord is B", "nl", 1),
        ("B", "Odpowiedź: B", "pl", 1),
        ("B", "Svar: B", "sv", 1),
        ("B", "Trả lời: B", "vi", 1),
        ("B", "Jawaban: B", "id", 1),
        ("B", "Απάντηση: B", "el", 1),
        ("B", "Odpověď: B", "cs", 1),
        ("B", "Vastaus: B", "fi", 1),
        ("B", "Válasz: B", "hu", 1),
        ("B", "Jibu: B", "sw", 1),
        ("B", "정답은 B입니다.", "ko", 1),
        ("B", "Odpowiedź: C", "pl", 0),
        ("B", "Réponse : B", "fra", 1),
        ("B", "答案：B", "zho", 1),
    ],
)
def test_multilingual_choice(gold: str, pred: str, language: str, expected: int) -> None:
    assert compare(gold, pred, IDX, language=language) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "language", "expected"),
    [
        ("12", "La réponse est 12.", "fr", 1),
        ("12", "Réponse : 12", "fr", 1),
        ("12,5", "La réponse finale est 12,5.", "fr", 1),
        ("12", "答案是12", "zh", 1),
        ("12", "答案：12。", "zh", 1),
        ("12", "所以最终答案是$\\boxed{12}$。", "zh", 1),
        ("12", "Die Antwort ist 12.", "de", 1),
        ("12", "La respuesta es 12.", "es", 1),
        ("12", "Ответ: 12.", "ru", 1),
        ("12", "答えは12です。", "ja", 1),
        ("12", "La réponse est 13.", "fr", 0),
        ("1/2", "La réponse est $\\frac{1}{2}$.", "fr", 1),
        ("1", "réponse est 1 non 2", "fr", 1),
        ("1", "1。不是 2", "zh", 0),
        ("1", "答案是1，不是2", "zh", 1),
        ("7", "الإجابة: 7", "ar", 1),
        ("7", "उत्तर: 7", "hi", 1),
        ("7", "Cevap: 7", "tr", 1),
        ("7", "Відповідь: 7.", "uk", 1),
        ("7", "Antwoord: 8", "nl", 0),
    ],
)
def test_multilingual_math(gold: str, pred: str, language: str, expected: int) -> None:
    assert compare(gold, pred, LE, language=language) == expected


# --- boxed priority and precision (test_boxed / test_float_precision) -------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$7$", "First $\\boxed{7}$, and then the final answer is 9.", 1),
        ("$7$", "$\\boxed{5}$ no wait, $\\boxed{7}$", 1),
        ("$7$", "$\\boxed{7}$ no wait, $\\boxed{5}$", 0),
        ("$\\frac{3}{4}$", "\\boxed{\\frac{3}{4}}", 1),
        ("$\\frac{3}{4}$", "\\fbox{0.75}", 1),
        ("$10$", "\\boxed{10} \\boxed{10}", 1),
    ],
)
def test_boxed(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred) == expected


# --- sentence punctuation inside the maths, bare maths answers ----------------------------


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        ("$\\frac{2}{5}$", "So the probability is $\\frac{2}{5}.$", 1),
        ("$\\frac{2}{5}$", "So the probability is $\\frac{3}{5}.$", 0),
        ("$\\sqrt{5}$", "The distance is therefore\n\\[d = \\sqrt{5}.\\]", 1),
        ("$17$", "Hence the count is $17.$", 1),
        ("$17$", "Hence the count is $$17,$$ as claimed.", 1),
        ("$-\\frac{1}{4}$", "which gives $x = -\\frac14;$", 1),
        ("$\\{2, 5\\}$", "The roots are $\\{5, 2\\}.$", 1),
        ("$x^2 - 4$", "Expanding, we get \\(x^2 - 4\\,.\\)", 1),
        ("$6$", "The product is $3! = 6\\text{.}$", 1),
        ("$6$", "The value is $3!$", 1),  # a factorial, not punctuation
        ("$9.5$", "The mean is $9.5.$", 1),
        ("$(2,7)$", "(2,7)", 1),
        ("$(2,7)$", "(2,8)", 0),
        ("$3\\sqrt{2}$", "3\\sqrt2", 1),
    ],
)
def test_trailing_punctuation_and_bare_answers(gold: str, pred: str, expected: int) -> None:
    assert compare(gold, pred) == expected


@pytest.mark.parametrize(
    ("gold", "pred", "precision", "expected"),
    [
        ("$\\frac{1}{3}$", "0.333$", 3, 1),
        ("$\\frac{1}{3}$", "0.333$", 4, 0),
        ("$\\frac{4}{3}$", "$1.333$", 3, 1),
        ("$\\frac{1}{7}$", "$0.142857$", 6, 1),
        ("$\\frac{1}{7}$", "$0.1428$", 6, 0),
        ("$\\sqrt{2}$", "$1.414214$", 6, 1),
        ("$\\sqrt{2}$", "$1.41$", 6, 0),
        ("$\\pi$", "$3.14159265$", 6, 1),
    ],
)
def test_precision(gold: str, pred: str, precision: int, expected: int) -> None:
    assert compare(gold, pred, precision=precision) == expected


# --- string target and boxed priority (test_string_extraction / test_configs) -----------


@pytest.mark.parametrize(
    ("pred", "gold", "expected"),
    [
        ("The answer is A.", "A", 1),
        ("Final answer is B", "B", 1),
        ("A. Because B is not valid", "A", 1),
        ("A. Because B is not valid", "B", 0),
        ("Because B is valid", "B", 1),
        ("No valid answer here", "A", 0),
    ],
)
def test_string_target(pred: str, gold: str, expected: int) -> None:
    result = extractive_match(pred, gold, gold_targets=("string",), pred_targets=("string",))
    assert int(result.passed) == expected, result.explanation


@pytest.mark.parametrize(
    ("pred", "gold", "boxed_priority", "expected"),
    [
        ("final answer is $9999$, \\boxed{1}", "9999", 100, 1),
        ("final answer is $9999$, \\boxed{1}", "9999", 0, 0),
        ("final answer is $9999$, \\boxed{1}", "1", 0, 1),
    ],
)
def test_boxed_priority(pred: str, gold: str, boxed_priority: int, expected: int) -> None:
    latex = ("latex",)
    result = extractive_match(
        pred, gold, gold_targets=latex, pred_targets=latex, boxed_priority=boxed_priority
    )
    assert int(result.passed) == expected, result.explanation
