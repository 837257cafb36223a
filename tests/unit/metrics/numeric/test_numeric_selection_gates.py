"""The shortcuts of the selection stage give what the plain computation gives.

Each test compares a shortcut with the straightforward reading it replaces, on hand-picked
cases and on random texts mixing the words, marks and letters the shortcut depends on.
"""

from __future__ import annotations

import random

from pytest_llmeval.metrics.numeric import roles, selection
from pytest_llmeval.metrics.numeric.candidates import extract_values

_WORD_TEXT = (
    "The revenue was $5.2 million in 2022 . so therefore total rose fell to from by of which "
    "out of the compared to 12% 3.5% 1,234 (546) million 2019 : ; , ( ) ** * - e.g. ca. "
    "answer is: result thus ſo thıs İf K \n \n\n 1. 2) • was is 0.66 66% til økte med"
)
_WORDS = _WORD_TEXT.split(" ")


def _random_texts(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    texts = []
    for _ in range(n):
        words = [rnd.choice(_WORDS) for _ in range(rnd.randint(1, 40))]
        texts.append(
            rnd.choice(["", " ", "\n"]).join(words) if rnd.random() < 0.2 else " ".join(words)
        )
    return texts


def _split_plain(text: str) -> list[tuple[int, int]]:
    """The reference sentence split, plain and slow: each piece joined to the previous one on arrival."""
    merged: list[tuple[int, int]] = []

    def add(start: int, end: int) -> None:
        if merged:
            prev_start, prev_end = merged[-1]
            lead_in = text[prev_start:prev_end].rstrip(" *").endswith(":")
            if (end - start < 200 and lead_in) or (
                text[start].islower() and text.find("\n", prev_end, start) < 0
            ):
                merged[-1] = (prev_start, end)
                return
        merged.append((start, end))

    pos = 0
    for m in selection._SEG_RE.finditer(text):
        start = m.start(1) if m.start(1) >= 0 else m.start()
        if start > pos:
            add(pos, start)
        pos = m.end()
    if pos < len(text):
        add(pos, len(text))
    return merged


def test_sentence_split_joins_pieces_as_the_plain_split() -> None:
    cases = [
        "Revenue is:\n\n$1,577 million. So the answer is 5.",
        "It was 10 088 mrd. kroner. Next one.",
        "A lead-in ** :\n$5. ca. 5 units",
        "One sentence only",
        "\n\nStarts with breaks. then lower case.\nNew line.",
    ]
    for text in [*cases, *_random_texts(1, 3000)]:
        assert selection._split_segments(text) == _split_plain(text), text


def test_may_hold_is_a_substring_test() -> None:
    words = ("so", "total", "e.g.")
    for text in ["", "also", "TOTAL", "e.g", "e.g.", "subtotal", *_random_texts(2, 500)]:
        low = text.lower()
        assert roles.may_hold(low, words) == any(w in low for w in words)
    assert roles.may_hold(None, words)


def test_co_asserted_skips_only_figures_without_an_assertable_role() -> None:
    # Operands, comparisons and ignored figures read as "endpoint" or nothing: never kept.
    for text in [
        "Revenue rose by $59 million, from $3,475 million to $3,534 million in 2022.",
        "Capex was $1,210 million in 2021 compared to $1,480 million in 2022 (see Note 12).",
        *_random_texts(3, 1500),
    ]:
        cands = extract_values(text)
        seg = (0, len(text))
        for asks_change in (None, True, False):
            got = roles.co_asserted(text, seg, cands, [], asks_change)
            allowed = {None: {"change", "level", "total", "difference"}}.get(
                asks_change,
                {"change", "difference", "total"} if asks_change else {"level", "total"},
            )
            want = []
            if 2 <= len(cands) <= 40:
                for i, c in enumerate(cands):
                    role = roles.figure_role(text, 0, cands, i)
                    if role in allowed:
                        want.append((c.span, role))
            assert [(a.cand.span, a.role) for a in got] == want, text


def test_exact_category_regex_is_the_compiled_key() -> None:
    for key in ["ams", "r&d", "ifrs net income", "software solutions operating expenses"]:
        pat = selection._exact_regex(key)
        assert pat.pattern == r"(?<![\w])" + __import__("re").escape(key) + r"(?![\w])"


def test_by_gate_passes_every_window_the_difference_pattern_matches() -> None:
    rnd = random.Random(4)
    parts = ["exceeded", "higher", "Lower", "by", "BY", "bY", "about", "Approximately", "roughly"]
    parts += ["$", "€", " ", "  ", "\n", "5", "x", ",", "İ", "ſ", "from", "to", "widened"]
    windows = ["higher by $", "exceeded X by about ", "widened by 5, from", "BY  \n", "by"]
    windows += [
        "".join(rnd.choice(parts) + rnd.choice(["", " "]) for _ in range(8)) for _ in range(4000)
    ]
    for window in windows:
        if roles._BY_BEFORE_RE.search(window):
            assert roles._may_end_with_by(window), window
    assert not roles._may_end_with_by("rose by 703, from (55,849) to ")


def test_range_word_gate_is_the_plain_test() -> None:
    for window in ["(A to B)", "(til", "bis", "à", "(none)", ""]:
        want = "to" in window or "til" in window or "bis" in window or "à" in window
        assert roles._has_range_word(window) == want


def test_snippet_of_a_long_sentence_reads_a_prefix() -> None:
    rnd = random.Random(5)
    for _ in range(300):
        text = "".join(rnd.choice(["word ", "  ", "\n\t ", "x", "    " * 20]) for _ in range(300))
        seg = (rnd.randint(0, 10), len(text) - rnd.randint(0, 10))
        plain = " ".join(text[seg[0] : seg[1]].split())
        want = plain[:117] + "..." if len(plain) > 120 else plain
        assert selection._snippet(text, seg) == want


def test_concluding_sentence_is_the_sentence_of_the_pick() -> None:
    # The role stage reuses the sentence the concluding stage read when it holds the pick.
    for text in [
        "Revenue was $5 million. So the answer is 12%.",
        "Margin was 25%.\n\nIt equals $612 million (25%).",
        *_random_texts(6, 1500),
    ]:
        cands = extract_values(text)
        for kind in (None, "money", "percent", "plain"):
            primary, _alts, _how, seg = selection.conclude(text, cands, None, set(), kind)
            if primary is not None and seg[0] <= primary.span[0] < seg[1]:
                assert seg == selection.segment_of(text, primary), text


def test_co_asserted_reads_range_and_whole_only_to_veto() -> None:
    # figure_role's range and whole readings ("(A to B)", "of the $X", "of which") win over the
    # later ones; co_asserted reads them last, for a role it would keep.
    for text in [
        "Raw materials were up $48.5 million year over year ($26.0 million to $74.5 million).",
        "$206.7 million of the $1,344.1 million total rose by $5 million.",
        "A $2.5 billion buyback, of which $1 billion rose by 5% to $3 billion.",
        *_random_texts(7, 1500),
    ]:
        cands = extract_values(text)
        got = roles.co_asserted(text, (0, len(text)), cands, [], None)
        want = [
            (c.span, role)
            for i, c in enumerate(cands)
            if (role := roles.figure_role(text, 0, cands, i))
            in ("change", "level", "total", "difference")
        ]
        assert [(a.cand.span, a.role) for a in got] == (want if 2 <= len(cands) <= 40 else []), text


def test_category_gate_words_are_the_lower_cased_ascii_phrases() -> None:
    assert selection._gate_words(("Net Income", "EPS")) == ("net income", "eps")
    assert selection._gate_words(("net income", "")) is None  # an empty phrase matches anywhere
    assert selection._gate_words(("résultat",)) is None
    text = "Net income was $5 million; NET INCOME rose. Net incomes fell."
    pattern = selection._category_regex("net income")
    hits = selection._case_blind_hits(
        pattern, text, text.lower(), selection._category_phrases("net income")
    )
    assert [m.span() for m in hits] == [m.span() for m in pattern.finditer(text)]


def test_single_spaced_is_the_join_of_the_split() -> None:
    # The snippet skips the split and join of a sentence already written with single spaces.
    rnd = random.Random(8)
    marks = ["a", "b", " ", "  ", "\n", "\t", "\xa0", "\u2028", "\u3000", "\x1c", "\x85", "é"]
    texts = ["", " ", "a b", " a", "a ", "a  b", "a\nb", "a\xa0b", *_random_texts(9, 500)]
    texts += ["".join(rnd.choice(marks) for _ in range(rnd.randint(0, 12))) for _ in range(4000)]
    for text in texts:
        assert selection._single_spaced(text) == (" ".join(text.split()) == text), repr(text)


def test_co_asserted_leaves_out_the_chosen_figures_by_identity() -> None:
    # The chosen figures are skipped by an identity test on the list (Candidate has eq=False):
    # the same figures as the id() set of the plain reading.
    for text in [
        "Revenue rose by $59 million, from $3,475 million to $3,534 million in 2022.",
        "Sales were $5 million, up $1 million; in total $9 million.",
        *_random_texts(10, 1500),
    ]:
        cands = extract_values(text)
        if len(cands) < 2:
            continue
        for chosen in (cands[:1], cands[-1:], cands[::2], [*extract_values(text)[:1]]):
            got = roles.co_asserted(text, (0, len(text)), cands, chosen, None)
            ids = {id(c) for c in chosen}
            want = [
                (c.span, role)
                for i, c in enumerate(cands)
                if id(c) not in ids
                and (role := roles.figure_role(text, 0, cands, i))
                in ("change", "level", "total", "difference")
            ]
            if len(cands) > 40:
                want = []
            assert [(a.cand.span, a.role) for a in got] == want, text


def test_every_figure_starts_inside_the_text() -> None:
    # The role stage takes every figure as the sentence's when the sentence is the whole
    # answer: that needs each figure read (number words, "no change" included) to start in it.
    from pytest_llmeval.metrics.numeric import gold, match

    texts = ["No change.", "There were three segments and no change in revenue.", "five"]
    for text in [*texts, *_random_texts(11, 1500)]:
        for expected in ("3", "0", "2019", "12%", "5.2 million"):
            g = gold.parse_gold(expected, None)
            for c in match._read_figures(text, g, None, None):
                assert 0 <= c.span[0] < len(text), (text, c)


def _multi_sentence_texts(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    return [". ".join(_random_texts(rnd.randint(0, 10**6), rnd.randint(2, 6))) for _ in range(n)]


def test_best_segment_is_the_plain_ranking() -> None:
    # The pruned ranking (cue bound, then the stated point read before the words) picks the
    # sentence the plain ranking of every sentence picks.
    rnd = random.Random(12)
    for text in _multi_sentence_texts(13, 1500):
        cands = [c for c in extract_values(text) if c.role in ("value", "result", "range")]
        segs = selection._segments(text)
        by_seg = selection._group_by_segment(cands, segs)
        if len(by_seg) < 2:
            continue
        question = rnd.choice([None, "By how much did revenue change in 2022?"])
        q_stems = selection._question_stems(question)
        q_years = frozenset(selection._YEAR_RE.findall(question or ""))
        kind = rnd.choice([None, "money", "percent", "plain"])
        cues = selection._QuestionCues(question, q_stems, q_years, bool(question), kind)
        last, first = max(by_seg), min(by_seg)
        plain: tuple[float, int] | None = None
        for idx in sorted(by_seg, reverse=True):
            seg = segs[idx] if idx < len(segs) else (0, len(text))
            sc = selection._figures_score(by_seg[idx], cues)
            sc += (1.5 if idx == last else 0.0) + (0.5 if idx == first else 0.0)
            sc += selection._text_score(text, seg, by_seg[idx], cues)
            if plain is None or sc > plain[0]:
                plain = (sc, idx)
        assert plain is not None
        assert selection._best_segment(text, segs, by_seg, cues) == plain[1], text


def _best_stated_plain(text: str, seg: tuple[int, int], values: list, kind: str | None) -> object:
    """_best_stated_value without a question, reading every restatement link."""
    hyp, _words, _years, _df = selection._clause_evidence(
        text, seg, values, frozenset(), frozenset()
    )
    best, base = None, []
    for i, c in enumerate(values):
        sc = -1.0 if hyp[i] else 0.0
        if selection._is_change_value(text, seg[0], c):
            sc -= 1.5
        if selection._is_stated(text, seg[0], c):
            sc += 0.25
        if i and c.span[0] - values[i - 1].span[1] <= 40:
            link = text[values[i - 1].span[1] : c.span[0]]
            lm = selection._ALT_LINK_RE.match(link)
            if lm and not link[lm.end() :].strip():
                sc = max(sc, base[i - 1])
        base.append(sc)
        if kind:
            k = selection._kind(c)
            if k == kind or (kind == "money" and k == "money-unscaled"):
                sc += 0.5
            elif k not in selection._COMPATIBLE_KINDS[kind]:
                sc -= 0.5
        key = (round(sc, 6), -i)
        if best is None or key > best:
            best = key
    assert best is not None
    return values[-best[1]]


def test_best_stated_value_reads_a_link_only_when_it_can_raise_the_score() -> None:
    texts = ["Margin was $780 million, or 7.8%, up 5% from $700 million (7.1%).", "5, or 6 or 7"]
    texts += ["Revenue was $780 million, or 7.8% and the margin is 8%."]
    rnd = random.Random(15)
    links = [", or ", " or ", " (", " ", " is ", " was ", ", up "]
    figures = ["$780 million", "7.8%", "8%", "5", "$1.2 billion", "0.66", "(25%)"]
    for _ in range(1500):
        parts = [rnd.choice(figures) + rnd.choice(links) for _ in range(rnd.randint(2, 5))]
        texts.append(rnd.choice(["Revenue was ", "It is ", ""]) + "".join(parts))
    for text in [*texts, *_random_texts(14, 2000)]:
        values = [c for c in extract_values(text) if c.role in ("value", "range")]
        if len(values) < 2:
            continue
        seg = (0, len(text))
        for kind in (None, "money", "percent", "plain"):
            got = selection._best_stated_value(
                text, seg, values, frozenset(), frozenset(), False, kind, None
            )
            assert got is _best_stated_plain(text, seg, values, kind), text


def test_flags_are_those_of_the_plain_token_set() -> None:
    # _flags_of keeps only the gate words among the tokens: each gate is met as with all tokens.
    def plain(seg_text: str) -> set[str]:
        toks = set(selection._TOKEN_RE.findall(seg_text.lower()))
        flags = set()
        if not toks.isdisjoint(selection._STRONG_GATE) and selection._STRONG_CUE_RE.search(
            seg_text
        ):
            flags.add("strong")
        if not toks.isdisjoint(selection._REFUSAL_GATE) and selection._REFUSAL_RE.search(seg_text):
            flags.add("refusal")
        if (
            "strong" not in flags
            and not toks.isdisjoint(selection._DERIVE_GATE)
            and selection._DERIVE_CUE_RE.search(seg_text)
        ):
            flags.add("derive")
        return flags

    texts = ["So the answer is 5.", "This gives 12%.", "We cannot provide it, e.g. guidance."]
    texts += ["Therefore, assuming 5%, this means 6.", "In total: 7", "so-called totals"]
    seen = set()
    for text in [*texts, *_random_texts(16, 3000)]:
        got = selection._flags_of(text)
        assert got == plain(text), text
        seen |= got
    assert seen == {"strong", "refusal", "derive"}
