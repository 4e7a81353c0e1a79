"""Counts for ``kb status``: documents and chunks (of the live chunking) by type and
status, models, chunkers, the stored chunkings, the embedding cache and how many
chunks have sentence vectors.

**Cold.** ``kb status`` reads SQLite only: opening LanceDB (importing ``lancedb`` and
``pyarrow``) cost about 1.9 s of a 2.4 s status. The one LanceDB number it prints, the
vectors in the embedding cache, is remembered in ``meta`` (``status.vectors``) by the
last ingest together with a stamp of the table's version files (their names, sizes and
mtimes under ``lancedb/embeddings.lance/_versions``). While the stamp matches, the
remembered count is the table's; any other write to the table (``kb reindex``, ``kb
doctor --repair``, a newer kb) changes the stamp, and status then counts in LanceDB.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kb.store import chunkings
from kb.store.embeddings import cache_stats
from kb.store.sentences import coverage
from kb.store.sqlite import Store


def store_stats(store: Store) -> dict[str, Any]:
    c = store.conn
    docs: dict[str, dict[str, int]] = {}
    for r in c.execute("SELECT doc_type, status, count(*) FROM documents GROUP BY 1, 2"):
        docs.setdefault(r[0], {})[r[1]] = int(r[2])
    chunks: dict[str, dict[str, int]] = {}
    for r in c.execute(
        "SELECT d.doc_type, ch.embedding_status, count(*) FROM live_chunks ch "
        "JOIN documents d ON d.id = ch.document_id GROUP BY 1, 2"
    ):
        chunks.setdefault(r[0], {})[r[1]] = int(r[2])
    chunkers = [
        {"name": r[0], "version": r[1], "params": json.loads(r[2]), "chunks": int(r[3])}
        for r in c.execute(
            "SELECT chunker, chunker_version, chunker_params, count(*) FROM live_chunks "
            "GROUP BY 1, 2, 3"
        )
    ]
    failed = [
        {"path": r[0], "error": r[1]}
        for r in c.execute(
            "SELECT path, error FROM documents WHERE status = 'failed' ORDER BY path"
        )
    ]
    model = store.embedding_model()
    return {
        "home": str(store.home),
        "sqlite": str(store.db_path),
        "lancedb": str(store.home / "lancedb"),
        "documents": docs,
        "chunks": chunks,
        "totals": {
            "documents": int(c.execute("SELECT count(*) FROM documents").fetchone()[0]),
            "documents_failed": len(failed),
            "chunks": store.count_chunks(),
            "chunks_pending": store.count_chunks("pending"),
            "chunks_embedded": store.count_chunks("embedded"),
        },
        "embedding_model": None if model is None else {"id": model.model_id, "dim": model.dim},
        "chunkers": chunkers,
        "chunkings": [ch.to_dict() for ch in chunkings.list_all(store)],
        "embedding_cache": embedding_cache(store),
        "sentence_vectors": coverage(store, None if model is None else model.model_id),
        "failed": failed,
    }


#: the LanceDB table whose row count ``kb status`` prints (:mod:`kb.store.vectors`)
VECTOR_TABLES = ("embeddings.lance", "vectors.lance")
META_KEY = "status.vectors"


def vectors_stamp(home: Path) -> str | None:
    """A stamp of the vector tables' version files; ``None`` when there is no table."""
    h = hashlib.sha256()
    found = False
    for table in VECTOR_TABLES:
        versions = Path(home) / "lancedb" / table / "_versions"
        try:
            entries = sorted(versions.iterdir())
        except OSError:
            continue
        found = True
        for p in entries:
            st = p.stat()
            h.update(f"{table}/{p.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16] if found else None


def embedding_cache(store: Store) -> dict[str, Any]:
    """:func:`kb.store.embeddings.cache_stats` without opening LanceDB while the count
    remembered by :func:`remember_vector_count` is current (module docs)."""
    stamp = vectors_stamp(store.home)
    if stamp is None:
        return {"vectors": 0, "texts_used": 0, "unused": 0}
    try:
        memo = json.loads(store.meta_get(META_KEY) or "{}")
    except ValueError:
        memo = {}
    if memo.get("stamp") != stamp or not isinstance(memo.get("vectors"), int):
        return cache_stats(store)
    total = int(memo["vectors"])
    used = int(
        store.conn.execute(
            "SELECT count(DISTINCT embed_sha256) FROM chunks WHERE embedding_status = 'embedded'"
        ).fetchone()[0]
    )
    return {"vectors": total, "texts_used": used, "unused": max(total - used, 0)}


def remember_vector_count(store: Store) -> None:
    """After a write to the vector table: keep its row count and stamp in ``meta``."""
    stamp = vectors_stamp(store.home)
    if stamp is not None:
        memo = {"stamp": stamp, "vectors": store.vectors.count()}
        store.meta_set(META_KEY, json.dumps(memo))
