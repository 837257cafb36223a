"""Hostile gold schemas and structured answers, timed: seconds (and judge requests) per scenario.

    python benchmarks/bench_hostile_structured.py                  # every scenario
    python benchmarks/bench_hostile_structured.py table judge      # some of them
    PYTHONPATH=/other/checkout python /other/checkout/benchmarks/bench_hostile_structured.py

Each scenario runs in a child process of the interpreter running this script, killed after
``--kill-after`` seconds (a "before" checkout may take minutes), and prints one line: seconds,
and what it counts.

- ``pattern``: a schema ``pattern`` ``^(a+)+$`` against a 33-character answer.
- ``table``: an 8x200 table answer against an 18x100 gold (``table60``: 60x200).
- ``judge``: a 10-line gold with a prose field against a 200-line answer, an LLM judge on the fake
  server (tests/fake_openai.py); counts the judge requests.
- ``header``: ``pytest --co`` of 400 samples under a 93 KB header schema.
- ``inf``: a 400-digit answer against the gold 42 (prints the verdict: it must fail).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _pattern() -> str:
    from pytest_llmeval.metrics.structured import structured_match

    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a+)+$"}}}
    result = structured_match(json.dumps({"name": "a" * 33 + "!"}), {"name": "aaa"}, schema=schema)
    return f"passed={result.passed}"


def _table(rows: int) -> str:
    from pytest_llmeval.metrics.structured import structured_match

    gold = {"rows": [[f"g{r}-{c}" for c in range(100)] for r in range(18)]}
    answer = {"rows": [[f"a{r}-{c}" for c in range(200)] for r in range(rows)]}
    return f"passed={structured_match(json.dumps(answer), gold).passed}"


def _judge() -> str:
    from pytest_llmeval.metrics.structured import structured_match
    from pytest_llmeval.models.service import make_chat_model
    from pytest_llmeval.options import OPTIONS, Settings
    from tests.fake_openai import FakeOpenAIServer

    gold = {
        "lines": [
            {"account": 3000 + i, "text": f"Sale of {i} boxes of paper to the school"}
            for i in range(10)
        ]
    }
    answered = [
        {"account": 3000 + i, "text": f"Sold {i} boxes of paper to the school"} for i in range(10)
    ]
    other = [
        {"account": 5000 + i, "text": f"Office rent for month {i} paid to the landlord"}
        for i in range(190)
    ]
    reply = json.dumps({"reasons": ["same"], "verdict": "factually matching"})
    with FakeOpenAIServer() as server, tempfile.TemporaryDirectory() as folder:
        server.reply_with(lambda body: reply)
        values = {
            o.name: (o.convert(o.default) if isinstance(o.default, str) else o.default)
            for o in OPTIONS
        }
        values.update({"llm_base_url": server.url, "llm_record": "off", "llm_max_retries": 0})
        judge = make_chat_model("judge-model", Settings(values), rootdir=Path(folder))
        try:
            result = structured_match(
                json.dumps({"lines": other[:95] + answered + other[95:]}), gold, judge=judge
            )
        finally:
            judge.close()
        return f"judge requests={len(server.requests)} exact lines={result.lines[0]['exact']}"


def _header() -> str:
    schema = {
        "type": "object",
        "properties": {
            f"field_{i}": {
                "type": "string",
                "description": "An account line field. " * 8,
                "pattern": f"^[A-Z]{{2}}{i}$",
                "maxLength": 40,
            }
            for i in range(300)
        },
    }
    sample = {
        "question": "q",
        "expected_structured": {"field_1": "AB1"},
        "response": '{"field_1": "AB1"}',
    }
    with tempfile.TemporaryDirectory() as folder:
        lines = [json.dumps({"llmeval_file": {"structured": {"schema": schema}}})]
        lines += [json.dumps({"id": f"s{i}", **sample}) for i in range(400)]
        (Path(folder) / "h_eval.jsonl").write_text("\n".join(lines) + "\n")
        size = len(lines[0])
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--co",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:xdist",
                "-p",
                "no:cacheprovider",
            ],
            cwd=folder,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
        )
        tail = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-200:]
        return f"header {size / 1024:.0f} KB: {tail}"


def _inf() -> str:
    from pytest_llmeval.metrics.numeric import numeric_match

    return f"passed={numeric_match('The answer is ' + '9' * 400 + '.', '42').passed}"


SCENARIOS = {
    "pattern": _pattern,
    "table": lambda: _table(8),
    "table60": lambda: _table(60),
    "judge": _judge,
    "header": _header,
    "inf": _inf,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--kill-after", type=float, default=300.0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        started = time.perf_counter()
        what = SCENARIOS[args.child]()
        print(f"{time.perf_counter() - started:.3f} s  {what}")
        return
    for name in args.names:
        started = time.perf_counter()
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--child", name],
                capture_output=True,
                text=True,
                timeout=args.kill_after,
                env={**os.environ, "HF_HUB_OFFLINE": "1"},
                check=False,
            )
            line = (
                out.stdout.strip().splitlines()[-1]
                if out.stdout.strip()
                else "failed: " + out.stderr[-300:]
            )
        except subprocess.TimeoutExpired:
            line = f"killed after {time.perf_counter() - started:.0f} s"
        print(f"{name:<8} {line}")


if __name__ == "__main__":
    main()
