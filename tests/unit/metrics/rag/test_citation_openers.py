"""An answer that cannot hold a citation is N/A without the patterns being run over it."""

from __future__ import annotations

import re

import pytest

from pytest_llmeval.metrics.rag.citation import (
    BUILTIN_OPENERS,
    BUILTIN_PATTERNS,
    KIND_EXAMPLES,
    citation_component,
)


def test_every_built_in_opens_with_its_listed_character() -> None:
    assert set(BUILTIN_OPENERS) == set(BUILTIN_PATTERNS)
    for kind, pattern in BUILTIN_PATTERNS.items():
        parsed = re._parser.parse(pattern).data  # type: ignore[attr-defined]
        op, code = parsed[0]
        assert str(op) == "LITERAL", kind
        assert chr(code) == BUILTIN_OPENERS[kind], kind
        match = re.search(pattern, KIND_EXAMPLES[kind].replace("...", "x"))
        assert match is not None
        assert match.group(0)[0] == BUILTIN_OPENERS[kind]


@pytest.mark.parametrize("kind", sorted(BUILTIN_PATTERNS))
def test_an_answer_with_each_kind_of_citation_is_still_checked(kind: str) -> None:
    example = KIND_EXAMPLES[kind].replace("...", "the annual report")
    result = citation_component(
        f"Revenue grew 5 % {example}.", required=False, patterns=None, sources=None, contexts=None
    )
    assert result is not None
    assert result.citations


@pytest.mark.parametrize(
    "answer", ["Revenue grew 5 % to $3.2 billion.", "Doc 12 says so.", "See page 4 - it is there."]
)
def test_an_answer_without_brackets_cites_nothing_unless_a_user_pattern_says_so(
    answer: str,
) -> None:
    plain = citation_component(answer, required=False, patterns=None, sources=None, contexts=None)
    assert plain is None
    custom = citation_component(
        answer, required=False, patterns=[r"Doc \d+|page \d+"], sources=None, contexts=None
    )
    assert (custom is not None) == bool(re.search(r"Doc \d+|page \d+", answer))
    required = citation_component(answer, required=True, patterns=None, sources=None, contexts=None)
    assert required is not None
    assert not required.passed
