"""One grading path: the same (question, expected, answer) gets the same verdict as a single sample,
an alias, a conversation turn and a structured field, in a default gold-file run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import write_suite
from tests.found_classes import PATHS, Variant, records, variants

pytest_plugins = ["pytester"]

# (question, expected, answer, a passed verdict?)
TRIPLES: list[tuple[str, str, str, bool]] = [
    (
        "What was Acme's net income?",
        "A net loss of $3.2 million",
        "Acme reported a net profit of $3.2 million",
        False,
    ),
    (
        "What was Acme's net income?",
        "A net loss of $3.2 million",
        "Acme reported a net loss of $3.2 million.",
        True,
    ),
    (
        "Hva ble årsresultatet?",
        "Et underskudd på 12 millioner kroner",
        "Selskapet fikk et overskudd på 12 millioner kroner.",
        False,
    ),
    (
        "When did fiscal 2021 end?",
        "September 25, 2021",
        "Fiscal 2021 ended on September 24, 2021",
        False,
    ),
    (
        "When did fiscal 2021 end?",
        "September 25, 2021",
        "Fiscal 2021 ended on September 25, 2021.",
        True,
    ),
    ("What is the reduced VAT rate?", "reduced rate of 15%", "reduced rate of 12%", False),
    ("What is the reduced VAT rate?", "reduced rate of 15%", "The reduced rate is 15%.", True),
    (
        "Hva er redusert mva-sats for matvarer?",
        "Matvarer har redusert sats, 15 prosent.",
        "Matvarer har redusert sats på 12 prosent.",
        False,
    ),
    ("What was revenue?", "$1.5 billion", "We booked 1.5B revenue, 500M profit.", True),
    ("What was revenue?", "$500 million", "We booked 1.5B revenue, 500M profit.", False),
    (
        "When did revenue peak?",
        "Revenue peaked in fiscal 2022.",
        "Revenue peaked in fiscal 2021.",
        False,
    ),
    (
        "Hvordan utviklet omsetningen seg?",
        "Omsetningen falt 5 prosent.",
        "Omsetningen økte 5 prosent.",
        False,
    ),
    (
        "How did the company do?",
        "The company made a loss in 2023.",
        "The company made a profit in 2023.",
        False,
    ),
    (
        "How did the company do?",
        "The company made a loss in 2023.",
        "It made a loss in 2023.",
        True,
    ),
]


def _records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for i, (question, expected, answer, _) in enumerate(TRIPLES):
        records.append(
            {"id": f"single-{i}", "question": question, "expected": expected, "response": answer}
        )
        records.append(
            {"id": f"alias-{i}", "question": question, "expected": [expected], "response": answer}
        )
        records.append(
            {
                "id": f"turn-{i}",
                "messages": [
                    {"role": "user", "content": "Hello"},
                    {"role": "assistant", "content": "Hello", "response": "Hello"},
                    {"role": "user", "content": question},
                    {"role": "assistant", "content": expected, "response": answer},
                ],
            }
        )
        records.append(
            {
                "id": f"field-{i}",
                "question": question,
                "expected": expected,
                "expected_structured": {"answer": expected},
                "response": json.dumps({"answer": answer}, ensure_ascii=False),
                "eval_criteria": {"accuracy": "structured"},
            }
        )
    return records


def _passed(status: str) -> bool:
    return status in ("pass", "acceptable")


def test_every_path_gives_the_same_verdict(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    write_suite(pytester, _records())
    pytester.runpytest(*plugin_args, "--llm-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {r["sample_id"]: r for r in report["sample_results"]}
    verdicts = {}
    for i, (question, expected, answer, should_pass) in enumerate(TRIPLES):
        turn = by_id[f"turn-{i}"]["turns"][1]
        verdicts[(question, expected, answer)] = {
            "expected": should_pass,
            "single": _passed(by_id[f"single-{i}"]["status"]),
            "alias": _passed(by_id[f"alias-{i}"]["status"]),
            "turn": _passed(turn["tier"]),
            "field": _passed(by_id[f"field-{i}"]["status"]),
        }
    differing = {k: v for k, v in verdicts.items() if len(set(v.values())) > 1}
    assert not differing


def _variant_sample(every: int = 9) -> list[Variant]:
    """Every ``every``-th found-class variant (the open label and figure forms apart)."""
    from tests.unit.metrics.freetext.test_found_classes import _open

    return [v for v in variants() if not _open(v) and v.difference is None][::every]


def test_found_class_variants_same_and_right_on_every_path(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    """Hidden variants of the found classes (polarity words, other periods, another figure, figures
    tied to labels) in a gold-file run: each path decides as labelled; a right answer written
    another way may be left to review, never failed."""
    sample = _variant_sample()
    write_suite(pytester, [r for i, v in enumerate(sample) for r in records(v, str(i)).values()])
    pytester.runpytest(*plugin_args, "--llm-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {r["sample_id"]: r for r in report["sample_results"]}
    wrong = []
    for i, v in enumerate(sample):
        rows = {p: by_id[f"{p}-{i}"] for p in PATHS}
        tiers = {
            p: (r["turns"][1]["tier"] if p == "turn" else r["status"]) for p, r in rows.items()
        }
        review = {p: bool(r.get("needs_review")) for p, r in rows.items()}
        passed = {p: _passed(tiers[p]) and not review[p] for p in PATHS}
        undecided_right = v.correct and review["single"]
        if any(passed[p] != v.correct for p in PATHS) and not undecided_right:
            wrong.append((v.cls, v.expected, v.answer, v.correct, passed))
    assert len(sample) >= 60
    assert not wrong, wrong[:5]
