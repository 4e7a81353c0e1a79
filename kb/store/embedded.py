"""Which chunks of a chunking are embedded: one SQLite snapshot, and its fingerprint.

Every derived vector structure keys itself on this: the search's vector matrix and its
cache file (:mod:`kb.search.vector_cache`) and the faiss ANN file
(:mod:`kb.store.ann_faiss`), so both read it from here and cannot drift apart.

The **fingerprint** of a chunking's embedded chunks is ``(count, max(id), sum(id),
sum(id * 2654435761 mod 4294967311), embedding model record, chunking id)``: ids are
never reused for other text (AUTOINCREMENT) and writers store vectors *before* they
mark chunks ``embedded``, so any change of which chunks are embedded (or of the model)
changes it. A chunking without embedded chunks gives ``(0, 0, 0, 0, model, id)``; no
model recorded reads ``""``; no live chunking reads id 0. Stdlib only (``kb status``
imports it).
"""

from __future__ import annotations

import sqlite3
from typing import Any


def live_chunking(conn: sqlite3.Connection) -> int:
    """The live chunking's id (0 before the first ingest)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'live_chunking'").fetchone()
    return 0 if row is None else int(row[0])


def fingerprint(conn: sqlite3.Connection, chunking_id: int | None = None) -> tuple[Any, ...]:
    """The fingerprint (module docs) of one chunking's embedded chunks (default: the
    live chunking's)."""
    cid = live_chunking(conn) if chunking_id is None else chunking_id
    row = conn.execute(
        "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0), "
        "coalesce(sum((id * 2654435761) % 4294967311), 0) "
        "FROM chunks WHERE chunking_id = ? AND embedding_status = 'embedded'",
        (cid,),
    ).fetchone()
    model = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    return (*(int(x) for x in row), "" if model is None else str(model[0]), cid)


def embedded_rows(
    conn: sqlite3.Connection, chunking_id: int | None = None
) -> tuple[tuple[Any, ...], list[tuple[int, int, str]]]:
    """The fingerprint and ``(chunk id, document id, text hash)`` of one chunking's
    embedded chunks (default: the live one) in id order, read in one snapshot (one read
    transaction unless the caller holds one already). The rows are as the connection
    returns them (``sqlite3.Row`` on a :class:`kb.store.Store`'s), unpackable as
    triples."""
    own_tx = not conn.in_transaction
    if own_tx:
        conn.execute("BEGIN")
    try:
        fp = fingerprint(conn, chunking_id)
        rows = conn.execute(
            "SELECT id, document_id, embed_sha256 FROM chunks "
            "WHERE chunking_id = ? AND embedding_status = 'embedded' ORDER BY id",
            (fp[-1],),
        ).fetchall()
    finally:
        if own_tx:
            conn.execute("COMMIT")
    return fp, rows
