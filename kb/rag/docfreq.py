"""Document frequencies of question words, from the KB's FTS5 index.

``doc_freq(conn, word) -> (n_t, N)``: ``n_t`` chunks whose text or heading contains
``word`` (FTS5 tokenises it with the table's porter tokenizer, so ``proofs`` counts
``proof``; a word it stems to a stop word, ``andes`` -> ``and``, is counted by its
spelling: :mod:`kb.search.exact_terms`), ``N`` chunks in all. Counting walks the
posting list only (no bm25), and is capped at ``N`` so a word in every chunk costs one
pass. A word FTS5 cannot search (no letter or digit) counts as in every chunk (weight
~0). Results are memoised per connection and word for the process.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from typing import Any

from kb.search import exact_terms

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
        if exact_terms.collapsed(word):  # "andes" would count every chunk with "and"
            found = exact_terms.exact_matches(conn, "chunks_fts", word)
            df = n if found is None else len(found)
        else:
            df = int(
                conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? "
                    "LIMIT ?)",
                    (_phrase(word), max(1, n)),
                ).fetchone()[0]
            )
    except sqlite3.Error:
        df = n
    if len(_memo) > 8192:
        _memo.clear()
    _memo[key] = df
    return df


_memo: dict[tuple[int, str, int], int] = {}
