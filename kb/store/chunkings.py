"""Named chunkings of one KB, side by side (migration 5).

A **chunking** is the set of chunks one chunker identity (name, version, params)
made of the KB's documents. Several can be stored at once; the documents, their
loaded text and audio transcripts are shared, and so are vectors (the embedding cache
is keyed by text, :mod:`kb.store.embeddings`). Exactly one is **live**
(``meta.live_chunking``): ``kb search`` and ``kb ask`` read it, and the full-text
index holds its chunks only (its content table is the view ``live_chunks``).

``chunking_docs`` records, per chunking and document, the document version
(content hash) its chunks were made from. A chunking is **current** when every
indexed document has such a row at its present hash, else **stale**: an ingest
that changed a document re-chunks the live chunking and leaves the others stale,
until they are used again (``kb chunkers use``, ``kb eval run --chunker``), which
re-chunks just the documents that changed.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb.errors import UsageError

if TYPE_CHECKING:
    from kb.store.sqlite import Store
    from kb.types import ChunkerInfo


@dataclass(frozen=True)
class Chunking:
    """One stored chunking; ``documents``/``current`` count its documents (all of them
    and those chunked at their present version), ``total`` the KB's indexed documents."""

    id: int
    spec: str
    name: str
    version: str
    params: dict[str, Any]
    live: bool
    built_at: float | None
    chunks: int = 0
    current: int = 0
    failed: int = 0
    total: int = 0
    #: made by another version of its chunker than the one installed now (kb or the
    #: plug-in was upgraded): it can be neither brought up to date nor made live again,
    #: only kept for old eval runs or dropped (``kb chunkers rm --outdated``); set by
    #: :func:`ingest.chunkings.with_outdated`, never for the live chunking
    outdated: bool = False

    @property
    def stale(self) -> bool:
        return self.current < self.total

    @property
    def state(self) -> str:
        if self.outdated:
            return f"stored (outdated: version {self.version})"
        return ("live" if self.live else "stored") + (" (stale)" if self.stale else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "spec": self.spec,
            "name": self.name,
            "version": self.version,
            "params": self.params,
            "live": self.live,
            "stale": self.stale,
            "chunks": self.chunks,
            "documents_current": self.current,
            "documents_failed": self.failed,
            "documents_total": self.total,
            "outdated": self.outdated,
            "built_at": self.built_at,
        }


def live_id(store: Store) -> int | None:
    """The live chunking's id (``None`` before the first ingest)."""
    raw = store.meta_get("live_chunking")
    return None if raw is None else int(raw)


def find(store: Store, info: ChunkerInfo) -> int | None:
    """The id of the chunking made by exactly this chunker identity, if stored."""
    row = store.conn.execute(
        "SELECT id FROM chunkings WHERE name = ? AND version = ? AND params = ?",
        (info.name, info.version, json.dumps(info.params, sort_keys=True)),
    ).fetchone()
    return None if row is None else int(row[0])


def ensure(store: Store, spec: str, info: ChunkerInfo) -> int:
    """The chunking of ``info`` (created, empty, when missing); ``spec`` is kept as
    the name users see."""
    found = find(store, info)
    if found is not None:
        return found
    with store.tx() as c:
        cur = c.execute(
            "INSERT INTO chunkings (spec, name, version, params, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (spec, info.name, info.version, json.dumps(info.params, sort_keys=True), time.time()),
        )
    return int(cur.lastrowid or 0)


def set_live(store: Store, chunking_id: int) -> bool:
    """Make ``chunking_id`` live: search and the full-text index switch to its chunks
    (one transaction; the index is rebuilt from ``live_chunks``). ``False`` when it
    already was."""
    if live_id(store) == chunking_id:
        return False
    with store.tx() as c:
        c.execute(
            "INSERT INTO meta (key, value) VALUES ('live_chunking', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(chunking_id),),
        )
        c.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")
        # documents name the live chunker (kb status, eval snapshots)
        c.execute(
            "UPDATE documents SET chunker = k.name, chunker_version = k.version, "
            "chunker_params = k.params FROM chunkings k WHERE k.id = ? AND documents.id IN "
            "(SELECT document_id FROM chunking_docs WHERE chunking_id = ?)",
            (chunking_id, chunking_id),
        )
    return True


