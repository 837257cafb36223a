"""The reading stage's shortcuts never change a reading: each cheap test that skips a pattern is a
necessary condition of that pattern, and each C-level tokenisation gives the tokens of the
pattern it replaces. Checked on random strings built from the characters that matter."""

from __future__ import annotations

import random
import re

import pytest

import pytest_llmeval.metrics.numeric.candidates as ex
from pytest_llmeval.metrics.numeric import language, tokens

# Letters, digits, separators, signs, currency, whitespace of several kinds, characters that fold
# to ASCII letters under IGNORECASE (long s, Kelvin sign, dotless i), and a combining mark.
ALPHABET = list(
    "ab kKsSiInmMtTpPbBdD01259.,'’-−–+()[]$€£%:/#\n\t\u00a0\u2003\u2009\u202fſ\u212aıİ\u0307²ß_~≈"
)
WORDS = [
    "loss", "Losses", "decreased", "fell", "minus", "from", "compared", "times", "approximately",
    "about", "million", " billion", "percent", "prosent", "mrd.", "kr", "USD", "tap", "verlust",
    "Nettoverlust", "perte", "net", "lower", "by", "of", "to", "one", "two", "per", "cent",
    "divided", "sum", "Rs.", "US$", "year", "Note", "(1)", "12.5", "1,234", "2021",
]  # fmt: skip


def _strings(seed: int, count: int, size: int = 24) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [
            rng.choice(WORDS) if rng.random() < 0.3 else rng.choice(ALPHABET)
            for _ in range(rng.randint(0, size))
        ]
        out.append("".join(parts))
    return out


def test_letter_runs_are_the_pattern_runs() -> None:
    for text in _strings(1, 4000):
        low = text.lower()
        assert tokens._letter_runs(low) == set(tokens._LETTER_RUN_RE.findall(low)), text
        assert language._word_tokens(low) == language._WORD_TOKEN_RE.findall(low), text


def test_keyword_index_is_the_token_pass() -> None:
    for text in _strings(2, 4000, size=40):
        _runs, idx = tokens._read_words(text)
        assert idx == tokens._keyword_scan(text.lower()), text


_NUM_RE_PLAIN = re.compile(
    r"(?<![\w.,'’])(?<![\w][-–])"
    r"(?:\d{1,3}(?:(?P<sep>[,.'’\u00a0\u202f\u2009])\d{3})(?:(?P=sep)\d{3})*(?![\d])(?:[.,]\d+)?"
    r"|\d{1,3}(?: \d{3})+(?![\d])(?:,\d+)?"
    r"|\d+(?:[.,]\d+)?"
    r"|\.\d+)"
)


def test_number_pattern_finds_what_the_plain_form_finds() -> None:
    rng = random.Random(3)
    digits = list("0123456789" * 4 + ".,'’ \u00a0\u202f\u2009-–a_")
    for _ in range(20000):
        text = "".join(rng.choice(digits) for _ in range(rng.randint(0, 30)))
        plain = [(m.span(), m.group("sep")) for m in _NUM_RE_PLAIN.finditer(text)]
        assert [(m.span(), m.group("sep")) for m in tokens._NUM_RE.finditer(text)] == plain


def test_skipped_suffix_and_prefix_read_nothing() -> None:
    for text in _strings(4, 6000, size=10):
        if ex._suffix_match(text) is None:
            assert ex._SUFFIX_RE.match(text).end() == 0, text  # type: ignore[union-attr]
        b8 = text[-8:]
        if ex._prefix_match(b8) is None:
            m = ex._PREFIX_RE.search(b8)
            assert m is None or not any(m.groups()), b8


def test_suffix_groups_are_read_in_pattern_order() -> None:
    order = sorted(ex._SUFFIX_RE.groupindex, key=ex._SUFFIX_RE.groupindex.__getitem__)
    expected = [
        "close",
        "pct",
        "scale",
        "scur",
        "lscale",
        "letter",
        "close2",
        "cur",
        "scale2",
        "pct2",
    ]
    assert order == expected
    assert list(ex._PREFIX_RE.groupindex) == ["sign1", "cur", "sign2"]


def test_operator_and_sign_word_gates_only_skip_impossible_matches() -> None:
    for text in _strings(5, 6000, size=12):
        if ex._OPERATOR_BEFORE_RE.search(text[-16:]):
            assert ex._may_end_operator(text[-16:]), text
        rest = text.lstrip()
        if ex._NEG_AFTER_RE.match(text[:30]):
            assert ex._word_signed("", text, 0, 0, rest, []), text
        assert language.names_a_loss_subject(text) == bool(
            language.loss_subject_pattern().search(text)
        )


@pytest.mark.parametrize("seed", [6, 7])
def test_hint_tokens_are_the_split_and_stripped_tokens(seed: int) -> None:
    split = re.compile(r"[\s\-–]+")
    for text in _strings(seed, 3000):
        low = text.lower()
        raw = split.split(low)
        # The regex split gives an empty first/last token for a separator at either end (and
        # for an empty text); str.split() gives none. Empty tokens elsewhere are kept by both.
        if raw and raw[0] == "":
            raw = raw[1:]
        if raw and raw[-1] == "":
            raw = raw[:-1]
        plain = [t.strip(".,;:()*\"'") for t in raw]
        assert ex._hint_tokens(low) == plain, text
