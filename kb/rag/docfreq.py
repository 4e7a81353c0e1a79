"""Document frequencies of question words, from the KB's FTS5 index.

``doc_freq(conn, word) -> (n_t, N)``: ``n_t`` chunks whose text or heading contains
``word`` (FTS5 tokenises it with the table's porter tokenizer, so ``proofs`` counts
``proof``; a word it stems to a stop word, ``andes`` -> ``and``, is counted by its
spelling: :mod:`kb.search.exact_terms`), ``N`` chunks in all. Counting walks the
posting list only (no bm25), and is capped at ``N`` so a word in every chunk costs one
pass. A word FTS5 cannot search (no letter or digit) counts as in every chunk (weight
~0). Results are memoised per connection and word for the process.

In a KB that holds German or French notes, whose chunks the index holds by their index
forms (:mod:`kb.store.stemming`: stemmed in their language, stop words left out), a word
is counted in the forms the keyword leg searches it in
(:func:`kb.search.languages.match_expr`, every form kept): as written for the English
chunks and by its index form in each stemmed language, so *Verfahren* counts the chunks
whose form holds ``verfahr`` (as written it matched none and weighed as the rarest
word). A word with no form there (a stop word of each stemmed language, in a KB without
English notes: *die*, *und*) counts as in every chunk, like a word FTS5 cannot search.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

from kb.search import exact_terms
from kb.search.languages import Searched, kb_languages, match_expr

_WORD = re.compile(r"\w")


def _phrase(word: str) -> str:
    return '"' + word.replace('"', '""').replace("\x00", " ") + '"'


def doc_freq_of(store: Any) -> Callable[[str], tuple[int, int]]:
    """``word -> (n_t, N)`` over ``store``'s KB: :func:`term_doc_freq` on ``store.conn``
    (read at each call, so the store's connection is looked up only when used)."""
    return lambda word: term_doc_freq(store.conn, word)


def term_doc_freq(conn: sqlite3.Connection, word: str) -> tuple[int, int]:
    """(chunks containing ``word``, chunks in all); see the module docstring."""
    n = _rows(conn)
    if not _WORD.search(word):
        return n, n
    return _count(conn, word.casefold(), n), n


def _rows(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0])


def _count(conn: sqlite3.Connection, word: str, n: int) -> int:
    key = (id(conn), word, n)
    hit = _memo.get(key)
    if hit is not None:
        return hit
    try:
        raw, stemmed = kb_languages(conn)
        expr: str | None = _phrase(word)
        if stemmed:
            expr = match_expr(word, Searched(raw, stemmed), every=True)
        if raw and exact_terms.collapsed(word):  # "andes" would count every chunk with "and"
            found = exact_terms.exact_matches(conn, "chunks_fts", word)
            df = n if found is None else len(found)
        elif expr is None:
            df = n
        else:
            df = int(
                conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? "
                    "LIMIT ?)",
                    (expr, max(1, n)),
                ).fetchone()[0]
            )
    except sqlite3.Error:
        df = n
    if len(_memo) > 8192:
        _memo.clear()
    _memo[key] = df
    return df


_memo: dict[tuple[int, str, int], int] = {}
