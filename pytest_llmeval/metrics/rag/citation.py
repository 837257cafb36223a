"""Citation checks: find the citations in a response, resolve them against the known sources and
retrieved contexts, and (optionally) check that the citing sentence is supported by what it cites.

Score (the rubric's citation component; see the README section "Citations"):

* no citation found: 0.0 when citations are required (fail), N/A when not (``citation_component``
  returns ``None``; ``citation_check`` reports passed with score 1.0);
* otherwise the mean credit over the citation occurrences: 1 for a resolved citation (or one that
  could not be checked because nothing was given to check it against), 0 for an unresolvable one,
  and, when support is checked, 0.5 for a resolved citation whose sentence the cited text does not
  support.

The strict check (``passed``) also needs no unresolvable citation and, with ``check_support``, no
unsupported one.
"""

from __future__ import annotations

import bisect
import functools
import importlib.util
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_llmeval.errors import GraderError
from pytest_llmeval.metrics.base import MetricResult, enforce
from pytest_llmeval.metrics.linear_regex import LinearRegexError, compile_linear

# Order matters: where two patterns match overlapping text, the earlier one wins
# ("[1](https://...)" is a markdown link, not a numbered reference).
# Linear on hostile text: a run inside brackets stops at the next opening bracket and is bounded
# (without that, 100 KB of "[" took 34 s: every "[" scanned to the end of the text).
BUILTIN_PATTERNS: dict[str, str] = {
    "markdown": r"\[(?P<label>[^\[\]\n]{1,500})\]\((?P<target>[^()\s]{1,2000})\)",
    "law": r"\[§{1,2}\s{0,5}(?P<section>\d{1,9}(?:-\d{1,9}){0,5}[a-z]?)\s{1,5}(?P<target>[^\[\]\n]{1,500})\]",
    "standard": r"\[(?P<target>NS(?:[- ]?EN)?(?:[- ]?ISO)?\s{0,5}\d{1,9}(?:[-:]\d{1,9}){0,5})\]",
    "source": r"\((?i:sources?|kilder?)\s{0,5}:\s{0,5}(?P<target>[^()\n]{1,500})\)",
    "numbered": r"\[(?P<target>\d{1,9}(?:\s{0,5}[,;–-]\s{0,5}\d{1,9}){0,50})\]",
}
# The character every match of a built-in opens with: each pattern starts with an escaped "[" or
# "(" (a test holds them to that).
BUILTIN_OPENERS = {kind: pattern[1] for kind, pattern in BUILTIN_PATTERNS.items()}
# User patterns come from gold files and ini: they run on RE2 (linear time, no backtracking), so a
# pattern like "(a+)+$" cannot hang a run. RE2 has no backreferences or lookaround.
MAX_PATTERN_LENGTH = 1000
# Citations checked per answer; more are counted and named in the explanation, not resolved
# (each check looks at the sentence around it, so checking thousands would be quadratic).
MAX_CITATIONS = 200
SENTENCE_REACH = 1000  # characters either side of a citation that its citing sentence may span
KIND_EXAMPLES = {
    "law": "[§ 14-1 Lov om merverdiavgift]",
    "standard": "[NS 4102]",
    "numbered": "[1] or [2, 3]",
    "source": "(Source: ...)",
    "markdown": "[title](url)",
}

TITLE_MATCH_THRESHOLD = 85.0  # rapidfuzz token_set_ratio, 0-100, citation name vs source title
SUPPORT_THRESHOLD = 0.5  # share of the citing sentence's content words found in the cited text
# Cosine, citing sentence vs the best sentence of the cited text. High because the bundled
# MiniLM is English-only: unrelated Norwegian sentences still reach ~0.6.
SEMANTIC_THRESHOLD = 0.7
_TOKEN_MATCH = 85.0  # rapidfuzz ratio for one word to count as found ("avgift" ~ "avgiften")
_MAX_RANGE = 50

