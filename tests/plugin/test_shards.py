"""CI shards: --llm-shard=K/N picks a stable share of the suite; merge makes the shards one run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.shard import ci_run_id, parse_shard, sample_key, shard_of
from tests.conftest import INNER_ADDOPTS

REPO = Path(__file__).resolve().parents[2]
pytest_plugins = ["pytester"]


# -- the shard a sample goes to ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "environ", "expected"),
    [
        ("2/4", {}, (2, 4)),
        (" 1/1 ", {}, (1, 1)),
        ("auto", {"LLMEVAL_SHARD": "3/5"}, (3, 5)),
        ("auto", {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, (1, 3)),  # GitLab: 1-based
        (
            "auto",
            {"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "2"},
            (1, 2),
        ),  # 0-based
        ("AUTO", {"CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "4"}, (4, 4)),  # 0-based
    ],
)
def test_shard_values(value: str, environ: dict[str, str], expected: tuple[int, int]) -> None:
    assert parse_shard(value, environ) == expected


@pytest.mark.parametrize("value", ["0/4", "5/4", "1/0", "2", "a/b", "1/2/3", "auto"])
def test_bad_shard_values(value: str) -> None:
    with pytest.raises(ValueError, match=r"K/N|auto"):
        parse_shard(value, {})


def test_run_id_from_ci_variables() -> None:
    assert ci_run_id({"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2"}) == "77-2"
    assert ci_run_id({"CI_PIPELINE_ID": "9"}) == "9"
    assert ci_run_id({"BUILDKITE_BUILD_ID": "b"}) == "b"
    assert ci_run_id({"CIRCLE_WORKFLOW_ID": "w"}) == "w"
    assert ci_run_id({}) is None


def test_adding_100_samples_moves_none_of_2000(tmp_path: Path) -> None:
    before = {
        f"s{i}": shard_of(sample_key("evals/big_eval.jsonl", f"s{i}", tmp_path), 4)
        for i in range(2000)
    }
    after = {
        f"s{i}": shard_of(sample_key("evals/big_eval.jsonl", f"s{i}", tmp_path), 4)
        for i in range(2100)
    }
    assert all(after[k] == v for k, v in before.items())
    assert sorted(set(before.values())) == [1, 2, 3, 4]
    assert min(list(before.values()).count(k) for k in (1, 2, 3, 4)) > 400  # roughly even
    # the key is the file relative to rootdir, however the path is spelled
    assert sample_key(str(tmp_path / "evals" / "big_eval.jsonl"), "s1", tmp_path) == sample_key(
        "evals/big_eval.jsonl", "s1", tmp_path
    )


# -- runs ----------------------------------------------------------------------------------------
def numeric_suite(path: Path, n: int, start: int = 0) -> None:
    lines = []
    for i in range(start, start + n):
        value = 1000 + i
        # every 7th answer wrong, every 11th a bit off (acceptable or fail by the tolerance)
        answer = value * 2 if i % 7 == 0 else value
        lines.append(
            json.dumps(
                {
                    "id": f"q{i}",
                    "question": f"What is figure {i}?",
                    "expected": str(value),
                    "response": f"The figure is {answer}.",
                    "metadata": {"task": f"t{i % 3}", "domain": "numbers"},
                }
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    for name in (
        "PYTEST_XDIST_WORKER",
        "LLMEVAL_SHARD",
        "CI_NODE_INDEX",
        "GITHUB_RUN_ID",
        "CI_PIPELINE_ID",
    ):
        env.pop(name, None)
    # the inner runs' addopts, not the outer session's: none of the dev extra's other plugins
    env["PYTEST_ADDOPTS"] = INNER_ADDOPTS
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


PYTEST = ("-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q")


def comparable(path: Path) -> dict[str, Any]:
    report = json.loads(path.read_text(encoding="utf-8"))
    report.pop("shard", None)
    report["metadata"].pop("timestamp")
    return report


def sharded(cwd: Path, target: str, total: int, *extra: str, workers: int = 0) -> list[Path]:
    paths = []
    for k in range(1, total + 1):
        path = cwd / f"shard{k}.json"
        args = [
            *PYTEST,
            target,
            f"--llm-shard={k}/{total}",
            "--llm-run-id=run-7",
            f"--llm-report={path}",
            *extra,
        ]
        if workers:
            args += ["-n", str(workers)]
        result = run(cwd, *args)
        assert result.returncode in (0, 1, 5), (
            result.stdout + result.stderr
        )  # 5: every test went elsewhere
        paths.append(path)
    return paths


def merge(cwd: Path, paths: list[Path], *extra: str) -> subprocess.CompletedProcess[str]:
    return run(
        cwd,
        "-m",
        "pytest_llmeval",
        "merge",
        *map(str, paths),
        "-o",
        str(cwd / "merged.json"),
        *extra,
    )


EXAMPLES_GATE = ("--llm-min-pass-rate=0.75",)


@pytest.fixture(scope="module")
def whole_example_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The example suites run unsharded, once per module, for each sharding to compare with.

    Each sharding writes its shard, merged and JUnit files here too, over the previous one's.
    """
    cwd = tmp_path_factory.mktemp("whole_examples")
    shutil.copytree(REPO / "example_suites", cwd / "example_suites")
    (cwd / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    whole = run(
        cwd,
        *PYTEST,
        "example_suites",
        f"--llm-report={cwd / 'whole.json'}",
        "--junitxml=whole.xml",
        *EXAMPLES_GATE,
    )
    return cwd, whole


@pytest.mark.parametrize("workers", [0, 2])
def test_merged_example_suites_equal_the_unsharded_run(
    whole_example_run: tuple[Path, subprocess.CompletedProcess[str]], workers: int
) -> None:
    # the shards run where the whole run did: the reports hold the helper tests' file paths
    cwd, whole = whole_example_run
    for stale in [*cwd.glob("shard*.json"), cwd / "merged.json", cwd / "merged.xml"]:
        stale.unlink(missing_ok=True)  # a previous sharding's files prove nothing about this one
    gate = EXAMPLES_GATE
    # four shards prove the merge; under -n 2 two shards prove it with workers inside each
    total = 2 if workers else 4
    paths = sharded(cwd, "example_suites", total, *gate, workers=workers)
    shards = [json.loads(p.read_text(encoding="utf-8"))["shard"] for p in paths]
    assert [s["index"] for s in shards] == list(range(1, total + 1))
    assert {s["run_id"] for s in shards} == {"run-7"}
    assert len(shards[0]["gold_files"]) == 5
    assert all(s["gold_files"] == shards[0]["gold_files"] for s in shards)
    merged = merge(cwd, paths, "--junitxml=merged.xml", *gate)
    assert merged.returncode == whole.returncode == 1, merged.stdout + merged.stderr
    assert comparable(cwd / "merged.json") == comparable(cwd / "whole.json")
    # one summary, one gate line, as the single job printed them
    assert "llmeval summary" in merged.stdout
    gate_line = next(line for line in whole.stdout.splitlines() if "llmeval gate" in line)
    assert gate_line in merged.stdout
    assert merged.stdout.count("testcase") == 0
    assert (cwd / "merged.xml").read_text().count("<testcase") >= 40


def test_merged_2000_sample_suite_equals_the_unsharded_run(tmp_path: Path) -> None:
    numeric_suite(tmp_path / "big_eval.jsonl", 2000)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    gate = ("--llm-min-pass-rate=0.8",)
    whole = run(
        tmp_path, *PYTEST, "big_eval.jsonl", f"--llm-report={tmp_path / 'whole.json'}", *gate
    )
    paths = sharded(tmp_path, "big_eval.jsonl", 4, *gate)
    counts = [len(json.loads(p.read_text(encoding="utf-8"))["sample_results"]) for p in paths]
    assert sum(counts) == 2000
    assert min(counts) > 400
    merged = merge(tmp_path, paths, *gate)
    assert merged.returncode == whole.returncode, merged.stdout[-2000:] + merged.stderr
    assert comparable(tmp_path / "merged.json") == comparable(tmp_path / "whole.json")
    failing = merge(tmp_path, paths, "--llm-min-pass-rate=0.9")
    assert failing.returncode == 1
    assert "llmeval gate FAILED" in failing.stdout


def test_deselected_samples_are_reported_as_deselected(pytester: pytest.Pytester) -> None:
    numeric_suite(pytester.path / "small_eval.jsonl", 40)
    result = pytester.runpytest("--llm-shard=2/3", "-p", "no:cacheprovider")
    chosen = [
        i
        for i in range(40)
        if shard_of(sample_key("small_eval.jsonl", f"q{i}", pytester.path), 3) == 2
    ]
    outcomes = result.parseoutcomes()
    assert sum(outcomes.get(k, 0) for k in ("passed", "failed", "acceptable")) == len(chosen)
    assert outcomes["deselected"] == 40 - len(chosen)


@pytest.fixture(scope="module")
def four_shard_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four shard runs of one small suite: four pytest processes, made once per module."""
    cwd = tmp_path_factory.mktemp("four_shards")
    numeric_suite(cwd / "small_eval.jsonl", 60)
    (cwd / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    sharded(cwd, "small_eval.jsonl", 4)
    return cwd


@pytest.fixture
def four_shards(four_shard_runs: Path, tmp_path: Path) -> list[Path]:
    """A copy of the four shard reports and their suite, for a test to edit and merge in."""
    shutil.copytree(four_shard_runs, tmp_path, dirs_exist_ok=True)
    return [tmp_path / f"shard{k}.json" for k in range(1, 5)]


def edit(path: Path, change: Any) -> Path:
    report = json.loads(path.read_text(encoding="utf-8"))
    change(report)
    out = path.with_name("edited-" + path.name)
    out.write_text(json.dumps(report), encoding="utf-8")
    return out


def test_merge_refuses_shards_that_are_not_one_run(four_shards: list[Path]) -> None:
    cwd = four_shards[0].parent
    one, two, three, four = four_shards

    def refused(paths: list[Path], message: str) -> None:
        result = merge(cwd, paths)
        assert result.returncode == 4, result.stdout + result.stderr
        assert message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert not (cwd / "merged.json").exists()

    refused([one, two, three], "missing shard(s) 4/4 of run 'run-7'")
    refused([one, two, three, three], "shard 3/4 given twice")
    refused(
        [one, two, three, edit(four, lambda r: r["shard"].update(run_id="run-8"))],
        "run id 'run-8' != 'run-7'",
    )
    refused(
        [
            one,
            two,
            three,
            edit(four, lambda r: r["shard"]["settings"].update(llm_tiers=[0.8, 0.5])),
        ],
        "different verdict settings: llm_tiers",
    )
    refused(
        [
            one,
            two,
            three,
            edit(four, lambda r: r["shard"]["gold_files"].update({"small_eval.jsonl": "0" * 64})),
        ],
        "different gold files",
    )

    def steal(report: dict[str, Any]) -> None:
        report["sample_results"].append(
            json.loads(one.read_text(encoding="utf-8"))["sample_results"][0]
        )

    refused([one, two, three, edit(four, steal)], "is in two shards")
    refused([one, two, three, cwd / "nothing.json"], "cannot read the shard report")
    refused(
        [one, two, three, edit(four, lambda r: r["shard"].update(total="4"))],
        "shard.total: '4' is not a shard count",
    )
    refused(
        [one, two, three, edit(four, lambda r: r["sample_results"].append(7))], "sample_results["
    )


def test_an_incomplete_shard_makes_the_merged_run_incomplete(four_shards: list[Path]) -> None:
    cwd = four_shards[0].parent
    broken = edit(
        four_shards[1],
        lambda r: (
            r["metadata"].update(incomplete=True),
            r["shard"].update(incomplete_reason="interrupted (Ctrl-C or SIGTERM)"),
        ),
    )
    result = merge(cwd, [four_shards[0], broken, *four_shards[2:]], "--llm-history=hist")
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        "INCOMPLETE run: shard 2/4 ended incomplete: interrupted (Ctrl-C or SIGTERM)"
        in result.stdout
    )
    report = json.loads((cwd / "merged.json").read_text(encoding="utf-8"))
    assert report["metadata"]["incomplete"] is True
    assert len(list((cwd / "hist").rglob("*.json*"))) >= 1


def test_a_failed_hand_written_test_fails_the_merged_run(tmp_path: Path) -> None:
    numeric_suite(tmp_path / "small_eval.jsonl", 1)
    (tmp_path / "small_eval.jsonl").write_text(
        json.dumps({"id": "q0", "question": "?", "expected": "1", "response": "1"}) + "\n"
    )
    plain = "def test_a():\n    assert False\n" + "".join(
        f"\ndef test_{i}():\n    pass\n" for i in range(8)
    )
    (tmp_path / "test_plain.py").write_text(plain)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    paths = sharded(tmp_path, ".", 2, "--llm-gate-only")
    result = merge(tmp_path, paths, "--llm-gate-only")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "test_plain.py::test_a" in result.stdout


# -- docs/ci.md: the sharded jobs, run as written ------------------------------------------------
def sharded_jobs() -> tuple[dict[str, Any], dict[str, Any]]:
    import yaml  # dev extra

    from tests.docs_examples import extract_blocks

    blocks = [
        b
        for b in extract_blocks((REPO / "docs" / "ci.md").read_text(encoding="utf-8"))
        if b.lang == "yaml"
    ]
    github, gitlab = (yaml.safe_load(b.text) for b in blocks[2:4])
    return github, gitlab


def shell(cwd: Path, command: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A job's command line as the runner's shell runs it (globs expanded), with the repo's python."""
    environ = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    for name in ("PYTEST_XDIST_WORKER", "GITHUB_RUN_ID", "CI_PIPELINE_ID"):
        environ.pop(name, None)
    environ["PYTEST_ADDOPTS"] = INNER_ADDOPTS
    environ.update(env)
    command = (
        command.replace("python -m", f"{sys.executable} -m", 1)
        if command.startswith("python -m")
        else (f"{sys.executable} -m {command}" if command.startswith("pytest ") else command)
    )
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=environ, capture_output=True, text=True, timeout=600
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="the jobs' commands run in bash")
def test_sharded_ci_jobs_run_as_written(tmp_path: Path) -> None:
    pytest.importorskip("jinja2")  # --llm-html
    github, gitlab = sharded_jobs()
    (tmp_path / "evals").mkdir()
    numeric_suite(tmp_path / "evals" / "figures_eval.jsonl", 120)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    whole = run(
        tmp_path,
        *PYTEST,
        "evals/",
        "--llm-gate-only",
        "--llm-min-pass-rate=0.85",
        f"--llm-report={tmp_path / 'whole.json'}",
    )

    # GitHub: a matrix of four shard jobs, their artifacts downloaded into shards/, one merge job
    shard_job, merge_job = github["jobs"]["shard"], github["jobs"]["merge"]
    total = len(shard_job["strategy"]["matrix"]["shard"])
    run_step = next(s for s in shard_job["steps"] if s.get("name") == "Evals (one shard)")["run"]
    (tmp_path / "shards").mkdir()
    for k in shard_job["strategy"]["matrix"]["shard"]:
        env = {
            "LLMEVAL_SHARD": shard_job["env"]["LLMEVAL_SHARD"].replace(
                "${{ matrix.shard }}", str(k)
            )
        }
        command = (
            run_step.replace("${{ matrix.shard }}", str(k))
            .replace("${{ github.run_id }}", "4242")
            .strip()
        )
        result = shell(tmp_path, command, **env)
        assert result.returncode in (0, 5), result.stdout + result.stderr
        (tmp_path / f"shard-{k}.json").rename(tmp_path / "shards" / f"shard-{k}.json")
    assert total == 4
    assert len(list((tmp_path / "shards").iterdir())) == 4
    merge_step = next(s for s in merge_job["steps"] if s.get("name") == "Merge and gate")[
        "run"
    ].strip()
    merged = shell(tmp_path, merge_step)
    assert merged.returncode == whole.returncode == 0, merged.stdout[-3000:] + merged.stderr
    assert comparable(tmp_path / "llmeval-report.json") == comparable(tmp_path / "whole.json")
    assert (tmp_path / "llmeval-junit.xml").is_file()
    assert (tmp_path / "llmeval-report.html").is_file()
    upload = next(s for s in merge_job["steps"] if s.get("name") == "Upload the merged reports")
    assert all((tmp_path / name).is_file() for name in upload["with"]["path"].split())

    # GitLab: parallel: 4 sets CI_NODE_INDEX / CI_NODE_TOTAL; the pipeline id is the run id
    for name in ("llmeval-report.json", "llmeval-junit.xml", "llmeval-report.html"):
        (tmp_path / name).unlink()
    evals, merge_job = gitlab["evals"], gitlab["merge"]
    command = next(line for line in evals["script"] if line.startswith("pytest"))
    for k in range(1, evals["parallel"] + 1):
        env = {
            "CI_NODE_INDEX": str(k),
            "CI_NODE_TOTAL": str(evals["parallel"]),
            "CI_PIPELINE_ID": "77",
        }
        result = shell(tmp_path, command, **env)
        assert result.returncode in (0, 5), result.stdout + result.stderr
    assert len(list(tmp_path.glob("shard-*.json"))) == 4
    merge_line = next(line for line in merge_job["script"] if "pytest_llmeval merge" in line)
    merged = shell(tmp_path, merge_line)
    assert merged.returncode == 0, merged.stdout[-3000:] + merged.stderr
    assert comparable(tmp_path / "llmeval-report.json") == comparable(tmp_path / "whole.json")
    assert set(merge_job["artifacts"]["paths"]) == {
        "llmeval-report.json",
        "llmeval-report.html",
        "llmeval-junit.xml",
    }
    assert (
        json.loads((tmp_path / "shard-1.json").read_text(encoding="utf-8"))["shard"]["run_id"]
        == "77"
    )

    # a shard's report that never arrived: the merge names it and exits 4
    (tmp_path / "shard-3.json").unlink()
    missing = shell(tmp_path, merge_line)
    assert missing.returncode == 4
    assert "missing shard(s) 3/4 of run '77'" in missing.stderr


