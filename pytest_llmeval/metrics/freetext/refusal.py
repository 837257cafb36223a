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
from pytest_llmeval.metrics.cue_regex import any_of

__all__ = ["RefusalResult", "assert_not_refusal", "is_refusal", "refusal_check"]

# Cues that the answer declines or says the information is missing. Kept as readable
# alternatives; matching is case-insensitive and apostrophe-normalised. A cue opening with
# ``\b`` and a literal word is tried only where such a word starts (see ``cue_regex.any_of``).
# "I apologize for the confusion" / "I'm sorry for the earlier mistake" opens a corrected answer
_CORRECTION = r"(?! for (any|the|my|this) (earlier |previous |above )?(confusion|error|mistake|oversight|misunderstanding))"
_CUES = [
    # gaps named with other verbs: "lacks the data", "is missing from", "is silent on", "impossible to"
    r"\black(s|ing)? (the |any |sufficient |enough )?(\w+ ){0,3}(data|information|figures|details|numbers|statements?)\b",
    r"\b(missing|absent) (from|in) (the|this)\b",
    r"\b(data|information|figures?|details|numbers|values?)\b[^.;]{0,60}\b(is|are) (missing|absent|unavailable)\b",
    r"\b(is|are) silent (on|about|regarding|as to)\b",
    # bad news ("Unfortunately, margin fell to 8.2%") is not a refusal: no figure may follow in the sentence
    r"\bunfortunately\b(?! for\b)(?!(?:[^.!?]|\.(?=\d))*(?:[$€£]\s?\d|\d\s?%|\d\s?(?:million|billion)))",
    r"\bimpossible to (determine|calculate|compute|answer|say|tell|know)\b",
    r"\bi'?m sorry\b" + _CORRECTION,
    # "I apologize for the confusion" opens a corrected answer, not a refusal
    r"\bi apologi[sz]e\b" + _CORRECTION,
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
    r"\b(isn't|aren't) (explicitly |specifically |directly |clearly )?(stated|provided|mentioned|available|given|included|disclosed|specified|shown|reported)\b",
    # "... is not present in / isn't part of the provided context"
    r"\bnot (available|present|found|included|contained|part of|shown|stated|mentioned|given|provided)"
    r" (in|within|from|of) (the|this|any of the) (provided|given|supplied|above|available|document|text|context|"
    r"excerpts?|filing|passage|information|data|report|statements?|pages?|10-k|10-q)",
    r"\bi would need\b",
    r"\b(does not|doesn't|do not|don't) (explicitly|specifically|directly|clearly) (state|specify|provide|disclose|mention|report|give)\b",
    r"\bnot possible to (determine|calculate|answer|provide)\b",
    r"\b(cannot|can't|can not|unable to) (be )?(determine|determined|calculate|calculated|answer|answered|provide|confirm|compute|computed|find|identify|ascertain|say|derived|established|assessed)",
    r"\b(cannot|can't|can not) be (given|stated|made|derived)\b",
    r"\binsufficient (information|data|details)\b",
    # "the auditor did not identify any critical audit matters" is an answer: only the writer's own search counts
    r"\b(could not|couldn't|was unable to|were unable to|cannot|can't)"
    r" (find|locate|identify)\b|\b(i|we) (did not|didn't) (find|locate|identify|see)\b",
    r"\b(cannot|can't|could not|couldn't) be (found|located|identified)\b",
    r"\b(isn't|is not|aren't|are not|wasn't|was not) (enough|sufficient) (information|data|detail)",
    r"^\W*sorry\b",
    r"\b(can't|cannot|unable to) help with\b",
    r"^\W*(n/?a|unknown|not available|no answer|none provided)\W*$",
    r"\bnot enough (information|data|details)\b",
    r"\bno (specific |direct |relevant )?(information|data|details)\b",
    r"\b(there is )?no (explicit |specific |direct )?mention (of|regarding|about) (?!any )",
    r"\bplease (refer|consult|check)\b",
    r"\byou (would|will|may|might) need to\b",
    r"\byou haven't provided\b",
    r"\byou have not provided\b",
    r"\b(real-time|up-to-date) (data|access|information)\b",
]
# The product serves Norwegian teams; refusals in nb/nn and neighbouring languages carry the same
# two shapes: an apology / "I cannot", or "the document does not contain".
_DOC_WORDS = (
    r"(dokumentet|teksten|utdraget|utdrag|rapporten|årsrapporten|konteksten|informasjonen|opplysningene|"
    r"dokumenten|texten|rapporterna|das dokument|der text|der auszug|le document|le texte|l'extrait|"
    r"el documento|el texto|la información proporcionada|la información)"
)
_STRONG_FOREIGN = [
    r"\bbeklager\b",
    r"\bdessverre\b",
    r"\btyvärr\b",
    r"\bdesværre\b",
    r"\bleider\b",
    r"\bdésolée?\b",
    r"\blo siento\b",
    r"\b(jeg|eg|jag) (kan|kann) (ikke|ikkje|inte) (svare|svara|beregne|berekne|beräkna|finne|finna|hitte|si|seie|säga|avgjøre|fastslå)",
    r"\bich kann (nicht|keine)\b",
    r"\bje ne (peux|suis) pas\b",
    r"\bno puedo\b",
]
_FOREIGN_CUES = [
    *_STRONG_FOREIGN,
    # Nordic/German verbs need their negation ("Dokumentet viser at ..." is an answer) ...
    rf"\b{_DOC_WORDS} (inneholder|inneheld|oppgir|nevner|sier|gir|viser|innehåller|anger|nämner|visar|"
    r"indeholder|oplyser|nævner|viser|enthält|nennt|gibt|zeigt)( \w+)? (ikke|ikkje|inte|ingen|ingenting|keine|nicht)\b",
    # ... also after a fronted adverb ("Dessverre inneholder ikke rapporten ...")
    rf"\b(inneholder|inneheld|oppgir|nevner|sier|gir|viser|innehåller|anger|nämner|indeholder|oplyser|nævner)"
    rf" (ikke|ikkje|inte) {_DOC_WORDS}",
    r"\b(fremgår|framgår|framgår|kommer) (ikke|ikkje|inte|ikke frem|ikke fram) (av|i|ur|af)\b",
    # ... while the Romance forms carry it inside the verb phrase.
    rf"\b{_DOC_WORDS} (ne contient pas|ne précise pas|ne mentionne pas|ne fournit pas|ne donne pas|"
    r"no incluye|no contiene|no proporciona|no menciona|no especifica)",
    r"\b(jeg|eg|jag) (finner|finn|hittar) (ikke|ikkje|inte)\b",
    r"\b(det er|det är|es ist|il n'est|no es) (ikke|ikkje|inte|nicht|pas|)\s*(mulig|möjligt|möglich|possible|posible)\b",
    r"\b(ikke|ikkje|inte|nicht) (nok|tilstrekkelig|tillräckligt|genug) (informasjon|opplysninger|information|angaben)",
]


