"""The approximate-nearest-neighbour (ANN) index on the embedding cache.

Big KBs search vectors through a LanceDB vector index instead of an in-memory matrix
(:mod:`kb.search.ann_leg` decides when). This module builds, describes and queries
that index on the ``embeddings`` table of :class:`kb.store.vectors.VectorIndex`.

Index: ``IVF_PQ`` with the ``dot`` distance (vectors are L2-normalised, so LanceDB's
dot distance is ``1 - cosine``), ``num_partitions = min(round(sqrt(rows)), rows //
4096)``, at least 1 (about 4,000 vectors per partition: k-means training stays near a
minute at a million vectors on two cores; a PQ codebook needs 256 vectors, so fewer
than :data:`MIN_ROWS` vectors get no index) and ``num_sub_vectors = dim / 8``
(or the largest divisor of ``dim`` not above it).
Two scalar indexes go with it: a bitmap on ``model`` (the prefilter of every query)
and a B-tree on ``text_sha256`` (looking up the vectors of given texts).

Query: ``nprobes`` partitions are scanned by PQ codes, the best
``limit * refine_factor`` re-scored with the stored full vectors, so the cosines
returned are exact and only the *set* found is approximate. Rows added after the
build are not in the index: LanceDB scans them exactly on every query until
:func:`update` folds them in (``optimize``), so a stale index is slower, never wrong.

lancedb is imported lazily (inside functions).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kb.store.vectors import VectorIndex, _quote

INDEX_TYPE = "IVF_PQ"
MIN_ROWS = 256
ROWS_PER_PARTITION = 4096
VECTOR_INDEX = "vector_idx"


@dataclass(frozen=True)
class AnnInfo:
    """What ``kb status`` says about the vector index."""

    index_type: str
    indexed_rows: int
    unindexed_rows: int
    built_at: str  # ISO-8601 UTC of the index's creation


def _sub_vectors(dim: int) -> int:
    """``dim / 8`` when it divides ``dim``, else the largest divisor below it (>= 1)."""
    want = max(1, dim // 8)
    for s in range(want, 0, -1):
        if dim % s == 0:
            return s
    return 1


def info(vectors: VectorIndex) -> AnnInfo | None:
    """The vector index's description, ``None`` when the table has none."""
    t = vectors.table()
    if t is None:
        return None
    t.checkout_latest()
    for ix in t.list_indices():
        if list(ix.columns) == ["vector"]:
            stats = t.index_stats(ix.name)
            created = getattr(ix, "created_at", None)
            return AnnInfo(
                index_type=INDEX_TYPE if "pq" in str(ix.index_type).lower() else ix.index_type,
                indexed_rows=int(stats.num_indexed_rows) if stats else 0,
                unindexed_rows=int(stats.num_unindexed_rows) if stats else 0,
                built_at="" if created is None else created.strftime("%Y-%m-%d %H:%M UTC"),
            )
    return None


