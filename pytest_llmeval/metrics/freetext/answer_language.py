"""Answer language: is the answer in the sample's language (``metadata.locale`` / ``eval_criteria.language``)?

Detection is lingua-language-detector (its models ship inside the wheel: offline) restricted to
the close set Bokmål, Nynorsk, Danish, Swedish, English and German, built once per process on
first use. Orthographic cue words from ``language_tables`` tip close calls (Bokmål ``hva``,
``ble``, ``noen`` against Danish ``hvad``, ``blev``, ``nogen``): each hit multiplies a
language's odds by ``CUE_FACTOR``. Nynorsk counts as Norwegian for ``nb`` and the other way round.

``details`` also list English words outside an allow-list (``SAF-T``, ``MVA``, ``NS 4102``... plus
``eval_criteria.language_allow``) and the answer's use of æ, ø and å.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_llmeval.errors import GraderError, MissingExtraError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.freetext.language_tables import (
    ACCEPTED,
    DEFAULT_ALLOW,
    ENGLISH_WORDS,
    LANGUAGES,
    TARGET_NAMES,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest_llmeval.components import ComponentContext

__all__ = [
    "LanguageGuess",
    "LanguageResult",
    "assert_language",
    "component",
    "detect_language",
    "language_check",
]

CUE_FACTOR = 4.0  # odds multiplier per cue word; a single cue tips a near tie, not a clear verdict
MAX_CUES = 3  # per language: a long answer's many cues must not drown lingua's evidence
MAX_CHARS = 4000  # detection reads at most this much of an answer (bounded time on huge replies)
_WORD = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")

_lock = threading.Lock()
_detector: list[Any] = []  # the lingua detector, built once per process


@dataclass(frozen=True)
class LanguageGuess:
    """The detected language (ISO 639-1 code, None when the text has no letters) and the evidence."""

    code: str | None
    confidence: float
    scores: dict[str, float] = field(default_factory=dict)
    cues: dict[str, list[str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return LANGUAGES[self.code].name if self.code else "undetermined"


@dataclass(kw_only=True)
class LanguageResult(MetricResult):
    expected: str = ""
    detected: str | None = None
    english_words: list[str] = field(default_factory=list)


def _build_detector() -> Any:
    if _detector:
        return _detector[0]
    with _lock:
        if not _detector:
            try:
                from lingua import Language, LanguageDetectorBuilder
            except ImportError:
                raise MissingExtraError(
                    "the answer-language check", "language", "lingua-language-detector"
                ) from None
            languages = [getattr(Language, table.lingua) for table in LANGUAGES.values()]
            _detector.append(LanguageDetectorBuilder.from_languages(*languages).build())
    return _detector[0]


def _cue_hits(words: list[str]) -> dict[str, list[str]]:
    hits: dict[str, list[str]] = {}
    for code, table in LANGUAGES.items():
        found = [w for w in words if w in table.cues or (len(w) > 6 and w.endswith(table.suffixes))]
        if found:
            hits[code] = found
    return hits


def detect_language(text: str) -> LanguageGuess:
    """lingua's confidences over the close set, tipped by each language's cue words."""
    text = (text or "")[:MAX_CHARS]
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return LanguageGuess(None, 0.0)
    detector = _build_detector()
    by_name = {table.lingua: code for code, table in LANGUAGES.items()}
    lingua = {
        by_name[c.language.name]: float(c.value)
        for c in detector.compute_language_confidence_values(text)
    }
    cues = _cue_hits(words)
    raw = {
        code: lingua.get(code, 0.0) * CUE_FACTOR ** min(len(cues.get(code, ())), MAX_CUES)
        for code in LANGUAGES
    }
    total = sum(raw.values())
    if total <= 0:
        return LanguageGuess(None, 0.0, cues=cues)
    scores = {code: value / total for code, value in raw.items()}
    best = max(scores, key=lambda code: scores[code])
    return LanguageGuess(
        best, scores[best], {k: round(v, 4) for k, v in scores.items() if v >= 0.0001}, cues
    )


def normalise_target(language: str) -> str:
    """``nb-NO`` -> ``nb``; raises :class:`GraderError` for a language the check does not know."""
    tag = re.split(r"[-_]", str(language).strip().lower(), maxsplit=1)[0]
    if tag not in ACCEPTED:
        raise GraderError(
            f"language {language!r} is not one the language check knows; known: {', '.join(sorted(ACCEPTED))} "
            "(locales like nb-NO, nn-NO, sv-SE, da-DK, en-GB)"
        )
    return tag


def english_words(text: str, allow: Sequence[str] = ()) -> list[str]:
    """English words in ``text`` outside the allow-list (whole tokens or phrases, case-insensitive)."""
    text = (text or "")[:MAX_CHARS]
    for phrase in sorted({*DEFAULT_ALLOW, *allow}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", " ", text, flags=re.IGNORECASE)
    seen: dict[str, None] = {}
    for word in _WORD.findall(text):
        if word.lower() in ENGLISH_WORDS:
            seen.setdefault(word.lower())
    return list(seen)


def letter_usage(text: str) -> dict[str, int]:
    """How often æ, ø, å (Norwegian/Danish) and ä, ö (Swedish/German) occur."""
    counts = Counter(ch for ch in (text or "")[:MAX_CHARS].lower() if ch in "æøåäö")
    return {ch: counts[ch] for ch in "æøåäö"}


def language_check(answer: str, language: str, *, allow: Sequence[str] = ()) -> LanguageResult:
    """Score 1 when ``answer`` is in ``language`` (``nb``, ``nb-NO``, ``nn``, ``sv``...), else 0 naming the language found."""
    target = normalise_target(language)
    guess = detect_language(answer)
    accepted = ACCEPTED[target]
    ok = guess.code in accepted
    english = english_words(answer, allow) if target != "en" else []
    letters = letter_usage(answer)
    words = len(_WORD.findall(answer or ""))
    wanted = TARGET_NAMES[target]
    if ok:
        why = f"answer is {guess.name} ({guess.confidence:.2f}), expected {wanted} ({language})"
    else:
        why = f"answer is {guess.name} ({guess.confidence:.2f}), not {wanted} ({language})"
    if english:
        why += f"; English words: {', '.join(english[:8])}"
    no_letters = (
        target in ("nb", "nn", "no", "da") and words >= 30 and not any(letters[c] for c in "æøå")
    )
    if no_letters:
        why += f"; no æ, ø or å in {words} words"
    if target in ("nb", "nn", "no", "da") and (letters["ä"] or letters["ö"]):
        why += f"; Swedish letters ä/ö used {letters['ä'] + letters['ö']} times"
    return LanguageResult(
        metric="language",
        passed=ok,
        score=1.0 if ok else 0.0,
        explanation=why,
        expected=language,
        detected=guess.code,
        english_words=english,
        details={
            "expected": language,
            "detected": guess.code,
            "detected_name": guess.name,
            "confidence": round(guess.confidence, 4),
            "scores": guess.scores,
            "cues": guess.cues,
            "english_words": english,
            "letters": letters,
            "missing_aeoa": no_letters,
            "words": words,
        },
    )


def assert_language(answer: str, language: str, *, allow: Sequence[str] = ()) -> LanguageResult:
    """Assert ``answer`` is written in ``language`` (Nynorsk passes for ``nb``: both are Norwegian)."""
    __tracebackhide__ = True
    return enforce(language_check(answer, language, allow=allow))  # type: ignore[return-value]


def component(ctx: ComponentContext) -> MetricResult | None:
    """Rubric component: applies when the sample has ``eval_criteria.language`` or ``metadata.locale``."""
    explicit = ctx.criteria.get("language")
    metadata = ctx.sample.metadata if ctx.sample is not None else {}
    target = explicit or metadata.get("locale")
    if not target:
        return None
    if not explicit:
        # A locale outside the close set (fr-FR) only means the check does not apply;
        # an explicit eval_criteria.language it cannot check is an error.
        tag = re.split(r"[-_]", str(target).strip().lower(), maxsplit=1)[0]
        if tag not in ACCEPTED:
            return None
    import importlib.util

    if importlib.util.find_spec("lingua") is None:
        weighted = {
            **(ctx.settings.weights if ctx.settings is not None else {}),
            **(ctx.criteria.get("weights") or {}),
        }
        if explicit or float(weighted.get("language", 0) or 0) > 0:
            raise MissingExtraError(
                "the answer-language check", "language", "lingua-language-detector"
            )
        return None  # reported-only and not installed: nothing to report
    allow = ctx.criteria.get("language_allow") or ()
    if isinstance(allow, str):
        allow = (allow,)
    return language_check(ctx.response, str(target), allow=[str(a) for a in allow])
