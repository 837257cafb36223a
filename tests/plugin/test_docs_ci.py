"""The CI jobs of docs/ci.md, run as written: replay with no key, upload, baseline, gates.

GitHub's and GitLab's own machinery (runners, gh, the artifacts API) cannot run here; everything
the jobs ask of pytest does, with the exact strings the page shows.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest
import yaml  # dev extra

from tests.docs_examples import REPO, extract_blocks
from tests.extras import needs
from tests.fake_openai import FakeOpenAIServer

CAPITALS = {
    "Norway": "Oslo",
    "Sweden": "Stockholm",
    "Denmark": "Copenhagen",
    "Finland": "Helsinki",
    "Iceland": "Reykjavik",
    "Germany": "Berlin",
    "France": "Paris",
    "Spain": "Madrid",
    "Italy": "Rome",
    "Poland": "Warsaw",
}


def ci_jobs() -> tuple[dict[str, Any], dict[str, Any]]:
    blocks = [
        b
        for b in extract_blocks((REPO / "docs" / "ci.md").read_text(encoding="utf-8"))
        if b.lang == "yaml"
    ]
    github, gitlab = (
        yaml.safe_load(b.text) for b in blocks[:2]
    )  # the sharded jobs follow (tests/test_shards.py)
    return github, gitlab


def github_steps() -> dict[str, dict[str, Any]]:
    steps = ci_jobs()[0]["jobs"]["evals"]["steps"]
    return {step.get("name", step.get("uses", step.get("run", ""))): step for step in steps}


def eval_command() -> list[str]:
    """The pytest command of the GitHub job, which the GitLab job must run word for word."""
    gitlab = ci_jobs()[1]["evals"]
    github = github_steps()["Evals (replayed from the committed cache)"]["run"]
    gitlab_command = next(line for line in gitlab["script"] if line.lstrip().startswith("pytest"))
    assert shlex.split(github) == shlex.split(gitlab_command)
    return shlex.split(github)


def baseline_addopts(script: str) -> list[str]:
    """The PYTEST_ADDOPTS a job's baseline step sets when main's report was found."""
    found = re.search(r'PYTEST_ADDOPTS="?([^"\n]+?)"? >>|export PYTEST_ADDOPTS="([^"]+)"', script)
    assert found, script
    return shlex.split(found[1] or found[2])


def test_jobs_upload_the_reports_and_fetch_main_s_baseline() -> None:
    steps = github_steps()
    outputs = {"llmeval-report.json", "llmeval-report.html", "llmeval-junit.xml"}
    command = eval_command()
    assert command[:2] == ["pytest", "evals/"]
    assert "--llm-record=none" in command
    assert "--llm-min-pass-rate=0.85" in command
    assert {
        a.split("=", 1)[1]
        for a in command
        if a.startswith(("--llm-report=", "--llm-html=", "--junitxml="))
    } == outputs

    upload = steps["Upload reports"]
    assert upload["if"] == "always()"
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert set(upload["with"]["path"].split()) == outputs
    baseline = steps["Baseline (main's last report)"]
    assert f"--name {upload['with']['name']}" in baseline["run"]
    assert "--branch main" in baseline["run"]
    github_opts = baseline_addopts(baseline["run"])

    gitlab = ci_jobs()[1]["evals"]
    assert gitlab["artifacts"]["when"] == "always"
    assert set(gitlab["artifacts"]["paths"]) == outputs
    assert gitlab["artifacts"]["reports"]["junit"] == "llmeval-junit.xml"
    fetch = next(line for line in gitlab["script"] if "PYTEST_ADDOPTS" in line)
    assert "jobs/artifacts/$CI_DEFAULT_BRANCH/raw/llmeval-report.json?job=evals" in fetch
    assert (
        baseline_addopts(fetch)
        == github_opts
        == ["--llm-baseline=baseline/llmeval-report.json", "--llm-fail-on-regression"]
    )


def test_readme_recipe_is_the_ci_page_s_job() -> None:
    """The README shows two steps of the job on the CI page, word for word."""
    readme = next(
        b
        for b in extract_blocks((REPO / "README.md").read_text(encoding="utf-8"))
        if b.lang == "yaml"
    )
    steps = github_steps()
    for step in yaml.safe_load(readme.text):
        assert step == steps[step["name"]]


def _answer_from(wrong: set[str]):  # type: ignore[no-untyped-def]
    def answer(body: dict[str, Any]) -> str:
        country = body["messages"][-1]["content"].removeprefix("Capital of ").rstrip("?")
        return "I am not sure." if country in wrong else CAPITALS[country]

    return answer


@needs("html")
def test_ci_jobs_run_as_written(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    gold = "\n".join(
        json.dumps(
            {
                "id": country.lower(),
                "question": f"Capital of {country}?",
                "expected": city,
                "eval_criteria": {"accuracy": "exact"},
            }
        )
        for country, city in CAPITALS.items()
    )
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "capitals_eval.jsonl").write_text(gold + "\n", encoding="utf-8")
    command = eval_command()[1:]
    record = ["evals/", "--llm-model=openai:gpt-4o-mini", f"--llm-base-url={fake_openai.url}"]

    # 1. record locally (here: against the fake server), as step 1 of the page says
    fake_openai.reply_with(_answer_from(set()))
    assert pytester.runpytest(*record, "--llm-record=new").ret == pytest.ExitCode.OK
    assert len(fake_openai.requests) == len(CAPITALS)

    # 2. main: the job's command replays with no key, no base URL and no request; no baseline yet
    fake_openai.requests.clear()
    main = pytester.runpytest(*command)
    assert main.ret == pytest.ExitCode.OK, main.stdout.str()
    assert fake_openai.requests == []
    main.stdout.fnmatch_lines(["llmeval gate passed: pass rate 100.0% >= 85.0% (10 of 10)"])
    for output in ("llmeval-report.json", "llmeval-report.html", "llmeval-junit.xml"):
        assert (pytester.path / output).is_file()
    (pytester.path / "baseline").mkdir()
    (pytester.path / "llmeval-report.json").rename(
        pytester.path / "baseline" / "llmeval-report.json"
    )

    # 3. a pull request re-recorded answers that got worse: the baseline step's options fail it
    fake_openai.reply_with(
        _answer_from({"Denmark", "Finland", "Iceland", "Germany", "France", "Spain"})
    )
    assert pytester.runpytest(*record, "--llm-record=all").ret == pytest.ExitCode.TESTS_FAILED
    fake_openai.requests.clear()
    options = baseline_addopts(github_steps()["Baseline (main's last report)"]["run"])
    pr = pytester.runpytest(*command, *options)
    assert pr.ret == pytest.ExitCode.TESTS_FAILED
    assert fake_openai.requests == []
    pr.stdout.fnmatch_lines(
        [
            "llmeval regression gate FAILED: significantly worse than baseline baseline/llmeval-report.json*"
        ]
    )
    report = json.loads((pytester.path / "llmeval-report.json").read_text(encoding="utf-8"))
    assert report["comparison"]["newly_failing"]
    assert report["comparison"]["significant_regression"] is True
