"""Answer length in whitespace tokens, scored by bands (too short or too long costs score)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_llmeval.metrics.base import MetricResult, enforce


@dataclass(frozen=True)
class LengthBands:
    """Default bands: 100-250 tokens -> 1.0; 50-100 or 250-300 -> 0.8; otherwise 0.5; over max_tokens -> 0.5."""

    ideal: tuple[int, int] = (100, 250)
    ok: tuple[int, int] = (50, 300)
    ok_score: float = 0.8
    out_score: float = 0.5

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> LengthBands:
        base = cls()
        return cls(
            ideal=tuple(values.get("ideal", base.ideal)),
            ok=tuple(values.get("ok", base.ok)),
            ok_score=float(values.get("ok_score", base.ok_score)),
            out_score=float(values.get("out_score", values.get("short_score", base.out_score))),
        )


@dataclass(kw_only=True)
class LengthResult(MetricResult):
    tokens: int = 0


def count_tokens(text: str) -> int:
    """Whitespace tokens: deterministic, offline, and close enough to BPE counts for banding."""
    return len((text or "").split())


def length_score(
    response: str,
    *,
    max_tokens: int | None = None,
    min_tokens: int | None = None,
    bands: LengthBands | None = None,
) -> LengthResult:
    """Score the length of ``response`` by ``bands``; a hard ``max_tokens``/``min_tokens`` fails."""
    bands = bands or LengthBands()
    tokens = count_tokens(response)
    if max_tokens is not None and tokens > max_tokens:
        score, why = bands.out_score, f"{tokens} tokens is over max_tokens={max_tokens}"
    elif min_tokens is not None and tokens < min_tokens:
        score, why = bands.out_score, f"{tokens} tokens is under min_tokens={min_tokens}"
    elif bands.ideal[0] <= tokens <= bands.ideal[1]:
        score, why = (
            1.0,
            f"{tokens} tokens, inside the ideal band {bands.ideal[0]}-{bands.ideal[1]}",
        )
    elif bands.ok[0] <= tokens <= bands.ok[1]:
        score, why = (
            bands.ok_score,
            f"{tokens} tokens, outside the ideal band {bands.ideal[0]}-{bands.ideal[1]} but within {bands.ok[0]}-{bands.ok[1]}",
        )
    elif tokens < bands.ok[0]:
        score, why = bands.out_score, f"{tokens} tokens, under {bands.ok[0]}"
    else:
        score, why = bands.out_score, f"{tokens} tokens, over {bands.ok[1]}"
    hard_limit_ok = (max_tokens is None or tokens <= max_tokens) and (
        min_tokens is None or tokens >= min_tokens
    )
    return LengthResult(
        metric="length",
        passed=hard_limit_ok,
        score=score,
        explanation=why + " (whitespace tokens)",
        details={"tokens": tokens},
        tokens=tokens,
    )


def length_asked(
    criteria: dict[str, Any], *, run_bands: dict[str, Any], run_weights_changed: bool
) -> str | None:
    """What in the suite asks for length to be judged (``max_tokens``, ``length_bands``, a length weight), or None."""
    if criteria.get("max_tokens") is not None:
        return "max_tokens"
    if criteria.get("length_bands") or run_bands:
        return "length_bands"
    if "length" in (criteria.get("weights") or {}) or run_weights_changed:
        return "weights"
    return None


def length_applies(
    expected: str,
    criteria: dict[str, Any],
    bands: LengthBands,
    *,
    run_bands: dict[str, Any],
    run_weights_changed: bool,
) -> bool:
    """Whether the length component judges this sample.

    Only where the suite asks for it (see :func:`length_asked`) or where the gold itself is
    long enough for the bands to fit it (at least the ``ok`` band's lower end, 50 tokens by
    default). A one-line gold says a one-line answer is right: 'Oslo' for 'Oslo' must not
    lose score for being short.
    """
    if length_asked(criteria, run_bands=run_bands, run_weights_changed=run_weights_changed):
        return True
    return count_tokens(expected) >= bands.ok[0]


def assert_length(
    response: str, *, max_tokens: int | None = None, min_tokens: int | None = None
) -> LengthResult:
    """Assert ``min_tokens <= tokens(response) <= max_tokens`` (whitespace tokens).

    The result's score is 1.0 within the limits and 0.0 outside (the band score of
    ``length_score`` stays in ``details["band_score"]``): the helper checks limits, not style.
    """
    __tracebackhide__ = True
    result = length_score(response, max_tokens=max_tokens, min_tokens=min_tokens)
    result.details["band_score"] = result.score
    result.score = 1.0 if result.passed else 0.0
    limits = f"min_tokens={min_tokens}, max_tokens={max_tokens}"
    if result.passed:
        result.explanation = f"{result.tokens} tokens, within {limits} (whitespace tokens)"
    return enforce(result)  # type: ignore[return-value]
