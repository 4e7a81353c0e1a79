"""A word's stem in its own language: the Snowball stemmer of :attr:`Lang.stemmer`
(PyStemmer, imported on first use), after two steps Snowball leaves to its caller.

:func:`stem_word` of a word in language ``L``:

1. small letters, the typographic apostrophe as ``'``;
2. an elision of ``L`` before an apostrophe is left out (:attr:`Lang.elisions`):
   French *l'île* -> *île*, *s'appellent* -> *appellent*, *qu'il* -> *il*;
3. a past participle's prefix (:attr:`Lang.participle_prefix`, German *ge*) is left out
   of a word written in small letters that ends in *t* or *en* and keeps at least 4
   letters without it, which start as a German word may (a vowel, a consonant and a
   vowel, or a cluster such as *schr*, *pf*, *st*): *gekostet* -> *kostet*, *gebacken* ->
   *backen*, *gewartet* -> *wartet*, *geschrieben* -> *schrieben*; not *gelten*
   (``lten``). German writes every noun with a capital, so *Gebäude*, *Gesicht* and
   *Gewicht* keep theirs; a verb that starts with *ge* (*gehören*, *gewinnen*) loses it
   too, which merges it with the verb without it (a rare miss, not a wrong stem: both
   sides of a comparison are stemmed alike);
4. the Snowball stem: *kostet*, *kosten* -> ``kost``; *Gebäude*, *Gebäuden* -> ``gebaud``
   (German's umlauts folded); *coûté*, *coûte* -> ``coût``; *réservée* -> ``réserv``.

Edge cases: a word without a letter (a number, ``4417``) is returned in small letters,
unstemmed; an empty word stays empty. English has its own light stemmer
(:mod:`kb.rag.stemmer`); this module is for the languages kb's answer checks read in
their own words (:func:`kb.rag.lexical.question_in`).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from kb.lang import language

#: the endings of a past participle whose prefix :func:`stem_word` leaves out
_PARTICIPLE_ENDINGS = ("t", "en")
#: letters a word keeps without its participle prefix, at least
_MIN_REST = 4
_VOWELS = frozenset("aeiouyäöü")


def _word_start(rest: str, onsets: frozenset[str]) -> bool:
    """``rest`` starts as a word of the language may: a vowel, one consonant and a
    vowel, or one of the language's consonant clusters (:attr:`Lang.onsets`: German's
    *st*, *pf*, *sch*; what is left of *gelten* without *ge*, ``lten``, starts with none,
    so *gelten* is no participle)."""
    if rest[0] in _VOWELS or rest[1] in _VOWELS:
        return True
    return any(rest.startswith(o) for o in onsets)


@cache
def snowball(code: str) -> Any:
    """The PyStemmer stemmer of the language ``code`` (one per process)."""
    import Stemmer  # PyStemmer: Snowball stemmers in C, imported on first use

    return Stemmer.Stemmer(language(code).stemmer)


@lru_cache(maxsize=65536)
def stem_word(code: str, word: str) -> str:
    """``word``'s stem in the language ``code`` (module docstring)."""
    lang = language(code)
    w = word.lower().replace("’", "'")
    if "'" in w:
        head, _, tail = w.partition("'")
        if head in lang.elisions and tail:
            w = tail
    if not any(c.isalpha() for c in w):
        return w
    prefix = lang.participle_prefix
    if (
        prefix
        and word[:1].islower()
        and w.startswith(prefix)
        and w.endswith(_PARTICIPLE_ENDINGS)
        and len(w) - len(prefix) >= _MIN_REST
        and _word_start(w[len(prefix) :], lang.onsets)
    ):
        w = w[len(prefix) :]
    stem: str = snowball(code).stemWord(w)
    return stem
