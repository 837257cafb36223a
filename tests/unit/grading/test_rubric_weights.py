"""The rubric's weights and length bands: worked out once per run, right when the run changes them."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_llmeval.components import ComponentRegistry
from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult
from pytest_llmeval.models.base import Answer
from pytest_llmeval.options import Settings
from pytest_llmeval.registry import GraderRegistry
from pytest_llmeval.rubric import Rubric
from pytest_llmeval.sample import Sample
from pytest_llmeval.schema import normalise

LONG_GOLD = " ".join(["word"] * 60)


def sample(**criteria: object) -> Sample:
    return normalise(
        {"id": "s", "question": "q?", "expected": LONG_GOLD, "eval_criteria": criteria},
        path="x.jsonl",
        line=1,
        defaults={},
    )


def test_a_component_registered_after_grading_began_gets_its_weight() -> None:
    components = ComponentRegistry()
    rubric = Rubric(Settings.defaults(), GraderRegistry(), components=components)
    before = rubric.weights_for({})
    components.register("tone", lambda ctx: MetricResult(metric="tone", score=1.0), weight=0.3)
    after = rubric.weights_for({})
    assert "tone" not in before
    assert after["tone"] == 0.3
    after["tone"] = 9.0  # a caller's copy: the next sample still gets the run's weights
    assert rubric.weights_for({})["tone"] == 0.3


def test_a_sample_s_own_weights_apply_to_it_alone() -> None:
    rubric = Rubric(Settings.defaults(), GraderRegistry())
    assert rubric.weights_for({"weights": {"accuracy": 2}})["accuracy"] == 2.0
    assert rubric.weights_for({})["accuracy"] == 0.5
    with pytest.raises(GraderError, match="unknown rubric component"):
        rubric.weights_for({"weights": {"nope": 1}})


def test_length_bands_follow_the_settings_of_each_rubric() -> None:
    answer = Answer(text=" ".join(["w"] * 60), source="response")
    narrow = dataclasses.replace(
        Settings.defaults(), length_bands={"ideal": [55, 65], "ok": [50, 70]}
    )
    graded = []
    for settings in (Settings.defaults(), narrow, Settings.defaults()):
        grade = Rubric(settings, GraderRegistry()).grade(sample(), answer)
        graded.append(grade.components["length"].score)
    assert graded == [0.8, 1.0, 0.8]  # 60 tokens: the default ok band, the narrow ideal band
    per_sample = Rubric(narrow, GraderRegistry()).grade(
        sample(length_bands={"ideal": [1, 10]}), answer
    )
    assert per_sample.components["length"].score == 0.8  # the sample's ideal band, the run's ok
