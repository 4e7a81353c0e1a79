"""A query word that no chunk holds, searched by the nearest spellings the KB has.

``kb search pasport`` used to find nothing by its words (no chunk holds *pasport*) and
showed whatever the embedding found near it, while ``todo.txt`` says "renew passport".
For each term of a short keyword query (at most :data:`MAX_QUERY_TERMS` terms, stop
words aside: a word search, where one word is all there is) that matches no chunk of
the index (FTS5), the words the KB holds one typo away (two for long words) are searched
in its place. A longer question is left as it is: its other words and the vector leg
carry it, and the read of the index's words would be paid by every question with a word
the KB lacks.

- only a word of Latin letters (diacritics folded, surrounding punctuation dropped:
  ``pasport?``) of :data:`MIN_LETTERS` letters or more is corrected: shorter words have
  too many neighbours (*stove* / *stone*, *tumor* / *Tudor*), and a code (``ZX-4417``),
  a number or a word of another script is meant as typed;
- ``d`` = 1 edit for a word under 9 letters, 2 from 9 (:func:`max_edits`), counted as the
  optimal string alignment (insert, delete, substitute, swap two neighbours:
  :func:`kb.edits.within`);
- candidates are the index's own terms (FTS5's ``fts5vocab``, which lists porter stems)
  within ``d`` of the word's stem (in a KB of German or French notes also of porter over
  its index form in each such language, :mod:`kb.store.stemming`), with the same first
  letter (a range of the sorted vocabulary: about 2 ms for 10,000 chunks); each is
  turned into a word the KB writes (:func:`surface`: the form nearest the typed word,
  read from a few chunks that hold it), and kept only if that *word* is within ``d`` of
  the typed word. Stems are closer than words (*diabetes* / *diameter* stem to
  ``diabet`` / ``diamet``), and the word, not the stem, is searched: FTS5 stems what it
  is given, so a stem searched as such is stemmed again (``atmospher`` -> ``atmosph``)
  and finds nothing;
- the nearest words are kept (one edit before two), at most :data:`MAX_CORRECTIONS`,
  the most frequent (the chunks holding them) first; ties by spelling. They are
  searched as the term would have been, joined by ``OR``.

The corrections are reported (:attr:`kb.search.retriever.SearchResult.corrections`) and
``kb search`` says what it searched instead. When nothing in the KB is close to the query
in meaning (:func:`kb.search.candidates.meaning_found`), both legs search it again as meant
(:func:`corrected_query`: "Who is my dentst?" -> "Who is my Dentist?"), so the vector leg
and ``kb ask``'s evidence check see the word too (the embedder reads a typo as another
word: that question scored p(answerable) 0.40, just refused; corrected, it is answered).
Searched as typed (something is close in meaning), a keyword list with corrections is
no *lookup* (its chunks are not put first: :func:`kb.search.candidates.lookup_ids`,
:data:`kb.search.candidates.TYPO_LOOKUP_COSINE`): a word the KB lacks may have been
"corrected" to an unrelated one, which must not be pinned above the vector leg's hits.
Any SQLite error gives no correction. The LanceDB keyword index of big KBs, whose
vocabulary is not listed, searches the corrections read here from FTS5's index (kept
current in every KB: :func:`kb.search.keyword.respellings`).
"""

from __future__ import annotations

import re
import sqlite3

from kb.edits import within
from kb.search.exact_terms import fold, stems
from kb.search.languages import kb_languages
from kb.store.stemming import index_form, stemmed_code

MIN_LETTERS = 6
#: the most terms a query may have for its unknown words to be corrected
MAX_QUERY_TERMS = 3
MAX_CORRECTIONS = 2
_WORD = re.compile(r"[^\W\d_]+")
_EDGES = re.compile(r"^\W+|\W+$")


def max_edits(n: int) -> int:
    """Edits allowed for a word of ``n`` letters: 1, or 2 from 9 letters on."""
    return 1 if n < 9 else 2


def _vocab(conn: sqlite3.Connection, fts: str, kind: str) -> str:
    """The name of a temporary ``fts5vocab`` table of ``kind`` (``row``: a term and the
    chunks holding it; ``instance``: each occurrence) over ``fts`` (made once per
    connection, in the temp schema, so a read-only KB works too)."""
    name = f"{fts}_{kind}s"
    schema = "main" if fts == "chunks_fts" else "temp"
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{name} USING fts5vocab({schema}, {fts}, '{kind}')"
    )
    return f"temp.{name}"


