"""Counts for ``kb status``: documents and chunks (of the live chunking) by type and
status, models, chunkers, the stored chunkings, the embedding cache and how many
chunks have sentence vectors."""

from __future__ import annotations

import json
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
        "embedding_cache": cache_stats(store),
        "sentence_vectors": coverage(store, None if model is None else model.model_id),
        "failed": failed,
    }