# English and Norwegian function words: they say nothing about whether a source supports a claim.
_STOPWORD_TEXT = (
    "the and for are was were with that this from have has not but its into than then also "
    "which what when where who how can may must shall will should would been being such per "
    "other og til som med har det den ikke eller etter skal kan fra ved der denne dette "
    "disse mot over under hvor hva om når være vært blir ble også av på er en et de seg sin "
    "sitt sine "
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_SECTION = re.compile(r"§{1,2}\s*(\d+(?:-\d+)*[a-z]?)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(kw_only=True)
class Citation:
    """One citation occurrence. ``resolved`` is None when there was nothing to check it against.

    ``support`` is the word overlap of the citing ``sentence`` with the cited text (or the cosine,
    when the semantic check ran and scored higher); None when support was not checked.
    """

    text: str
    kind: str
    target: str
    resolved: bool | None
    resolution: str
    start: int = 0
    sentence: str = ""
    supported: bool | None = None
    support: float | None = None


@dataclass(kw_only=True)
class CitationResult(MetricResult):
    """Citations found in a response, how each resolved, and which are unresolved/unsupported."""

    citations: list[Citation] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)


@dataclass
class _Source:
    id: str
    titles: list[str]


# ---------------------------------------------------------------------------------------------
# Finding citations


def _compile_patterns(patterns: Sequence[str] | None) -> Sequence[tuple[str, Any]]:
    """Built-in names select built-ins; other entries are regexes that extend them.

    With no built-in name among ``patterns`` all built-ins stay on, so a user pattern adds to them.
    """
    if isinstance(patterns, str):
        patterns = [patterns]
    key = tuple(patterns or ())
    try:
        hash(key)
    except TypeError:
        return _compile_pattern_tuple.__wrapped__(key)
    return _compile_pattern_tuple(key)


@functools.lru_cache(maxsize=256)
def _compile_pattern_tuple(patterns: tuple[Any, ...]) -> tuple[tuple[str, Any], ...]:
    # Every sample of a gold file names the same patterns: compiled once, not per sample.
    names = [p for p in patterns if p in BUILTIN_PATTERNS or p == "builtin"]
    custom = [p for p in patterns if p not in names]
    if not names or "builtin" in names:
        names = list(BUILTIN_PATTERNS)
    compiled = [
        (name, re.compile(BUILTIN_PATTERNS[name])) for name in BUILTIN_PATTERNS if name in names
    ]
    compiled.extend(("custom", _compile_user_pattern(raw)) for raw in custom)
    return tuple(compiled)


@functools.lru_cache(maxsize=256)
def _openers(compiled: tuple[tuple[str, Any], ...]) -> frozenset[str] | None:
    """The characters a citation of these patterns must contain (every built-in opens with a literal
    bracket or parenthesis); None with a user's pattern, which could start with anything."""
    if any(kind == "custom" for kind, _ in compiled):
        return None
    return frozenset(BUILTIN_OPENERS[kind] for kind, _ in compiled)


def _may_cite(response: str, compiled: Sequence[tuple[str, Any]]) -> bool:
    """False only when no pattern can match: none of the characters every citation opens with."""
    opens = _openers(tuple(compiled))
    return opens is None or any(char in response for char in opens)


def _compile_user_pattern(raw: str) -> Any:
    """A gold file's regex, compiled by RE2 (linear time); ``ValueError`` names what is wrong."""
    if not isinstance(raw, str) or len(raw) > MAX_PATTERN_LENGTH:
        raise ValueError(
            f"citation pattern {str(raw)[:80]!r}… is longer than {MAX_PATTERN_LENGTH} characters"
        )
    try:
        import re2  # noqa: F401
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        raise ValueError(
            "citation_patterns need google-re2 (linear-time regexes): pip install google-re2"
        ) from None
    try:
        return compile_linear(raw)
    except LinearRegexError as exc:
        raise ValueError(
            f"citation pattern {raw!r} is not a valid regular expression "
            f"(RE2 syntax: no backreferences or lookaround): {exc}"
        ) from exc


def _target_of(match: Any) -> str:
    groups = match.groupdict()
    if groups.get("target") is not None:
        return str(groups["target"]).strip()
    if match.re.groups and match.group(1) is not None:
        return str(match.group(1)).strip()
    return str(match.group(0)).strip().strip("[]()").strip()


def _expand_numbers(target: str) -> list[str]:
    numbers: list[str] = []
    for part in re.split(r"\s*[,;]\s*", target):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and 0 <= int(bounds[1]) - int(bounds[0]) <= _MAX_RANGE:
            numbers.extend(str(n) for n in range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            numbers.extend(b for b in bounds if b)
    return numbers


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [s for s in spans if text[s[0] : s[1]].strip()]


def _find(response: str, compiled: Sequence[tuple[str, Any]]) -> tuple[list[tuple[str, Any]], int]:
    """(kind, match) of the citations, earlier patterns winning overlaps (re or RE2 matches),
    and the offset where finding stopped (``len(response)`` unless there were too many).

    Each pattern stops after ``MAX_CITATIONS`` matches; the text is then read up to the earliest
    such stop, where every pattern's matches are known, so overlaps resolve as on the whole text.
    """
    per_pattern: list[tuple[int, str, list[Any]]] = []
    cutoff = len(response)
    for priority, (kind, pattern) in enumerate(compiled):
        hits: list[Any] = []
        for m in pattern.finditer(response):
            if m.end() > m.start():
                hits.append(m)
                if len(hits) > MAX_CITATIONS:
                    cutoff = min(cutoff, m.start())
                    break
        per_pattern.append((priority, kind, hits))
    found: list[tuple[int, int, int, str, Any]] = [
        (m.start(), priority, -(m.end() - m.start()), kind, m)
        for priority, kind, hits in per_pattern
        for m in hits
        if m.start() < cutoff
    ]
    found.sort(key=lambda f: (f[1], f[0]))
    kept: list[tuple[str, Any]] = []
    # Kept spans never overlap: sorted starts and a bisect find the only neighbours that could.
    starts: list[int] = []
    ends: list[int] = []
    for start, _p, _len, kind, m in found:
        i = bisect.bisect_right(starts, start)
        if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < m.end()):
            continue
        starts.insert(i, start)
        ends.insert(i, m.end())
        kept.append((kind, m))
    kept.sort(key=lambda km: km[1].start())
    return kept, cutoff


# ---------------------------------------------------------------------------------------------
# Resolving


def _sources(sources: Any) -> list[_Source]:
    if sources is None:
        return []
    if isinstance(sources, str):
        sources = [sources]
    entries: list[_Source] = []
    items = sources.items() if isinstance(sources, Mapping) else ((None, s) for s in sources)
    for key, value in items:
        if isinstance(value, Mapping):
            ident = str(value.get("id", key if key is not None else value.get("title", "")))
            title = value.get("title") or value.get("name") or ""
            titles = [str(title)] if title else []
        elif isinstance(value, (list, tuple)):
            ident = str(key) if key is not None else str(value[0]) if value else ""
            titles = [str(v) for v in value]
        elif value is None:
            ident, titles = str(key), []
        else:
            ident = str(key) if key is not None else str(value)
            titles = [str(value)]
        entries.append(_Source(ident, titles))
    return entries


def _title_score(name: str, title: str) -> float:
    from rapidfuzz import fuzz, utils

    a, b = utils.default_process(name), utils.default_process(title)
    if not a or not b:
        return 0.0
    if a == b:
        return 100.0
    score = float(fuzz.token_sort_ratio(a, b))
    # Subset matching lets "Lov om merverdiavgift" find "Lov om merverdiavgift (merverdiavgiftsloven)";
    # a short generic name ("lov") would then match every law, so it needs some length.
    if min(len(a), len(b)) >= 8:
        score = max(score, float(fuzz.token_set_ratio(a, b)))
    return score


def _best_source(name: str, entries: list[_Source]) -> tuple[_Source | None, float, str]:
    best: tuple[_Source | None, float, str] = (None, 0.0, "")
    for entry in entries:
        for candidate in [entry.id, *entry.titles]:
            score = _title_score(name, candidate)
            if score > best[1]:
                best = (entry, score, candidate)
    return best


def _describe(entry: _Source) -> str:
    return f"source {entry.id!r}" + (
        f" ({entry.titles[0]!r})" if entry.titles and entry.titles[0] != entry.id else ""
    )


def _compact(text: str) -> str:
    return re.sub(r"[\s\-_.]+", "", text.casefold())


def _resolve_number(
    number: str, entries: list[_Source], contexts: Sequence[str] | None
) -> tuple[bool | None, str, int | None]:
    n = int(number)
    if contexts is not None:
        if 1 <= n <= len(contexts):
            return True, f"retrieved context #{n}", n - 1
        return False, f"index {n} is past the {len(contexts)} retrieved context(s)", None
    if entries:
        for entry in entries:
            if entry.id == number:
                return True, _describe(entry), None
        if 1 <= n <= len(entries):
            return True, f"{_describe(entries[n - 1])}, #{n} in the source list", None
        return False, f"index {n} is past the {len(entries)} known source(s)", None
    return None, "not checked: no contexts or sources to resolve a numbered citation against", None


def _resolve_named(
    kind: str,
    target: str,
    section: str | None,
    entries: list[_Source],
    contexts: Sequence[str] | None,
) -> tuple[bool | None, str]:
    if not entries and contexts is None:
        return None, "not checked: no sources or contexts given"
    if kind == "standard" or re.fullmatch(r"NS\b.*\d", target):
        code = _compact(target)
        pattern = re.compile(re.escape(code) + r"(?!\d)")
        for known in entries:
            if any(pattern.search(_compact(t)) for t in [known.id, *known.titles]):
                return True, _describe(known)
        for i, ctx in enumerate(contexts or ()):
            if pattern.search(_compact(ctx)):
                return True, f"named in retrieved context #{i + 1}"
        return False, f"no known source is {target}"
    stripped = target.strip("[] ")
    if stripped.isdigit():
        resolved, how, _ = _resolve_number(stripped, entries, contexts)
        return resolved, how
    for known in entries:
        if target.casefold() == known.id.casefold() or any(target == t for t in known.titles):
            return _check_section(section, [known], target) or (True, _describe(known))
    if entries:
        entry, score, matched = _best_source(target, entries)
        if entry is not None and score >= TITLE_MATCH_THRESHOLD:
            close = [e for e in entries if _best_source(target, [e])[1] >= TITLE_MATCH_THRESHOLD]
            failed = _check_section(section, close, target)
            if failed:
                return failed
            return (
                True,
                f"{_describe(entry)}, title match {score:.0f} >= {TITLE_MATCH_THRESHOLD:.0f}",
            )
    if contexts:
        from rapidfuzz import fuzz, utils

        name = utils.default_process(target)
        for i, ctx in enumerate(contexts):
            if len(name) >= 4 and fuzz.partial_ratio(name, utils.default_process(ctx)) >= 90:
                return True, f"named in retrieved context #{i + 1}"
    if entries:
        entry, score, matched = _best_source(target, entries)
        nearest = (
            f"; nearest {matched!r} ({score:.0f} < {TITLE_MATCH_THRESHOLD:.0f})" if entry else ""
        )
        return False, f"no known source matches {target!r}{nearest}"
    return False, f"{target!r} is not named in any retrieved context"


def _check_section(
    section: str | None, matching: list[_Source], target: str
) -> tuple[bool, str] | None:
    """An invented section fails only if the sources list the sections of that law."""
    if not section:
        return None
    listed = {s for e in matching for t in [e.id, *e.titles] for s in _SECTION.findall(t)}
    if listed and section not in listed:
        shown = ", ".join(f"§ {s}" for s in sorted(listed))
        return (
            False,
            f"§ {section} is not among the sections of {target!r} in the sources ({shown})",
        )
    return None


# ---------------------------------------------------------------------------------------------
# Support


def _content_tokens(text: str) -> list[str]:
    return [
        t
        for t in re.findall(r"\w+", text.casefold())
        if (len(t) >= 3 or t.isdigit()) and t not in _STOPWORDS
    ]


def _fuzzy_support(sentence: str, context: str) -> float:
    from rapidfuzz import fuzz, process

    words = _content_tokens(sentence)
    if not words:
        return 1.0
    vocabulary = set(_content_tokens(context))
    found = 0
    for word in words:
        if word in vocabulary or (
            not word.isdigit()
            and process.extractOne(word, vocabulary, scorer=fuzz.ratio, score_cutoff=_TOKEN_MATCH)
        ):
            found += 1
    return found / len(words)


def _semantic_encoder() -> tuple[Any, str]:
    if importlib.util.find_spec("sentence_transformers") is None:
        return None, "sentence-transformers is not installed"
    try:
        from pytest_llmeval.metrics.freetext.semantic import encode
    except ImportError as exc:
        return None, f"semantic encoder unavailable ({exc})"
    return encode, ""


def _cosine(u: Sequence[float], v: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(u, v, strict=False))
    norm = math.sqrt(sum(a * a for a in u)) * math.sqrt(sum(b * b for b in v))
    return dot / norm if norm else 0.0


def _semantic_support(encode: Any, sentence: str, context: str) -> float:
    pieces = [context[a:b] for a, b in _sentence_spans(context)] or [context]
    vectors = [list(map(float, v)) for v in encode([sentence, *pieces])]
    return max(_cosine(vectors[0], v) for v in vectors[1:])


# ---------------------------------------------------------------------------------------------
# Public API


def citation_check(
    response: str,
    *,
    patterns: Sequence[str] | None = None,
    required: bool = True,
    sources: Any = None,
    contexts: Sequence[str] | None = None,
    check_support: bool | str = False,
) -> CitationResult:
    """Find, resolve and (optionally) support-check the citations in ``response``.

    ``sources`` is a dict id -> title (or list of titles) or a list of ids/titles; numbered
    citations are 1-based indexes into ``contexts`` (or the source list when no contexts are
    given). ``check_support``: False, True/"fuzzy" (word overlap), or "semantic" (embeddings when
    sentence-transformers is importable, otherwise fuzzy with a note).
    """
    if check_support not in (False, True, "fuzzy", "semantic"):
        raise ValueError(
            f"check_support must be False, True, 'fuzzy' or 'semantic', got {check_support!r}"
        )
    compiled = _compile_patterns(patterns)
    entries = _sources(sources)
    ctx_list = None if contexts is None else [str(c) for c in contexts]
    matches, cutoff = _find(response, compiled)
    if len(matches) > MAX_CITATIONS:
        cutoff = matches[MAX_CITATIONS][1].start()
        matches = matches[:MAX_CITATIONS]
    # Sentences only as far as the last citation's sentence reaches.
    end = _SENTENCE_END.search(response, matches[-1][1].end()) if matches else None
    spans = _sentence_spans(response[: end.end() if end else len(response)])
    all_spans = [(m.start(), m.end()) for _k, m in matches]

    # [encode function or None, why semantic support is off]; _support may switch it off later.
    encoder: list[Any] = [None, ""]
    if check_support == "semantic":
        encoder[:] = _semantic_encoder()

    citations: list[Citation] = []
    for kind, m in matches:
        sentence = _citing_sentence(response, m.start(), spans, all_spans)
        if kind == "numbered":
            found = _numbered_citations(m, sentence, entries, ctx_list)
        else:
            found = [(_named_citation(kind, m, sentence, entries, ctx_list), ctx_list or [])]
        for citation, cited in found:
            citations.append(citation)
            _support(citation, cited, check_support, encoder)

    return _result(
        citations,
        required=required,
        check_support=check_support,
        encoder_note=encoder[1],
        kinds=[k for k, _ in compiled],
        stopped_at=cutoff if cutoff < len(response) else None,
    )


def _numbered_citations(
    m: re.Match[str], sentence: str, entries: Any, ctx_list: list[str] | None
) -> list[tuple[Citation, list[str]]]:
    """ "[1-3]" is three citations, each resolved to its source and to the context it cites."""
    out = []
    for number in _expand_numbers(_target_of(m)):
        resolved, how, index = _resolve_number(number, entries, ctx_list)
        cited = [ctx_list[index]] if ctx_list is not None and index is not None else []
        citation = Citation(
            text=m.group(0),
            kind="numbered",
            target=number,
            resolved=resolved,
            resolution=how,
            start=m.start(),
            sentence=sentence,
        )
        out.append((citation, cited))
    return out


def _named_citation(
    kind: str, m: re.Match[str], sentence: str, entries: Any, ctx_list: list[str] | None
) -> Citation:
    """A citation by name (document, law section, link): resolved by its target, else a link's text."""
    target = _target_of(m)
    section = m.groupdict().get("section") if kind == "law" else None
    resolved, how = _resolve_named(kind, target, section, entries, ctx_list)
    if resolved is False and kind == "markdown" and m.group("label"):
        by_label, how_label = _resolve_named(kind, m.group("label"), None, entries, ctx_list)
        if by_label:
            resolved, how = by_label, f"link text: {how_label}"
    label = f"§ {section} {target}" if section else target
    return Citation(
        text=m.group(0),
        kind=kind,
        target=label,
        resolved=resolved,
        resolution=how,
        start=m.start(),
        sentence=sentence,
    )


def _citing_sentence(
    response: str, start: int, spans: list[tuple[int, int]], marks: list[tuple[int, int]]
) -> str:
    index = bisect.bisect_right(spans, (start, len(response) + 1)) - 1
    if not 0 <= index < len(spans) or not spans[index][0] <= start < spans[index][1]:
        index = len(spans) - 1
    # "...er 25 %. [1]" puts the marker at the start of the next piece: it belongs to the one before.
    if (
        index > 0
        and not _strip_marks(
            response, max(spans[index][0], start - SENTENCE_REACH), start, marks
        ).strip()
    ):
        index -= 1
    # A "sentence" with no full stop can be the whole answer: read only near the citation.
    a, b = spans[index]
    return _strip_marks(
        response, max(a, start - SENTENCE_REACH), min(b, start + SENTENCE_REACH), marks
    ).strip()


def _strip_marks(text: str, a: int, b: int, marks: list[tuple[int, int]]) -> str:
    out, pos = [], a
    for s, e in sorted(marks):
        if e <= a or s >= b:
            continue
        out.append(text[pos : max(s, pos)])
        pos = max(pos, min(e, b))
    out.append(text[pos:b])
    # Removing a marker leaves "avgiftspliktig ." behind: close the gap before punctuation.
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", "".join(out)))


def _support(
    citation: Citation, cited: list[str], check_support: bool | str, encoder: list[Any]
) -> None:
    if not check_support or citation.resolved is False or not cited:
        return
    best = max(_fuzzy_support(citation.sentence, c) for c in cited)
    ok = best >= SUPPORT_THRESHOLD
    if not ok and encoder[0] is not None:
        try:
            cos = max(_semantic_support(encoder[0], citation.sentence, c) for c in cited)
        except ImportError as exc:  # the [semantic] extra is incomplete (e.g. no bundled model)
            encoder[:] = [None, str(exc)]
        else:
            ok = cos >= SEMANTIC_THRESHOLD
            best = max(best, cos)
    citation.support = best
    citation.supported = ok


def _result(
    citations: list[Citation],
    *,
    required: bool,
    check_support: bool | str,
    encoder_note: str,
    kinds: list[str],
    stopped_at: int | None = None,
) -> CitationResult:
    encoder_used = check_support == "semantic" and not encoder_note
    expected = ", ".join(KIND_EXAMPLES.get(k, "custom pattern") for k in dict.fromkeys(kinds))
    if not citations:
        return CitationResult(
            metric="citation",
            passed=not required,
            score=0.0 if required else 1.0,
            explanation=(
                f"no citation found, citations are required (looked for: {expected})"
                if required
                else f"no citation found (not required; looked for: {expected})"
            ),
            details={"required": required, "n_citations": 0},
        )
    unresolved = list(dict.fromkeys(c.text for c in citations if c.resolved is False))
    unsupported = list(dict.fromkeys(c.text for c in citations if c.supported is False))
    credits = [
        0.0 if c.resolved is False else 0.5 if c.supported is False else 1.0 for c in citations
    ]
    score = sum(credits) / len(credits)
    passed = not unresolved and not unsupported
    parts = []
    for c in citations:
        state = {True: "resolved", False: "UNRESOLVED", None: "unchecked"}[c.resolved]
        support = (
            ""
            if c.supported is None
            else f", support {c.support:.2f} {'ok' if c.supported else 'TOO LOW'}"
        )
        parts.append(f"{c.text} ({c.kind} {c.target!r}: {state}, {c.resolution}{support})")
    # Verdict first: summaries truncate the explanation.
    n_resolved = sum(c.resolved is True for c in citations)
    n_unchecked = sum(c.resolved is None for c in citations)
    head = [f"{len(citations)} citation(s), {n_resolved} resolved"]
    if n_unchecked:
        head.append(f"{n_unchecked} unchecked (nothing to resolve against)")
    if unresolved:
        head.append(f"unresolved: {', '.join(unresolved)}")
    if unsupported:
        cosine = f", cosine < {SEMANTIC_THRESHOLD:g}" if encoder_used else ""
        head.append(
            f"unsupported (word overlap < {SUPPORT_THRESHOLD:g}{cosine}): {', '.join(unsupported)}"
        )
    if encoder_note:
        head.append(f"semantic support off: {encoder_note}, used word overlap only")
    if stopped_at is not None:
        head.append(
            f"only the first {MAX_CITATIONS} checked: citations from character {stopped_at} on were not read"
        )
    explanation = (
        "; ".join(head)
        + f". Score {score:.3f} = mean credit (1 resolved, 0.5 resolved but unsupported,"
        + " 0 unresolved). Each: "
        + "; ".join(parts)
        + "."
    )
    return CitationResult(
        metric="citation",
        passed=passed,
        score=score,
        explanation=explanation,
        details={
            "required": required,
            "n_citations": len(citations),
            "check_support": check_support,
        },
        citations=citations,
        unresolved=unresolved,
        unsupported=unsupported,
    )


def assert_citation(
    response: str,
    *,
    patterns: Sequence[str] | None = None,
    required: bool = True,
    sources: Any = None,
    contexts: Sequence[str] | None = None,
    check_support: bool | str = False,
) -> CitationResult:
    """Fail the test on a missing required citation, an unresolvable one, or (with ``check_support``) an unsupported one."""
    __tracebackhide__ = True
    result = citation_check(
        response,
        patterns=patterns,
        required=required,
        sources=sources,
        contexts=contexts,
        check_support=check_support,
    )
    enforce(result)
    return result


def citation_component(
    response: str,
    *,
    required: bool,
    patterns: Sequence[str] | None,
    sources: Any,
    contexts: Sequence[str] | None,
) -> CitationResult | None:
    """The rubric's citation component; ``None`` (N/A) when not required and no citation is present.

    Gold-file inputs: ``eval_criteria.citation_required``, ``eval_criteria.citation_patterns`` (plus
    ini patterns), ``metadata.sources`` and the sample's ``contexts``.
    """
    try:
        # An answer citing nothing is N/A unless citations are required: finding is all it costs.
        compiled = _compile_patterns(patterns)
        if not required and not (_may_cite(response, compiled) and _find(response, compiled)[0]):
            return None
        result = citation_check(
            response, patterns=patterns, required=required, sources=sources, contexts=contexts
        )
    except ValueError as exc:
        raise GraderError(f"citation component: {exc}") from exc
    if not required and not result.citations:
        return None
    return result
