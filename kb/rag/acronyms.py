"""Acronyms: "BP" in a question is "blood pressure" in a note, and the other way round.

Personal notes and questions abbreviate freely ("my BP", "the GP", "NHS app", "PTO
days"), and the evidence check (:mod:`kb.rag.answerability`) compares words, so "What
was my BP on 1 Nov?" over "Blood pressure on 1 Nov: 128/82." lacked *BP* and was
refused. Here a question term and a sentence are matched through initials, in both
directions:

- a question term written as an *acronym* (:func:`is_acronym`: 2 to 6 capital letters,
  with an optional plural ``s``: "BP", "NHS", "GPs") is held by a sentence that spells
  it (:func:`spells`);
- the question's terms that spell an acronym of the sentence are held by it ("What
  did the general practitioner say?" over "GP said ...").

A run *spells* an acronym when the initials of its words, in order, are the acronym's
letters (case aside), its first and last words are not stop words, and a joining word
inside (:data:`JOINERS`: *of, and, the, for* ...) may be skipped when its initial is not
the next letter ("United States of America": USA; "Department of Defense": DD or DOD).
Other stop words break the run: "Which *pharmacy* is more *expensive*?" spells no
"PE" (the question's words are read as written, :class:`QuestionWords`, not as its
list of terms). Every word of the run is a word
of letters; a run is at most 6 words. Edge cases: an acronym of one letter ("I", "A")
is none; a run of one word spells nothing (a word is not its own initial); an
acronym that the sentence also writes as such is held anyway (the stems match).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from kb.rag.lexical import is_stopword, tokens
from kb.rag.stemmer import stem

_ACRONYM = re.compile(r"[A-Z]{2,6}s?")
_ANY_ACRONYM = re.compile(r"(?<![^\W\d_])[A-Z]{2,6}s?(?![^\W\d_])")
#: capitals standing alone: not glued to a digit ("TP1331", "A4", "MP3" are codes),
#: unless a reading follows ("BP120/80")
_ALONE = re.compile(r"(?<![^\W_])[A-Z]{2,6}s?(?:(?![^\W_])|(?=\d+/\d+))")


#: capitals that are rarely initials of words a note writes out: times of day and
#: common short forms ("10 AM" is no "annual meeting")
NOT_ACRONYMS = frozenset(["AM", "PM", "OK", "ID", "TV", "PS", "NB", "VS"])


#: words a name spelled by an acronym may hold inside without an initial of their own
JOINERS = frozenset(
    ["of", "and", "the", "for", "in", "on", "to", "at", "de", "du", "des", "la", "le", "von"]
    + ["van", "der", "del", "di", "da", "y", "et", "&"]
)


def is_acronym(word: str) -> bool:
    """2 to 6 capital letters, with an optional plural ``s`` ("BP", "GPs"), that are
    not a stop word written in capitals ("IT", "US", "ON": shouted text is no acronym,
    and which one is meant cannot be told) nor one of :data:`NOT_ACRONYMS`."""
    if _ACRONYM.fullmatch(word) is None or word in NOT_ACRONYMS:
        return False
    return not is_stopword(letters(word))


def letters(acronym: str) -> str:
    """The acronym's letters, lower-cased, without a plural ``s`` ("GPs" -> "gp")."""
    base = acronym[:-1] if acronym.endswith("s") and not acronym.isupper() else acronym
    return base.lower()


def spells(acronym: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """The runs ``[i, j)`` of ``words`` that spell ``acronym`` (module docs)."""
    target = letters(acronym)
    out: list[tuple[int, int]] = []
    if len(target) < 2:
        return out
    for i, first in enumerate(words):
        if not first.isalpha() or first[0].lower() != target[0] or is_stopword(first):
            continue
        end = _spelled_from(target, words, i)
        if end is not None:
            out.append((i, end))
    return out


def _spelled_from(target: str, words: Sequence[str], i: int) -> int | None:
    """The end of the run from ``words[i]`` that spells ``target``, or ``None``."""
    k, j = 1, i + 1  # letters matched; next word
    while k < len(target) and j < len(words) and j - i < 6:
        w = words[j]
        if not w.isalpha():
            return None
        if w[0].lower() == target[k]:
            k += 1
        elif w.lower() not in JOINERS:
            return None
        j += 1
    if k < len(target) or is_stopword(words[j - 1]):
        return None
    return j


def spelled_in(acronym: str, text: str) -> bool:
    """``text`` spells ``acronym`` somewhere (:func:`spells`)."""
    return bool(spells(acronym, tokens(text)))


def spelled_out(question: str, texts: Sequence[str]) -> set[str]:
    """The stems of the question's words that spell an acronym one of ``texts`` writes
    ("European Union" when a passage says "EU")."""
    found = {w for t in texts if has_acronym(t) for w in written_acronyms(t)}
    if not found:
        return set()
    qwords = tokens(question)
    out: set[str] = set()
    for acronym in found:
        for i, j in spells(acronym, qwords):
            out.update(stem(w) for w in qwords[i:j] if not is_stopword(w))
    return out


def written_acronyms(text: str) -> list[str]:
    """The acronyms ``text`` writes (:func:`is_acronym`), in order, each once; capitals
    glued to a digit are a code, not initials: the flight "TP1331" spells no
    "translated Piranesi" ("Who translated Piranesi?" was answered from a flight
    booking), "A4" and "MP3" nothing either. "COVID-19" is an acronym (a hyphen
    parts it from its number), and so is "BP120/80" (a reading glued to its name)."""
    found = (m.group() for m in _ALONE.finditer(text))
    return list(dict.fromkeys(w for w in found if is_acronym(w)))


def question_acronyms(question: str) -> dict[str, str]:
    """The acronyms a question writes (:func:`is_acronym`), by stem: ``bp -> BP``."""
    return {stem(w): w for w in tokens(question) if is_acronym(w)}


def has_acronym(text: str) -> bool:
    """``text`` writes something shaped like an acronym (a cheap first test)."""
    return _ANY_ACRONYM.search(text) is not None


def aliases(
    terms: Mapping[str, tuple[str, float]],
    words: Sequence[str],
    question_words: Sequence[str] | None = None,
    acronyms: Sequence[str] | None = None,
) -> set[str]:
    """The stems of ``terms`` (the evidence check's question terms: stem -> (surface
    word, weight), in question order) that a sentence (its ``words``,
    :func:`kb.rag.lexical.tokens`) holds through an acronym (module docs).
    ``question_words``: the question's tokens as written, whose runs spell the
    sentence's acronyms; without them, the terms' surface words in order (which joins
    words the question keeps apart). ``acronyms``: the sentence's acronyms as it writes
    them (:func:`written_acronyms`, which knows a code's capitals from initials); the
    acronym-shaped ``words`` without it."""
    out: set[str] = set()
    plain: list[tuple[str, str]] = []
    for s, (word, _) in terms.items():
        if is_acronym(word):
            if spells(word, words):
                out.add(s)
        else:
            plain.append((s, word))
    if len(plain) >= 2:
        surfaces = list(question_words) if question_words is not None else [w for _, w in plain]
        by_word = {w: s for s, w in plain}
        written = acronyms if acronyms is not None else [w for w in words if is_acronym(w)]
        for w in dict.fromkeys(written):
            for i, j in spells(w, surfaces):
                out.update(by_word[x] for x in surfaces[i:j] if x in by_word)
    return out
