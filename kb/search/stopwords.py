"""English stop words the keyword leg leaves out of a query (``the``, ``what``, ``of`` …):
they match most chunks, cost time and add nothing to bm25's ranking."""

from __future__ import annotations

from kb.lang import language

#: English's stop words (:mod:`kb.lang.en`); other languages' are in their data module
STOPWORDS = language("en").stop_words


def stopwords_for(code: str) -> frozenset[str]:
    """The keyword leg's stop words of the language ``code`` (``"en"``, ``"de"``,
    ``"fr"``); English's for an unknown code."""
    try:
        return language(code).stop_words
    except KeyError:
        return STOPWORDS
