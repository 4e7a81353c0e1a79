"""The derived keyword index of a big KB: a LanceDB native full-text (BM25) index over
the live chunking's chunks, beside the embedding cache in ``<KB>/lancedb/``.

SQLite FTS5 (``chunks_fts``) stays the source of truth and is always kept current by
triggers; this index is a copy that answers the keyword leg faster at a million chunks
(FTS5 scores every matching row before it sorts; LanceDB's index prunes to the top-k).
:mod:`kb.search.keyword_index` decides when to use it and builds the queries.

Table ``keyword_chunks``: ``(chunk_id int64, document_id int64, text string)`` with one
row per live chunk, ``text`` = the chunk text, a newline, its heading path (the two
columns FTS5 indexes), both passed through :func:`fold` (accents removed *before*
stemming, as FTS5's ``unicode61 remove_diacritics 2`` does ahead of ``porter``).

Index (:data:`TOKENIZER`): the ``simple`` tokenizer (splits on every character that is
not a letter or digit, like ``unicode61``), lower case, English stemming (Snowball;
FTS5 uses the original Porter: they differ on a few rare suffixes), ASCII folding, no
maximum token length and **no stop-word removal** (the query leaves stop words out,
:func:`kb.search.keyword.query_terms`, except when a query has nothing else: ``The
Who`` must still match), and token positions, so a term that splits into several
tokens (``ZX-4417``) is matched as a phrase, as FTS5 does.

The record (SQLite meta ``keyword_index``): ``{"rows", "built_at", "fingerprint"}``,
where the fingerprint (:func:`fingerprint`) is ``(live chunking id, count, max id, sum
of ids, sum of hashed ids)`` of the live chunks. The index is *current* when the
recorded fingerprint equals the live one: chunk ids are never reused for other text
(a changed document gets new chunks), so any added, removed or re-chunked chunk changes
it. A stale or missing index is never searched (the search falls back to FTS5).

Upkeep (:func:`maintain`, after every ingest past the threshold; ``kb reindex
--keyword``/``--ann``): built when missing or for another chunking; otherwise rows of
deleted chunks are removed, rows of new chunks added and folded into the index
(LanceDB ``optimize``). lancedb and pyarrow are imported lazily.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from kb.progress import step
from kb.store.embedded import live_chunking

TABLE = "keyword_chunks"
META_KEY = "keyword_index"
BATCH = 50_000
REBUILD_SHARE = 0.5  # more new rows than this share of the index: build it afresh

TOKENIZER: dict[str, Any] = {
    "base_tokenizer": "simple",
    "language": "English",
    "lower_case": True,
    "stem": True,
    "remove_stop_words": False,
    "ascii_folding": True,
    "max_token_length": None,
    "with_position": True,
}

_MARKS = re.compile(r"[\u0300-\u036f]")
_NUMBER_PLURAL = re.compile(r"(?<![^\W_])(\d+)[sS](?![^\W_])")


def fold(text: str) -> str:
    """``text`` as both sides of the index see it: accents removed (NFKD, combining
    marks dropped: ``Misérables`` -> ``Miserables``) and a number's plural ``s``
    dropped (``1980s`` -> ``1980``: FTS5's Porter stemmer strips it, LanceDB's
    Snowball stemmer keeps an ``s`` after a token without a vowel)."""
    if "s" in text or "S" in text:
        text = _NUMBER_PLURAL.sub(r"\1", text)
    if text.isascii():
        return text
    return _MARKS.sub("", unicodedata.normalize("NFKD", text))


def fingerprint(conn: sqlite3.Connection) -> list[int]:
    """``[chunking id, count, max id, sum of ids, sum of (id * 2654435761) mod
    4294967311]`` over the live chunking's chunks (one pass over its index)."""
    cid = live_chunking(conn)
    row = conn.execute(
        "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0), "
        "coalesce(sum((id * 2654435761) % 4294967311), 0) FROM chunks WHERE chunking_id = ?",
        (cid,),
    ).fetchone()
    return [cid, *(int(x) for x in row)]


def recorded(store: Any) -> dict[str, Any] | None:
    """The build record in SQLite meta, or ``None``."""
    raw = store.meta_get(META_KEY)
    return None if not raw else dict(json.loads(raw))


def is_current(store: Any, live: list[int] | None = None) -> bool:
    """Whether the recorded index covers exactly the live chunks (see the module docs)."""
    rec = recorded(store)
    if rec is None:
        return False
    return list(rec.get("fingerprint", [])) == (live or fingerprint(store.conn))


def table(store: Any) -> Any:
    """The open ``keyword_chunks`` table, or ``None`` when there is none."""
    v = store.vectors_raw
    if not v.folder.is_dir():
        return None
    db = v.db()
    return db.open_table(TABLE) if TABLE in v.table_names() else None


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> Iterator[Any]:
    """Batches of ``(chunk_id, document_id, text)`` as Arrow tables."""
    import pyarrow as pa

    cur = conn.execute(sql, params)
    while True:
        part = cur.fetchmany(BATCH)
        if not part:
            return
        yield pa.table(
            {
                "chunk_id": pa.array([int(r[0]) for r in part], pa.int64()),
                "document_id": pa.array([int(r[1]) for r in part], pa.int64()),
                "text": pa.array([fold(f"{r[2]}\n{r[3]}") for r in part], pa.string()),
            }
        )


