"""Collection at scale: each real directory once; gold lines bounded."""

from __future__ import annotations

import os

import pytest

from tests.conftest import EXACT, write_suite


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks here")
def test_a_symlinked_directory_loop_collects_each_sample_once(pytester: pytest.Pytester) -> None:
    write_suite(
        pytester,
        [
            {
                "id": f"s{i}",
                "question": "q",
                "expected": "a",
                "response": "a",
                "eval_criteria": EXACT,
            }
            for i in range(3)
        ],
        name="evals/qa_eval.jsonl",
    )
    (pytester.path / "evals" / "back").symlink_to("..", target_is_directory=True)  # a loop
    (pytester.path / "evals" / "self").symlink_to(
        ".", target_is_directory=True
    )  # a loop onto itself
    (pytester.path / "zz_alias").symlink_to("evals", target_is_directory=True)  # a second way in
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest_subprocess("--co", "-q", "-p", "no:xdist", timeout=120)
    collected = [line for line in result.stdout.lines if "::" in line]
    assert collected == [
        "evals/qa_eval.jsonl::s0",
        "evals/qa_eval.jsonl::s1",
        "evals/qa_eval.jsonl::s2",
        "test_plain.py::test_plain",
    ]
    result = pytester.runpytest("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=4)
