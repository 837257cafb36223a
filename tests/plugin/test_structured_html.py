"""The HTML report shows per-field verdicts (structured grader) and per-turn verdicts (conversations)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chromium import Chromium, find_chromium
from tests.conftest import write_suite
from tests.extras import needs
from tests.plugin.test_conversation import TURNS, conversation
from tests.plugin.test_structured import POSTING_SUITE

pytestmark = needs("html")

pytest_plugins = ["pytester"]


@pytest.fixture
def html_report(pytester: pytest.Pytester) -> Path:
    write_suite(pytester, POSTING_SUITE[:2], "posting_eval.jsonl")
    write_suite(
        pytester,
        [conversation(responses=["Satsen er 25 prosent.", TURNS[1][1], TURNS[2][1]])],
        "chat_eval.jsonl",
    )
    pytester.runpytest("--llm-html=r.html")
    return pytester.path / "r.html"


def test_html_embeds_field_and_turn_verdicts_and_its_script_parses(
    html_report: Path, tmp_path: Path
) -> None:
    page = html_report.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="llmeval-data">(.*?)</script>', page, re.DOTALL).group(1))  # type: ignore[union-attr]
    by_id = {s["sample_id"]: s for s in data["samples"]}
    fields = by_id["wrong-account"]["components"]["accuracy"]["details"]["fields"]
    assert [f["path"] for f in fields if not f["ok"]] == ["lines[1].account"]
    assert [t["tier"] for t in by_id["vat-chat"]["turns"]] == ["fail", "pass", "pass"]
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to syntax-check the page's script")
    script = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)[-1]
    (tmp_path / "page.js").write_text(script, encoding="utf-8")
    subprocess.run([node, "--check", str(tmp_path / "page.js")], check=True, capture_output=True)


@pytest.fixture
def browser() -> Iterator[Chromium]:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run installs it)")
    with Chromium(binary) as chromium:
        yield chromium


def test_row_details_list_fields_and_turns_in_chromium(
    html_report: Path, browser: Chromium
) -> None:
    browser.open(html_report.as_uri())
    assert browser.console_errors() == []
    for sample_id, wanted in (("wrong-account", "lines[1].account"), ("vat-chat", "Turns")):
        browser.evaluate(
            f"document.querySelector('#rows tr.sample[data-id=\"{sample_id}\"]').click()"
        )
        assert wanted in browser.evaluate("document.querySelector('#rows tr.detail').innerText")
        browser.evaluate(
            f"document.querySelector('#rows tr.sample[data-id=\"{sample_id}\"]').click()"
        )
