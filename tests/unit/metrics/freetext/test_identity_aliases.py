"""Several acceptable dates: a finer alias inside a coarser one says which day or month it is."""

from __future__ import annotations

import pytest

from pytest_llmeval.metrics.freetext.identity import finer_alias_conflict

ALIASES = ["March 2019", "March 8, 2019"]


@pytest.mark.parametrize(
    "answer",
    ["It came out on March 15, 2019.", "15 March 2019", "2019-03-21"],
)
def test_another_day_inside_the_coarse_alias_contradicts_the_finer_one(answer: str) -> None:
    assert "a different date" in finer_alias_conflict(answer, ALIASES)


@pytest.mark.parametrize(
    ("answer", "aliases"),
    [
        ("It came out on March 8, 2019.", ALIASES),  # the finer alias itself
        ("March 2019", ALIASES),  # the coarse alias, no finer claim
        ("2019", ALIASES),  # coarser still: no day named
        ("June 1902", ["1902", "1900"]),  # alternatives, not one inside the other
        ("May 21, 2018", ["May 14, 2018", "May 21, 2018"]),  # two acceptable days
        ("April 2016", ["2016", "March 2017", "March 8, 2017"]),  # inside another alias's year
        ("a summer release", ALIASES),
    ],
)
def test_no_conflict(answer: str, aliases: list[str]) -> None:
    assert finer_alias_conflict(answer, aliases) == ""
