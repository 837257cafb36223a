"""The pass rate corrected by people's labels, measured on the dev sets: coverage, error, width.

Usage:  python benchmarks/bench_corrected_pass_rate.py [--data ../shared/data] [--draws 100] [--plugin-checks 3]
        [--financebench FILE] [--financebench-questions FILE] [--openqa FILE]   (other files of the same shape)

For FinanceBench (``financebench_dev.jsonl`` + ``financebench_dev_questions.jsonl``; a refusal is not a
correct answer) and NQ-open (``openqa_dev.jsonl``) it writes a gold file in a temp folder (the answers
as pre-recorded ``response``, ``group`` = the question), runs the real plugin once with default options
(``pytest FILE --llm-report=...``) for the grader's verdicts, then, for 10 %, 20 % and 50 % labelled,
draws ``--draws`` seeded uniformly random label subsets and computes the corrected estimate through the
plugin's own code (``labels.match_labels`` + ``labels.correction``, the functions a run with
``--llm-labels`` calls). The first ``--plugin-checks`` draws at each fraction also run the real plugin
with a labels file, and the script stops if its report differs from the function's result.

Printed per set and fraction: coverage of the interval for the people's pass rate (share of draws whose
interval holds it), mean absolute error of the corrected and of the grader's (uncorrected) rate, mean
interval width, and how many draws used the normal interval.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from shared_data import data_file, read_jsonl  # noqa: E402

from pytest_llmeval.labels import Label, correction, match_labels  # noqa: E402
from pytest_llmeval.options import ErrorsMode  # noqa: E402
from pytest_llmeval.records.sample_record import SampleRecord  # noqa: E402
from pytest_llmeval.report.tally import Tally  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data"
FRACTIONS = (0.1, 0.2, 0.5)
ALPHA = 0.05
SEED = 20261128


FILES = {
    "financebench": "financebench_dev.jsonl",
    "financebench_questions": "financebench_dev_questions.jsonl",
    "openqa": "openqa_dev.jsonl",
}


def financebench(data: Path, files: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, bool]]:
    questions_path = Path(files["financebench_questions"])
    if not questions_path.is_absolute():
        questions_path = data / questions_path
    # the questions file is optional: each answer row carries its question and gold too
    questions = {q["id"]: q for q in read_jsonl(questions_path)} if questions_path.is_file() else {}
    samples, human = [], {}
    for row in read_jsonl(data_file(data, files["financebench"])):
        qid = row["id"].split("/")[0]
        question = questions.get(qid, {})
        samples.append(
            {
                "id": row["id"],
                "question": question.get("question", row["question"]),
                "expected": question.get("gold", row["gold"]),
                "response": row["response"],
                "group": qid,
            }
        )
        human[row["id"]] = row["label"] == "correct"  # a refusal is not a correct answer
    return samples, human


def openqa(data: Path, files: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, bool]]:
    samples, human = [], {}
    for row in read_jsonl(data_file(data, files["openqa"])):
        samples.append(
            {
                "id": row["id"],
                "question": row["question"],
                "expected": row["golds"],
                "response": row["response"],
                "group": row["question"],
            }
        )
        human[row["id"]] = bool(row["human"])
    return samples, human


SETS = {"FinanceBench": financebench, "NQ-open": openqa}


def run_plugin(folder: Path, gold: Path, report: Path, *extra: str) -> dict[str, Any]:
    """``pytest GOLD --llm-report=REPORT`` in a subprocess (default options), the report read back."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(gold),
        f"--llm-report={report}",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        *extra,
    ]
    env = {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    report.unlink(missing_ok=True)  # an earlier draw's report must never stand in for this run's
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if not report.is_file():
        raise SystemExit(
            f"the plugin run wrote no report (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def labels_for(
    records: list[dict[str, Any]], chosen: list[int], human: dict[str, bool]
) -> list[Label]:
    return [
        Label(
            sample_id=records[i]["sample_id"],
            answer_sha256=records[i]["answer_sha256"],
            correct=human[records[i]["sample_id"]],
            random=True,
            source=f"draw:{i}",
        )
        for i in chosen
    ]


def measure(name: str, data: Path, files: dict[str, str], draws: int, plugin_checks: int) -> None:
    samples, human = SETS[name](data, files)
    with tempfile.TemporaryDirectory(prefix="bench-corrected-") as tmp:
        folder = Path(tmp)
        gold = folder / "bench_eval.jsonl"
        gold.write_text(
            "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples), encoding="utf-8"
        )
        started = time.perf_counter()
        report = run_plugin(folder, gold, folder / "report.json")
        seconds = time.perf_counter() - started
        # the report's samples read back as the run's records (their mapping view serves the lookups below)
        records = [
            SampleRecord.from_json(r) for r in report["sample_results"] if r["kind"] == "gold"
        ]
        tally = Tally(records, ErrorsMode.FAIL, False)
        truth = sum(human[r["sample_id"]] for r in records) / len(records)
        graded = [i for i, r in enumerate(records) if r["status"] in ("pass", "acceptable", "fail")]
        grader = tally.pass_rate or 0.0
        print(
            f"\n{name}: {len(records)} answers, {len({s['group'] for s in samples})} questions; people's pass rate "
            f"{truth:.1%}, grader's {grader:.1%} (error {100 * (grader - truth):+.1f} points); plugin run {seconds:.0f} s"
        )
        print(
            f"  {'labelled':>8} {'labels':>6} {'coverage':>9} {'MAE corrected':>14} {'MAE grader':>11} {'mean width':>11} {'normal':>7}"
        )
        for fraction in FRACTIONS:
            n = round(fraction * len(graded))
            covered, errors, widths, normal = 0, [], [], 0
            for draw in range(draws):
                rng = random.Random(f"{SEED}:{name}:{fraction}:{draw}")
                chosen = sorted(rng.sample(graded, n))
                labels = labels_for(records, chosen, human)
                effect = correction(tally, match_labels(records, labels), alpha=ALPHA)
                corrected = effect["corrected"]
                if draw < plugin_checks:
                    check_with_plugin(folder, gold, labels, human, records, chosen, corrected)
                covered += corrected["low"] <= truth <= corrected["high"]
                errors.append(abs(corrected["estimate"] - truth))
                widths.append(corrected["high"] - corrected["low"])
                normal += corrected["interval"] == "normal"
            print(
                f"  {fraction:>8.0%} {n:>6} {covered / draws:>9.1%} {100 * sum(errors) / draws:>10.2f} pts "
                f"{100 * abs(grader - truth):>7.2f} pts {100 * sum(widths) / draws:>7.1f} pts {normal:>4}/{draws}"
            )


def check_with_plugin(
    folder: Path,
    gold: Path,
    labels: list[Label],
    human: dict[str, bool],
    records: list[dict[str, Any]],
    chosen: list[int],
    expected: dict[str, Any],
) -> None:
    """The real plugin with a labels file gives what the function gave."""
    path = folder / "labels.jsonl"
    lines = [json.dumps({"llmeval_labels": {"selection": "random"}})]
    lines += [
        json.dumps(
            {
                "sample_id": records[i]["sample_id"],
                "response": records[i]["predicted"],
                "label": "correct" if human[records[i]["sample_id"]] else "incorrect",
            },
            ensure_ascii=False,
        )
        for i in chosen
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = run_plugin(folder, gold, folder / "labelled.json", f"--llm-labels={path}")[
        "aggregate_metrics"
    ]["corrected_pass_rate"]
    for key in ("estimate", "low", "high", "labels"):
        if got is None or abs(float(got[key]) - float(expected[key])) > 1e-9:
            raise SystemExit(
                f"the plugin's corrected rate differs from the function's: {got} != {expected}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=str(DEFAULT_DATA), help="folder of the dev sets (default: ../shared/data)"
    )
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument(
        "--plugin-checks",
        type=int,
        default=3,
        help="draws per fraction also run through the real plugin",
    )
    parser.add_argument("--set", choices=sorted(SETS), action="append")
    for key, name in FILES.items():
        parser.add_argument(
            f"--{key.replace('_', '-')}",
            default=name,
            help=f"file in --data (or a path). Default: {name}",
        )
    args = parser.parse_args()
    files = {key: getattr(args, key) for key in FILES}
    for name in args.set or list(SETS):
        measure(name, Path(args.data), files, args.draws, args.plugin_checks)


if __name__ == "__main__":
    main()
