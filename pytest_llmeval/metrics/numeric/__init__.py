"""The numeric grader: a figure in a free-text answer against a gold figure.

The stages, one module each, in the order an answer goes through them: :mod:`.gold` (read the
gold and what the question says about units), :mod:`.tokens` (numbers, words and separators of any
script), :mod:`.candidates` (each stated figure with its scale, sign and currency), :mod:`.roles`
(what a figure is: the answer, an input, a year, a page), :mod:`.selection` (which figure is the
answer), :mod:`.agreement` (equal within tolerance and rounding, scale and percent readings),
:mod:`.polarity` (the sign the answer's own words give its figure: it can
only veto a match), :mod:`.explanation` (the sentence a failure prints), :mod:`.locale_tables` (the word tables of each
language) and :mod:`.llm_reading` (the judge as a second reader). :mod:`.match` runs them.
Public names load lazily: importing the package costs nothing until one is used.
"""

from __future__ import annotations

from pytest_llmeval.lazy import lazy_exports

# public name -> the stage module that defines it
_EXPORTS: dict[str, str] = {
    "numeric_match": ".match",
    "assert_numeric_match": ".match",
    "NumericMatch": ".match",
    "looks_numeric": ".match",
    "grade": ".match",
    "values_agree": ".agreement",
    "extract_values": ".candidates",
    "Candidate": ".candidates",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

