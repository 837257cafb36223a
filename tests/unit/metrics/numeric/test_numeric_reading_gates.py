"""The reading stage's shortcuts never change a reading: each cheap test that skips a pattern is a
necessary condition of that pattern, and each C-level tokenisation gives the tokens of the
pattern it replaces. Checked on random strings built from the characters that matter."""

from __future__ import annotations

import random
import re

import pytest

import pytest_llmeval.metrics.numeric.candidates as ex
from pytest_llmeval.metrics.numeric import locale_tables, tokens

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
        assert locale_tables._word_tokens(low) == locale_tables._WORD_TOKEN_RE.findall(low), text


def test_keyword_index_is_the_token_pass() -> None:
    for text in _strings(2, 4000, size=40):
        low, _runs, idx = tokens.read_words(text)
        assert low == text.lower()
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
        assert [(m.span(), m.group("sep")) for m in tokens.NUM_RE.finditer(text)] == plain


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
            hb = ex._HEAD_BITS.get(rest[:1], ex._HEAD_ALL)
            assert ex._word_signed("", text, 0, 0, rest, [], hb), text
        assert locale_tables.names_a_loss_subject(text) == bool(
            locale_tables.loss_subject_pattern().search(text)
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


# Characters and words around the commonest prefix ("$") and suffixes ("%", " million").
AROUND = [
    *"$$$%%% \u00a0,.;:!?\n\t)(-−–+USACKRrsk.pPmMbBtTdDeEyYwWlLcCoOiIaA0159€£",
    " million", " billion", "million", " millions", " dollars", " USD", " percent", " mrd",
    " kr", "US$", "U.S.$", "HK$", "C$", "Rs.", "(", "( ", "- ", " of", " in", " to", " mn",
]  # fmt: skip


def _around(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(AROUND) for _ in range(rng.randint(0, 6))) for _ in range(count)]


def test_common_prefix_is_read_as_the_pattern_reads_it() -> None:
    for before in _around(8, 20000):
        pm = ex._prefix_match(before[-8:])
        reading = ex._read_prefix(before, pm) if pm else ex._NO_PREFIX
        taken = len(pm.group(0).lstrip()) if pm else 0
        _pm, got_taken, got = ex._prefix_reading(before)
        assert (got_taken, got) == (taken, reading), before


def test_common_suffix_is_read_as_the_pattern_reads_it() -> None:
    for after in _around(9, 20000) + [lit + tail for lit in ex._COMMON_SUFFIX for tail in ALPHABET]:
        for lang in (locale_tables.ENGLISH, locale_tables.LANGUAGES["nb"]):
            sm = ex._suffix_match(after)
            if sm:
                expected = ex._read_suffix(sm, "EUR", lang)
            else:
                expected = ("", None, "EUR", 0, False, False)
            got_sm, got = ex._suffix_reading(after, "EUR", lang)
            assert got == expected, after
            # Without the pattern's match, the bracket reading must not need its groups.
            assert got_sm is not None or sm is None or sm.group("close") is None, after


def test_sign_words_before_are_searched_in_the_last_run_of_their_characters() -> None:
    plain = [
        lambda c: ex._NEG_WORD_BEFORE_RE.search(c[-48:]),
        lambda c: ex._NEG_NOUN_BEFORE_RE.search(c),
        lambda c: ex._NEG_CHANGE_SUBJECT_RE.search(c),
        lambda c: ex._NEG_VERB_BY_RE.search(c),
        lambda c: locale_tables.negative_before_pattern().search(c[-48:]),
        lambda c: locale_tables.names_a_loss_subject(c),
    ]
    ascii_alphabet = [c for c in ALPHABET if c.isascii()] + list("_&;'=*x")
    phrases = [
        *WORDS, "decrease in ", "revenue ", " was ", "net loss ", " narrowed to ", "Nettoverlust",
        " belief sich auf ", " amounted to ", " is ", "fiel ", "the ", "5ly ", "cut ", "tapte ",
        "US$", "kr. ", "ca. ", "operating loss ", "drop in net sales was ", "fall in cash is ",
        " widened by ", " increased by ", "deficit ", ", by ", "activities used ", "in 2023 ",
    ]  # fmt: skip
    rng = random.Random(10)
    for i in range(12000):
        # Mostly ASCII contexts (where the gate applies), ending like the context of a figure.
        pool = ascii_alphabet if i % 4 else ALPHABET
        parts = [rng.choice(phrases) if rng.random() < 0.5 else rng.choice(pool) for _ in range(16)]
        ctx = ("".join(parts) + rng.choice(["", " ", " $", ": ", " by ", " of ", " to "]))[-60:]
        expected = [bool(f(ctx)) for f in plain]
        # a loss's own change decides first: it grows (a fall) or shrinks (no fall)
        change = ex._LOSS_CHANGE_RE.search(ctx)
        signed = any(expected) if change is None else change.group("worse") is not None
        assert ex._signed_before(ctx) == signed, ctx
        if ctx.isascii():
            for (search, width, allowed), want in zip(ex._SIGN_BEFORE, expected, strict=True):
                window = ctx[-width:]
                k = len(window.rstrip(allowed))
                assert bool(search(window[k - 1 :] if k > 1 else window)) == want, ctx


