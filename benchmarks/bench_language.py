"""Answer-language detection: per-language accuracy of the language check, lingua alone vs lingua + cue tables.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_language.py [--data benchmarks/data/language_sentences.jsonl]

The sentences (benchmarks/data/language_sentences.jsonl) were written for this benchmark by the
project in Bokmål, Nynorsk, Danish, Swedish and English: accounting/tax answers, everyday
sentences and short answers (3-7 words), grouped so each group is reported apart. "correct"
means what the rubric scores: a Bokmål or Nynorsk sentence must come out Norwegian (either
variety), any other sentence its own language. The exact variety (nb vs nn) is shown too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_llmeval.metrics.freetext import answer_language  # noqa: E402
from pytest_llmeval.metrics.freetext.language_tables import ACCEPTED  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", default=str(ROOT / "benchmarks" / "data" / "language_sentences.jsonl")
    )
    args = parser.parse_args()
    rows = [
        json.loads(line)
        for line in Path(args.data).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]

    start = time.perf_counter()
    answer_language.detect_language(
        "Dette er en setning."
    )  # builds the detector and loads its models
    print(f"detector build + first call: {time.perf_counter() - start:.2f}s")

    results: dict[str, dict[tuple[str, str], list[bool]]] = {
        "lingua only": defaultdict(list),
        "lingua + cues": defaultdict(list),
    }
    exact: dict[tuple[str, str], list[bool]] = defaultdict(list)
    confusions: dict[str, Counter[tuple[str, str | None]]] = {name: Counter() for name in results}
    start = time.perf_counter()
    for row in rows:
        for name, factor in (("lingua only", 1.0), ("lingua + cues", answer_language.CUE_FACTOR)):
            saved = answer_language.CUE_FACTOR
            answer_language.CUE_FACTOR = factor
            try:
                guess = answer_language.detect_language(row["text"])
            finally:
                answer_language.CUE_FACTOR = saved
            ok = guess.code in ACCEPTED[row["lang"]]
            results[name][(row["lang"], row["group"])].append(ok)
            if not ok:
                confusions[name][(row["lang"], guess.code)] += 1
            if factor != 1.0:
                exact[(row["lang"], row["group"])].append(guess.code == row["lang"])
    elapsed = time.perf_counter() - start
    print(
        f"{len(rows)} sentences x 2 configurations in {elapsed:.2f}s ({elapsed / (2 * len(rows)) * 1000:.1f} ms each)\n"
    )

    langs = sorted({r["lang"] for r in rows})
    groups = sorted({r["group"] for r in rows})
    header = (
        f"{'language':<9}"
        + "".join(f"{g:>14}" for g in groups)
        + f"{'all':>14}"
        + f"{'exact variety':>16}"
    )
    for name, table in results.items():
        print(f"== {name} (correct / n)")
        print(header)
        for lang in langs:
            cells = []
            pooled: list[bool] = []
            for group in groups:
                values = table[(lang, group)]
                pooled += values
                cells.append(f"{sum(values)}/{len(values)}")
            variety = [v for g in groups for v in exact[(lang, g)]]
            line = (
                f"{lang:<9}"
                + "".join(f"{c:>14}" for c in cells)
                + f"{sum(pooled)}/{len(pooled)} {sum(pooled) / len(pooled):.1%}".rjust(14)
            )
            if name == "lingua + cues":
                line += f"{sum(variety)}/{len(variety)}".rjust(16)
            print(line)
        total = [v for values in table.values() for v in values]
        print(
            f"{'all':<9}{'':>{14 * len(groups)}}"
            + f"{sum(total)}/{len(total)} {sum(total) / len(total):.1%}".rjust(14)
        )
        if confusions[name]:
            print(
                "errors (gold -> detected): "
                + ", ".join(
                    f"{g}->{d} {n}" for (g, d), n in sorted(confusions[name].items(), key=str)
                )
            )
        print()


if __name__ == "__main__":
    main()