def test_baseline_labels_and_several_models_work_on_the_merged_run(tmp_path: Path) -> None:
    """Regression gate, people's labels and the comparison of two models: as on the unsharded run."""
    numeric_suite(tmp_path / "small_eval.jsonl", 80)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    base = run(tmp_path, *PYTEST, "small_eval.jsonl", f"--llm-report={tmp_path / 'base.json'}")
    assert base.returncode == 1
    # two answer files: the second model answers every 4th sample wrong
    for name, wrong in (("a", 7), ("b", 4)):
        with (tmp_path / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for i in range(80):
                out.write(
                    json.dumps(
                        {
                            "id": f"q{i}",
                            "response": f"It is {(1000 + i) * (3 if i % wrong == 0 else 1)}.",
                        }
                    )
                    + "\n"
                )
    with (tmp_path / "labels.jsonl").open("w", encoding="utf-8") as out:
        out.write(json.dumps({"llmeval_labels": {"selection": "random", "seed": "t"}}) + "\n")
        for i in range(0, 80, 3):
            value = (1000 + i) * (3 if i % 7 == 0 else 1)
            out.write(
                json.dumps(
                    {
                        "sample_id": f"q{i}",
                        "response": f"It is {value}.",
                        "label": "correct" if i % 7 else "incorrect",
                    }
                )
                + "\n"
            )
    options = ("--llm-model=file:a.jsonl", "--llm-model=file:b.jsonl")
    gates = (
        "--llm-baseline=base.json",
        "--llm-fail-on-regression",
        "--llm-labels=labels.jsonl",
        "--llm-min-pass-rate=0.5",
    )
    whole = run(
        tmp_path,
        *PYTEST,
        "small_eval.jsonl",
        *options,
        *gates,
        f"--llm-report={tmp_path / 'whole.json'}",
    )
    paths = sharded(tmp_path, "small_eval.jsonl", 3, *options)
    merged = merge(tmp_path, paths, *gates)
    assert merged.returncode == whole.returncode == 1, merged.stdout[-3000:] + merged.stderr
    report = comparable(tmp_path / "merged.json")
    assert report == comparable(tmp_path / "whole.json")
    assert report["comparison"] is not None
    assert set(report["by_model"]) == {"file:a.jsonl", "file:b.jsonl"}
    assert report["by_model"]["file:b.jsonl"]["comparison"] is not None
    assert report["aggregate_metrics"].get("corrected_pass_rate") or report["by_model"][
        "file:a.jsonl"
    ].get("corrected_pass_rate")


def test_adding_100_samples_to_a_collected_suite_moves_none(tmp_path: Path) -> None:
    """The same, through collection: each shard of a 500-sample suite keeps what it had of 400.

    The shard function itself is checked on 2,000 keys above; here the wiring is the point.
    """
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")

    def selected(k: int) -> set[str]:
        result = run(tmp_path, *PYTEST, "--co", "big_eval.jsonl", f"--llm-shard={k}/4")
        return {line for line in result.stdout.splitlines() if line.startswith("big_eval.jsonl::")}

    numeric_suite(tmp_path / "big_eval.jsonl", 400)
    before = {k: selected(k) for k in (1, 2, 3, 4)}
    numeric_suite(tmp_path / "big_eval.jsonl", 500)
    after = {k: selected(k) for k in (1, 2, 3, 4)}
    assert sum(map(len, before.values())) == 400
    assert sum(map(len, after.values())) == 500
    for k in (1, 2, 3, 4):
        assert before[k] <= after[k]
