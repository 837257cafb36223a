"""Replay misses against a cache of long prompts: seconds to explain 10 misses (nearest cached requests).

    python benchmarks/bench_hostile_cache.py [--cached 200] [--words 2000]

Fills a temporary cache with ``--cached`` requests of ~``--words`` words (a shared system prompt plus a
sample-specific question), then explains 10 misses in ``--llm-record=none`` mode. A quadratic difflib
over every cached request takes 256 s for 10 misses on 12 KB prompts; the bounded shortlist takes seconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_llmeval.models.cache import ResponseCache, cache_key
from pytest_llmeval.options import RecordMode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cached", type=int, default=200)
    parser.add_argument("--words", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cache = ResponseCache(root, "openai:gpt-test", RecordMode.NEW)
        system = " ".join(f"rule{i}" for i in range(args.words))
        for i in range(args.cached):
            identity = {
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": f"question {i} about topic{i}"},
                ]
            }
            cache.put(cache_key(identity), identity, {"text": "x"}, label=f"s{i}")
        prompt_kb = len(system) / 1024
        replay = ResponseCache(root, "openai:gpt-test", RecordMode.NONE)
        start = time.perf_counter()
        for i in range(10):
            asked = {
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": f"question {i} about topic{i}, changed"},
                ]
            }
            replay.miss_error(cache_key(asked), asked, label=f"s{i}")
        took = time.perf_counter() - start
    print(f"10 replay misses against {args.cached} cached {prompt_kb:.0f} KB prompts: {took:.2f} s")


if __name__ == "__main__":
    main()
