"""The SQLite half of a KB: documents, chunks, FTS5, metadata, eval runs.

Connections run in autocommit mode (``isolation_level=None``) and every write
path opens its own ``BEGIN IMMEDIATE`` transaction through :meth:`Store.tx`, so
a crash leaves either the old or the new state of a document, never half.
WAL mode lets readers (``kb search``) run while an ingest writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.errors import DiskFullError, EmbeddingMismatchError, ReadOnlyStoreError, StoreError
from kb.store import migrations
from kb.store.rows import chunk_hash as chunk_hash
from kb.store.rows import insert_chunks as insert_chunks
from kb.store.rows import row_to_hit
from kb.types import ChunkDraft, ChunkerInfo, Hit

if TYPE_CHECKING:
    from kb.store.vectors import VectorIndex

DB_NAME = "kb.sqlite"
EMBED_TEXT_SQL = "CASE WHEN heading_path = '' THEN text ELSE heading_path || char(10) || text END"
LANCE_DIR = "lancedb"


@dataclass(frozen=True)
class DocumentRow:
    id: int
    root: str
    path: str
    doc_type: str
    content_hash: str | None
    size: int | None
    mtime: float | None
    status: str
    error: str | None
    chunker: str | None
    chunker_version: str | None
    chunker_params: str | None
    abs_path: str | None = None
    source_id: int | None = None


@dataclass(frozen=True)
class EmbeddingModelInfo:
    """Identity of the model that built the vectors (``model_id``, ``dim``)."""

    model_id: str
    dim: int


class Store:
    """One KB folder: ``kb.sqlite`` plus the derived ``lancedb/`` folder."""

    def __init__(self, home: Path, conn: sqlite3.Connection, read_only: bool = False) -> None:
        self.home = home
        self.conn = conn
        self.read_only = read_only
        self._vectors: VectorIndex | None = None
        self._adopted = False

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, home: Path, create: bool = True) -> Store:
        """Open (and with ``create``, initialise or migrate) the KB at ``home``.

        ``create`` marks a writing command (``kb ingest``). When the KB folder or its
        database is not writable, a reading command gets a read-only connection
        (:func:`kb.store.health.connect_readonly`; :attr:`read_only` is set and
        :meth:`tx` refuses) and a writing one fails at once with
        :class:`ReadOnlyStoreError`. Errors are told apart by
        :func:`kb.store.health.classify`: damaged, read-only, full disk, or unopenable.
        """
        from kb.store import health

        home = Path(home)
        db = home / DB_NAME
        if not db.exists() and not create:
            raise StoreError(f"{home}: no KB here; run `kb ingest PATH` first or pass --kb DIR")
        health.LAST_OPENED = db
        read_only = home.is_dir() and not health.writable(home, db)
        if read_only and create:
            raise ReadOnlyStoreError(health.read_only_message(home, "kb ingest"))
        try:
            if read_only:
                conn = health.connect_readonly(db)
            else:
                home.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(
                    db, isolation_level=None, check_same_thread=False, timeout=30
                )
        except sqlite3.Error as e:
            raise health.classify(e, home, db) from None
        except OSError as e:
            raise StoreError(f"{db}: cannot open the KB database: {e.strerror or e}") from None
        try:
            conn.row_factory = sqlite3.Row
            if not read_only:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrations.migrate(conn, str(db))
        except sqlite3.Error as e:
            conn.close()
            raise health.classify(e, home, db) from None
        except BaseException:
            conn.close()
            raise
        return cls(home, conn, read_only)

    def require_writable(self, command: str) -> None:
        """Fail at once, before any work, when ``command`` would write a read-only KB."""
        from kb.store import health

        if self.read_only:
            raise ReadOnlyStoreError(health.read_only_message(self.home, command))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def db_path(self) -> Path:
        return self.home / DB_NAME

    @property
    def vectors_raw(self) -> VectorIndex:
        """The LanceDB embedding cache as it is on disk (opened lazily: importing
        lancedb is slow)."""
        if self._vectors is None:
            from kb.store.vectors import VectorIndex

            self._vectors = VectorIndex(self.home / LANCE_DIR)
        return self._vectors

    @property
    def vectors(self) -> VectorIndex:
        """The embedding cache; on first use by a writable KB, a vector table from
        before migration 5 is re-keyed by text hash (:func:`kb.store.embeddings.
        adopt_legacy`)."""
        v = self.vectors_raw
        if not self._adopted:
            self._adopted = True
            if not self.read_only and v.has_legacy():
                from kb.store.embeddings import adopt_legacy

                adopt_legacy(self)
        return v

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """An immediate write transaction; rolls back on any exception.

        Refuses on a read-only KB (:class:`ReadOnlyStoreError`); a full disk
        (``SQLITE_FULL``) becomes :class:`DiskFullError`: the transaction is rolled back,
        so what was committed before stays."""
        from kb.store import health

        if self.read_only:
            raise ReadOnlyStoreError(health.read_only_message(self.home))
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")
        except sqlite3.Error as e:
            if health.is_disk_full(e):
                raise DiskFullError(health.disk_full_message(self.home, DB_NAME)) from None
            raise

    # -- metadata --------------------------------------------------------------------------
    def meta_get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta_set(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def embedding_model(self) -> EmbeddingModelInfo | None:
        raw = self.meta_get("embedding_model")
        if raw is None:
            return None
        d = json.loads(raw)
        return EmbeddingModelInfo(d["model_id"], int(d["dim"]))

    def check_embedding_model(self, model_id: str) -> None:
        """Refuse a configured embedder other than the one that built the vectors."""
        current = self.embedding_model()
        if current is not None and current.model_id != model_id and self.count_chunks() > 0:
            raise EmbeddingMismatchError(
                f"{self.home}: vectors were built with embedding model '{current.model_id}', "
                f"but the configuration selects '{model_id}'; run `kb reindex` to rebuild "
                f"all vectors with the new model, or switch the configuration back"
            )

    def set_embedding_model(self, info: EmbeddingModelInfo) -> None:
        self.meta_set("embedding_model", json.dumps({"model_id": info.model_id, "dim": info.dim}))

    # -- documents -------------------------------------------------------------------------
    def documents_under(self, root: str) -> dict[str, DocumentRow]:
        rows = self.conn.execute("SELECT * FROM documents WHERE root = ?", (root,))
        return {r["path"]: _doc(r) for r in rows}

    def documents_within(self, abs_path: str) -> dict[str, DocumentRow]:
        """Documents whose absolute path is ``abs_path`` or lies under it, by absolute path."""
        prefix = abs_path.rstrip("/") + "/"
        rows = self.conn.execute(
            "SELECT * FROM documents WHERE abs_path = ? OR substr(abs_path, 1, ?) = ?",
            (abs_path, len(prefix), prefix),
        )
        return {str(r["abs_path"]): _doc(r) for r in rows}

    def move_document(
        self,
        doc_id: int,
        *,
        source_id: int,
        root: str,
        path: str,
        abs_path: str,
        mtime: float | None,
    ) -> None:
        """A moved or renamed file: keep its chunks and vectors, change where it is."""
        with self.tx() as c:
            c.execute(
                "UPDATE documents SET source_id = ?, root = ?, path = ?, abs_path = ?, "
                "mtime = ?, updated_at = ? WHERE id = ?",
                (source_id, root, path, abs_path, mtime, time.time(), doc_id),
            )

    @property
    def _abs_col(self) -> str:
        """``, d.abs_path`` when the documents table has it (a KB opened without
        migrating, e.g. read-only, may predate migration 3), else ''."""
        if not hasattr(self, "_abs_col_cache"):
            cols = {str(r[1]) for r in self.conn.execute("PRAGMA table_info(documents)")}
            self._abs_col_cache = ", d.abs_path" if "abs_path" in cols else ""
        return self._abs_col_cache

    def document(self, doc_id: int) -> DocumentRow | None:
        r = self.conn.execute("SELECT * FROM documents WHERE id = ?", (doc_id,)).fetchone()
        return None if r is None else _doc(r)

    def save_document(
        self,
        *,
        root: str,
        path: str,
        doc_type: str,
        content_hash: str | None,
        size: int | None,
        mtime: float | None,
        chunks: Sequence[ChunkDraft],
        chunker: ChunkerInfo,
        tags: Sequence[str] = (),
        warnings: Sequence[str] = (),
        meta: dict[str, Any] | None = None,
        abs_path: str | None = None,
        source_id: int | None = None,
        chunking_id: int | None = None,
        lang: str | None = None,
    ) -> int:
        """Replace a document and its chunks of one chunking in one transaction.

        ``chunking_id`` (default: the live chunking; a KB without one gets one made
        from ``chunker``, live) is the chunking the chunks belong to. When the
        document's content changed, the chunks of *every* chunking are deleted (other
        chunkings become stale for it); otherwise only those of this chunking. New
        chunks whose text was embedded before are ``embedded`` at once (the embedding
        cache, :mod:`kb.store.embeddings`), the others ``pending``. Returns the
        document id. With ``abs_path`` (the document's identity) the row is found by
        it; otherwise by ``(root, path)``. ``lang`` (a :data:`kb.lang.KNOWN` code or
        ``"und"``) is written to ``documents.lang`` before the chunks, which the keyword
        index then holds stemmed in that language (:mod:`kb.store.stemming`); ``None``
        keeps the language recorded.
        """
        from kb.store import chunkings

        params = json.dumps(chunker.params, sort_keys=True)
        now = time.time()
        if chunking_id is None:
            chunking_id = chunkings.live_id(self)
            if chunking_id is None:
                chunking_id = chunkings.ensure(self, chunker.name, chunker)
                chunkings.set_live(self, chunking_id)
        with self.tx() as c:
            row = self._find_row(c, root, path, abs_path, content=True)
            values = (
                doc_type,
                content_hash,
                size,
                mtime,
                json.dumps(list(tags)),
                json.dumps(list(warnings)),
                json.dumps(meta or {}),
                chunker.name,
                chunker.version,
                params,
                now,
            )
            if row is None:
                cur = c.execute(
                    "INSERT INTO documents (root, path, status, error, doc_type, content_hash, "
                    "size, mtime, tags, warnings, meta, chunker, chunker_version, "
                    "chunker_params, updated_at, abs_path, source_id) "
                    "VALUES (?, ?, 'indexed', NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (root, path, *values, abs_path, source_id),
                )
                doc_id = int(cur.lastrowid or 0)
            else:
                doc_id = int(row[0])
                if row[1] == content_hash and row[2] == "indexed":
                    c.execute(
                        "DELETE FROM chunks WHERE document_id = ? AND chunking_id = ?",
                        (doc_id, chunking_id),
                    )
                else:
                    c.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
                    c.execute("DELETE FROM chunking_docs WHERE document_id = ?", (doc_id,))
                c.execute(
                    "UPDATE documents SET status = 'indexed', error = NULL, doc_type = ?, "
                    "content_hash = ?, size = ?, mtime = ?, tags = ?, warnings = ?, meta = ?, "
                    "chunker = ?, chunker_version = ?, chunker_params = ?, updated_at = ?, "
                    "root = ?, path = ? WHERE id = ?",
                    (*values, root, path, doc_id),
                )
            if lang is not None:
                c.execute("UPDATE documents SET lang = ? WHERE id = ?", (lang, doc_id))
            insert_chunks(c, doc_id, chunking_id, content_hash, chunks, chunker)
        return doc_id

    def mark_failed(
        self,
        *,
        root: str,
        path: str,
        doc_type: str,
        error: str,
        content_hash: str | None = None,
        size: int | None = None,
        mtime: float | None = None,
        abs_path: str | None = None,
        source_id: int | None = None,
    ) -> None:
        """Record a failed file. Chunks from an earlier good version are removed: the
        index must not claim content the file no longer has."""
        now = time.time()
        with self.tx() as c:
            row = self._find_row(c, root, path, abs_path)
            if row is None:
                c.execute(
                    "INSERT INTO documents (root, path, doc_type, status, error, content_hash, "
                    "size, mtime, updated_at, abs_path, source_id) "
                    "VALUES (?, ?, ?, 'failed', ?, ?, ?, ?, ?, ?, ?)",
                    (
                        root,
                        path,
                        doc_type,
                        error,
                        content_hash,
                        size,
                        mtime,
                        now,
                        abs_path,
                        source_id,
                    ),
                )
            else:
                c.execute("DELETE FROM chunks WHERE document_id = ?", (row[0],))
                c.execute("DELETE FROM chunking_docs WHERE document_id = ?", (row[0],))
                c.execute(
                    "UPDATE documents SET status = 'failed', error = ?, doc_type = ?, "
                    "content_hash = ?, size = ?, mtime = ?, updated_at = ?, chunker = NULL, "
                    "chunker_version = NULL, chunker_params = NULL WHERE id = ?",
                    (error, doc_type, content_hash, size, mtime, now, row[0]),
                )

    @staticmethod
    def _find_row(
        c: sqlite3.Connection, root: str, path: str, abs_path: str | None, content: bool = False
    ) -> sqlite3.Row | None:
        cols = "id, content_hash, status" if content else "id"
        if abs_path is not None:
            return c.execute(
                f"SELECT {cols} FROM documents WHERE abs_path = ?", (abs_path,)
            ).fetchone()  # type: ignore[no-any-return]
        return c.execute(  # type: ignore[no-any-return]
            f"SELECT {cols} FROM documents WHERE root = ? AND path = ?", (root, path)
        ).fetchone()

    def rename_document(self, doc_id: int, new_path: str, mtime: float | None) -> None:
        """A moved file: keep its chunks and vectors, change only the path."""
        with self.tx() as c:
            c.execute(
                "UPDATE documents SET path = ?, mtime = ?, updated_at = ? WHERE id = ?",
                (new_path, mtime, time.time(), doc_id),
            )

    def delete_documents(self, doc_ids: Iterable[int]) -> int:
        ids = list(doc_ids)
        if not ids:
            return 0
        with self.tx() as c:
            c.executemany("DELETE FROM chunks WHERE document_id = ?", ((i,) for i in ids))
            c.executemany("DELETE FROM documents WHERE id = ?", ((i,) for i in ids))
        return len(ids)

    # -- chunks and embedding status -------------------------------------------------------
    def count_chunks(self, status: str | None = None, chunking: int | str = "live") -> int:
        """Chunks of the live chunking (``chunking="live"``), of every chunking
        (``"all"``) or of one chunking id; with ``status`` only those in it."""
        sql, params = "SELECT count(*) FROM chunks WHERE 1", []
        if chunking == "live":
            sql = "SELECT count(*) FROM live_chunks WHERE 1"
        elif chunking != "all":
            sql += " AND chunking_id = ?"
            params.append(chunking)
        if status is not None:
            sql += " AND embedding_status = ?"
            params.append(status)
        return int(self.conn.execute(sql, params).fetchone()[0])

    def iter_pending(
        self, batch_size: int, chunking_id: int | None = None
    ) -> Iterator[list[tuple[int, str, str]]]:
        """Yield batches of ``(chunk_id, embed_text, embed_sha256)`` still ``pending``
        (of one chunking, or of all), in id order.

        ``embed_text`` is :data:`EMBED_TEXT_SQL`: the heading path, a newline, then
        the chunk text (just the text when there is no heading), so a chunk's vector
        knows which document and section it is from. Streams by keyset pagination
        so memory stays flat however large the store.
        """
        last = -1
        scope = "" if chunking_id is None else f" AND chunking_id = {int(chunking_id)}"
        while True:
            rows = self.conn.execute(
                f"SELECT id, {EMBED_TEXT_SQL}, embed_sha256 FROM chunks "
                f"WHERE embedding_status = 'pending' AND id > ?{scope} ORDER BY id LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            last = int(rows[-1][0])
            yield [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def mark_hashes_embedded(self, hashes: Sequence[str]) -> None:
        """Every pending chunk whose embedded text has one of ``hashes`` is embedded
        (its vector is in the cache under the KB's model)."""
        with self.tx() as c:
            c.executemany(
                "UPDATE chunks SET embedding_status = 'embedded' "
                "WHERE embed_sha256 = ? AND embedding_status = 'pending'",
                ((h,) for h in hashes),
            )

    def mark_embedded(self, chunk_ids: Sequence[int]) -> None:
        with self.tx() as c:
            c.executemany(
                "UPDATE chunks SET embedding_status = 'embedded' WHERE id = ?",
                ((i,) for i in chunk_ids),
            )

    def mark_all_pending(self) -> None:
        with self.tx() as c:
            c.execute("UPDATE chunks SET embedding_status = 'pending'")

    def tombstones(self) -> list[int]:
        return [int(r[0]) for r in self.conn.execute("SELECT chunk_id FROM vector_tombstones")]

    def clear_tombstones(self, chunk_ids: Sequence[int]) -> None:
        with self.tx() as c:
            c.executemany(
                "DELETE FROM vector_tombstones WHERE chunk_id = ?", ((i,) for i in chunk_ids)
            )

    def chunk_ids(self, status: str | None = None) -> set[int]:
        if status is None:
            cur = self.conn.execute("SELECT id FROM chunks")
        else:
            cur = self.conn.execute("SELECT id FROM chunks WHERE embedding_status = ?", (status,))
        return {int(r[0]) for r in cur}

    def hits_for(self, chunk_ids: Sequence[int]) -> dict[int, Hit]:
        """Chunk rows with their locators, keyed by id (score 0; callers fill it)."""
        out: dict[int, Hit] = {}
        ids = list(chunk_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(
                f"SELECT c.*, d.path, d.doc_type, d.tags{self._abs_col} FROM chunks c "
                f"JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})",
                part,
            )
            for r in rows:
                out[int(r["id"])] = row_to_hit(r)
        return out

    # -- consistency -----------------------------------------------------------------------
    def fts_integrity_ok(self) -> bool:
        """FTS5's ``integrity-check`` against the chunks table. That command is an INSERT,
        which a read-only KB refuses; there the indexed row ids (``chunks_fts_docsize``)
        are compared with the chunk ids instead. The chunks' index forms must also agree
        with their documents' languages (:func:`kb.store.stemming.consistent`)."""
        from kb.store import stemming

        if not stemming.consistent(self.conn):
            return False
        if self.read_only:
            row = self.conn.execute(
                "SELECT NOT EXISTS (SELECT id FROM live_chunks EXCEPT SELECT id FROM "
                "chunks_fts_docsize) AND NOT EXISTS (SELECT id FROM chunks_fts_docsize "
                "EXCEPT SELECT id FROM live_chunks)"
            ).fetchone()
            return bool(row[0])
        try:
            self.conn.execute(
                "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)"
            )
            return True
        except sqlite3.DatabaseError:
            return False

    def rebuild_fts(self) -> None:
        """Recompute every chunk's index form from its document's language
        (:func:`kb.store.stemming.restem`) and rebuild the FTS5 index from them."""
        from kb.store import stemming

        with self.tx() as c:
            stemming.restem(c)
            c.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")


def _doc(r: sqlite3.Row) -> DocumentRow:
    return DocumentRow(
        id=int(r["id"]),
        root=r["root"],
        path=r["path"],
        doc_type=r["doc_type"],
        content_hash=r["content_hash"],
        size=r["size"],
        mtime=r["mtime"],
        status=r["status"],
        error=r["error"],
        chunker=r["chunker"],
        chunker_version=r["chunker_version"],
        chunker_params=r["chunker_params"],
        abs_path=r["abs_path"] if "abs_path" in r.keys() else None,  # noqa: SIM118
        source_id=r["source_id"] if "source_id" in r.keys() else None,  # noqa: SIM118
    )
