"""Full-text index for a chunking that is not live.

The KB's ``chunks_fts`` holds the live chunking only (so its bm25 statistics — the
number of chunks, their lengths, each term's document frequency — are exactly those
of the chunks ``kb search`` returns). Evaluating another chunking needs the same
statistics over *its* chunks, so :func:`fts_for` builds a temporary FTS5 table
(``temp.chunks_fts_c<ID>``, same tokenizer, rowid = chunk id) on this connection from
that chunking's chunks (their index forms where they have one, as ``chunks_fts`` holds
them: :mod:`kb.store.stemming`), and rebuilds it when they change (fingerprint: count, max id
and sum of ids). It is gone when the connection closes; nothing is written to the KB.

Cost: one pass over the chunking's text (about 0.1 s per 10,000 chunks).
"""

from __future__ import annotations

import sqlite3


def live_chunking(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'live_chunking'").fetchone()
    return None if row is None else int(row[0])


def fts_for(
    conn: sqlite3.Connection, chunking_id: int | None, built: dict[int, tuple[int, ...]]
) -> str:
    """The name of the FTS5 table to search for ``chunking_id`` (``None``: the live
    chunking, ``chunks_fts``). ``built`` (owned by the caller, one per connection)
    remembers the fingerprint each temporary table was built at."""
    if chunking_id is None or chunking_id == live_chunking(conn):
        return "chunks_fts"
    name = f"chunks_fts_c{int(chunking_id)}"
    fp = tuple(
        int(x)
        for x in conn.execute(
            "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0) FROM chunks "
            "WHERE chunking_id = ?",
            (chunking_id,),
        ).fetchone()
    )
    if built.get(chunking_id) == fp:
        return name
    conn.execute(f"DROP TABLE IF EXISTS temp.{name}")
    conn.execute(
        f"CREATE VIRTUAL TABLE temp.{name} USING fts5 (text, heading_path, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.execute(
        f"INSERT INTO temp.{name} (rowid, text, heading_path) "
        "SELECT id, coalesce(stem_text, text), coalesce(stem_heading, heading_path) "
        "FROM chunks WHERE chunking_id = ?",
        (chunking_id,),
    )
    built[chunking_id] = fp
    return name
