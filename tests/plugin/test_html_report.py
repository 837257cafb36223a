"""``--llm-html``: a self-contained page built from the JSON report, checked in headless Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import Chromium, find_chromium
from tests.conftest import EXACT, run_interrupted_at_s2, write_suite
from tests.extras import needs, require

HOSTILE = '</script><script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> <!-- <script> & </SCRIPT >'


def mixed_suite(n: int = 40) -> list[dict[str, Any] | str]:
    """n lines: passes, acceptables, fails, grader errors and bad lines, with hostile text."""
    records: list[dict[str, Any] | str] = []
    for i in range(n):
        kind = i % 5
        task, domain = ("qa", "math")[i % 2], ("geo", "finance", "law")[i % 3]
        meta = {"task": task, "domain": domain}
        if kind == 0:
            records.append(
                {
                    "id": f"pass-{i}",
                    "question": f"capital {i}?",
                    "expected": "Oslo",
                    "response": "Oslo",
                    "metadata": meta,
                    "eval_criteria": EXACT,
                }
            )
        elif kind == 1:
            records.append(
                {
                    "id": f"acc-{i}",
                    "question": "q",
                    "expected": "Oslo",
                    "response": "Oslo",
                    "metadata": meta,
                    "eval_criteria": {
                        "accuracy": "exact",
                        "must_include": ["Oslo", "fjord"],
                        "weights": {"length": 0, "accuracy": 0.7, "keywords": 0.3},
                    },
                }
            )
        elif kind == 2:
            records.append(
                {
                    "id": f"fail-{i}",
                    "question": HOSTILE,
                    "expected": "Oslo",
                    "response": HOSTILE,
                    "metadata": meta,
                    "eval_criteria": EXACT,
                }
            )
        elif kind == 3:
            records.append(
                {
                    "id": f"err-{i}",
                    "question": "q",
                    "expected": "a",
                    "response": "a",
                    "metadata": meta,
                    "eval_criteria": {"accuracy": "broken"},
                }
            )
        else:
            records.append('{"id": "bad-' + str(i) + '", "question": ')  # a bad line: an error item
    return records


BROKEN_GRADER = """
from pytest_llmeval.errors import GraderError

def broken(ctx):
    raise GraderError("judge replied with invalid JSON </script>")

def pytest_llmeval_graders(config):
    return {"broken": broken}
