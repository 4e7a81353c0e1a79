"""The approximate-nearest-neighbour (ANN) index on the embedding cache.

Big KBs search vectors through a LanceDB vector index instead of an in-memory matrix
(:mod:`kb.search.ann_leg` decides when). This module builds, describes and queries
that index on the ``embeddings`` table of :class:`kb.store.vectors.VectorIndex`.

Index (``[search] ann_index``), always with the ``dot`` distance (vectors are
L2-normalised, so LanceDB's dot distance is ``1 - cosine``):

- ``ivf_pq``: ``IVF_PQ``, ``num_partitions = min(round(sqrt(rows)), rows // 4096)``,
  at least 1 (about 4,000 vectors per partition: k-means training stays near a
  minute at a million vectors on two cores; a PQ codebook needs 256 vectors, so fewer
  than :data:`MIN_ROWS` vectors get no index) and ``num_sub_vectors = dim / 8`` (or
  the largest divisor of ``dim`` not above it);
- ``ivf_hnsw_sq``: ``IVF_HNSW_SQ``, one HNSW graph of 8-bit scalar-quantised vectors
  per partition, ``num_partitions = ceil(rows / 262144)`` (graphs of at most about a
  quarter million vectors keep the build's memory bounded), ``m = 16``,
  ``ef_construction = 150``. Queries probe every partition (``nprobes`` is raised to
  the partition count) with ``ef = max(ann_ef, limit)``; the found vectors are
  re-scored exactly (refine factor 1; ``ann_refine_factor`` is for IVF_PQ).
Two scalar indexes go with it: a bitmap on ``model`` (the prefilter of every query)
and a B-tree on ``text_sha256`` (looking up the vectors of given texts).

Query: ``nprobes`` partitions are scanned by PQ codes (or walked as HNSW graphs), the
best ``limit * refine_factor`` re-scored with the stored full vectors (at least the
``limit`` found: refine factor 1), so the cosines returned are exact and only the
*set* found is approximate. Rows added after the
build are not in the index: LanceDB scans them exactly on every query until
:func:`update` folds them in (``optimize``), so a stale index is slower, never wrong.

lancedb, numpy and :mod:`kb.store.vectors` are imported lazily (inside functions):
``kb status`` reads :func:`recorded` without them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb.progress import step

if TYPE_CHECKING:
    import numpy as np

    from kb.store.vectors import VectorIndex

INDEX_TYPE = "IVF_PQ"
INDEX_TYPES = {
    "ivf_pq": "IVF_PQ",
    "ivf_hnsw_sq": "IVF_HNSW_SQ",
    "faiss_ivf_sq8": "FAISS_IVF_SQ8",  # kb's own file, not LanceDB's (kb.store.ann_faiss)
}
MIN_ROWS = 256
ROWS_PER_PARTITION = 4096
HNSW_ROWS_PER_PARTITION = 262_144
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 150
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
            kind = str(ix.index_type).upper()
            return AnnInfo(
                index_type="IVF_HNSW_SQ"
                if "HNSW" in kind
                else INDEX_TYPE
                if "PQ" in kind
                else kind,
                indexed_rows=int(stats.num_indexed_rows) if stats else 0,
                unindexed_rows=int(stats.num_unindexed_rows) if stats else 0,
                built_at="" if created is None else created.strftime("%Y-%m-%d %H:%M UTC"),
            )
    return None


def build(vectors: VectorIndex, kind: str = "ivf_pq") -> AnnInfo | None:
    """(Re)build the vector index (``kind``: a key of :data:`INDEX_TYPES`) and its
    scalar indexes over every stored vector; ``None`` when there are fewer than
    :data:`MIN_ROWS`."""
    from lancedb.index import Bitmap, BTree, HnswSq, IvfPq

    t = vectors.table()
    rows = vectors.count()
    dim = vectors.dim()
    if t is None or rows < MIN_ROWS or dim is None:
        return None
    cfg: Any
    if kind == "ivf_hnsw_sq":
        cfg = HnswSq(
            distance_type="dot",
            num_partitions=hnsw_partitions(rows),
            m=HNSW_M,
            ef_construction=HNSW_EF_CONSTRUCTION,
        )
    else:
        cfg = IvfPq(
            distance_type="dot",
            num_partitions=max(1, min(round(math.sqrt(rows)), rows // ROWS_PER_PARTITION)),
            num_sub_vectors=_sub_vectors(dim),
        )
    with warnings.catch_warnings(), step(f"building the vector index ({kind})"):
        warnings.simplefilter("ignore")
        t.create_index("vector", config=cfg, replace=True)
        t.create_index("model", config=Bitmap(), replace=True)
        t.create_index("text_sha256", config=BTree(), replace=True)
    return info(vectors)


def hnsw_partitions(rows: int) -> int:
    """IVF partitions of an ``IVF_HNSW_SQ`` index over ``rows`` vectors."""
    return max(1, math.ceil(rows / HNSW_ROWS_PER_PARTITION))


def update(vectors: VectorIndex) -> None:
    """Fold rows added since the build into the existing indexes (LanceDB
    ``optimize``: compaction plus incremental index update; no retraining)."""
    t = vectors.table()
    if t is not None:
        with step("updating the vector index"):
            t.optimize()


def search(
    vectors: VectorIndex,
    model: str,
    query: np.ndarray,
    limit: int,
    nprobes: int,
    refine_factor: int,
    ef: int = 0,
) -> list[tuple[str, float]]:
    """The ``limit`` nearest ``(text_sha256, cosine)`` of ``model``, best first.

    ``ef`` > 0 marks an HNSW index: every partition is probed, the graph search keeps
    ``max(ef, limit)`` candidates and the ones found are re-scored with the full
    vectors (refine factor 1: 8-bit quantised distances rank well, but the cosines
    reported must be exact); ``refine_factor`` applies to IVF_PQ.

    The table normally holds one model's vectors (kb refuses to mix models), and a
    ``model = ...`` prefilter costs more than the search itself at a million rows
    (LanceDB builds a row mask from the bitmap index). So the query runs without it
    first; only if a row of another model comes back is it run again prefiltered.
    """
    import numpy as np

    from kb.store.vectors import _quote

    t = vectors.table()
    if t is None or limit < 1:
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)

    def run(prefilter: bool) -> Any:
        builder: Any = t.search(q).distance_type("dot")
        if prefilter:
            builder = builder.where(f"model = {_quote(model)}", prefilter=True)
        builder = (
            builder.nprobes(max(1, nprobes))
            .limit(limit)
            .select(["model", "text_sha256", "_distance"])
        )
        if ef > 0:
            builder = builder.ef(max(ef, limit)).refine_factor(1)
        elif refine_factor > 1:
            builder = builder.refine_factor(refine_factor)
        return builder.to_arrow()

    arrow = run(prefilter=False)
    if any(m != model for m in arrow.column("model").to_pylist()):
        arrow = run(prefilter=True)
    keys = arrow.column("text_sha256").to_pylist()
    dist = arrow.column("_distance").to_numpy(zero_copy_only=False)
    return [(k, float(1.0 - d)) for k, d in zip(keys, dist, strict=True)]


def vectors_of(vectors: VectorIndex, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The stored vectors of ``hashes`` under ``model`` (missing ones are left out).

    Looked up by the ``text_sha256`` B-tree alone, rows of other models dropped here:
    adding ``model = ...`` to the filter makes LanceDB evaluate the bitmap too."""
    import numpy as np

    from kb.store.vectors import _quote

    t = vectors.table()
    if t is None or not hashes:
        return {}
    out: dict[str, np.ndarray] = {}
    hs = list(dict.fromkeys(hashes))
    for start in range(0, len(hs), 500):
        part = ",".join(_quote(h) for h in hs[start : start + 500])
        arrow = (
            t.search()
            .where(f"text_sha256 IN ({part})")
            .select(["model", "text_sha256", "vector"])
            .limit(None)
            .to_arrow()
        )
        if arrow.num_rows == 0:
            continue
        flat = arrow.column("vector").combine_chunks()
        vecs = flat.flatten().to_numpy(zero_copy_only=False).reshape(-1, flat.type.list_size)
        keys = arrow.column("text_sha256").to_pylist()
        models = arrow.column("model").to_pylist()
        for k, m, v in zip(keys, models, vecs, strict=True):
            if m == model:
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


