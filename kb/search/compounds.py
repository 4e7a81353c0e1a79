"""A word the query writes joined that the KB writes with a hyphen, and the other way round.

FTS5's tokenizer (``unicode61``) cuts at a hyphen: a note's *e-mail* is indexed as the
two tokens ``e`` ``mail``, so ``kb search email`` found every chunk that writes
*email* and none that writes *e-mail* (nor *E-Mail*, *wi-fi*, *to-do*, *co-operate*,
*re-use*), and ``kb search e-mail`` (the phrase ``e mail``) none that writes *email*.
The keyword leg (:func:`kb.search.keyword.keyword_search`) therefore searches, beside
each query term, its other spelling when the index holds it:

- a term with inner hyphens between letters or digits (``e-mail``, ``ZX-4417``) is also
  searched joined (:func:`joined`: ``email``, ``ZX4417``);
- in a query of at most :data:`MAX_QUERY_TERMS` terms (stop words aside: a word search
  or a short question, as for :mod:`kb.search.typos`), a word of :data:`MIN_LETTERS` to
  :data:`MAX_LETTERS` letters (``email``, ``todo``) is also searched as ``a-b`` for each
  split into two parts (the second of at least two letters) that the KB writes *with a
  hyphen* (:func:`hyphenated`), and a code of letters and digits split where they meet
  (``KC88213`` finds ``KC-88213``: :func:`splits_of`). The phrase ``a b`` is matched by
  FTS5 and the hyphen is then looked for in the text of the first :data:`SCAN` chunks
  it matches (``LIKE``, so case-insensitive for ASCII): without that check a split is
  any pair of adjacent words, and *therapist* would search "the rapist", *notable* "not
  able". Once a split is searched, its phrase also matches the two words written apart:
  *setup* finds "set up the router" as well as "set-up", which is mostly the same word
  (and *online*, once a note writes "on-line", also "on line 42"). Where the phrase is
  common (more than :data:`SCAN` chunks), a hyphenated spelling only in later chunks is
  not seen.

Each variant is an ordinary term of the ``OR`` query: bm25 weighs it by its own rarity,
and a variant no chunk holds is dropped like any absent term. The LanceDB keyword index
of big KBs, whose words are not listed, searches the variants FTS5's index gives
(:func:`kb.search.keyword.respellings`).

Cost: per split (``len(word) - 2`` for a word, one or two for a code), a bare ``MATCH``
of its phrase, about 12 µs, which ends there where a part is no token of the index;
only a split whose phrase exists reads chunk texts, :data:`SCAN` at most: 2 to 3 ms a
word at 30,000 chunks of 1.5 KB where a split is a common phrase ("set up", "on line"),
whatever the KB's size past that. On squad-dev's 460 queries (151 of at most four
terms) the keyword leg's median went from 0.48 to 0.65 ms (the whole search about
6 ms); in ``bench/search.py`` at 10,000 synthetic chunks (three-word questions, every
word split) hybrid p50 went from 1.9 to 2.2 ms. A longer question keeps its words as
written (its other words and the vector leg carry it).
"""

from __future__ import annotations

import re
import sqlite3

MIN_LETTERS = 4
#: the most terms a query may have for its words to be searched hyphenated
MAX_QUERY_TERMS = 4
MAX_LETTERS = 24
#: the most chunks matching a split's phrase whose text is read for its hyphen
SCAN = 500
HYPHENS = "-\u2010\u2011"  # hyphen-minus, hyphen, non-breaking hyphen
_HYPHENATED = re.compile(rf"^[^\W_]+(?:[{HYPHENS}][^\W_]+)+$")
_EDGES = re.compile(r"^\W+|\W+$")
_LETTERS = re.compile(r"^[^\W\d_]+$")
_WORD = re.compile(r"^[^\W_]+$")


def joined(term: str) -> str | None:
    """``term`` without its inner hyphens (``e-mail`` -> ``email``, ``"ZX-4417,"`` ->
    ``ZX4417``); ``None`` when it has none between letters or digits."""
    bare = _EDGES.sub("", term)
    if not _HYPHENATED.match(bare):
        return None
    return re.sub(f"[{HYPHENS}]", "", bare)


def variants(conn: sqlite3.Connection, fts: str, term: str, split: bool = True) -> list[str]:
    """The other spellings of ``term`` to search (module docs): its :func:`joined` form,
    or, with ``split``, its :func:`hyphenated` forms."""
    j = joined(term)
    if j is not None:
        return [j]
    return hyphenated(conn, fts, term) if split else []


def splits_of(word: str) -> list[tuple[str, str]]:
    """Where ``word`` may be split: a word of letters anywhere, its second part of two
    letters or more (``email`` -> ``e|mail``, ``em|ail`` ...); a code of letters and
    digits where letters meet digits (``KC88213`` -> ``KC|88213``, ``COVID19``); none for
    a number, or a word under :data:`MIN_LETTERS` or over :data:`MAX_LETTERS` characters."""
    if not MIN_LETTERS <= len(word) <= MAX_LETTERS or not _WORD.match(word) or word.isdigit():
        return []
    if _LETTERS.match(word):
        return [(word[:i], word[i:]) for i in range(1, len(word) - 1)]
    return [
        (word[:i], word[i:])
        for i in range(1, len(word))
        if word[i - 1].isdigit() != word[i].isdigit()
    ]


def hyphenated(conn: sqlite3.Connection, fts: str, term: str) -> list[str]:
    """The splits ``a-b`` of the word ``term`` that chunks of ``fts`` write with a
    hyphen, in split order (``email`` -> ``["e-mail"]``); ``[]`` for a term that has no
    split (:func:`splits_of`), or on an SQLite error.

    Per split: whether any chunk matches its phrase (``"e mail"``; none, at once, when a
    part is no token of the index); if so, among the first :data:`SCAN` chunks matching
    it, those whose text holds the split with a hyphen (``LIKE``, so case-insensitive
    for ASCII); the split is then looked for as a word of its own in them (not
    ``data-base`` for ``a-base``), ``a-bs`` included."""
    word = _EDGES.sub("", term)
    found: list[str] = []
    try:
        for a, b in splits_of(word):
            phrase = f'"{a} {b}"'
            held = f"SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT 1"
            if conn.execute(held, (phrase,)).fetchone() is None:
                continue  # the common case: a part is no token of the index
            rows = conn.execute(
                f"SELECT t FROM (SELECT c.text || ' ' || c.heading_path AS t FROM "
                f"(SELECT rowid AS id FROM {fts} WHERE {fts} MATCH ? LIMIT ?) m "
                "JOIN chunks c ON c.id = m.id) WHERE t LIKE ? OR t LIKE ? OR t LIKE ? "
                "LIMIT 20",
                (phrase, SCAN, *(f"%{a}{h}{b}%" for h in HYPHENS)),
            ).fetchall()
            written = re.compile(rf"(?<!\w){re.escape(a)}[{HYPHENS}]{re.escape(b)}", re.I)
            if any(written.search(str(t)) for (t,) in rows):
                found.append(f"{a}-{b}")
    except sqlite3.Error:
        return []
    return found
