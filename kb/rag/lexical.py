"""Word-level signals for the verifier: content words, numbers and names.

Tokens are runs of letters/digits (``\\w+`` without ``_``), lower-cased, with a light
suffix stemmer (:func:`stem`: ``-ies -> y``, ``-es``, ``-s``, ``-ing``, ``-ed``, ``-ly``
stripped when at least three letters remain), so ``proofs``/``proofing``/``proofed``
meet. Numbers are normalised (``1,000`` -> ``1000``; ``3.50`` stays ``3.50``).

*Content tokens* are the stems of non-stop words. *Key tokens* are what must never
slip between a claim and its evidence (the strong signal of the TRUE-benchmark
lexical baselines): every number, and every capitalised word that is not the first
word of its sentence (a name). Stop words are never key tokens.

:func:`recall` is ``|claim ∩ passage| / |claim|`` over token sets, ``1.0`` when the
claim has no such tokens (nothing to miss), so it never divides by zero.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)

_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom whose why will with would you your
    yours yourself yourselves one ones many much may might must shall upon within without
    according answer passage context"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def stem(word: str) -> str:
    """Light English suffix stripping (see the module docstring); numbers unchanged."""
    w = word.lower()
    if not w.isalpha() or len(w) <= 3:
        return w
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("ly", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + repl
    if w.endswith("es") and len(w) > 4 and w[-3] in "sxz":
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def _number(tok: str) -> str:
    return tok.replace(",", "")


def tokens(text: str) -> list[str]:
    """Raw word and number tokens of ``text`` in order (case kept)."""
    return _TOKEN.findall(text)


def content_stems(text: str) -> set[str]:
    """Stems of the non-stop words and the normalised numbers of ``text``."""
    out: set[str] = set()
    for t in tokens(text):
        if t[0].isdigit():
            out.add(_number(t))
        elif t.lower() not in STOPWORDS:
            out.add(stem(t))
    return out


def key_tokens(text: str, *, names: bool = True) -> set[str]:
    """Numbers, numbers with their unit, and (with ``names``) names, normalised.

    A number ``24`` followed by a word ``hours`` gives ``24`` and ``24 hour`` (the unit
    is the stem of the next word when it is a non-stop word), so "24 hours" is not
    supported by "24 °C". Names are capitalised non-stop words not starting a
    sentence, as stems. Passages are indexed with ``names=False`` (their names are in
    their content stems already), claims with ``names=True``.
    """
    out: set[str] = set()
    first = True
    toks = list(_TOKEN.finditer(text))
    for i, m in enumerate(toks):
        t = m.group(0)
        if t[0].isdigit():
            num = _number(t)
            out.add(num)
            if i + 1 < len(toks):
                nxt = toks[i + 1].group(0)
                gap = text[m.end() : toks[i + 1].start()]
                if not nxt[0].isdigit() and nxt.lower() not in STOPWORDS and len(gap) <= 2:
                    out.add(f"{num} {stem(nxt)}")
        elif names and t[0].isupper() and not first and t.lower() not in STOPWORDS:
            out.add(stem(t))
        # the next token starts a sentence when a sentence end sits between them
        tail = text[m.end() : m.end() + 3]
        first = bool(re.match(r"[.!?:]\s", tail))
    return out


def recall(claim: Iterable[str], passage: set[str]) -> float:
    """Share of ``claim``'s tokens found in ``passage``; 1.0 for an empty claim set."""
    c = set(claim)
    if not c:
        return 1.0
    return len(c & passage) / len(c)
