"""Length judges long-form answers, or where a suite asks for it; a one-line answer to a one-line gold passes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pytest_llmeval.metrics.length import LengthBands, length_applies
from tests.conftest import write_suite

README = Path(__file__).resolve().parents[2] / "README.md"
LONG_GOLD = " ".join(f"word{i}" for i in range(60))


def quick_start() -> tuple[list[str], list[str], str]:
    """The README's quick start as written: the file tree, the command and the gold lines."""
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S)
    tree = next(body for lang, body in blocks if not lang)
    command = next(body for lang, body in blocks if lang == "bash").strip()
    gold = next(body for lang, body in blocks if lang == "jsonl")
    files = re.findall(r"^\s+(\S+\.jsonl)", tree, flags=re.M)
    return files, shlex.split(command), gold


def test_readme_quick_start_passes_its_own_gate(pytester: pytest.Pytester) -> None:
    files, command, gold = quick_start()
    assert command[0] == "pytest"
    folder = command[1].rstrip("/")
    # The first file of the tree holds the sample lines shown.
    path = pytester.path / folder / files[0]
    path.parent.mkdir(parents=True)
    path.write_text(gold, encoding="utf-8")
    result = pytester.runpytest_subprocess(*command[1:])
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines(["llmeval gate passed: pass rate 100.0% >= 90.0%*"])
    report_arg = next(a for a in command if a.startswith("--llm-report="))
    report = json.loads((pytester.path / report_arg.split("=", 1)[1]).read_text())
    statuses = {s["sample_id"]: s["status"] for s in report["sample_results"]}
    assert statuses["rev-2022"] == "pass"
    assert report["aggregate_metrics"]["gate_passed"] is True


EXACT = {"accuracy": "exact"}


def test_length_applies_only_to_long_golds_or_when_asked(pytester: pytest.Pytester) -> None:
    oslo = {"question": "Capital of Norway?", "expected": "Oslo", "response": "Oslo"}
    write_suite(
        pytester,
        [
            {"id": "oslo", **oslo, "eval_criteria": EXACT},
            {"id": "asked-max-tokens", **oslo, "eval_criteria": {**EXACT, "max_tokens": 50}},
            {
                "id": "asked-bands",
                **oslo,
                "eval_criteria": {**EXACT, "length_bands": {"ideal": [1, 3]}},
            },
            {"id": "asked-weight", **oslo, "eval_criteria": {**EXACT, "weights": {"length": 0.15}}},
            {"id": "info-weight", **oslo, "eval_criteria": {**EXACT, "weights": {"length": 0}}},
            {
                "id": "long-gold",
                "question": "List the words.",
                "expected": LONG_GOLD,
                "response": LONG_GOLD,
                "eval_criteria": EXACT,
            },
        ],
    )
    result = pytester.runpytest("--llm-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    got = {s["sample_id"]: (s["status"], s["scores"]["length"]) for s in report["sample_results"]}
    assert got == {
        "oslo": ("pass", None),  # one-line gold, nothing asks: length does not judge
        "asked-max-tokens": ("acceptable", 0.5),  # 1 token, under the default bands
        "asked-bands": ("pass", 1.0),
        "asked-weight": ("acceptable", 0.5),
        "info-weight": ("pass", 0.5),  # shown, weight 0
        "long-gold": ("pass", 0.8),  # 60 tokens: in the 50-300 ok band
    }, result.stdout.str()


def test_run_wide_settings_ask_for_length(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": "oslo",
                "question": "Capital?",
                "expected": "Oslo",
                "response": "Oslo",
                "eval_criteria": EXACT,
            }
        ],
    )
    for option in ("llm_weights=accuracy=0.7,length=0.3", 'llm_length_bands={"ok": [1, 300]}'):
        pytester.runpytest("--llm-report=r.json", "-o", option)
        report = json.loads((pytester.path / "r.json").read_text())
        assert report["sample_results"][0]["scores"]["length"] is not None, option
    pytester.runpytest(
        "--llm-report=r.json", "-o", "llm_weights=accuracy=0.7,citation=0.2,keywords=0.1"
    )
    assert (
        json.loads((pytester.path / "r.json").read_text())["sample_results"][0]["scores"]["length"]
        is None
    )


@pytest.mark.parametrize(
    ("gold_words", "criteria", "applies"),
    [
        (1, {}, False),
        (49, {}, False),
        (50, {}, True),
        (1, {"max_tokens": 10}, True),
        (1, {"length_bands": {"ok": [1, 5]}}, True),
        (1, {"weights": {"length": 0}}, True),  # shown as info
        (1, {"weights": {"accuracy": 1}}, False),
    ],
)
def test_length_applies_rule(gold_words: int, criteria: dict[str, object], applies: bool) -> None:
    gold = " ".join(["w"] * gold_words)
    assert (
        length_applies(gold, criteria, LengthBands(), run_bands={}, run_weights_changed=False)
        is applies
    )
