"""A compound word's parts, for languages that write compounds as one word (German
*Laubwald* -> *laub*, *wald*; *Gerichtsverfahren* -> *gericht*, *verfahren*).

The splitter is frequency-based (Koehn & Knight 2003, *Empirical Methods for Compound
Splitting*, section 3): a word is split into parts the text around it uses as words of
their own, the split whose parts are most used winning. It needs no dictionary: the
caller's ``count`` says how often a candidate part occurs as a word (the keyword index
counts the words of the document a chunk belongs to, a query the KB's indexed words:
:mod:`kb.store.stemming`, :mod:`kb.search.languages`).

:func:`split` of a word ``w`` (small letters) in a language ``L`` with
``m = L.compound_min_part`` (``0``: ``L`` writes compounds apart, nothing is split):

1. ``w`` is split only when it is made of letters alone and has at least ``2 * m`` of
   them;
2. a candidate split is ``w = p1 [f1] p2 [f2] ... pn`` with ``2 <= n <=``
   :data:`MAX_PARTS`, each ``fi`` empty or one of ``L.compound_linkers`` (the
   *Fugenelement*: *Gericht-s-verfahren*, *Sonne-n-schein*), which is no part;
3. each part has at least ``m`` letters, is no stop word or question word of ``L``, and
   is a known word: ``count(p) > 0``;
4. the split's score is the geometric mean of its parts' counts,
   ``(count(p1) * ... * count(pn)) ** (1 / n)``; the highest score wins, then fewer
   parts, then the longer last part (German's head is the last part), then the first
   in reading order.

Unlike Koehn & Knight, the word itself is no candidate that can beat its split (they
keep a frequent compound whole for translation): a caller indexes the compound *and* its
parts, so *Komplexitätstheorie* is still found as written and also by *Theorie*. A part
is counted as the caller counts words (the keyword index: by Snowball stem, so
*Verfahren* and *Verfahrens* are one word). Edge cases: a word with a digit, a hyphen or
fewer than ``2 * m`` letters, or without a split into known parts, has no parts (``()``);
*Bahnhof* (``hof`` has 3 letters) is not split with ``m = 4``; a word that starts with a
preposition (*Unterricht*, *Vorstellung*) is not split there, as the preposition is a
stop word. False splits remain possible where both halves are words of the text
(*Handlung* into *Hand* and *Lung*, in a text that also writes *Lunge*); the index keeps
the whole word, so such a split adds a match and takes none away.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from kb.lang import language

#: the most parts a word is split into
MAX_PARTS = 3


@cache
def _excluded(code: str) -> frozenset[str]:
    lang = language(code)
    return lang.stop_words | lang.question_words


def compounding(code: str) -> bool:
    """Whether the language ``code`` writes compounds as one word (has a
    ``compound_min_part``)."""
    return language(code).compound_min_part > 0


def split(word: str, code: str, count: Callable[[str], int]) -> tuple[str, ...]:
    """The parts of ``word`` in the language ``code`` (module docstring), in small
    letters without linkers; ``()`` when it is not split."""
    lang = language(code)
    m = lang.compound_min_part
    w = word.lower()
    if m <= 0 or len(w) < 2 * m or not w.isalpha():
        return ()
    stop = _excluded(code)
    known: dict[str, int] = {}

    def weight(part: str) -> int:
        if part not in known:
            known[part] = 0 if part in stop else max(0, int(count(part)))
        return known[part]

    best: tuple[float, int, int, int] | None = None
    best_parts: tuple[str, ...] = ()
    order = 0

    def walk(start: int, parts: tuple[str, ...], logs: float) -> None:
        nonlocal best, best_parts, order
        rest = w[start:]
        if parts and len(rest) >= m and weight(rest) > 0:
            found = (*parts, rest)
            n = len(found)
            key = ((logs + math.log(weight(rest))) / n, -n, len(rest), -order)
            order += 1
            if best is None or key > best:
                best, best_parts = key, found
        if len(parts) + 1 >= MAX_PARTS:
            return
        for end in range(start + m, len(w) - m + 1):
            head = w[start:end]
            c = weight(head)
            if c <= 0:
                continue
            nexts = [end] + [end + len(f) for f in lang.compound_linkers if w.startswith(f, end)]
            for nxt in dict.fromkeys(nexts):
                if len(w) - nxt >= m:
                    walk(nxt, (*parts, head), logs + math.log(c))

    walk(0, (), 0.0)
    return best_parts