def mark_built(store: Store, chunking_id: int) -> None:
    with store.tx() as c:
        c.execute("UPDATE chunkings SET built_at = ? WHERE id = ?", (time.time(), chunking_id))


def remove(store: Store, chunking_id: int) -> int:
    """Drop a stored chunking and its chunks (never the live one); returns the number
    of chunks dropped. Their vectors stay in the cache until ``kb doctor --repair``."""
    if live_id(store) == chunking_id:
        raise UsageError(
            "that chunking is live; make another one live first (`kb chunkers use SPEC`)"
        )
    n = store.count_chunks(chunking=chunking_id)
    with store.tx() as c:
        c.execute("DELETE FROM chunkings WHERE id = ?", (chunking_id,))
        # deleted chunk ids need no vector deletion (vectors are keyed by text)
        c.execute("DELETE FROM vector_tombstones")
    return n


def list_all(store: Store) -> list[Chunking]:
    """Every stored chunking with its counts, live first, then by id."""
    c = store.conn
    live = live_id(store)
    total = int(c.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()[0])
    chunks = dict(c.execute("SELECT chunking_id, count(*) FROM chunks GROUP BY 1").fetchall())
    current: dict[int, tuple[int, int]] = {}
    for cid, ok, bad in c.execute(
        "SELECT cd.chunking_id, sum(cd.error IS NULL), sum(cd.error IS NOT NULL) "
        "FROM chunking_docs cd JOIN documents d ON d.id = cd.document_id "
        "WHERE d.status = 'indexed' AND cd.content_hash IS d.content_hash GROUP BY 1"
    ):
        current[int(cid)] = (int(ok), int(bad))
    out = []
    for r in c.execute("SELECT * FROM chunkings ORDER BY id"):
        ok, bad = current.get(int(r["id"]), (0, 0))
        out.append(
            Chunking(
                id=int(r["id"]),
                spec=str(r["spec"]),
                name=str(r["name"]),
                version=str(r["version"]),
                params=json.loads(r["params"]),
                live=int(r["id"]) == live,
                built_at=r["built_at"],
                chunks=int(chunks.get(r["id"], 0)),
                current=ok + bad,
                failed=bad,
                total=total,
            )
        )
    out.sort(key=lambda ch: (not ch.live, ch.id))
    return out


def get(store: Store, chunking_id: int) -> Chunking:
    for ch in list_all(store):
        if ch.id == chunking_id:
            return ch
    raise UsageError(f"no chunking with id {chunking_id} in {store.home}")


def documents_to_build(store: Store, chunking_id: int) -> list[tuple[int, str, str, str]]:
    """``(document id, absolute path, display path, content hash)`` of the indexed
    documents this chunking has no chunks of at their present version."""
    rows = store.conn.execute(
        "SELECT d.id, d.abs_path, d.path, d.content_hash FROM documents d "
        "WHERE d.status = 'indexed' AND NOT EXISTS (SELECT 1 FROM chunking_docs cd "
        "WHERE cd.chunking_id = ? AND cd.document_id = d.id "
        "AND cd.content_hash IS d.content_hash) ORDER BY d.path",
        (chunking_id,),
    ).fetchall()
    return [(int(r[0]), str(r[1] or ""), str(r[2]), str(r[3] or "")) for r in rows]


def record_failure(
    store: Store, chunking_id: int, doc_id: int, content_hash: str, error: str
) -> None:
    """This chunking's chunker failed on the document at this version: its old chunks
    of it go, and the failure is remembered (not retried until the document changes)."""
    with store.tx() as c:
        c.execute(
            "DELETE FROM chunks WHERE chunking_id = ? AND document_id = ?", (chunking_id, doc_id)
        )
        c.execute(
            "INSERT INTO chunking_docs (chunking_id, document_id, content_hash, error) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (chunking_id, document_id) DO UPDATE SET "
            "content_hash = excluded.content_hash, error = excluded.error",
            (chunking_id, doc_id, content_hash, error),
        )
