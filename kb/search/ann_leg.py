"""The vector leg of a big KB: the LanceDB ANN index instead of the exact matrix.

When it is used (:func:`ann_in_use`): ``[search] ann_threshold > 0``, the live
chunking has at least that many embedded chunks, and an index was built
(:func:`kb.store.ann.recorded`; ``kb reindex --ann`` or automatically after an
ingest that crosses the threshold). Otherwise the exact matrix
(:mod:`kb.search.matrix`) is searched as before, recall 1.0. Searching another
chunking (``kb eval run --chunker``) is always exact.

Per query (:func:`ann_top`):

- the index returns the nearest ``fetch`` text hashes of the KB's model with exact
  cosines (IVF_HNSW_SQ or IVF_PQ, re-scored with the full vectors;
  :func:`kb.store.ann.search`); SQLite maps each hash to the live chunks that embed
  that text (several chunks may share one vector);
- unscoped: ``fetch = depth`` rounded up by a margin for vectors of other
  chunkings; scoped (``--path``/``--type``/``--tag``), chunks outside the scope are
  dropped, ``fetch`` starts at that divided by the scope's share of the live chunks
  (times 1.25) and grows four-fold until ``depth`` chunks are in the scope or
  :data:`MAX_FETCH` is reached. A scope of at most :data:`EXACT_SCOPE` chunks skips
  the index: its vectors are looked up by hash and ranked exactly, so a narrow filter
  still returns ``k`` hits;
- order: cosine descending, chunk id ascending (as the exact leg).

With ``ann_index = "faiss_ivf_sq8"`` the index is kb's own faiss file instead
(:mod:`kb.search.faiss_leg`, labelled by chunk id, so no hash-to-chunk step), with
the same scope rules and exact cosines.

What is approximate: the *set* of nearest chunks (recall@10 is measured by
``bench/search.py``); every cosine reported is exact. Keyword candidates outside the
vector top get their exact cosine (:func:`cosines_of`) but no vector rank, since
ranking them would need every cosine; RRF fusion then counts only their keyword rank.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb.search.sql_state import live_chunking, sqlite_state

if TYPE_CHECKING:
    import numpy as np

    from kb.search.candidates import Candidates

EXACT_SCOPE = 20_000
MAX_FETCH = 16_384


@dataclass(frozen=True)
class AnnOptions:
    """``[search] ann_threshold`` (0 = never), ``ann_nprobes`` (IVF partitions
    scanned per query), ``ann_refine_factor`` (candidates re-scored exactly per hit),
    ``ann_index`` (the index type built: ``ivf_pq`` or ``ivf_hnsw_sq``) and ``ann_ef``
    (HNSW candidates kept per query; ``ivf_hnsw_sq`` only)."""

    threshold: int = 0
    nprobes: int = 20
    refine_factor: int = 10
    index: str = "ivf_pq"
    ef: int = 128

    def __post_init__(self) -> None:
        from kb.errors import ConfigError
        from kb.store.ann import INDEX_TYPES

        if self.index not in INDEX_TYPES:
            raise ConfigError(
                f"[search] ann_index = {self.index!r}: expected one of "
                f"{', '.join(INDEX_TYPES)}; see `kb config show`"
            )
        for name in ("threshold", "nprobes", "refine_factor", "ef"):
            low = 0 if name == "threshold" else 1
            if getattr(self, name) < low:
                raise ConfigError(
                    f"[search] ann_{name} = {getattr(self, name)}: must be at least {low}; "
                    "see `kb config show`"
                )


def live_embedded(conn: sqlite3.Connection) -> int:
    """Embedded chunks of the live chunking."""
    row = conn.execute(
        "SELECT count(*) FROM chunks WHERE chunking_id = ? AND embedding_status = 'embedded'",
        (live_chunking(conn),),
    ).fetchone()
    return int(row[0])


def ann_in_use(store: object, threshold: int) -> bool:
    """Whether the live chunking is searched through the ANN index (see module docs)."""
    from kb.store import ann

    if threshold <= 0 or ann.recorded(store) is None:
        return False
    return live_embedded(store.conn) >= threshold  # type: ignore[attr-defined]


def _chunks_of(
    conn: sqlite3.Connection, hashes: list[str], allowed: set[int] | None
) -> dict[str, list[int]]:
    """Live embedded chunk ids per text hash, only those in the scope ``allowed``."""
    out: dict[str, list[int]] = {}
    cid = live_chunking(conn)
    for start in range(0, len(hashes), 500):
        part = hashes[start : start + 500]
        rows = conn.execute(
            # unary + keeps the planner on the embed_sha256 index (with one chunking,
            # the chunking_id index would scan every chunk)
            "SELECT embed_sha256, id, document_id FROM chunks WHERE +chunking_id = ? "
            "AND +embedding_status = 'embedded' AND embed_sha256 IN "
            f"({','.join('?' * len(part))})",
            (cid, *part),
        ).fetchall()
        for sha, chunk_id, doc in rows:
            if allowed is None or int(doc) in allowed:
                out.setdefault(str(sha), []).append(int(chunk_id))
    return out


def _rank(pairs: Iterable[tuple[int, float]], depth: int) -> list[tuple[int, float]]:
    return sorted(pairs, key=lambda p: (-p[1], p[0]))[:depth]


def ann_top(
    store: object,
    query: np.ndarray,
    depth: int,
    allowed: set[int] | None,
    nprobes: int,
    refine_factor: int,
    ef: int = 128,
) -> list[tuple[int, float]]:
    """The ``depth`` best ``(chunk_id, cosine)`` of the live chunking in the scope
    (``ef``: HNSW candidates, used when the index is ``IVF_HNSW_SQ``)."""
    import numpy as np

    from kb.store import ann

    conn: sqlite3.Connection = store.conn  # type: ignore[attr-defined]
    model_info = store.embedding_model()  # type: ignore[attr-defined]
    if model_info is None or depth < 1:
        return []
    model = model_info.model_id
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(q))
    q = q / norm if norm > 0 else q
    fetch = depth + max(8, depth // 4)
    if allowed is not None:
        size = _scope_size(conn, allowed)
        if size <= EXACT_SCOPE:
            return _exact_in_scope(store, model, q, depth, allowed)
        # start near the depth the scope's share of the chunks needs (one query, not two)
        share = size / max(live_embedded_cached(conn), 1)
        fetch = min(MAX_FETCH, max(fetch, int(fetch * 1.25 / max(share, 1e-6))))
    rec = ann.recorded(store) or {}
    if rec.get("type") == ann.INDEX_TYPES["faiss_ivf_sq8"]:
        from kb.search import faiss_leg

        # the exact leg's query (normalised only when off unit length): equal cosines
        qe = np.asarray(query, dtype=np.float32).reshape(-1)
        qe = qe / norm if norm > 0 and abs(norm - 1.0) > 1e-3 else qe
        got = faiss_leg.top(store, qe, depth, allowed, nprobes, fetch)
        return _exact_all(store, q, depth, allowed) if got is None else got
    if rec.get("type") == "IVF_HNSW_SQ":  # probe every graph, keep ef candidates
        nprobes = max(nprobes, ann.hnsw_partitions(int(rec.get("rows", 0))))
    else:
        ef = 0
    while True:
        found = ann.search(store.vectors, model, q, fetch, nprobes, refine_factor, ef)  # type: ignore[attr-defined]
        chunks = _chunks_of(conn, [h for h, _ in found], allowed)
        pairs = [(i, s) for h, s in found for i in chunks.get(h, [])]
        if len(pairs) >= depth or len(found) < fetch or fetch >= MAX_FETCH:
            return _rank(pairs, depth)
        fetch = min(fetch * 4, MAX_FETCH)


def _scope_rows(conn: sqlite3.Connection, allowed: set[int], what: str) -> list[tuple]:
    """``what`` over the scope's live embedded chunks, 500 documents per statement."""
    docs = sorted(allowed)
    cid = live_chunking(conn)
    out: list[tuple] = []
    for start in range(0, len(docs), 500):
        part = docs[start : start + 500]
        out.extend(
            conn.execute(
                f"SELECT {what} FROM chunks WHERE chunking_id = ? "
                "AND embedding_status = 'embedded' "
                f"AND document_id IN ({','.join('?' * len(part))})",
                (cid, *part),
            ).fetchall()
        )
    return out


