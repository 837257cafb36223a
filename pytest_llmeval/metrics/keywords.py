"""``must_include``: required phrases, case-insensitive and Unicode-aware (æøå, ß)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_llmeval.metrics.base import MetricResult, enforce


@dataclass(kw_only=True)
class KeywordsResult(MetricResult):
    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


# Turkish dotted and dotless I: casefold maps "İ" to "i̇" (i + combining dot) and leaves "ı",
# so "İSTANBUL" would miss "istanbul" and "ISPARTA" miss "ısparta". All four fold to "i".
_TURKISH_I = str.maketrans({"\u0130": "i", "\u0131": "i"})


def _fold(text: str) -> str:
    # NFKC + casefold so "Æ"/"æ", "ß"/"SS" and composed/decomposed "å" compare equal.
    folded = (
        unicodedata.normalize("NFKC", text).translate(_TURKISH_I).casefold().replace("i\u0307", "i")
    )
    return " ".join(folded.split())


def must_include(response: str, keywords: Sequence[str]) -> KeywordsResult:
    """Which of ``keywords`` appear in ``response``; score = fraction found, passed = all found."""
    haystack = _fold(response or "")
    found = [k for k in keywords if _fold(k) in haystack]
    missing = [k for k in keywords if _fold(k) not in haystack]
    score = len(found) / len(keywords) if keywords else 1.0
    if missing:
        explanation = f"missing {len(missing)} of {len(keywords)} required phrases: {', '.join(map(repr, missing))}"
        if found:
            explanation += f"; found {', '.join(map(repr, found))}"
    else:
        explanation = f"all {len(keywords)} required phrases present"
    return KeywordsResult(
        metric="keywords",
        passed=not missing,
        score=score,
        explanation=explanation + " (case-insensitive)",
        details={"found": found, "missing": missing},
        found=found,
        missing=missing,
    )


def assert_must_include(response: str, keywords: Sequence[str]) -> KeywordsResult:
    """Assert every phrase in ``keywords`` appears in ``response`` (case-insensitive)."""
    __tracebackhide__ = True
    return enforce(must_include(response, keywords))  # type: ignore[return-value]