_CUE_RE = re.compile(any_of([*_CUES, *_FOREIGN_CUES], re.IGNORECASE), re.IGNORECASE)

# Cues that on their own mean "I will not / cannot answer" (as opposed to "the text does not say X",
# which often precedes a partial answer).
_STRONG = [
    r"\bi'?m sorry\b" + _CORRECTION,
    r"^\W*sorry\b",
    r"\bi apologi[sz]e\b" + _CORRECTION,
    r"\bas an ai\b",
    r"\bas a language model\b",
    r"\bunfortunately\b(?! for\b)(?!(?:[^.!?]|\.(?=\d))*(?:[$€£]\s?\d|\d\s?%|\d\s?(?:million|billion)))",
    r"\bi (do not|don't) (have|know)\b",
    r"\bi (cannot|can't|can not|am unable to|am not able to) (provide|answer|determine|calculate|compute|give|access|confirm)\b",
    r"\byou (haven't|have not) provided\b",
    r"\bknowledge cut-?off\b",
    r"\b(real-time|up-to-date) (data|access|information|financial)",
    *_STRONG_FOREIGN,
]
_STRONG_RE = re.compile(any_of(_STRONG, re.IGNORECASE), re.IGNORECASE)
# A sentence that commits to an answer: a conclusion or a figure stated as the result.
_COMMIT_RE = re.compile(
    r"^(yes|no)\b|\b(therefore|thus|hence|in conclusion|in summary|overall|so),? |\bthe answer is\b|"
    r"(=|\b(is|was|were|are|amounted to|totall?ed|of)) (approximately |about |roughly |around )?\(?[-$]?\d",
    re.IGNORECASE,
)
_PIVOT_CUE_RE = re.compile(
    r"(^|[.!?]\s+|\n)(however|unfortunately|but|therefore|thus|so),? [^.!?]{0,200}?("
    # only read for an answer with a cue and no commitment: the plain join compiles faster
    + "|".join(_CUES)
    + ")",
    re.IGNORECASE,
)
_SENT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
# "X is not disclosed separately, but total operating expenses were $4.2 billion": the gap and the
# answer share a sentence, so commitments are looked for clause by clause.
_CLAUSE_RE = re.compile(
    r";\s*|:\s+|,\s*(?=(?:but|however|yet|though|although|while|whereas|men|aber|mais|pero)\b)",
    re.IGNORECASE,
)
_CONCESSIVE_RE = re.compile(
    r"^(although|though|while|whilst|even though|selv om|obwohl|bien que|aunque)\b[^,]*,\s*",
    re.IGNORECASE,
)
# A reported figure: money, a percentage, a scaled amount or a thousands-separated count (not a bare year).
_FIGURE_RE = re.compile(
    r"[$€£]\s?\d|\d(?:[\d,. ]*\d)?\s?(?:%|percent\b|prosent\b|million|billion|thousand|bn\b|mn\b|millioner|milliarder|mrd\b)"
    r"|\b\d{1,3}(?:,\d{3})+\b",
    re.IGNORECASE,
)
_OPENING_CHARS = 220
# Past this many characters only the first and last half of it are read (opening and closing).
READ_CHARS = 6000


