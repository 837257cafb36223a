"""``--llm-repeat=N``: each sample answered and graded N times; stability, pass@k, cached repeats."""

from __future__ import annotations

import collections
import json
import threading
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer
from tests.regression_helpers import EXACT, MODEL, load, make_suite, run, set_wrong


def test_right_wrong_right_is_flaky_and_the_tier_comes_from_the_mean(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    make_suite(pytester, 6)
    set_wrong(
        pytester,
        {"s01": [True, False, True], "s02": [False, False, False], "s03": [True, True, False]},
    )
    result = run(
        pytester, MODEL, "--llm-repeat=3", "--llm-report=r.json", "--junitxml=j.xml", *plugin_args
    )
    report = load(pytester, "r.json")
    samples = {s["sample_id"]: s for s in report["sample_results"]}
    s01 = samples["s01"]
    assert s01["stability"] == "flaky"
    assert s01["pass_count"] == 2
    assert s01["pass_at_k"] is True
    assert s01["pass_all_k"] is False
    assert s01["repeats"] == [
        {"status": "pass", "score": 1.0},
        {"status": "fail", "score": 0.0},
        {"status": "pass", "score": 1.0},
    ]
    # mean overall 0.667 is below the acceptable cut-off 0.75: the item fails although 2 of 3 passed
    assert s01["status"] == "fail"
    assert s01["scores"]["overall"] == pytest.approx(0.6667, abs=1e-4)
    assert samples["s00"]["stability"] == "stable_pass"
    assert samples["s00"]["pass_all_k"] is True
    assert samples["s02"]["stability"] == "stable_fail"
    assert samples["s02"]["pass_at_k"] is False
    assert samples["s03"]["pass_count"] == 2
    aggregate = report["aggregate_metrics"]
    assert (
        aggregate["repeat"],
        aggregate["flaky"],
        aggregate["stable_pass"],
        aggregate["stable_fail"],
    ) == (3, 2, 3, 1)
    assert aggregate["mean_pass_rate"] == pytest.approx((3 + 2 + 0 + 2 + 3 + 3) / 18, abs=1e-6)
    low, high = aggregate["mean_pass_rate_ci95"]
    assert low < aggregate["mean_pass_rate"] < high
    assert report["flaky_samples"] == ["s01", "s03"]
    assert result.parseoutcomes() == {"passed": 3, "failed": 3}  # s01, s03 (mean 0.667) and s02
    result.stdout.fnmatch_lines(
        [
            "repeats: 3 per sample | stable pass 3  flaky 2  stable fail 1 | mean pass rate 72.2% (95% CI *) | pass@k 83.3%  pass^k 50.0%",
            "flaky samples (2):",
            "  qa_eval.jsonl::s01  2 of 3 passed: pass fail pass",
            "  qa_eval.jsonl::s03  2 of 3 passed: pass pass fail",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*repeats: 2 of 3 passed (flaky): pass 1.00, fail 0.00, pass 1.00"]
    )
    assert 'name="llmeval_stability" value="flaky"' in (pytester.path / "j.xml").read_text()


def _flip_every_other(server: FakeOpenAIServer) -> collections.Counter[str]:
    """Answers the question, except every second time a question is asked (a noisy model)."""
    asked: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def reply(body: dict[str, Any]) -> str:
        question = body["messages"][-1]["content"]
        with lock:
            asked[question] += 1
            n = asked[question]
        return question if n % 2 else "no idea"

    server.reply_with(reply)
    return asked


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["no-xdist", "xdist-2"])
def test_each_repeat_is_its_own_cached_request_and_replays_with_none(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, xdist: list[str]
) -> None:
    questions = [f"Question number {i}?" for i in range(5)]
    write_suite(
        pytester,
        [
            {"id": f"q{i}", "question": q, "expected": q, "eval_criteria": EXACT}
            for i, q in enumerate(questions)
        ],
    )
    args = [
        "--llm-model=gpt-test",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
        "--llm-repeat=3",
    ]
    asked = _flip_every_other(fake_openai)
    first = pytester.runpytest(*args, "--llm-report=first.json", *xdist)
    assert len(fake_openai.requests) == 15  # 3 per sample
    assert dict(asked) == dict.fromkeys(questions, 3)
    cached = sorted(p.name for p in (pytester.path / "llm_cache").rglob("*.json"))
    assert len(cached) == 15
    report = load(pytester, "first.json")
    assert {s["sample_id"]: s["pass_count"] for s in report["sample_results"]} == dict.fromkeys(
        [f"q{i}" for i in range(5)], 2
    )
    assert report["aggregate_metrics"]["flaky"] == 5

    fake_openai.reset()
    second = pytester.runpytest(*args, "--llm-record=none", "--llm-report=second.json", *xdist)
    assert fake_openai.requests == []
    assert second.ret == first.ret
    replayed = load(pytester, "second.json")
    assert [s["repeats"] for s in replayed["sample_results"]] == [
        s["repeats"] for s in report["sample_results"]
    ]


def test_a_single_run_cache_replays_as_repeat_one(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    questions = [f"Question number {i}?" for i in range(4)]
    write_suite(
        pytester,
        [
            {"id": f"q{i}", "question": q, "expected": q, "eval_criteria": EXACT}
            for i, q in enumerate(questions)
        ],
    )
    args = [
        "--llm-model=gpt-test",
        f"--llm-base-url={fake_openai.url}",
        "--llm-cache-dir=llm_cache",
    ]
    fake_openai.reply_with(lambda body: body["messages"][-1]["content"])
    assert pytester.runpytest(*args).ret == pytest.ExitCode.OK
    assert len(fake_openai.requests) == 4
    fake_openai.reset()
    assert pytester.runpytest(*args, "--llm-repeat=2").ret == pytest.ExitCode.OK
    assert len(fake_openai.requests) == 4  # only the second repeats are new requests
    fake_openai.reset()
    assert (
        pytester.runpytest(*args, "--llm-repeat=2", "--llm-record=none").ret == pytest.ExitCode.OK
    )
    assert fake_openai.requests == []


def test_repeat_option_checked_and_python_model_sees_the_repeat_index(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester, 2)
    result = run(pytester, MODEL, "--llm-repeat=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--llm-repeat='0' (ini llm_repeat / --llm-repeat): must be a positive integer*"]
    )
    pytester.makepyfile(
        seen="""
import json, pathlib
def answer(sample):
    with open(pathlib.Path(__file__).parent / "seen.jsonl", "a") as handle:
        handle.write(json.dumps([sample["id"], sample.get("repeat")]) + "\\n")
    return sample["expected"]
"""
    )
    pytester.makeini("[pytest]\nllm_repeat = 2\n")
    assert run(pytester, "--llm-model=python:seen:answer").ret == pytest.ExitCode.OK
    seen = [json.loads(line) for line in (pytester.path / "seen.jsonl").read_text().splitlines()]
    assert sorted(map(tuple, seen)) == [("s00", 1), ("s00", 2), ("s01", 1), ("s01", 2)]


def test_repeats_against_a_baseline_use_the_paired_permutation_test(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester, 12)
    set_wrong(pytester, {})
    assert (
        run(pytester, MODEL, "--llm-repeat=3", "--llm-report=base.json").ret == pytest.ExitCode.OK
    )
    # 8 samples now fail 2 of 3 repeats: a drop of 16/36 in mean pass fraction
    set_wrong(pytester, {f"s{i:02d}": [True, False, False] for i in range(8)})
    result = run(
        pytester,
        MODEL,
        "--llm-repeat=3",
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-gate-only",
        "--llm-report=new.json",
    )
    comparison = load(pytester, "new.json")["comparison"]
    assert comparison["test"] == "paired_permutation"
    assert comparison["exact"] is True
    assert comparison["p_value"] == pytest.approx(
        2 / 2**8
    )  # all 8 differences negative: 2 of 256 sign patterns
    assert comparison["pass_rate_delta"] == pytest.approx(-16 / 36, abs=1e-6)
    assert comparison["significant_regression"] is True
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["  test: paired permutation, p=0.007812"])
