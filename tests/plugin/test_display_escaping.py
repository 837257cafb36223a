"""Control and bidi characters in answers and ids are shown escaped.

An answer ``\\x1b[2K\\x1b[1A\\x1b[32mall fine`` must not erase and rewrite lines of a CI log, and a
right-to-left override in an id must not reorder what the terminal, JUnit or HTML shows.
"""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.display import safe_line, safe_text, safe_tree
from tests.conftest import EXACT, write_suite
from tests.extras import needs

REWRITE = "\x1b[2K\x1b[1A\x1b[32mall fine"
RLO_ID = "invoice-\u202egnp.exe"
RAW = ("\x1b", "\u202e", "\x9b", "\r")


def test_escapes_are_shown_as_text_and_newlines_kept_where_they_belong() -> None:
    assert (
        safe_text(f"{REWRITE}\nnext\tline\r") == "\\x1b[2K\\x1b[1A\\x1b[32mall fine\nnext\tline\\r"
    )
    assert safe_line("a\nb\u2066c\u2069\x9b[31m") == "a\\nb\\u2066c\\u2069\\x9b[31m"
    assert safe_text("plain ÆØÅ ١٢ 中文") == "plain ÆØÅ ١٢ 中文"
    assert safe_tree({"a": [RLO_ID, 1, None], "b": {"c": REWRITE}}) == {
        "a": ["invoice-\\u202egnp.exe", 1, None],
        "b": {"c": "\\x1b[2K\\x1b[1A\\x1b[32mall fine"},
    }


@needs("html")
def test_answers_and_ids_reach_terminal_junit_and_html_escaped(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(
        pytester,
        [
            {
                "id": RLO_ID,
                "question": "q",
                "expected": "Oslo",
                "response": REWRITE,
                "eval_criteria": EXACT,
            },
            {
                "id": "ok",
                "question": "q",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            },
            {
                "id": "bad\x1b[2Kline",
                "question": "q",
                "expected": "x",
                "response": "x",
                "eval_criteria": {"must_incude\x1b[1A": 1},
            },
        ],
    )
    result = pytester.runpytest(
        "-v", "-rA", "--junitxml=j.xml", "--llm-html=r.html", "--llm-report=r.json", *plugin_args
    )
    result.assert_outcomes(passed=1, failed=1, errors=1)
    out = result.stdout.str()
    assert not [c for c in RAW if c in out], [
        line for line in result.stdout.lines if any(c in line for c in RAW)
    ][:5]
    assert "qa_eval.jsonl::invoice-\\u202egnp.exe" in out
    assert "\\x1b[2K\\x1b[1A\\x1b[32mall fine" in out
    assert "must_incude\\x1b[1A" in out
    junit = (pytester.path / "j.xml").read_text(encoding="utf-8")
    assert "\u202e" not in junit
    assert "#x1B" not in junit
    assert "\x1b" not in junit
    assert 'name="invoice-\\u202egnp.exe"' in junit
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert not [c for c in RAW if c in html]
    assert "invoice-\\\\u202egnp.exe" in html  # a backslash escape inside the page's JSON
    # the JSON report keeps the data as it was (it is not shown to a person)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    sample = next(s for s in report["sample_results"] if s["sample_id"] == RLO_ID)
    assert sample["predicted"] == REWRITE
