"""Conversations: several expected assistant turns, asked and graded turn by turn."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.fake_openai import FakeOpenAIServer, Reply

pytest_plugins = ["pytester"]

SYSTEM = "Du er en regnskapsassistent. Svar kort på norsk bokmål."
# Turn 1 leaves out what decides the VAT rate: the assistant should ask.
TURNS = [
    (
        "Hvilken mva-sats gjelder for salget mitt?",
        "Hva selger du: varer, matvarer eller persontransport?",
        {"clarify": True},
    ),
    (
        "Matvarer i butikk.",
        "Matvarer har redusert sats, 15 prosent.",
        {"must_include": ["15 prosent"]},
    ),
    (
        "Og hvis kunden spiser i kafeen?",
        "Servering har alminnelig sats, 25 prosent.",
        {"must_include": ["25 prosent"]},
    ),
]
CRITERIA = {"accuracy": "exact", "weights": {"length": 0}}


def conversation(
    sample_id: str = "vat-chat", responses: list[str] | None = None, **criteria: Any
) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    for index, (user, gold, turn_criteria) in enumerate(TURNS):
        messages.append({"role": "user", "content": user})
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": gold,
            "eval_criteria": turn_criteria,
        }
        if responses is not None:
            assistant["response"] = responses[index]
        messages.append(assistant)
    return {"id": sample_id, "messages": messages, "eval_criteria": {**CRITERIA, **criteria}}


def scripted_model(body: dict[str, Any]) -> str:
    """Answers each gold user turn with the gold reply (a perfect model)."""
    last = body["messages"][-1]["content"]
    return next(gold for user, gold, _ in TURNS if user == last)


def model_args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "--llm-model=gpt-test",
        f"--llm-base-url={server.url}",
        "--llm-cache-dir=llm_cache",
        *extra,
    ]


def test_three_turns_three_requests_on_record_none_on_replay(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    write_suite(pytester, [conversation()], "chat_eval.jsonl")
    fake_openai.reply_with(scripted_model)
    result = pytester.runpytest(*model_args(fake_openai, "--llm-report=r.json"))
    result.assert_outcomes(passed=1)
    assert fake_openai.chat_requests == 3
    # the second request holds the model's own first reply, then the second user turn
    second = fake_openai.requests[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == TURNS[0][1]
    assert all(set(m) == {"role", "content"} for m in second)  # gold criteria never sent
    report = json.loads((pytester.path / "r.json").read_text())
    turns = report["sample_results"][0]["turns"]
    assert [(t["turn"], t["tier"], t["accuracy_grader"]) for t in turns] == [
        (1, "pass", "clarify"),
        (2, "pass", "exact"),
        (3, "pass", "exact"),
    ]

    fake_openai.reset()
    fake_openai.reply_with(lambda body: Reply.error(500, "the replay must not call the model"))
    replay = pytester.runpytest(*model_args(fake_openai, "--llm-record=none"))
    replay.assert_outcomes(passed=1)
    assert fake_openai.chat_requests == 0


def test_model_context_sends_the_models_own_reply_and_gold_context_the_gold(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.reply_with(lambda body: f"svar {len(body['messages'])}")
    write_suite(
        pytester,
        [conversation("own"), conversation("gold", conversation={"context": "gold"})],
        "chat_eval.jsonl",
    )
    pytester.runpytest(*model_args(fake_openai))
    by_first_user = {}
    for body in fake_openai.requests:
        if len(body["messages"]) == 4:
            by_first_user[body["messages"][2]["content"]] = body
    assert set(by_first_user) == {"svar 2", TURNS[0][1]}


@pytest.mark.parametrize(
    ("first_reply", "outcome"),
    [("Hva selger du, varer eller tjenester?", "passed"), ("Satsen er 25 prosent.", "failed")],
)
def test_clarify_turn_passes_only_when_the_reply_asks(
    pytester: pytest.Pytester, first_reply: str, outcome: str
) -> None:
    responses = [first_reply, TURNS[1][1], TURNS[2][1]]
    write_suite(
        pytester,
        [conversation(responses=responses, conversation={"aggregate": "min"})],
        "chat_eval.jsonl",
    )
    result = pytester.runpytest()
    result.assert_outcomes(**{outcome: 1})
    if outcome == "failed":
        result.stdout.fnmatch_lines(
            [
                "*conversation 'vat-chat'*graded FAIL: worst of 3 turns 0.000*",
                "*turn 1: FAIL*answers without asking the clarifying question*",
                "*turn 2: PASS*",
            ]
        )


def test_pre_recorded_conversation_under_xdist_with_repeats(pytester: pytest.Pytester) -> None:
    wrong = [TURNS[0][1], TURNS[1][1], "Servering har redusert sats, 15 prosent."]
    write_suite(
        pytester,
        [
            conversation("good", responses=[t[1] for t in TURNS]),
            conversation("bad", responses=wrong),
        ],
        "chat_eval.jsonl",
    )
    result = pytester.runpytest(
        "-n", "2", "--llm-repeat=2", "--llm-report=r.json", "--junitxml=j.xml"
    )
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {s["sample_id"]: s for s in report["sample_results"]}
    assert [t["tier"] for t in by_id["bad"]["turns"]] == ["pass", "pass", "fail"]
    assert by_id["bad"]["pass_count"] == 0
    assert by_id["good"]["pass_count"] == 2
    assert 'name="llmeval_turns" value="pass,pass,fail"' in (pytester.path / "j.xml").read_text()


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "assistant", "content": "c"},
            ],
            "*field 'messages[[]2].role': a conversation alternates user and assistant turns; got 'assistant' after 'assistant'*",
        ),
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b", "eval_criteria": {"clarfy": True}},
                {"role": "user", "content": "c"},
                {"role": "assistant", "content": "d"},
            ],
            "*field 'messages[[]1].eval_criteria.clarfy': unknown key; did you mean*clarify*",
        ),
        (
            [
                m
                for _ in range(101)
                for m in ({"role": "user", "content": "a"}, {"role": "assistant", "content": "b"})
            ],
            "*field 'messages': a conversation of 101 turns; at most 100*",
        ),
    ],
)
def test_bad_turn_list_is_one_located_error(
    pytester: pytest.Pytester, messages: list[dict[str, Any]], message: str
) -> None:
    write_suite(
        pytester,
        [conversation(responses=[t[1] for t in TURNS]), {"id": "bad", "messages": messages}],
        "c_eval.jsonl",
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*c_eval.jsonl:2: " + message.lstrip("*")])


@pytest.mark.parametrize(
    ("reply", "asks"),
    [
        ("Hva selger du?", True),
        ("Gjelder det matvarer eller servering", True),  # a question word, no question mark
        ("Satsen er 25 prosent.", False),
        ("Hvalen er stor.", False),  # "hva" only as a word
        ("Could you tell me what you sell?", True),
    ],
)
def test_clarify_grader_sees_a_question(reply: str, asks: bool) -> None:
    from pytest_llmeval.conversation.clarify import grade
    from pytest_llmeval.registry import GradeContext

    assert (
        grade(GradeContext(response=reply, expected="", question=None, criteria={})).passed is asks
    )


def test_a_turn_with_expected_structured_is_graded_field_by_field(
    pytester: pytest.Pytester,
) -> None:
    gold = {
        "lines": [
            {"account": 3000, "vat_code": "3", "credit": 1000.0},
            {"account": 1500, "debit": 1250.0},
            {"account": 2700, "credit": 250.0},
        ]
    }
    answer = json.dumps(
        {
            "lines": [
                {"account": 1500, "debit": 1250},
                {"account": 3000, "vat_code": "3", "credit": 1000},
                {"account": 2700, "credit": 250},
            ]
        }
    )
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Jeg har solgt varer for 1 000 kr eks. mva."},
        {
            "role": "assistant",
            "content": "Ble det betalt kontant eller på kreditt?",
            "eval_criteria": {"clarify": True},
            "response": "Ble salget betalt kontant, eller sendte du faktura?",
        },
        {"role": "user", "content": "På faktura. Lag posteringen."},
        {
            "role": "assistant",
            "content": json.dumps(gold),
            "expected_structured": gold,
            "eval_criteria": {"structured": {"balance": True}},
            "response": answer.replace('1500, "debit": 1250', '1500, "debit": 1200'),
        },
    ]
    record = {"id": "sale", "messages": messages, "eval_criteria": {"weights": {"length": 0}}}
    write_suite(
        pytester,
        [
            record,
            {
                **record,
                "id": "sale-min",
                "eval_criteria": {"weights": {"length": 0}, "conversation": {"aggregate": "min"}},
            },
        ],
        "c_eval.jsonl",
    )
    result = pytester.runpytest("--llm-report=r.json")
    assert result.parseoutcomes() == {
        "failed": 1,
        "acceptable": 1,
    }  # the mean of 1.0 and 0.5; the worst
    turns = json.loads((pytester.path / "r.json").read_text())["sample_results"][1]["turns"]
    assert [(t["accuracy_grader"], t["tier"]) for t in turns] == [
        ("clarify", "pass"),
        ("structured", "fail"),
    ]
    assert "lines[1].debit: expected 1250.0, got 1200" in turns[1]["reason"]
    assert "does not balance" in turns[1]["reason"]


def test_baseline_pairs_conversations_and_names_the_one_that_now_fails(
    pytester: pytest.Pytester,
) -> None:
    good = [t[1] for t in TURNS]
    write_suite(
        pytester,
        [conversation("a", responses=good), conversation("b", responses=good)],
        "chat_eval.jsonl",
    )
    pytester.runpytest("--llm-report=base.json")
    eager = ["Satsen er 25 prosent.", *good[1:]]
    write_suite(
        pytester,
        [
            conversation("a", responses=good),
            conversation("b", responses=eager, conversation={"aggregate": "min"}),
        ],
        "chat_eval.jsonl",
    )
    pytester.runpytest("--llm-baseline=base.json", "--llm-report=now.json")
    comparison = json.loads((pytester.path / "now.json").read_text())["comparison"]
    assert comparison["paired"] == 2
    assert comparison["newly_failing"] == ["b"]


def test_python_callable_gets_each_turn_with_its_own_history(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        chatbot=f"""
        SEEN = []
        GOLD = {json.dumps({user: gold for user, gold, _ in TURNS})}

        def reply(sample):
            SEEN.append((sample["id"], [m["role"] for m in sample["messages"]]))
            with open("seen.txt", "a", encoding="utf-8") as handle:
                handle.write(repr(SEEN[-1]) + "\\n")
            return GOLD[sample["messages"][-1]["content"]]
    """
    )
    write_suite(pytester, [conversation()], "chat_eval.jsonl")
    result = pytester.runpytest("--llm-model=python:chatbot:reply")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "seen.txt").read_text().splitlines() == [
        "('vat-chat/turn1', ['system', 'user'])",
        "('vat-chat/turn2', ['system', 'user', 'assistant', 'user'])",
        "('vat-chat/turn3', ['system', 'user', 'assistant', 'user', 'assistant', 'user'])",
    ]


def test_the_progress_line_counts_the_conversation_apart(
    pytester: pytest.Pytester, fake_openai: FakeOpenAIServer
) -> None:
    plain = [
        {"id": f"q{i}", "question": TURNS[0][0], "expected": TURNS[0][1], "eval_criteria": CRITERIA}
        for i in range(2)
    ]
    write_suite(pytester, [*plain, conversation()], "chat_eval.jsonl")
    fake_openai.reply_with(scripted_model)
    result = pytester.runpytest(*model_args(fake_openai, "-p", "no:xdist"))
    result.assert_outcomes(passed=3)
    # 3 samples, 2 prefetched: the line says where the third went
    result.stdout.fnmatch_lines(
        [
            "llmeval answers from openai:gpt-test: 2/2 done, *; 1 conversation(s) answered turn by turn as they run"
        ]
    )
