"""A query word that no chunk holds, searched by the nearest spellings the KB has.

``kb search pasport`` used to find nothing by its words (no chunk holds *pasport*) and
showed whatever the embedding found near it, while ``todo.txt`` says "renew passport".
For each term of a short keyword query (at most :data:`MAX_QUERY_TERMS` terms, stop
words aside: a word search, where one word is all there is) that matches no chunk of
the index (FTS5), the words of the index that are one typo away (two for long words) are
searched in its place. A longer question is left as it is: its other words and the
vector leg carry it, and the scan of the index's words (about 10 ms per 1,250 chunks)
would be paid by every question with a word the KB lacks.

- only a single word of :data:`MIN_LETTERS` letters or more (after diacritics are
  folded) is corrected: short words and codes have too many neighbours (*form* /
  *from* / *farm*), and a code (``ZX-4417``) or a number is meant as typed;
- the comparison is between the term's porter stem (:func:`kb.search.exact_terms.stems`,
  the tokenizer the index uses) and the index's own terms (FTS5's ``fts5vocab``
  table, which lists stems), with the same first letter (typos rarely hit the first
  letter, and it keeps the scan small: about 10 ms for 1,250 chunks' 11,000 terms);
- the distance is the optimal string alignment (insert, delete, substitute, swap two
  neighbours) of :func:`kb.edits.within`: at most 1 for stems under 9 letters, 2 from 9;
- the nearest terms are kept (those one edit away, else two), at most
  :data:`MAX_CORRECTIONS`, the most frequent (the number of chunks holding them) first;
  ties by spelling. They are searched as the term would have been, joined by ``OR``.

The corrections are reported (:attr:`kb.search.retriever.SearchResult.corrections`,
as words the KB writes: :func:`surface`), and ``kb search`` says what it searched
instead. The LanceDB keyword index of big KBs
has no such fallback (its vocabulary is not listed).
"""

from __future__ import annotations

import re
import sqlite3

from kb.edits import within
from kb.search.exact_terms import fold, stems

MIN_LETTERS = 5
#: the most terms a query may have for its unknown words to be corrected
MAX_QUERY_TERMS = 3
_WORD = re.compile(r"[^\W\d_]+")
MAX_CORRECTIONS = 2


def max_edits(n: int) -> int:
    """Edits allowed for a stem of ``n`` letters: 1, or 2 from 9 letters on."""
    return 1 if n < 9 else 2


def _vocab(conn: sqlite3.Connection, fts: str) -> str:
    """The name of a temporary ``fts5vocab`` table over ``fts`` (made once per
    connection; the temp schema, so a read-only KB works too)."""
    name = f"{fts}_terms"
    schema = "main" if fts == "chunks_fts" else "temp"
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5vocab({schema}, {fts}, 'row')"
    )
    return f"temp.{name}"


def corrections(conn: sqlite3.Connection, fts: str, term: str) -> list[str]:
    """The index terms (stems) nearest to ``term`` (module docs); ``[]`` when ``term``
    is not a word to correct or nothing is near."""
    word = fold(term)
    if not word.isalpha() or len(word) < MIN_LETTERS:
        return []
    toks = stems(term)
    if len(toks) != 1:
        return []
    stem = toks[0]
    d = max_edits(len(stem))
    rows = conn.execute(
        f"SELECT term, doc FROM {_vocab(conn, fts)} "
        "WHERE substr(term, 1, 1) = ? AND length(term) BETWEEN ? AND ?",
        (stem[0], len(stem) - d, len(stem) + d),
    ).fetchall()
    for edits in range(1, d + 1):  # the nearest tier only: one typo before two
        near = [(str(t), int(n)) for t, n in rows if str(t) != stem and within(stem, str(t), edits)]
        if near:
            near.sort(key=lambda tn: (-tn[1], tn[0]))
            return [t for t, _ in near[:MAX_CORRECTIONS]]
    return []


def surface(conn: sqlite3.Connection, fts: str, stem: str) -> str:
    """A word as the KB writes it whose stem is ``stem`` (``krishnamurthi`` ->
    ``Krishnamurthy``), read from one chunk that holds it, to show the user; ``stem``
    itself when none is found."""
    try:
        row = conn.execute(
            f"SELECT text, heading_path FROM {fts} WHERE {fts} MATCH ? LIMIT 1",
            ('"' + stem + '"',),
        ).fetchone()
    except sqlite3.Error:
        return stem
    if row is None:
        return stem
    head = stem[:3]
    for w in _WORD.findall(f"{row[0]} {row[1]}"):
        if fold(w).startswith(head) and stems(w) == (stem,):
            return w
    return stem