"""


@pytest.fixture
def browser() -> Iterator[Chromium]:
    require("html")  # every page the browser opens is an HTML report
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run installs it)")
    with Chromium(binary) as chromium:
        yield chromium


def run_html(pytester: pytest.Pytester, *args: str) -> tuple[Path, dict[str, Any]]:
    write_suite(pytester, mixed_suite())
    pytester.makeconftest(BROKEN_GRADER)
    result = pytester.runpytest(
        "--llm-html=out/report.html",
        "--llm-report=out/report.json",
        "--llm-min-pass-rate=0.5",
        *args,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    return pytester.path / "out" / "report.html", json.loads(
        (pytester.path / "out" / "report.json").read_text()
    )


def test_report_opens_in_chromium_offline_with_every_sample(
    pytester: pytest.Pytester, plugin_args: list[str], browser: Chromium, tmp_path: Path
) -> None:
    html, report = run_html(pytester, *plugin_args)
    statuses = {s["sample_id"]: s["status"] for s in report["sample_results"]}
    assert len(statuses) == 40
    assert set(statuses.values()) == {"pass", "acceptable", "fail", "error"}

    url = html.as_uri()
    browser.open(url)
    assert browser.evaluate("document.documentElement.getAttribute('data-ready')") == "1"
    assert browser.console_errors() == []
    assert browser.requested_urls() == [url]  # the file itself and nothing else
    assert browser.evaluate("window.__xss === undefined")  # hostile responses stay text
    shown = browser.evaluate("window.llmeval.shownIds()")
    assert sorted(shown) == sorted(statuses)
    page_text = browser.evaluate("document.body.innerText")
    assert all(sample_id in page_text for sample_id in statuses)

    for tier in ("fail", "acceptable", "error", "pass"):
        browser.evaluate(
            f"document.getElementById('f-tier').value = '{tier}'; "
            "document.getElementById('f-tier').dispatchEvent(new Event('change'))"
        )
        expected = sorted(k for k, v in statuses.items() if v == tier)
        assert sorted(browser.evaluate("window.llmeval.shownIds()")) == expected, tier
        tiers = browser.evaluate(
            "Array.from(document.querySelectorAll('#rows tr.sample')).map(r => r.dataset.tier)"
        )
        assert set(tiers) == {tier}
        assert browser.evaluate("document.getElementById('shown').textContent") == str(
            len(expected)
        )

    # Open a failed row: its question, expected, response and components show, as text.
    browser.evaluate(
        "window.llmeval.filter({tier: 'fail', text: ''}); document.querySelector('#rows tr.sample').click()"
    )
    detail = browser.evaluate("document.querySelector('#rows tr.detail').innerText")
    assert "</script><script>window.__xss = 1</script>" in detail
    assert "Components" in detail
    assert "accuracy" in detail
    assert browser.evaluate("window.__xss === undefined")
    # Text filter, score sort and task/domain filters.
    assert (
        browser.evaluate("window.llmeval.filter({tier: '', text: 'CAPITAL 1'})") == 2
    )  # capital 10?, capital 15?
    assert sorted(browser.evaluate("window.llmeval.shownIds()")) == sorted(
        s["sample_id"] for s in report["sample_results"] if "capital 1" in (s["question"] or "")
    )
    browser.evaluate("window.llmeval.filter({text: '', sort: 'score-asc'})")
    ids = browser.evaluate("window.llmeval.matching()")
    scores = {s["sample_id"]: s["scores"]["overall"] for s in report["sample_results"]}
    scored = [scores[i] for i in ids if scores[i] is not None]
    assert len(ids) == 40
    assert scored == sorted(scored)
    assert all(scores[i] is None for i in ids[len(scored) :])  # unscored errors last
    browser.evaluate("window.llmeval.filter({task: 'math', domain: 'geo', sort: 'file'})")
    expected = [
        s["sample_id"]
        for s in report["sample_results"]
        if s["task"] == "math" and s["domain"] == "geo"
    ]
    assert sorted(browser.evaluate("window.llmeval.matching()")) == sorted(expected)
    browser.evaluate("window.llmeval.filter({task: '', domain: '', tier: 'fail'})")
    screenshot = browser.screenshot(tmp_path / "report.png")
    assert screenshot.stat().st_size > 10_000
    assert browser.console_errors() == []
    assert browser.requested_urls() == [url]


def test_html_is_self_contained_and_escapes_hostile_text() -> None:
    pytest.importorskip("jinja2")
    from pytest_llmeval.report.html import render_html

    report = handmade_report()
    hostile = report["sample_results"][0]
    for key in (
        "sample_id",
        "question",
        "expected",
        "predicted",
        "reason",
        "task",
        "accuracy_grader",
    ):
        hostile[key] = HOSTILE
    report["warnings"] = [HOSTILE]
    report["metadata"]["model"] = HOSTILE
    text = render_html(report)
    # Only the page's own three script elements close; the hostile text cannot open or close one.
    assert len(re.findall(r"</script", text, flags=re.IGNORECASE)) == 3
    assert "<img src=x" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "Content-Security-Policy" in text
    data = text.split('<script type="application/json" id="llmeval-data">', 1)[1].split(
        "</script>", 1
    )[0]
    samples = json.loads(data)["samples"]
    assert [s["sample_id"] for s in samples] == [HOSTILE, "a2"]
    assert samples[0]["predicted"] == HOSTILE


@needs("html")
def test_ctrl_c_still_writes_an_incomplete_html_report(pytester: pytest.Pytester) -> None:
    result = run_interrupted_at_s2(pytester, "--llm-html=r.html")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    text = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert 'id="incomplete"' in text
    assert "(incomplete)</title>" in text
    assert '"sample_id":"s1"' in text
    assert '"sample_id":"s2"' not in text


@needs("html")
def test_html_from_ini_and_no_jinja2_import_without_it(pytester: pytest.Pytester) -> None:
    write_suite(pytester, mixed_suite(5))
    pytester.makeconftest(
        BROKEN_GRADER
        + "\nimport sys\n\ndef pytest_unconfigure(config):\n    print('JINJA', 'jinja2' in sys.modules)\n"
    )
    result = pytester.runpytest_subprocess(
        "-s", "-p", "no:xdist", "-p", "no:html"
    )  # pytest-html imports jinja2 itself
    result.stdout.fnmatch_lines(["*JINJA False*"])
    assert not (pytester.path / "ini.html").exists()
    pytester.makeini("[pytest]\nllm_html = ini.html\n")
    result = pytester.runpytest_subprocess("-s", "-p", "no:xdist", "-p", "no:html")
    result.stdout.fnmatch_lines(["*JINJA True*"])
    assert (pytester.path / "ini.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# -- sections that come from other features' keys, rendered from a hand-made report ----------------


def handmade_report() -> dict[str, Any]:
    samples = [
        {
            "sample_id": "a1",
            "nodeid": "x.jsonl::a1",
            "kind": "gold",
            "file": "x.jsonl",
            "question": "q",
            "expected": "e",
            "predicted": "p",
            "task": "qa",
            "domain": "geo",
            "scores": {"overall": 0.5},
            "status": "fail",
            "reason": "r",
            "accuracy_grader": "exact",
            "refusal": False,
            "needs_review": True,
            "baseline_status": "newly_failing",
            "repeats": [
                {"status": t, "score": 0.5} for t in ("pass", "fail", "pass", "fail", "fail")
            ],
            "pass_count": 2,
            "stability": "flaky",
            "pass_at_k": True,
            "pass_all_k": False,
        },
        {
            "sample_id": "a2",
            "nodeid": "x.jsonl::a2",
            "kind": "gold",
            "file": "x.jsonl",
            "question": "q",
            "expected": "e",
            "predicted": "p",
            "task": "qa",
            "domain": "geo",
            "scores": {"overall": float("nan")},
            "status": "pass",
            "reason": "",
            "accuracy_grader": "exact",
            "refusal": False,
            "needs_review": False,
            "repeats": [{"status": "pass", "score": 1.0}] * 5,
            "pass_count": 5,
            "stability": "stable_pass",
        },
    ]
    return {
        "metadata": {"model": "gpt-x", "judge": "openai:judge-y", "incomplete": False},
        "aggregate_metrics": {"pass_rate": 0.5, "min_pass_rate": 0.9, "gate_passed": False},
        "by_task": {
            "qa": {"total": 2, "pass": 1, "acceptable": 0, "fail": 1, "error": 0, "pass_rate": 0.5}
        },
        "sample_results": samples,
        "comparison": {
            "baseline": {
                "path": "base.json",
                "model": "gpt-old",
                "judge": "offline",
                "timestamp": "2026-01-01",
            },
            "paired": 2,
            "newly_failing": ["x.jsonl::a1"],
            "newly_passing": [],
            "only_in_baseline": ["x.jsonl::gone"],
            "only_in_run": [],
            "pass_rate_delta": -0.25,
            "ci95": [-0.5, 0.01],
            "test": "mcnemar-exact",
            "p_value": 0.0312,
            "significant_regression": True,
        },
        "by_model": {
            "gpt-x": {"pass_rate": 0.5, "overall_score": 0.61},
            "gpt-old": {"pass_rate": 0.75, "overall_score": 0.8},
        },
        "human_agreement": {
            "verdict_rule": "rule",
            "sources": {"import": "r.csv"},
            "not_compared": 0,
            "overall": {
                "n": 2,
                "agree": 1,
                "agreement": 0.5,
                "kappa": 0.0,
                "table": {
                    "plugin_pass": {"human_pass": 1, "human_fail": 0},
                    "plugin_fail": {"human_pass": 1, "human_fail": 0},
                },
            },
            "by_grader": {},
            "disagreements": [
                {
                    "id": "x.jsonl::a1",
                    "plugin": "fail",
                    "human": "pass",
                    "tier": "fail",
                    "score": 0.5,
                    "grader": "exact",
                    "reason": "r",
                    "human_note": "<b>fine</b>",
                    "source": "r.csv row 2",
                }
            ],
        },
    }


def test_optional_sections_render_when_the_report_has_them() -> None:
    pytest.importorskip("jinja2")
    from pytest_llmeval.report.html import render_html

    text = render_html(handmade_report())
    for anchor in ('id="comparison"', 'id="flaky"', 'id="by-model"', 'id="human-agreement"'):
        assert anchor in text
    assert "significant regression" in text
    assert "gpt-old" in text
    assert "mcnemar-exact" in text
    assert "0.0312" in text
    assert "FAILED</span> no significant regression vs baseline" in text
    flaky = text.split('id="flaky"', 1)[1].split("</section>", 1)[0]
    assert "a1" in flaky
    assert "a2" not in flaky
    assert "&lt;b&gt;fine&lt;/b&gt;" in text
    assert '"overall":null' in text  # NaN becomes null: JSON.parse would reject NaN
    assert 'value="baseline:newly_failing"' in text
    assert "pass 0.5, fail 0.5, pass 0.5, fail 0.5, fail 0.5" in flaky


def test_flaky_from_numeric_stability_or_the_report_list() -> None:
    pytest.importorskip("jinja2")
    from pytest_llmeval.report.html import render_html

    report = handmade_report()
    a1, a2 = report["sample_results"]
    a1.update(repeats=5, pass_count=5, stability=1.0)
    a2.update(repeats=4, pass_count=1, stability=0.25)
    flaky = render_html(report).split('id="flaky"', 1)[1].split("</section>", 1)[0]
    assert "a2" in flaky
    assert "a1" not in flaky
    a2.update(repeats=4, pass_count=4, stability=1.0)
    report["flaky_samples"] = ["a1"]
    flaky = render_html(report).split('id="flaky"', 1)[1].split("</section>", 1)[0]
    assert "a1" in flaky
    assert "a2" not in flaky


def test_gates_list_is_the_headline_verdict_when_present() -> None:
    pytest.importorskip("jinja2")
    from pytest_llmeval.report.html import render_html

    report = handmade_report()
    report["gates"] = [
        {"name": "pass_rate", "passed": True, "message": "pass rate 95.0% >= 90.0%"},
        {"name": "regression", "passed": False, "message": "2 newly failing <samples>"},
    ]
    headline = render_html(report).split('id="headline"', 1)[1].split("</section>", 1)[0]
    assert 'class="ok">PASSED</span> pass rate 95.0% &gt;= 90.0%' in headline
    assert 'class="bad">FAILED</span> 2 newly failing &lt;samples&gt;' in headline


def test_optional_sections_absent_without_their_keys() -> None:
    pytest.importorskip("jinja2")
    from pytest_llmeval.report.html import render_html

    report = handmade_report()
    for key in ("comparison", "by_model", "human_agreement"):
        del report[key]
    for sample in report["sample_results"]:
        for key in ("repeats", "pass_count", "stability"):
            sample.pop(key, None)
    text = render_html(report)
    for anchor in ('id="comparison"', 'id="flaky"', 'id="by-model"', 'id="human-agreement"'):
        assert anchor not in text


def test_handmade_sections_in_chromium(browser: Chromium, tmp_path: Path) -> None:
    from pytest_llmeval.report.html import write_html

    path = tmp_path / "r.html"
    write_html(path, handmade_report())
    browser.open(path.as_uri())
    assert browser.console_errors() == []
    assert browser.evaluate("window.llmeval.filter({flag: 'baseline:newly_failing'})") == 1
    assert browser.evaluate("window.llmeval.shownIds()") == ["a1"]
    browser.evaluate("document.querySelector('#rows tr.sample').click()")
    assert "stability: flaky" in browser.evaluate(
        "document.querySelector('#rows tr.detail').innerText"
    )
    assert browser.evaluate("window.llmeval.filter({flag: 'flaky'})") == 1
    assert browser.evaluate("window.llmeval.shownIds()") == ["a1"]
    assert (
        browser.evaluate("document.querySelector('#rows tr.sample').innerText").count("2/5 passed")
        == 1
    )
    browser.screenshot(tmp_path / "handmade.png")