def test_head_flags_are_the_first_character_sets() -> None:
    sets = [
        (ex._HEAD_NEG, ex._NEGATIVE_AFTER_FIRST),
        (ex._HEAD_OP, ex._OP_AFTER_FIRST),
        (ex._HEAD_CMP, ex._CMP_AFTER_FIRST),
        (ex._HEAD_RANGE, ex._RANGE_AFTER_FIRST),
    ]
    for head in ["", *map(chr, range(128)), "€", "\u2003", "ſ", "K"]:
        flags = ex._HEAD_BITS.get(head, ex._HEAD_ALL)
        for flag, first in sets:
            assert bool(flags & flag) == ex._may_start(head, first), head


def test_ascii_number_pattern_finds_what_the_pattern_finds_in_ascii_text() -> None:
    rng = random.Random(11)
    digits = [*"0123456789" * 4, *".,' -a_\n\x1c", "’", "\u00a0"]
    for _ in range(20000):
        text = "".join(rng.choice(digits) for _ in range(rng.randint(0, 30)))
        expected = [(m.span(), m.group("sep")) for m in tokens.NUM_RE.finditer(text)]
        assert [(m.span(), m.group("sep")) for m in tokens.number_matches(text)] == expected
        if text.isascii():
            found = [(m.span(), m.group("sep")) for m in tokens._NUM_RE_ASCII.finditer(text)]
            assert found == expected, text


def test_word_gates_after_a_figure_only_skip_impossible_matches() -> None:
    words = [*WORDS, " March", "th of June", "st ", " of Dec", "-05", "/12", "x 3", " times 2"]
    rng = random.Random(12)
    for _ in range(20000):
        parts = [
            rng.choice(words) if rng.random() < 0.4 else rng.choice(ALPHABET) for _ in range(6)
        ]
        after = "".join(parts)
        first = after[:1]
        rest = after.lstrip()
        if ex._MONTH_AFTER_RE.match(after):
            assert first in ex._ORDINAL_FIRST or first.isspace() or not first.isascii(), after
        if ex._ISO_DATE_AFTER_RE.match(after):
            assert first in ("-", "/"), after
        if ex._OPERATOR_AFTER_RE.match(after):
            assert ex._may_be_operator_after(rest), after
        if ex._COMPARE_AFTER_RE.match(after):
            assert ex._may_be_comparison_after(rest), after
        if first in ex._NOT_GLUED:
            assert not first.isalpha(), after
            assert first not in ("-", "–"), after


def test_word_before_roles_are_the_word_lists() -> None:
    for word in [*ex._REF_WORDS, *ex._MONTH_WORDS, "revenue", ""]:
        role = "reference" if word in ex._REF_WORDS else "date" if word in ex._MONTH_WORDS else None
        assert ex._ROLE_OF_WORD_BEFORE.get(word) == role, word


def test_unit_word_gate_after_a_figure_only_skips_empty_matches() -> None:
    units = [
        *locale_tables.percent_suffix_words(),
        *locale_tables.all_scaled_currencies(),
        *ex._other_scale_word_list(),
        *ex.CUR_SUFFIX.replace("\\", "").split("|"),
        *["million", "billion", "thousand", "percent", "per cent", "pct", "pp", "bps", "basis"],
    ]
    pool = [*ALPHABET, *"abcdefghijklmnopqrstuvwxyzTMBKCR\u2003ſK", " to", " was", " in", " the"]
    rng = random.Random(14)
    for _ in range(30000):
        parts = [
            rng.choice(units) if rng.random() < 0.25 else rng.choice(pool)
            for _ in range(rng.randint(0, 5))
        ]
        after = rng.choice(["", " ", "\u00a0", ")", "%"]) + "".join(parts)
        if ex._suffix_match(after) is None:
            m = ex._SUFFIX_RE.match(after)
            assert m is None or m.end() == 0, after


def test_result_marker_gate_only_skips_impossible_matches() -> None:
    marks = ["=", "≈", "≅", "~=", "->", "→", "\\approx", "\\boxed{", "\\", "$", "-", "(", " ", "x"]
    rng = random.Random(15)
    for _ in range(20000):
        b8 = "".join(rng.choice(marks + ALPHABET) for _ in range(rng.randint(0, 6)))[-8:]
        if ex._RESULT_BEFORE_RE.search(b8):
            assert not ex._RESULT_CHARS.isdisjoint(b8), b8
