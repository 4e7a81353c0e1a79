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


def query_stopwords(text: str) -> frozenset[str]:
    """What the keyword leg drops from the query ``text``: English's stop words, plus
    the stop and question words of the query's language when it is detected as
    another shipped language (:func:`kb.lang.detect.question_language`; German "wann
    wurde der", French "quel est"). An English or undetected query gets English's
    alone, so its terms are what they always were."""
    from kb.lang.detect import question_language

    code = question_language(text)
    if code in ("en", "und"):
        return STOPWORDS
    lang = language(code)
    return STOPWORDS | lang.stop_words | lang.question_words
