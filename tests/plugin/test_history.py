"""``--llm-history`` and ``python -m pytest_llmeval history``: trend, flaky samples, failing since."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_llmeval.history.analysis import cochran_armitage
from pytest_llmeval.history.store import History
from tests.conftest import INNER_ADDOPTS, run_interrupted_at_s2
from tests.regression_helpers import MODEL, ids, make_suite, run, set_wrong

N = 50
ALWAYS_WRONG = ids(N)[40:45]  # fail in every run: failing since the first recorded run
FLAKY_A, FLAKY_B = (
    "s45",
    "s46",
)  # one wrong on odd runs, the other on even runs: the rate is unchanged


def git(path: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def history_cli(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.run(sys.executable, "-m", "pytest_llmeval", "history", *args)


def history_json(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    result = history_cli(pytester, *args, "--json")
    assert result.ret == 0, result.stderr.str()
    return json.loads(result.stdout.str())  # type: ignore[no-any-return]


def ten_sliding_runs(pytester: pytest.Pytester) -> list[str]:
    """Ten runs, each after a commit: the pass rate falls 2 points a run (one sample of 50 more fails)."""
    make_suite(pytester, N)
    git(pytester.path, "init", "-q", "-b", "main")
    commits = []
    for i in range(10):
        (pytester.path / "version.txt").write_text(f"v{i}\n", encoding="utf-8")
        git(pytester.path, "add", "-A")
        git(pytester.path, "commit", "-q", "-m", f"v{i}")
        commits.append(git(pytester.path, "rev-parse", "HEAD"))
        # run i: s00 .. s(i-1) wrong, so s03 first fails in run 4
        set_wrong(pytester, [*ids(N)[:i], *ALWAYS_WRONG, FLAKY_A if i % 2 else FLAKY_B])
        result = run(pytester, MODEL, "--llm-history=hist", "--llm-gate-only")
        assert result.ret == 0
    return commits


def test_slow_slide_flaky_sample_and_failing_since(pytester: pytest.Pytester) -> None:
    commits = ten_sliding_runs(pytester)
    summary = history_json(pytester, "hist")
    assert len(summary["runs"]) == 10
    assert all(r["complete"] for r in summary["runs"])
    assert [r["commit"] for r in summary["runs"]] == commits
    assert {r["branch"] for r in summary["runs"]} == {"main"}
    [model] = summary["trend"]
    rates = [r["models"][model]["pass_rate"] for r in summary["runs"]]
    assert rates == pytest.approx(
        [(N - 6 - i) / N for i in range(10)]
    )  # 88% down to 70%, 2 points a run
    trend = summary["trend"][model]
    assert trend["direction"] == "down"
    assert trend["slope"] == pytest.approx(-0.02)
    assert trend["p_value"] < 0.01
    samples = {s["sample_id"]: s for s in summary["samples"][model]}
    assert samples[FLAKY_A]["flips"] == 9
    assert samples[FLAKY_A]["flaky"] is True
    assert samples[FLAKY_A]["verdicts"] == "PF" * 5
    assert samples["s03"]["failing_since"]["commit"] == commits[4]
    assert samples["s03"]["regression"] is True
    assert samples["s03"]["flaky"] is False
    assert samples["s40"]["failing_since"]["commit"] == commits[0]
    assert samples["s40"]["failing_since"]["after"] == "first recorded run"
    assert "s20" not in samples  # passed every run: nothing to say

    text = history_cli(pytester, "hist")
    assert text.ret == 0
    text.stdout.fnmatch_lines(
        [
            "*trend over the last 10 runs: -2.00 points/run, p=* significant DOWNWARD trend; smallest detectable "
            "trend with these 10 runs: * points/run, * with 80% power",
            f"*FLAKY   {FLAKY_A}: 9 flips  PFPFPFPFPF",
            f"*FAILING s03: failing since run * (commit {commits[4][:10]}, *",
        ]
    )
    flaky = history_cli(pytester, "hist", "--sample", FLAKY_A)
    flaky.stdout.fnmatch_lines(
        [
            f"sample {FLAKY_A} in hist (last 20 runs)",
            f"  *  {commits[0][:10]} * pass        1.000  gold *",
            f"qa_eval.jsonl::{FLAKY_A}: 9 flips, FLAKY, failing since run * (commit {commits[9][:10]}, *)".join(
                ["  ", ""]
            ),
        ]
    )
    story = history_json(pytester, "hist", "--sample", "s03")["models"][model]
    assert [r["status"] for r in story["runs"]] == ["pass"] * 4 + ["fail"] * 6
    assert [r["commit"] for r in story["runs"]] == commits
    assert story["stories"][0]["failing_since"]["commit"] == commits[4]


def test_each_step_is_within_noise_but_the_trend_is_not() -> None:
    """The slide above: no single step is significant (McNemar on one sample), the trend is."""
    from pytest_llmeval.regression.significance import mcnemar_exact

    assert mcnemar_exact(1, 0) == 1.0
    counts = [(N - 6 - i, N) for i in range(10)]
    _z, p, slope = cochran_armitage(counts)
    assert slope == pytest.approx(-0.02)
    assert p < 0.01
    assert cochran_armitage(counts[:2])[1] > 0.5  # two neighbouring runs: nothing to see


def test_cochran_armitage_agrees_with_scipy() -> None:
    """z^2 of the Cochran-Armitage test is N r^2 over the individual outcomes (r: Pearson's)."""
    stats = pytest.importorskip("scipy.stats")
    counts = [(40, 50), (38, 50), (41, 52), (33, 49), (30, 50)]
    xs: list[float] = []
    ys: list[float] = []
    for group, (k, n) in enumerate(counts):
        xs += [group] * n
        ys += [1.0] * k + [0.0] * (n - k)
    r = stats.pearsonr(xs, ys).statistic
    z, p, _ = cochran_armitage(counts)
    assert z**2 == pytest.approx(len(xs) * r**2, rel=1e-9)
    assert p == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    assert cochran_armitage([(5, 5), (5, 5), (5, 5)])[1] == 1.0  # no variation: no trend


def test_gold_change_is_marked_and_not_a_regression(pytester: pytest.Pytester) -> None:
    suite = make_suite(pytester, 4)
    set_wrong(pytester, [])
    assert run(pytester, MODEL, "--llm-history=hist").ret == 0
    # s01's gold changes (the app still answers the old one): it fails, but is no regression
    lines = suite.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["expected"] = "something new"
    lines[1] = json.dumps(record)
    suite.write_text("\n".join(lines) + "\n", encoding="utf-8")
    set_wrong(pytester, ["s01"])
    run(pytester, MODEL, "--llm-history=hist")
    [story] = history_json(pytester, "hist")["samples"].values()
    [s01] = story
    assert s01["sample_id"] == "s01"
    assert s01["gold_changed"] is True
    assert s01["flips"] == 0
    assert s01["failing"] is True
    assert s01["regression"] is False
    assert s01["failing_since"]["after"] == "gold changed"
    history_cli(pytester, "hist").stdout.fnmatch_lines(
        ["*GOLD CHANGED s01 (not counted as a regression)*"]
    )


def _pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *INNER_ADDOPTS.split(), *args]


