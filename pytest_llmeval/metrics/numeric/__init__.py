"""The numeric grader: a figure in a free-text answer against a gold figure.

The stages, one module each, in order; a stage imports only the stages before it:
:mod:`.locale_tables` (the number words of each language: scales, percent and sign words),
:mod:`.tokens` (numbers, words and separators of any script), :mod:`.candidates` (each stated
figure with its scale, sign and currency), :mod:`.roles` (what a figure is: the answer, an input,
a year, a page), :mod:`.figure_labels` (the words tied to each figure on either side),
:mod:`.selection` (which figure is the answer), :mod:`.gold` (the gold, read as
an answer is, and what the question says about units), :mod:`.explanation` (how values and
verdicts are written, and the :class:`NumericMatch` verdict), :mod:`.agreement` (equal within
tolerance and rounding, scale and percent readings), :mod:`.polarity` (the sign the answer's own
words give its figure: it can only veto a match), :mod:`.llm_reading` (the judge as a second
reader) and :mod:`.match`, which runs them.
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
