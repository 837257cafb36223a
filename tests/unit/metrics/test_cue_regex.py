"""A table of cue patterns joined by ``any_of`` matches what the plain ``|`` join matches."""

from __future__ import annotations

import random
import re

import pytest

from pytest_llmeval.metrics.cue_regex import any_of, first_letters, plain_groups

CASELESS = re.IGNORECASE


@pytest.mark.parametrize(
    ("pattern", "letters"),
    [
        ("no answer", {"n"}),
        ("(cannot|can't) (find|see)", {"c"}),
        ("(there is )?no (specific )?mention", {"t", "n"}),
        ("i'?m sorry", {"i"}),
        ("[$€]\\d", None),  # not word characters
        ("\\w+ data", None),  # a category, not letters
        ("(sorry)?", None),  # can match nothing
        ("(?=x)y", {"y"}),
        (".x", None),
        ("[^a]x", None),
        ("(a|b*)c", {"a", "b", "c"}),
    ],
)
def test_first_letters_of_a_pattern(pattern: str, letters: set[str] | None) -> None:
    assert first_letters(pattern, CASELESS) == (None if letters is None else frozenset(letters))


def plain(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), CASELESS)


def spans(regex: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in regex.finditer(text)]


def test_letters_that_match_one_another_share_a_group_so_table_order_still_decides() -> None:
    # 'ı' and 'i' match each other ignoring case: the table's earlier cue must win where both match,
    # though the i-group's first cue comes first
    table = [r"\biq", r"\bıx", r"\bixy"]
    combined = re.compile(any_of(table, CASELESS), CASELESS)
    for text in ("ixy", "ıxy", "IXY", "iq ixy"):
        assert spans(combined, text) == spans(plain(table), text), text
    assert spans(combined, "ixy") == [(0, 2)]


def test_random_tables_match_as_the_plain_join() -> None:
    rng = random.Random(3)
    words = [
        "no",
        "not",
        "nothing",
        "ia",
        "ıa",
        "sa",
        "ſa",
        "ka",
        "\u212aa",
        "ål",
        "Ål",
        "data",
        "is",
        "are",
    ]
    texts = [
        " ".join(rng.choice([*words, "x", ".", "-", "_", "'"]) for _ in range(12))
        for _ in range(300)
    ]
    for _ in range(200):
        table = []
        for _ in range(rng.randint(1, 8)):
            first = rng.choice(
                [
                    rf"\b{rng.choice(words)}",
                    rf"\b({rng.choice(words)}|{rng.choice(words)})",
                    r"^\W*no",
                ]
            )
            table.append(first + rng.choice(["", r"\b", r" \w+", r"(?! data)", r"\s*"]))
        combined = re.compile(any_of(table, CASELESS), CASELESS)
        reference = plain(table)
        for text in texts:
            assert spans(combined, text) == spans(reference, text), (table, text)


@pytest.mark.parametrize(
    ("pattern", "plain"),
    [
        ("(a|b)c", "(?:a|b)c"),
        ("[(]x(y)", "[(]x(?:y)"),
        ("[]()](z)", "[]()](?:z)"),
        ("[^]()](z)", "[^]()](?:z)"),
        (r"\(a(b)\)", r"\(a(?:b)\)"),
        ("(?:a)(?=b)(c)", "(?:a)(?=b)(?:c)"),
        (r"x[a\]](y)", r"x[a\]](?:y)"),
        (r"(a)\1", r"(a)\1"),  # a back reference needs its group
        ("(?P<n>a)(?P=n)", "(?P<n>a)(?P=n)"),
    ],
)
def test_plain_groups_stop_capturing_and_keep_the_pattern(pattern: str, plain: str) -> None:
    assert plain_groups(pattern) == plain
    for text in ("ac", "bc", "(xy", "]z", "(ab)", "ac", "xay", "x]y", "aa"):
        assert spans(re.compile(plain), text) == spans(re.compile(pattern), text)


def test_a_cue_anchored_at_the_start_keeps_its_place_at_the_first_character() -> None:
    table = [r"\bno\b", r"^\W*no answer", r"\bno answer given"]
    combined = re.compile(any_of(table, CASELESS), CASELESS)
    for text in ("no answer given", "No answer given.", "x no answer given", "- no answer given"):
        assert spans(combined, text) == spans(plain(table), text), text
    assert [m.group(0) for m in combined.finditer("-- No answer given")] == ["-- No answer"]