def build_and_record(store: Any, kind: str = "ivf_pq") -> AnnInfo | None:
    """:func:`build` (or, for ``faiss_ivf_sq8``, :func:`kb.store.ann_faiss.build`), then
    record it in SQLite meta (cleared when nothing was built). Building a LanceDB index
    removes a faiss file left from before; the faiss kind adds LanceDB's B-tree on
    ``text_sha256`` (looking up given vectors) and leaves a LanceDB vector index of
    another kind in place, unused (the record says which index is searched)."""
    import json

    from kb.store import ann_faiss

    if kind == ann_faiss.KIND:
        built = _build_faiss(store)
    else:
        ann_faiss.path(store.home).unlink(missing_ok=True)
        built = build(store.vectors, kind)
    with store.tx():
        if built is None:
            store.conn.execute("DELETE FROM meta WHERE key = ?", (META_KEY,))
        else:
            record = {"type": built.index_type, "rows": built.indexed_rows}
            store.meta_set(META_KEY, json.dumps({**record, "built_at": built.built_at}))
    return built


def _build_faiss(store: Any) -> AnnInfo | None:
    from lancedb.index import BTree

    from kb.store import ann_faiss

    header = ann_faiss.build(store)
    t = store.vectors.table()
    if header is None or t is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t.create_index("text_sha256", config=BTree(), replace=True)
    return AnnInfo(ann_faiss.TYPE, int(header["rows"]), 0, str(header["built_at"]))


def maintain(store: Any, threshold: int, kind: str = "ivf_pq") -> str | None:
    """Keep the index fit after an ingest; returns a one-line note of what it did.

    With ``threshold > 0`` and at least ``threshold`` embedded live chunks: build the
    index when there is none, rebuild it when the rows it covers are fewer than half
    the stored vectors (its partitions were trained on too little data) or it is of
    another ``kind`` than configured, otherwise fold the new rows in (:func:`update`).
    Below the threshold nothing is done (a built index stays, unused, until the KB
    grows past it again)."""
    import json

    if threshold <= 0:
        return None
    n = store.count_chunks("embedded")
    if n < threshold:
        return None
    rec = recorded(store)
    total = store.vectors.count()
    wrong_kind = rec is not None and rec.get("type") != INDEX_TYPES.get(kind, INDEX_TYPE)
    from kb.store import ann_faiss

    if kind == ann_faiss.KIND and rec is not None and not wrong_kind:
        note = ann_faiss.maintain(store)  # updates the file in place, or rebuilds it
        header = ann_faiss.read_header(ann_faiss.path(store.home))
        if header is not None and int(header["rows"]) != int(rec.get("rows", -1)):
            with store.tx():
                store.meta_set(META_KEY, json.dumps({**rec, "rows": int(header["rows"])}))
        return note
    if rec is None or wrong_kind or int(rec.get("rows", 0)) * 2 < total:
        built = build_and_record(store, kind)
        return None if built is None else f"built the ANN index ({built.indexed_rows} vectors)"
    current = info(store.vectors)
    if current is not None and current.unindexed_rows > 0:
        update(store.vectors)
        return f"added {current.unindexed_rows} vectors to the ANN index"
    return None