@dataclass(kw_only=True)
class RefusalResult(MetricResult):
    """``refusal`` is True when the response declines to answer; ``cues`` are the phrases found."""

    refusal: bool = False
    cues: list[str] = field(default_factory=list)
    position: int | None = None


def _normalise(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").strip()


def _clauses(sentences: list[str]) -> list[str]:
    out: list[str] = []
    for sentence in sentences:
        lead = _CONCESSIVE_RE.match(sentence)
        if lead is not None:
            out.append(lead.group(0))
            sentence = sentence[lead.end() :]
        out.extend(c.strip() for c in _CLAUSE_RE.split(sentence) if c.strip())
    return out


def _commitments(sentences: list[str]) -> list[str]:
    """Clauses that commit to an answer and say nothing about a gap.

    A concluding clause ("revenue was $10.2 billion") counts anywhere; a bare figure counts only
    after the last gap cue: evidence quoted before "so it cannot be calculated" is no answer.
    """
    clauses = _clauses(sentences)
    cue_at = [bool(_CUE_RE.search(c)) for c in clauses]
    last_cue = max((i for i, flag in enumerate(cue_at) if flag), default=-1)
    return [
        c
        for i, c in enumerate(clauses)
        if not cue_at[i] and (_COMMIT_RE.search(c) or (i > last_cue and _FIGURE_RE.search(c)))
    ]


def refusal_check(response: str) -> RefusalResult:
    """Classify ``response`` as a refusal or an attempt, naming the cue found.

    ``passed`` is True when the response is *not* a refusal (so ``assert_not_refusal`` can enforce it).
    """
    text = _normalise(response or "")
    if len(text) > READ_CHARS:
        # A refusal shows in how an answer opens and how it closes; reading the middle of a huge
        # answer too costs seconds (the cue regex tries dozens of phrases at every word).
        half = READ_CHARS // 2
        text = f"{text[:half]}\n{text[-half:]}"
    found = list(_CUE_RE.finditer(text))  # one scan: the alternation is the costly part
    cues = [m.group(0) for m in found]
    refusal = False
    why = "no refusal cue found"
    first = found[0] if found else None
    if not text:
        refusal, why = True, "empty response"
    elif first is not None:
        sentences = [s.strip() for s in _SENT_RE.split(text) if s.strip()]
        commits = _commitments(sentences)
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
