"""What the run measured: an index snapshot and index coverage, from the store.

- ``chunkers``: each distinct (chunker, version, params) of indexed documents, with
  its document count; two runs are chunker-comparable exactly when these lists are
  equal (:mod:`eval.compare`).
- ``corpus_fingerprint``: sha256 over the sorted ``path\\tcontent_hash`` lines of the
  indexed documents (relative paths, so two KBs built from the same files in
  different folders, or with different chunkers, share it).
- ``coverage``: indexed documents with zero chunks, failed documents (with their
  errors), and chunk token counts min / mean / p95 (linear) / max.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from kb.store import Store

LIST_LIMIT = 20


def _chunks_of(chunking_id: int | None) -> tuple[str, tuple[int, ...]]:
    """SQL for the chunks of one chunking (``None``: the live one) and its params."""
    if chunking_id is None:
        return "SELECT * FROM live_chunks", ()
    return "SELECT * FROM chunks WHERE chunking_id = ?", (chunking_id,)


def chunkers(store: Store, chunking_id: int | None = None) -> list[dict[str, Any]]:
    """The chunker identities of the chunking's documents, with document counts."""
    sql, params = _chunks_of(chunking_id)
    rows = store.conn.execute(
        "SELECT chunker, chunker_version, chunker_params, count(DISTINCT document_id) "
        f"FROM ({sql}) GROUP BY chunker, chunker_version, chunker_params "
        "ORDER BY chunker, chunker_version, chunker_params",
        params,
    ).fetchall()
    out = []
    for name, version, params, n in rows:
        try:
            p = json.loads(params) if params else {}
        except ValueError:
            p = {"raw": params}
        out.append({"name": name, "version": version, "params": p, "documents": int(n)})
    return out


def corpus_fingerprint(store: Store) -> str:
    h = hashlib.sha256()
    for path, chash in store.conn.execute(
        "SELECT path, coalesce(content_hash, '') FROM documents WHERE status = 'indexed' "
        "ORDER BY path, content_hash"
    ):
        h.update(f"{path}\t{chash}\n".encode())
    return h.hexdigest()


def coverage(store: Store, chunking_id: int | None = None) -> dict[str, Any]:
    c = store.conn
    sql, params = _chunks_of(chunking_id)
    empty = [
        str(r[0])
        for r in c.execute(
            "SELECT d.path FROM documents d WHERE d.status = 'indexed' AND d.id NOT IN "
            f"(SELECT document_id FROM ({sql})) ORDER BY d.path",
            params,
        )
    ]
    failed = [
        {"path": str(p), "error": e}
        for p, e in c.execute(
            "SELECT path, error FROM documents WHERE status = 'failed' ORDER BY path"
        )
    ]
    tokens = np.array(
        [int(r[0]) for r in c.execute(f"SELECT token_count FROM ({sql})", params)],
        dtype=np.float64,
    )
    stats: dict[str, float | int | None]
    if tokens.size:
        stats = {
            "min": int(tokens.min()),
            "mean": round(float(tokens.mean()), 4),
            "p95": round(float(np.percentile(tokens, 95)), 4),
            "max": int(tokens.max()),
        }
    else:
        stats = {"min": None, "mean": None, "p95": None, "max": None}
    n_docs = int(c.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()[0])
    return {
        "documents": n_docs,
        "chunks": int(tokens.size),
        "documents_without_chunks": len(empty),
        "documents_without_chunks_list": empty[:LIST_LIMIT],
        "failed_documents": len(failed),
        "failed_documents_list": failed[:LIST_LIMIT],
        "chunk_tokens": stats,
    }


def index_snapshot(store: Store, chunking_id: int | None = None) -> dict[str, Any]:
    """What a run measured: the chunking's chunkers, the embedding model, the corpus
    fingerprint and the chunking's coverage (``chunking_id`` None: the live one)."""
    emb = store.embedding_model()
    return {
        "chunkers": chunkers(store, chunking_id),
        "embedding": None if emb is None else {"model_id": emb.model_id, "dim": emb.dim},
        "corpus_fingerprint": corpus_fingerprint(store),
        "coverage": coverage(store, chunking_id),
    }
