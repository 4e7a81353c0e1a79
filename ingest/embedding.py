"""Bring LanceDB in line with SQLite: remove tombstoned vectors, embed pending chunks.

Order of operations (crash-safe at every step):

1. vectors of deleted chunks (``vector_tombstones``) are deleted from LanceDB,
   then the tombstones are cleared — a crash in between only repeats a no-op delete;
2. pending chunks are embedded batch by batch: vectors are upserted into LanceDB
   keyed by chunk id (idempotent), then the chunks are marked ``embedded`` —
   a crash in between leaves them ``pending`` and the next run overwrites the
   same vectors, never duplicating them.
"""

from __future__ import annotations

from collections.abc import Callable

from kb.backends.embedder import Embedder
from kb.errors import EmbeddingMismatchError
from kb.store import Store
from kb.store.sqlite import EmbeddingModelInfo


def apply_tombstones(store: Store) -> int:
    ids = store.tombstones()
    if ids:
        store.vectors.delete(ids)
        store.clear_tombstones(ids)
    return len(ids)


def ensure_model_recorded(store: Store, embedder: Embedder) -> None:
    """Record the embedder that builds the vectors; refuse a dimension clash."""
    store.check_embedding_model(embedder.model_id)
    current = store.embedding_model()
    table_dim = store.vectors.dim()
    if table_dim is not None and table_dim != embedder.dim:
        raise EmbeddingMismatchError(
            f"{store.home}: the vector table has dimension {table_dim} but the embedder "
            f"'{embedder.model_id}' gives {embedder.dim}; run `kb reindex`"
        )
    if current is None or current.model_id != embedder.model_id:
        store.set_embedding_model(EmbeddingModelInfo(embedder.model_id, embedder.dim))


def embed_pending(
    store: Store,
    embedder: Embedder,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Embed every pending chunk; returns how many were embedded."""
    ensure_model_recorded(store, embedder)
    done = 0
    for batch in store.iter_pending(batch_size):
        ids = [cid for cid, _ in batch]
        vecs = embedder.embed_batch([text for _, text in batch])
        store.vectors.upsert(ids, vecs)
        store.mark_embedded(ids)
        done += len(ids)
        if on_batch is not None:
            on_batch(len(ids))
    return done
