"""LLM-assisted numeric extraction (``extractor: llm``): gold-file runs against the fake server over HTTP.

The fake judge plays one reading per answer (keyed by a word of the answer text in the prompt);
each test checks what the plugin made of it: agreement passes, disagreement and an unusable
reading (hallucinated quote, a value not in its quote) need review and do not pass, malformed
JSON is an error outcome, and a replay sends no request at all.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmeval.metrics.numeric.llm_reading import locate_quote, parse_value
from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

LLM = {"numeric": {"extractor": "llm"}, "weights": {"accuracy": 1, "length": 0}}
Q = "What was diluted EPS in FY2023?"


def sample(
    sid: str, response: str, expected: str, criteria: dict[str, Any] = LLM
) -> dict[str, Any]:
    return {
        "id": sid,
        "question": Q,
        "expected": expected,
        "response": response,
        "eval_criteria": criteria,
    }


def reading(value: str, unit: str, scale: str, quote: str, category: str = "diluted EPS") -> str:
    return json.dumps(
        {"value": value, "unit": unit, "scale": scale, "category": category, "quote": quote}
    )


# answer marker -> the judge's reading of that answer
READINGS = {
    "AGREE-PASS": reading("6.11", "USD", "one", "$6.11"),
    "AGREE-FAIL": reading("8.15", "USD", "one", "EPS was $8.15"),
    # The heuristic takes the concluding "$5.0 billion"; the judge reads the earlier figure.
    "DISAGREE": reading("4.2", "USD", "billion", "$4.2 billion"),
    # The answer says $6.15; the judge "quotes" the gold's $6.11, which the answer never wrote.
    "HALLUCINATED": reading("6.11", "USD", "one", "diluted EPS was $6.11"),
    # The quote is real, the value is not in it.
    "VALUE-NOT-QUOTED": reading("6.11", "USD", "one", "EPS was $6.15"),
    # The answer is right and the heuristic passes it; the judge's quote is invented all the same.
    "RIGHT-BUT-INVENTED": reading("6.11", "USD", "one", "EPS came to $6.11 per share"),
    "LOSS": reading("0.28", "USD", "one", "net loss per share was $0.28"),
}

SUITE = [
    sample("agree-pass", "AGREE-PASS: diluted EPS was $6.11.", "$6.11"),
    sample("agree-fail", "AGREE-FAIL: diluted EPS was $8.15.", "$6.11"),
    sample("disagree", "DISAGREE: EPS rose from $4.2 billion to $5.0 billion.", "$4.2 billion"),
]


def judge(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    marker = next((m for m in READINGS if f"{m}:" in prompt), None)
    assert marker is not None, prompt
    return READINGS[marker]


def judge_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-judge=openai:judge-model",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=cache",
        "--llm-report=r.json",
        *extra,
    ]


def results(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    report = json.loads((pytester.path / "r.json").read_text())
    return {r["sample_id"]: r for r in report["sample_results"]}


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["no-xdist", "xdist-2"])
def test_one_request_per_sample_on_record_none_on_replay(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, xdist: list[str]
) -> None:
    write_suite(pytester, SUITE)
    fake_openai.reply_with(judge)
    result = pytester.runpytest(*judge_args(fake_openai, *xdist))
    result.assert_outcomes(passed=1, failed=2)
    assert len(fake_openai.requests) == 3  # one reading per sample, nothing else asked
    schema = fake_openai.requests[0]["response_format"]["json_schema"]["schema"]
    assert sorted(schema["properties"]) == ["category", "quote", "scale", "unit", "value"]
    assert schema["additionalProperties"] is False
    # The gold is not in the prompt: the reading must not lean towards it.
    assert all(
        "$6.11" not in json.dumps(r["messages"])
        for r in fake_openai.requests
        if "AGREE-FAIL" in json.dumps(r["messages"])
    )
    recorded = results(pytester)
    assert [recorded[s]["needs_review"] for s in ("agree-pass", "agree-fail", "disagree")] == [
        False,
        False,
        True,
    ]

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the judge"))
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-record=none", *xdist))
    result.assert_outcomes(passed=1, failed=2)
    assert fake_openai.requests == []
    replayed = results(pytester)
    for sid, record in recorded.items():
        assert (
            replayed[sid]["status"],
            replayed[sid]["needs_review"],
            replayed[sid]["reason"],
        ) == (record["status"], record["needs_review"], record["reason"])


def test_agreement_passes_and_says_so(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(
        pytester,
        [SUITE[0], sample("loss", "LOSS: the basic net loss per share was $0.28.", "$(0.28)")],
    )
    fake_openai.reply_with(judge)
    result = pytester.runpytest(*judge_args(fake_openai))
    result.assert_outcomes(passed=2)
    for record in results(pytester).values():
        assert record["status"] == "pass"
        assert record["needs_review"] is False
        assert "The LLM reading agrees: LLM read" in record["reason"]
    # The sign carried by "loss" is read for the judge's "0.28" as for the heuristic's.
    assert "LLM read -0.28 USD" in results(pytester)["loss"]["reason"]


def test_disagreement_needs_review_naming_both_readings(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, [SUITE[2]])
    fake_openai.reply_with(judge)
    result = pytester.runpytest(*judge_args(fake_openai))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "needs review (heuristic and LLM numeric readings disagree):",
            "  qa_eval.jsonl::disagree: *",
        ]
    )
    record = results(pytester)["disagree"]
    assert record["needs_review"] is True
    assert record["review_between"] == "heuristic and LLM numeric readings"
    assert record["scores"]["overall"] == 0.0
    reason = record["reason"]
    assert "NEEDS REVIEW, not a pass" in reason
    assert 'heuristic read 5e9 USD from "$5.0 billion" (fail)' in reason
    assert 'LLM read 4.2e9 USD from "$4.2 billion" (pass' in reason


@pytest.mark.parametrize(
    ("sid", "response", "problem"),
    [
        (
            "hallucinated",
            "HALLUCINATED: diluted EPS was $6.15.",
            "its quote 'diluted EPS was $6.11' is not in the answer",
        ),
        (
            "value-not-quoted",
            "VALUE-NOT-QUOTED: EPS was $6.15.",
            "its value '6.11' is not in its quote 'EPS was $6.15'",
        ),
        (
            "right-but-invented",
            "RIGHT-BUT-INVENTED: diluted EPS was $6.11.",
            "its quote 'EPS came to $6.11 per share' is not in the answer",
        ),
    ],
)
def test_an_unusable_reading_needs_review_and_never_passes(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, sid: str, response: str, problem: str
) -> None:
    write_suite(pytester, [sample(sid, response, "$6.11")])
    fake_openai.reply_with(judge)
    result = pytester.runpytest(*judge_args(fake_openai))
    result.assert_outcomes(failed=1)  # even where the heuristic alone would pass
    record = results(pytester)[sid]
    assert (record["status"], record["needs_review"]) == ("fail", True)
    assert f"LLM reading unusable: {problem}" in record["reason"]
    assert len(fake_openai.requests) == 1  # a well-formed reply: no repair request


def test_quote_is_matched_after_whitespace_normalisation_only() -> None:
    answer = "Diluted EPS\nwas   $6.11\u00a0in FY2023."
    assert locate_quote(answer, "EPS was $6.11 in") == (8, answer.index("in FY") + 2)
    assert locate_quote(answer, "eps was $6.11") is None  # case is not forgiven
    assert locate_quote(answer, "EPS was 6.11") is None  # nor a dropped symbol
    assert locate_quote(answer, "   ") is None


def test_a_quote_found_twice_is_read_where_the_heuristic_read_its_figure() -> None:
    answer = "Debt fell: $49,781 million - $47,237 million = $2,544 million. So debt was reduced by $2,544 million."
    first, second = answer.index("$2,544"), answer.rindex("$2,544")
    assert locate_quote(answer, "$2,544 million") == (first, first + 14)
    assert locate_quote(answer, "$2,544 million", near=second) == (second, second + 14)
    assert locate_quote(answer, "$2,544 million", near=0) == (first, first + 14)


@pytest.mark.parametrize(
    ("text", "decimal_comma", "parsed"),
    [
        ("6.11", False, (6.11, 2, 3, False)),
        ("(0.28)", False, (0.28, 2, 2, True)),
        ("-1,250.5", False, (1250.5, 1, 5, True)),
        ("1,500", False, (1500.0, 0, 2, False)),
        ("1,500", True, (1.5, 3, 4, False)),
        ("1 500,5", True, (1500.5, 1, 5, False)),
        ("8.70", False, (8.7, 2, 3, False)),
        ("five", False, (5.0, 0, 2, False)),
        ("-twelve point five", False, (12.5, 1, 2, True)),
    ],
)
def test_value_is_read_by_the_numeric_token_reader(
    text: str, decimal_comma: bool, parsed: tuple[float, int, int, bool]
) -> None:
    assert parse_value(text, decimal_comma) == parsed


@pytest.mark.parametrize(
    "text",
    [
        "1.5 billion",
        "$6.11",
        "2**10",
        "1e9",
        "__import__('os')",
        "6.11 + 1",
        "",
        "--5",
        "one point five billion",
        "million",
        "x" * 100,
    ],
)
def test_value_that_is_not_one_written_number_is_refused(text: str) -> None:
    assert parse_value(text, False) is None


def test_malformed_judge_json_is_an_error_outcome(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, [SUITE[0]])
    fake_openai.reply_with(
        lambda body: json.dumps(
            {"value": "6.11", "unit": "USD", "scale": "one", "quote": "$6.11", "confidence": 0.9}
        )
    )
    result = pytester.runpytest(*judge_args(fake_openai))
    result.assert_outcomes(errors=1)
    assert len(fake_openai.requests) == 2  # the call and exactly one repair request
    assert (
        "Additional properties are not allowed"
        in fake_openai.requests[1]["messages"][-1]["content"]
    )
    record = results(pytester)["agree-pass"]
    assert record["status"] == "error"
    result.stdout.fnmatch_lines(["*returned unusable JSON after one repair request*"])


@pytest.mark.parametrize(
    "reply",
    [
        "The figure is $6.11.",  # not JSON
        reading("6.11 billion", "USD", "one", "$6.11"),  # a scale word in value
        reading("6.11", "$", "one", "$6.11"),  # a symbol, not a code
        reading("6.11", "USD", "one", ""),  # a value without its quote
        reading("6.11", "USD", "one", "x" * 501),  # over the size bound
    ],
    ids=["not-json", "scale-in-value", "symbol-unit", "no-quote", "quote-too-long"],
)
def test_a_reply_the_schema_or_checks_refuse_twice_is_an_error(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer, reply: str
) -> None:
    write_suite(pytester, [SUITE[0]])
    fake_openai.reply_with(lambda body: reply)
    result = pytester.runpytest(*judge_args(fake_openai))  # in process: five runs
    result.assert_outcomes(errors=1)
    assert len(fake_openai.requests) == 2


def test_failing_judge_call_is_an_error_outcome(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, [SUITE[0]])
    fake_openai.reply_with(lambda body: Reply.error(500, "judge down"))
    result = pytester.runpytest(*judge_args(fake_openai, "-o", "llm_max_retries=0"))
    result.assert_outcomes(errors=1)
    assert results(pytester)["agree-pass"]["status"] == "error"


def test_cli_and_ini_twin_and_per_sample_override(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    plain = {"numeric": True, "weights": {"accuracy": 1, "length": 0}}
    heuristic = {"numeric": {"extractor": "heuristic"}, "weights": {"accuracy": 1, "length": 0}}
    write_suite(
        pytester,
        [
            sample("by-option", "AGREE-PASS: diluted EPS was $6.11.", "$6.11", plain),
            sample(
                "kept-heuristic",
                "DISAGREE: EPS rose from $4.2 billion to $5.0 billion.",
                "$4.2 billion",
                heuristic,
            ),
        ],
    )
    fake_openai.reply_with(judge)
    result = pytester.runpytest(*judge_args(fake_openai, "-o", "llm_numeric_extractor=llm"))
    result.assert_outcomes(passed=1, failed=1)
    assert len(fake_openai.requests) == 1  # the sample that says "heuristic" keeps it
    assert results(pytester)["kept-heuristic"]["needs_review"] is False

    fake_openai.reset()
    fake_openai.reply_with(judge)
    pytester.makeini("[pytest]\nllm_numeric_extractor = llm\n")
    result = pytester.runpytest(*judge_args(fake_openai, "--llm-record=all"))
    result.assert_outcomes(passed=1, failed=1)
    assert len(fake_openai.requests) == 1

    fake_openai.reset()
    result = pytester.runpytest(
        *judge_args(fake_openai, "-o", "llm_numeric_extractor=heuristic", "--llm-record=all")
    )
    result.assert_outcomes(passed=1, failed=1)
    assert fake_openai.requests == []  # the CLI beats the ini; the default asks nobody


def test_bad_option_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-o", "llm_numeric_extractor=regex")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini llm_numeric_extractor='regex': must be one of heuristic|llm*"]
    )


def test_run_wide_llm_extractor_without_a_judge_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-o", "llm_numeric_extractor=llm")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini llm_numeric_extractor=llm needs a judge model: --llm-judge=openai:MODEL*"]
    )


def test_llm_extractor_without_a_judge_is_an_error_naming_the_flag(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester, [sample("no-judge", "diluted EPS was $6.11.", "$6.11")])
    result = pytester.runpytest("--llm-report=r.json")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*extractor 'llm' needs a judge model: --llm-judge=openai:MODEL*"])


def test_gold_schema_refuses_an_unknown_extractor(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester, [sample("bad", "EPS was $6.11.", "$6.11", {"numeric": {"extractor": "regex"}})]
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*qa_eval.jsonl:1*extractor*"])
    assert result.ret != pytest.ExitCode.OK