def test_concurrent_writers_lose_nothing(pytester: pytest.Pytester) -> None:
    """Two runs (one with -n 2) write the same history at the same moment: both end up in it, complete."""
    make_suite(pytester, 30)
    set_wrong(pytester, ["s03"])
    env = {**os.environ, "PYTHONPATH": str(pytester.path)}
    procs = [
        subprocess.Popen(
            _pytest_cmd(MODEL, "--llm-history=hist", "--llm-gate-only", *extra),
            cwd=pytester.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for extra in ([], ["-n", "2"])
    ]
    outputs = [p.communicate(timeout=300)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    history = History.load(pytester.path / "hist")
    assert history.warnings == []
    assert len(history.runs) == 2
    for recorded in history.runs:
        assert recorded.complete
        [status] = [c["status"] for c in recorded.results.values()]
        assert status == "P" * 3 + "F" + "P" * 26
    assert len(list((pytester.path / "hist" / "tables").iterdir())) == 1  # same samples: one table


def test_incomplete_run_is_recorded_as_such(pytester: pytest.Pytester) -> None:
    result = run_interrupted_at_s2(pytester, "--llm-history=hist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    [recorded] = History.load(pytester.path / "hist").runs
    assert recorded.complete is False
    assert "interrupted" in recorded.meta["incomplete_reason"]
    [status] = [c["status"] for c in recorded.results.values()]
    assert status == "PP.."  # s2 and s3 never ran


def test_runs_without_gold_samples_and_collect_only_are_not_recorded(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_unit="def test_one():\n    assert True\n")
    assert run(pytester, "--llm-history=hist").ret == 0
    make_suite(pytester, 2)
    assert run(pytester, MODEL, "--llm-history=hist", "--collect-only").ret == 0
    assert not (pytester.path / "hist").exists()


def test_keep_prunes_the_oldest_runs(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    for _ in range(3):
        run(pytester, MODEL, "--llm-history=hist", "-o", "llm_history_keep=2")
    runs = sorted((pytester.path / "hist" / "runs").iterdir())
    assert len(runs) == 2
    assert len(History.load(pytester.path / "hist").runs) == 2


def test_a_bad_run_file_is_one_located_warning(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 3)
    run(pytester, MODEL, "--llm-history=hist")
    run(pytester, MODEL, "--llm-history=hist")
    first, second = sorted((pytester.path / "hist" / "runs").iterdir())
    head, details = gzip.decompress(second.read_bytes()).decode().splitlines()
    data = json.loads(head)
    data["results"] = {m: {**c, "status": c["status"][:-1]} for m, c in data["results"].items()}
    second.write_bytes(
        gzip.compress(json.dumps(data).encode() + b"\n") + gzip.compress(details.encode())
    )
    (pytester.path / "hist" / "runs" / "junk.json.gz").write_bytes(b"not gzip")
    bad_git = json.loads(gzip.decompress(first.read_bytes()).decode().splitlines()[0])
    bad_git["git"] = "main"
    (pytester.path / "hist" / "runs" / "zz-bad-git.json.gz").write_bytes(
        gzip.compress(json.dumps(bad_git).encode())
    )
    result = history_cli(pytester, "hist")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["history hist: 1 runs (1 complete)"])
    result.stderr.fnmatch_lines(
        [
            f"warning: skipped: *{second.name}: field 'results.*.status' is not a string of 3 status letters*",
            "warning: skipped: *junk.json.gz: cannot read: *",
            "warning: skipped: *zz-bad-git.json.gz: field 'git' must be an object or null",
        ]
    )
    assert history_cli(pytester, "missing").ret == 4


def test_record_is_readable_without_the_plugin(pytester: pytest.Pytester) -> None:
    """The documented format: gzip JSON, columns aligned with the table's rows."""
    make_suite(pytester, 3)
    set_wrong(pytester, ["s01"])
    run(pytester, MODEL, "--llm-history=hist")
    [path] = (pytester.path / "hist" / "runs").iterdir()
    head, details = gzip.decompress(path.read_bytes()).decode().splitlines()  # two JSON lines
    record = json.loads(head)
    table = json.loads(
        gzip.decompress(
            (pytester.path / "hist" / "tables" / f"{record['table']}.json.gz").read_bytes()
        )
    )
    assert [row[:3] for row in table["rows"]] == [
        ["qa_eval.jsonl", f"s0{i}", i + 1] for i in range(3)
    ]
    assert record["results"]["python:llm_app:answer"] == {"status": "PFP"}
    columns = json.loads(details)["details"]["python:llm_app:answer"]
    assert columns["score"].split(" ") == ["1", "0", "1"]
    assert record["graders"][int(columns["grader"].split(" ")[0])] == "exact"
    assert record["settings"]["errors"] == "fail"
    assert record["identity"]["model"] == "python:llm_app:answer"
    assert record["complete"] is True
    assert record["git"] is None


def _comparable(comparison: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v for k, v in comparison.items() if k not in ("baseline", "gate_line")
    }  # both name the baseline


def test_baseline_from_history_is_the_same_comparison_as_from_its_report(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester, 40)
    set_wrong(pytester, ids(40)[:3])
    assert (
        run(pytester, MODEL, "--llm-history=hist", "--llm-report=base.json", "--llm-gate-only").ret
        == 0
    )
    set_wrong(pytester, ids(40)[2:14])
    from_report = run(
        pytester,
        MODEL,
        "--llm-baseline=base.json",
        "--llm-report=from_report.json",
        "--llm-gate-only",
    )
    from_history = run(
        pytester,
        MODEL,
        "--llm-history=hist",
        "--llm-baseline=history:last",
        "--llm-report=from_history.json",
        "--llm-gate-only",
    )
    assert from_report.ret == from_history.ret == 0
    a = json.loads((pytester.path / "from_report.json").read_text())
    b = json.loads((pytester.path / "from_history.json").read_text())
    assert _comparable(b["comparison"]) == _comparable(a["comparison"])
    assert b["comparison"]["newly_failing"] == ids(40)[3:14]
    assert b["comparison"]["baseline"]["path"].startswith("history:last (run ")
    assert [e.get("baseline_status") for e in b["sample_results"]] == [
        e.get("baseline_status") for e in a["sample_results"]
    ]
    from_history.stdout.fnmatch_lines(["comparison with baseline history:last (run *)*"])


def test_history_baseline_picks_last_passing_and_a_commit(pytester: pytest.Pytester) -> None:
    make_suite(pytester, 10)
    git(pytester.path, "init", "-q", "-b", "main")
    commits = []
    for wrong in ([], ["s01", "s02"]):  # the second run fails (no --llm-gate-only)
        git(pytester.path, "add", "-A")
        git(pytester.path, "commit", "-q", "--allow-empty", "-m", "v")
        commits.append(git(pytester.path, "rev-parse", "HEAD"))
        set_wrong(pytester, wrong)
        run(pytester, MODEL, "--llm-history=hist")
    runs = [r.run_id for r in History.load(pytester.path / "hist").runs]
    for spec, expected in (("last", runs[1]), ("last-passing", runs[0]), (commits[0][:8], runs[0])):
        result = run(pytester, MODEL, f"--llm-baseline=history:{spec}", "--llm-report=r.json")
        assert result.ret == pytest.ExitCode.USAGE_ERROR  # no --llm-history: says what is missing
        result.stderr.fnmatch_lines(
            [f"*--llm-baseline=history:{spec} (ini llm_baseline): *needs --llm-history=DIR*"]
        )
        result = run(
            pytester,
            MODEL,
            "--llm-history=hist",
            f"--llm-baseline=history:{spec}",
            "--llm-report=r.json",
        )
        report = json.loads((pytester.path / "r.json").read_text())
        assert f"(run {expected}" in report["comparison"]["baseline"]["path"]
        for path in (
            pytester.path / "hist" / "runs"
        ).iterdir():  # forget this run: "last" stays runs[1]
            if runs[0] not in path.name and runs[1] not in path.name:
                path.unlink()
    result = run(pytester, MODEL, "--llm-history=hist", "--llm-baseline=history:abcdef99")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no complete recorded run in * matches history:abcdef99*"])


def test_html_report_draws_the_trend_and_each_samples_recent_history(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("jinja2")
    make_suite(pytester, 6)
    for i in range(3):
        set_wrong(pytester, ["s01"] if i % 2 else ["s02"])  # s01 and s02 flip
        run(pytester, MODEL, "--llm-history=hist", "--llm-html=r.html", "--llm-report=r.json")
    data = json.loads((pytester.path / "r.json").read_text())
    [model] = data["history"]["models"]
    assert [r["pass_rate"] for r in data["history"]["models"][model]["runs"]] == pytest.approx(
        [5 / 6] * 3
    )
    by_id = {s["sample_id"]: s["history"] for s in data["sample_results"]}
    assert by_id["s01"] == {
        "recent": "PFP",
        "flips": 2,
        "flaky": True,
        "gold_changed": False,
        "failing_since_commit": None,
    }
    assert by_id["s02"]["recent"] == "FPF"
    assert by_id["s02"]["flips"] == 2
    assert by_id["s03"]["recent"] == "PPP"
    assert by_id["s03"]["flips"] == 0
    page = (pytester.path / "r.html").read_text()
    chart = page[
        page.index('<section id="history">') : page.index(
            "</section>", page.index('<section id="history">')
        )
    ]
    assert 'aria-label="pass rate per run"' in chart
    assert chart.count("<circle") == 3
    assert chart.count("<polyline") == 1
    least = data["history"]["models"][model]["trend"]["min_detectable_slope"]
    assert (
        f"+0.00 points/run, p=1 (flat), detectable from {least * 100:.2f}" in chart
    )  # what "flat" rests on
    assert (
        '<td><code>PFP</code></td><td class="num">2</td><td><span class="bad">flaky</span>' in chart
    )
    assert "http://" not in chart
    assert "https://" not in chart
    assert "src=" not in chart