_SIZES: dict[int, tuple[set[int], tuple[int, int], int]] = {}


def _scope_size(conn: sqlite3.Connection, allowed: set[int]) -> int:
    """Embedded live chunks in the scope; remembered for the same ``allowed`` set object
    (the Retriever reuses it while the database is unchanged) and SQLite state."""
    state = sqlite_state(conn)
    hit = _SIZES.get(id(allowed))
    if hit is not None and hit[0] is allowed and hit[1] == state:
        return hit[2]
    n = sum(int(n) for (n,) in _scope_rows(conn, allowed, "count(*)"))
    if len(_SIZES) >= 32:
        _SIZES.clear()
    _SIZES[id(allowed)] = (allowed, state, n)
    return n


_LIVE: dict[int, tuple[tuple[int, int], int]] = {}


def live_embedded_cached(conn: sqlite3.Connection) -> int:
    """:func:`live_embedded`, remembered per connection until the database changes."""
    state = sqlite_state(conn)
    hit = _LIVE.get(id(conn))
    if hit is not None and hit[0] == state:
        return hit[1]
    n = live_embedded(conn)
    if len(_LIVE) >= 32:
        _LIVE.clear()
    _LIVE[id(conn)] = (state, n)
    return n


def _exact_in_scope(
    store: object, model: str, q: np.ndarray, depth: int, allowed: set[int]
) -> list[tuple[int, float]]:
    """Exact ranking of a narrow scope's chunks."""
    conn: sqlite3.Connection = store.conn  # type: ignore[attr-defined]
    rows = _scope_rows(conn, allowed, "id, embed_sha256")
    cos = cosines_of(store, model, q, [str(sha) for _, sha in rows])
    return _rank(((int(i), cos[str(sha)]) for i, sha in rows if str(sha) in cos), depth)


