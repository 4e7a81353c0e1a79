"""The embedding cache seen from SQLite: which chunks' vectors it holds, which of its
vectors no chunking uses, and the one-off re-keying of a pre-cache vector table.

The cache itself is the LanceDB table of :mod:`kb.store.vectors`, keyed by
``(model, text_sha256)``. A chunk is ``embedded`` in SQLite only once the vector of
its ``embed_sha256`` under the KB's model is in the cache, so:

- ``missing`` (:func:`missing_chunks`): embedded chunks whose key is not in the cache
  (a damaged or deleted ``lancedb/`` folder); ``kb doctor --repair`` marks them
  pending again;
- ``unused`` (:func:`unused_keys`): cached vectors whose text no chunk of any
  chunking has (a dropped chunking, an edited document, another model). They cost
  disk, not correctness, and make switching back free; ``kb doctor --repair`` drops
  them.

numpy is imported inside the functions that need it: ``kb status`` and ``kb doctor``
import this module for counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from kb.store.sqlite import Store


def adopt_legacy(store: Store) -> int:
    """Re-key a pre-migration-5 vector table (rows by chunk id) by text hash under the
    KB's recorded model, then drop it. Vectors of chunks that no longer exist are left
    out. Returns the number of vectors kept; nothing is embedded. Idempotent: a crash
    before the drop repeats an insert of keys already present."""
    import numpy as np

    vectors = store.vectors_raw
    if not vectors.has_legacy():
        return 0
    model = store.embedding_model()
    ids, vecs = vectors.load_legacy()
    kept = 0
    if model is not None and ids:
        by_id = dict(
            store.conn.execute("SELECT id, embed_sha256 FROM chunks WHERE embed_sha256 != ''")
        )
        seen: dict[str, int] = {}
        for row, cid in enumerate(ids):
            sha = by_id.get(int(cid))
            if sha is not None and sha not in seen:
                seen[sha] = row
        keys = list(seen)
        rows = np.fromiter(seen.values(), dtype=np.int64, count=len(seen))
        for start in range(0, len(keys), 4096):
            part = rows[start : start + 4096]
            vectors.add(model.model_id, keys[start : start + 4096], vecs[part])
        kept = len(seen)
    vectors.drop_legacy()
    return kept


def missing_chunks(store: Store, keys: list[tuple[str, str]] | None = None) -> list[int]:
    """Embedded chunks (any chunking) whose vector is not in the cache; ``keys``: the
    cache's ``(model, text hash)`` keys when the caller has read them already."""
    model = store.embedding_model()
    rows = store.conn.execute(
        "SELECT id, embed_sha256 FROM chunks WHERE embedding_status = 'embedded'"
    ).fetchall()
    if not rows:
        return []
    if model is None:
        have: set[str] = set()
    elif keys is None:
        have = store.vectors.hashes(model.model_id)
    else:
        have = {h for m, h in keys if m == model.model_id}
    return sorted(int(i) for i, sha in rows if sha not in have)


def unused_keys(store: Store, keys: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """Cached ``(model, text hash)`` keys that no chunk of any chunking embeds under
    the KB's model (vectors of other models are all unused); ``keys`` as in
    :func:`missing_chunks`."""
    model = store.embedding_model()
    used = {str(r[0]) for r in store.conn.execute("SELECT DISTINCT embed_sha256 FROM chunks")}
    current = None if model is None else model.model_id
    stored = store.vectors.keys() if keys is None else keys
    return [(m, h) for m, h in stored if m != current or h not in used]


def drop_unused(store: Store, keys: list[tuple[str, str]]) -> int:
    by_model: dict[str, list[str]] = {}
    for m, h in keys:
        by_model.setdefault(m, []).append(h)
    for m, hs in by_model.items():
        store.vectors.delete(m, hs)
    return len(keys)


def cache_stats(store: Store) -> dict[str, Any]:
    """``kb status``: vectors cached (all models), distinct texts the chunkings embed,
    and how many cached vectors no chunking uses."""
    if not (store.home / "lancedb").is_dir():
        return {"vectors": 0, "texts_used": 0, "unused": 0}
    total = store.vectors.count()
    used = int(
        store.conn.execute(
            "SELECT count(DISTINCT embed_sha256) FROM chunks WHERE embedding_status = 'embedded'"
        ).fetchone()[0]
    )
    return {"vectors": total, "texts_used": used, "unused": max(total - used, 0)}


def add_for_chunks(
    store: Store, chunk_ids: list[int], vectors: np.ndarray, replace: bool = False
) -> None:
    """Cache ``vectors`` as those of the texts of ``chunk_ids`` under the KB's recorded
    model (benchmarks and tests that bring their own vectors). ``replace`` overwrites
    a text's cached vector; otherwise a cached one is kept. Chunks are not marked
    embedded (:meth:`Store.mark_embedded` does that)."""
    import numpy as np

    model = store.embedding_model()
    if model is None:
        raise ValueError("record the embedding model first (Store.set_embedding_model)")
    sha = dict(
        store.conn.execute(
            f"SELECT id, embed_sha256 FROM chunks WHERE id IN ({','.join('?' * len(chunk_ids))})",
            chunk_ids,
        ).fetchall()
    )
    first: dict[str, int] = {}
    for row, cid in enumerate(chunk_ids):
        first.setdefault(str(sha[cid]), row)
    keys = list(first)
    if replace:
        store.vectors.delete(model.model_id, keys)
    store.vectors.add(model.model_id, keys, np.asarray(vectors)[list(first.values())])