def corrections(conn: sqlite3.Connection, fts: str, term: str) -> list[str]:
    """The words the KB writes that are nearest to ``term`` (module docs); ``[]`` when
    ``term`` is not a word to correct, nothing is near, or SQLite fails."""
    word = fold(_EDGES.sub("", term))
    if not (word.isascii() and word.isalpha()) or len(word) < MIN_LETTERS:
        return []
    # the word's stem as each kind of chunk is indexed: porter alone (as written), or
    # porter over the German or French index form (kb.store.stemming)
    found = [stems(word)] + [stems(index_form(word, c)) for c in kb_languages(conn)[1]]
    keys = list(dict.fromkeys(t[0] for t in found if len(t) == 1))
    if not keys:
        return []
    d = max_edits(len(word))
    near: list[tuple[int, int, str]] = []  # (edits, -chunks, word)
    try:
        for stem in keys:
            rows = conn.execute(
                f"SELECT term, doc FROM {_vocab(conn, fts, 'row')} "
                "WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ?",
                (stem[0], chr(ord(stem[0]) + 1), len(stem) - d, len(stem) + d),
            ).fetchall()
            for t, n in rows:
                if str(t) in keys or not within(stem, str(t), d):
                    continue
                hit = surface(conn, fts, str(t), word, d)
                if hit is not None and all(w != hit[1] for _, _, w in near):
                    near.append((hit[0], -int(n), hit[1]))
    except sqlite3.Error:
        return []
    if not near:
        return []
    best = min(e for e, _, _ in near)
    return [w for e, _, w in sorted(near) if e == best][:MAX_CORRECTIONS]


def surface(
    conn: sqlite3.Connection, fts: str, stem: str, word: str, d: int, chunks: int = 3
) -> tuple[int, str] | None:
    """The word the KB writes with porter stem ``stem`` that is nearest to ``word``
    (``krishnamurthi`` -> ``Krishnamurthy``; ``atmospher`` -> *atmosphere*, not
    *atmospheric*, for ``atmosphre``), read from up to ``chunks`` chunks that hold it
    (the ``instance`` vocabulary gives them; a German or French chunk holds its words'
    index forms, :mod:`kb.store.stemming`), as ``(edits, word)`` with ``edits <= d``;
    ``None`` when no such word is within ``d`` edits of ``word``."""
    docs = conn.execute(
        f"SELECT DISTINCT doc FROM {_vocab(conn, fts, 'instance')} WHERE term = ? LIMIT ?",
        (stem, chunks),
    ).fetchall()
    forms: set[str] = set()
    for (doc,) in docs:
        row = conn.execute(
            "SELECT c.text, c.heading_path, d.lang FROM chunks c "
            "JOIN documents d ON d.id = c.document_id WHERE c.id = ?",
            (int(doc),),
        ).fetchone()
        if row is None:
            continue
        code = stemmed_code(row[2])
        for w in _WORD.findall(f"{row[0]} {row[1]}"):
            if w in forms or (code is None and fold(w)[:2] != stem[:2]):
                continue
            held = stems(w) if code is None else stems(index_form(w, code) or w)
            if held == (stem,):
                forms.add(w)
    best: tuple[int, str] | None = None
    for w in sorted(forms, key=lambda w: (w != w.lower(), w)):  # lower case wins ties
        for edits in range(0, d + 1):
            if within(word, fold(w), edits):
                if best is None or edits < best[0]:
                    best = (edits, w)
                break
    return best


def corrected_query(query: str, fixes: dict[str, list[str]]) -> str:
    """``query`` with each corrected word replaced by its first correction, as a whole
    word, case-insensitively ("Who is my dentst?" -> "Who is my Dentist?"); ``query``
    itself without corrections."""
    for term, words in fixes.items():
        bare = _EDGES.sub("", term)
        if bare and words:
            query = re.sub(rf"(?<!\w){re.escape(bare)}(?!\w)", words[0], query, flags=re.I)
    return query