def build(vectors: VectorIndex) -> AnnInfo | None:
    """(Re)build the vector index and its scalar indexes over every stored vector;
    ``None`` when there are fewer than :data:`MIN_ROWS`."""
    from lancedb.index import Bitmap, BTree, IvfPq

    t = vectors.table()
    rows = vectors.count()
    dim = vectors.dim()
    if t is None or rows < MIN_ROWS or dim is None:
        return None
    cfg = IvfPq(
        distance_type="dot",
        num_partitions=max(1, min(round(math.sqrt(rows)), rows // ROWS_PER_PARTITION)),
        num_sub_vectors=_sub_vectors(dim),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.create_index("vector", config=cfg, replace=True)
        t.create_index("model", config=Bitmap(), replace=True)
        t.create_index("text_sha256", config=BTree(), replace=True)
    return info(vectors)


def update(vectors: VectorIndex) -> None:
    """Fold rows added since the build into the existing indexes (LanceDB
    ``optimize``: compaction plus incremental index update; no retraining)."""
    t = vectors.table()
    if t is not None:
        t.optimize()


def search(
    vectors: VectorIndex,
    model: str,
    query: np.ndarray,
    limit: int,
    nprobes: int,
    refine_factor: int,
) -> list[tuple[str, float]]:
    """The ``limit`` nearest ``(text_sha256, cosine)`` of ``model``, best first."""
    t = vectors.table()
    if t is None or limit < 1:
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    builder: Any = (
        t.search(q)
        .distance_type("dot")
        .where(f"model = {_quote(model)}", prefilter=True)
        .nprobes(max(1, nprobes))
        .limit(limit)
        .select(["text_sha256", "_distance"])
    )
    if refine_factor > 1:
        builder = builder.refine_factor(refine_factor)
    arrow = builder.to_arrow()
    keys = arrow.column("text_sha256").to_pylist()
    dist = arrow.column("_distance").to_numpy(zero_copy_only=False)
    return [(k, float(1.0 - d)) for k, d in zip(keys, dist, strict=True)]


def vectors_of(vectors: VectorIndex, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The stored vectors of ``hashes`` under ``model`` (missing ones are left out)."""
    t = vectors.table()
    if t is None or not hashes:
        return {}
    out: dict[str, np.ndarray] = {}
    hs = list(dict.fromkeys(hashes))
    for start in range(0, len(hs), 500):
        part = ",".join(_quote(h) for h in hs[start : start + 500])
        arrow = (
            t.search()
            .where(f"model = {_quote(model)} AND text_sha256 IN ({part})")
            .select(["text_sha256", "vector"])
            .limit(None)
            .to_arrow()
        )
        if arrow.num_rows == 0:
            continue
        flat = arrow.column("vector").combine_chunks()
        vecs = flat.flatten().to_numpy(zero_copy_only=False).reshape(-1, flat.type.list_size)
        for k, v in zip(arrow.column("text_sha256").to_pylist(), vecs, strict=True):
            out[k] = np.asarray(v, dtype=np.float32)
    return out


# -- the record in SQLite and upkeep after ingest -----------------------------------
META_KEY = "ann_index"


def recorded(store: Any) -> dict[str, Any] | None:
    """The build record in SQLite meta (``{"type", "rows", "built_at"}``), or ``None``.

    Writing it changes the SQLite state, so every reader notices a new index without
    asking LanceDB."""
    import json

    raw = store.meta_get(META_KEY)
    return None if not raw else dict(json.loads(raw))


def build_and_record(store: Any) -> AnnInfo | None:
    """:func:`build`, then record it in SQLite meta (cleared when nothing was built)."""
    import json

    built = build(store.vectors)
    with store.tx():
        if built is None:
            store.conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
        else:
            record = {"type": built.index_type, "rows": built.indexed_rows}
            store.meta_set(META_KEY, json.dumps({**record, "built_at": built.built_at}))
    return built


def maintain(store: Any, threshold: int) -> str | None:
    """Keep the index fit after an ingest; returns a one-line note of what it did.

    With ``threshold > 0`` and at least ``threshold`` embedded live chunks: build the
    index when there is none, rebuild it when the rows it covers are fewer than half
    the stored vectors (its partitions were trained on too little data), otherwise
    fold the new rows in (:func:`update`). Below the threshold nothing is done (a
    built index stays, unused, until the KB grows past it again)."""
    if threshold <= 0:
        return None
    n = store.count_chunks("embedded")
    if n < threshold:
        return None
    rec = recorded(store)
    total = store.vectors.count()
    if rec is None or int(rec.get("rows", 0)) * 2 < total:
        built = build_and_record(store)
        return None if built is None else f"built the ANN index ({built.indexed_rows} vectors)"
    current = info(store.vectors)
    if current is not None and current.unindexed_rows > 0:
        update(store.vectors)
        return f"added {current.unindexed_rows} vectors to the ANN index"
    return None