_SELECT = "SELECT id, document_id, text, heading_path FROM chunks WHERE chunking_id = ?"


def build(store: Any) -> dict[str, Any] | None:
    """(Re)build the table and its full-text index from the live chunks and record it;
    ``None`` (and no record) when the live chunking has no chunks."""
    from lancedb.index import FTS, BTree

    conn = store.conn
    live = fingerprint(conn)
    v = store.vectors_raw
    v.folder.mkdir(parents=True, exist_ok=True)
    db = v.db()
    if TABLE in v.table_names():
        db.drop_table(TABLE)
    t = None
    total = conn.execute("SELECT count(*) FROM chunks WHERE chunking_id = ?", (live[0],))
    with step("building the keyword index", total.fetchone()[0], "chunks") as s:
        for batch in _rows(conn, _SELECT + " ORDER BY id", (live[0],)):
            if t is None:
                t = db.create_table(TABLE, batch)
            else:
                t.add(batch)
            s.advance(batch.num_rows)
    if t is None:
        with store.tx() as c:
            c.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
        return None
    with warnings.catch_warnings(), step("indexing the keyword index's words"):
        warnings.simplefilter("ignore")
        t.create_index("text", config=FTS(**TOKENIZER), replace=True)
        t.create_index("document_id", config=BTree(), replace=True)
        t.create_index("chunk_id", config=BTree(), replace=True)
    return _record(store, live, int(t.count_rows()))


def _record(store: Any, live: list[int], rows: int) -> dict[str, Any]:
    rec = {
        "rows": rows,
        "built_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "fingerprint": live,
    }
    with store.tx():
        store.meta_set(META_KEY, json.dumps(rec))
    return rec


def update(store: Any) -> tuple[int, int]:
    """Bring an existing index of the live chunking up to date: delete the rows of
    chunks gone, add those of new chunks, fold them into the index. Returns
    ``(added, removed)``."""
    import numpy as np

    conn = store.conn
    live = fingerprint(conn)
    t = table(store)
    assert t is not None
    have = t.search().select(["chunk_id"]).limit(None).to_arrow().column("chunk_id")
    have_ids = np.asarray(have.to_numpy(), dtype=np.int64)
    want_ids = np.fromiter(
        (r[0] for r in conn.execute("SELECT id FROM chunks WHERE chunking_id = ?", (live[0],))),
        dtype=np.int64,
    )
    gone = np.setdiff1d(have_ids, want_ids, assume_unique=True)
    new = np.setdiff1d(want_ids, have_ids, assume_unique=True)
    with step("updating the keyword index", len(gone) + len(new), "chunks") as told:
        for s in range(0, len(gone), 1000):
            t.delete("chunk_id IN (" + ",".join(str(int(i)) for i in gone[s : s + 1000]) + ")")
            told.advance(len(gone[s : s + 1000]))
        for s in range(0, len(new), 500):
            part = [int(i) for i in new[s : s + 500]]
            sql = _SELECT + f" AND id IN ({','.join('?' * len(part))})"
            for batch in _rows(conn, sql, (live[0], *part)):
                t.add(batch)
            told.advance(len(part))
        if len(gone) or len(new):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t.optimize()
    _record(store, live, int(t.count_rows()))
    return len(new), len(gone)


def info(store: Any) -> dict[str, Any] | None:
    """The record plus whether it is current (``kb status``), ``None`` without one."""
    rec = recorded(store)
    if rec is None:
        return None
    return {**rec, "current": is_current(store)}


def maintain(store: Any, threshold: int) -> str | None:
    """Keep the index fit after an ingest; a one-line note of what it did, or ``None``.

    With ``threshold > 0`` and at least ``threshold`` live chunks: build it when there
    is none, or it was built for another chunking, or more than half its rows would be
    new; otherwise apply the changes (:func:`update`). Below the threshold nothing is
    done (an index stays, unused, until the KB grows past it again)."""
    if threshold <= 0:
        return None
    live = fingerprint(store.conn)
    if live[1] < threshold:
        return None
    rec = recorded(store)
    if rec is not None and list(rec.get("fingerprint", [])) == live:
        return None
    old = list(rec.get("fingerprint", [])) if rec else []
    fresh = (
        rec is None
        or table(store) is None
        or not old
        or old[0] != live[0]
        or (live[1] - int(rec.get("rows", 0))) > REBUILD_SHARE * max(int(rec.get("rows", 0)), 1)
    )
    if fresh:
        built = build(store)
        return None if built is None else f"built the keyword index ({built['rows']} chunks)"
    added, removed = update(store)
    return f"keyword index: {added} chunks added, {removed} removed"


def drop(store: Any) -> None:
    """Remove the table and its record (``kb reindex`` of the vectors keeps it)."""
    v = store.vectors_raw
    if v.folder.is_dir() and TABLE in v.table_names():
        v.db().drop_table(TABLE)
    with store.tx() as c:
        c.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