def _exact_all(
    store: object, q: np.ndarray, depth: int, allowed: set[int] | None
) -> list[tuple[int, float]]:
    """Exact search over the whole matrix: the faiss index is missing or too stale
    (:mod:`kb.search.faiss_leg`)."""
    from kb.search.vector_cache import get_matrix

    matrix = get_matrix(store)
    return matrix.top(matrix.similarities(q), depth, matrix.allowed_mask(allowed))


def cosines_of(store: object, model: str, q: np.ndarray, hashes: list[str]) -> dict[str, float]:
    """Exact cosine of ``q`` to the stored vector of each hash (missing ones left out)."""
    import numpy as np

    from kb.store import ann

    vecs = ann.vectors_of(store.vectors, model, hashes)  # type: ignore[attr-defined]
    return {h: float(np.dot(v, q)) for h, v in vecs.items()}


def hashes_of(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, str]:
    """Text hash of each given chunk that is embedded."""
    out: dict[int, str] = {}
    for start in range(0, len(chunk_ids), 500):
        part = chunk_ids[start : start + 500]
        rows = conn.execute(
            "SELECT id, embed_sha256 FROM chunks WHERE embedding_status = 'embedded' "
            f"AND id IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
        out.update((int(i), str(s)) for i, s in rows)
    return out


def describe(store: object, threshold: int) -> dict[str, object]:
    """``kb status``'s ``vector_search``: ``{"method": "exact"|"ann", "chunks",
    "threshold", "index"}`` (``index``: the build record, or ``None``)."""
    from kb.store import ann

    n = live_embedded(store.conn)  # type: ignore[attr-defined]
    rec = ann.recorded(store)
    use = threshold > 0 and rec is not None and n >= threshold
    return {"method": "ann" if use else "exact", "chunks": n, "threshold": threshold, "index": rec}


def describe_line(vs: dict[str, object]) -> str:
    """One ``kb status`` line for :func:`describe`'s dict."""
    n, t, rec = vs["chunks"], vs["threshold"], vs["index"]
    if vs["method"] == "ann" and isinstance(rec, dict):
        return f"vector search: ANN index {rec['type']} ({n} chunks, built {rec['built_at']})"
    if isinstance(t, int) and isinstance(n, int) and t > 0 and n >= t:
        return f"vector search: exact ({n} chunks; over ann_threshold {t}: `kb reindex --ann`)"
    return f"vector search: exact ({n} chunks)"


def keyword_cosines(
    store: Any,
    out: Candidates,
    qvec: np.ndarray,
    vectors: dict[int, np.ndarray] | None = None,
) -> None:
    """Fill ``out``'s cosines and ranks after an ANN vector leg: the vector top gets its
    ranks, keyword candidates outside it their exact cosine but no rank (module docs).
    ``vectors``: the keyword candidates' stored vectors by chunk id, when already
    fetched (:func:`keyword_vectors`); otherwise they are looked up here."""
    for r, (i, s) in enumerate(out.vector, start=1):
        out.cosine[i] = s
        out.vector_rank[i] = r
    rest = [i for i, _ in out.keyword if i not in out.cosine]
    model = store.embedding_model()
    if not rest or model is None:
        return
    import numpy as np

    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(q))
    q = q / norm if norm > 0 else q
    if vectors is None:
        vectors = keyword_vectors(store, model.model_id, rest)
    for i in rest:
        v = vectors.get(i)
        if v is not None:
            out.cosine[i] = float(np.dot(v, q))


def keyword_vectors(store: Any, model: str, chunk_ids: list[int]) -> dict[int, np.ndarray]:
    """The stored vector of each given chunk that is embedded, by chunk id (chunks that
    share a text share one lookup)."""
    from kb.store import ann

    sha = hashes_of(store.conn, chunk_ids)
    vecs = ann.vectors_of(store.vectors, model, sorted(set(sha.values())))
    return {i: vecs[h] for i, h in sha.items() if h in vecs}
