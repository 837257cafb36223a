"""Refusal detection: "I cannot determine this from the provided information" is never a correct answer.

Offline and deterministic. A response is a refusal when it opens with (or consists of) a
"cannot answer / not provided / as an AI" cue and does not go on to commit to an answer
("However, we can calculate it ... = 42"). Calibrated on FinanceBench answers (see the
``benchmarks/eval_answer_correctness.py`` script).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_llmeval.metrics.base import MetricResult, enforce

__all__ = ["RefusalResult", "assert_not_refusal", "is_refusal", "refusal_check"]

# Cues that the answer declines or says the information is missing. Kept as readable
# alternatives; matching is case-insensitive and apostrophe-normalised.
_CUES = [
    r"\bi'?m sorry\b",
    r"\bi apologi[sz]e\b",
    r"\bsorry, but\b",
    r"\bas an ai\b",
    r"\bas a language model\b",
    r"\bas of my (last|latest) (update|training|knowledge)",
    r"\bmy (knowledge|training) (cutoff|cut-off)",
    r"\bi (do not|don't|cannot|can't) (have|know|access|provide|answer|determine|find|see|calculate|compute)\b",
    r"\bi don't know\b",
    r"\bi do not know\b",
    r"\bi am (not able|unable)\b",
    r"\bi'm (not able|unable)\b",
    r"\b(we|i|you) (would )?need (more|additional|the specific|specific|access)\b",
    r"\bwithout (the|access|additional|more|specific) ",
    r"\b(the|this|provided) (text|context|document|documents|information|excerpts?|filing|data|evidence|passage|statement|report|10-k|10-q)s? "
    r"(provided |given |shown )?(does not|doesn't|do not|don't|did not) "
    r"(provide|include|contain|mention|specify|state|disclose|give|have|offer|show|list|detail|allow)"
    # "does not mention any acquisitions" is a negative answer, not a refusal
    r"(?! any (?!information|details|data|specific|figures|numbers|mention))",
    r"\b(does|do) not (provide|include|contain|mention|specify|state|disclose|give) "
    r"(enough|sufficient|any (information|details|data|specific)|the|specific|information|details|data)",
    r"\b(is|are) not (explicitly |specifically |directly |clearly )?(stated|provided|mentioned|available|given|included|disclosed|specified|displayed|shown|reported)\b",
    r"\b(does not|doesn't|do not|don't) (explicitly|specifically|directly|clearly) (state|specify|provide|disclose|mention|report|give)\b",
    r"\bnot possible to (determine|calculate|answer|provide)\b",
    r"\b(cannot|can't|can not|unable to) (be )?(determine|determined|calculate|calculated|answer|answered|provide|confirm|compute|computed|find|identify|ascertain|say)",
    r"\binsufficient (information|data|details)\b",
    r"\b(could not|couldn't|was unable to|were unable to|cannot|can't|did not|didn't) (find|locate|identify)\b",
    r"\b(cannot|can't|could not|couldn't) be (found|located|identified)\b",
    r"\b(isn't|is not|aren't|are not|wasn't|was not) (enough|sufficient) (information|data|detail)",
    r"^\W*sorry\b",
    r"\b(can't|cannot|unable to) help with\b",
    r"^\W*(n/?a|unknown|not available|no answer|none provided)\W*$",
    r"\bnot enough (information|data|details)\b",
    r"\bno (specific |direct |relevant )?(information|data|details)\b",
    r"\b(there is )?no (explicit |specific |direct )?mention (of|regarding|about) (?!any )",
    r"\bunfortunately\b",
    r"\bplease (refer|consult|check)\b",
    r"\byou (would|will|may|might) need to\b",
    r"\byou haven't provided\b",
    r"\byou have not provided\b",
    r"\b(real-time|up-to-date) (data|access|information)\b",
]
_CUE_RE = re.compile("|".join(f"(?:{c})" for c in _CUES), re.IGNORECASE)

# Cues that on their own mean "I will not / cannot answer" (as opposed to "the text does not say X",
# which often precedes a partial answer).
_STRONG_RE = re.compile(
    r"\bi'?m sorry\b|^\W*sorry\b|\bi apologi[sz]e\b|\bas an ai\b|\bas a language model\b|\bunfortunately\b|"
    r"\bi (do not|don't) (have|know)\b|\bi (cannot|can't|can not|am unable to|am not able to) "
    r"(provide|answer|determine|calculate|compute|give|access|confirm)\b|\byou (haven't|have not) provided\b|"
    r"\bknowledge cut-?off\b|\b(real-time|up-to-date) (data|access|information|financial)",
    re.IGNORECASE,
)
# A sentence that commits to an answer: a conclusion or a figure stated as the result.
_COMMIT_RE = re.compile(
    r"^(yes|no)\b|\b(therefore|thus|hence|in conclusion|in summary|overall|so),? |\bthe answer is\b|"
    r"(=|\b(is|was|were|are|amounted to|totall?ed|of)) (approximately |about |roughly |around )?\(?[-$]?\d",
    re.IGNORECASE,
)
_PIVOT_CUE_RE = re.compile(
    r"(^|[.!?]\s+|\n)(however|unfortunately|but|therefore|thus|so),? [^.!?]{0,200}?("
    + "|".join(_CUES)
    + ")",
    re.IGNORECASE,
)
_SENT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_OPENING_CHARS = 220


@dataclass(kw_only=True)
class RefusalResult(MetricResult):
    """``refusal`` is True when the response declines to answer; ``cues`` are the phrases found."""

    refusal: bool = False
    cues: list[str] = field(default_factory=list)
    position: int | None = None


def _normalise(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").strip()


def refusal_check(response: str) -> RefusalResult:
    """Classify ``response`` as a refusal or an attempt, naming the cue found.

    ``passed`` is True when the response is *not* a refusal (so ``assert_not_refusal`` can enforce it).
    """
    text = _normalise(response or "")
    cues = [m.group(0) for m in _CUE_RE.finditer(text)]
    refusal = False
    why = "no refusal cue found"
    first = _CUE_RE.search(text)
    if not text:
        refusal, why = True, "empty response"
    elif first is not None:
        sentences = [s.strip() for s in _SENT_RE.split(text) if s.strip()]
        commits = [s for s in sentences if _COMMIT_RE.search(s) and not _CUE_RE.search(s)]
        strong = _STRONG_RE.search(text)
        opening = first.start() <= _OPENING_CHARS or first.start() <= len(text) * 0.25
        closing = any(_CUE_RE.search(s) for s in sentences[-2:])
        if strong is not None and (strong.start() <= len(text) * 0.5 or closing):
            refusal, why = True, f"says {strong.group(0)!r}: declines to answer"
        elif (opening or (closing and len(sentences) <= 3)) and not commits:
            refusal, why = True, f"says {first.group(0)!r} and commits to no answer"
        elif not commits and _PIVOT_CUE_RE.search(text):
            # "To calculate X we need A and B. However, B is not provided." and nothing after
            refusal, why = True, f"explains the method, then says {first.group(0)!r}; no answer"
        elif commits:
            why = f"says {first.group(0)!r} but then answers ({commits[0][:80]!r})"
        else:
            why = f"cue {first.group(0)!r} appears only inside an answer (char {first.start()})"
    return RefusalResult(
        metric="refusal",
        passed=not refusal,
        score=0.0 if refusal else 1.0,
        refusal=refusal,
        cues=cues,
        position=first.start() if first else None,
        explanation=("refusal: " if refusal else "not a refusal: ") + why,
        details={"refusal": refusal, "cues": cues},
    )


def is_refusal(response: str) -> bool:
    """True when ``response`` declines to answer ("I cannot determine this from the provided information")."""
    return refusal_check(response).refusal


def assert_not_refusal(response: str) -> RefusalResult:
    """Fail the running test when ``response`` is a refusal."""
    __tracebackhide__ = True
    result = refusal_check(response)
    enforce(result)
    return result
