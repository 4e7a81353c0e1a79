"""Hybrid retrieval: FTS5 keywords + exact vector search, fused by reciprocal rank.

``Retriever(store, embedder).search(query, opts)`` is the one retrieval path that
``kb search``, ``kb ask`` and ``kb eval`` share.

Per query:

1. validate: empty query -> :class:`UsageError`; a KB without chunks ->
   :class:`EmptyStoreError`;
2. resolve the scope filters to document ids (:mod:`kb.search.filters`; cached per
   Retriever until the database changes); both legs search only inside the scope,
   before their own top-n;
3. vector leg (modes ``vector``, ``hybrid``): embed the query (the embedder is loaded
   on first use and checked against the model that built the store), exact cosine
   against every embedded chunk (:mod:`kb.search.matrix`, cached by
   :mod:`kb.search.vector_cache`), top ``n``;
4. keyword leg (modes ``keyword``, ``hybrid``): FTS5 bm25 (:mod:`kb.search.keyword`),
   top ``n``;
5. hybrid: reciprocal rank fusion of both lists (:mod:`kb.search.fusion`),
   ``score = vector_weight/(rrf_k + rank_v) + keyword_weight/(rrf_k + rank_k)``;
6. ``min_score`` (vector and hybrid modes): a chunk whose cosine similarity to the
   query is below ``opts.min_score`` is dropped. The cosine is known for every chunk
   with a vector, also for keyword-only candidates; a chunk without a vector (still
   ``pending``) has no cosine and is dropped too unless ``min_score <= -1`` (which
   disables the check: cosines are never below -1). Keyword mode never loads the
   embedding model and does not apply ``min_score``. The default (``[search]
   min_score = 0.25``, rationale in ``config/default.toml``) suits all-MiniLM-L6-v2;
   ``kb ask`` refuses without running its model when no hit is left;
7. the best ``k`` that remain become :class:`~kb.types.Hit` objects.

``n`` is ``opts.k`` for a single-leg mode and ``max(opts.candidates, opts.k)`` per leg
in hybrid mode. ``Hit.score`` is the fused RRF score (hybrid), the cosine (vector) or
``-bm25`` (keyword). ``Hit.ranks`` has the 1-based rank from each leg that returned
the chunk; ``Hit.scores`` has ``vector`` (cosine, whenever known in vector/hybrid
mode), ``keyword`` (``-bm25``, when that leg returned it) and ``rrf`` (hybrid).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kb.backends.embedder import Embedder
from kb.errors import EmptyStoreError, UsageError
from kb.search.filters import allowed_documents
from kb.search.fusion import Fused, rrf
from kb.search.keyword import keyword_search
from kb.search.matrix import VectorMatrix
from kb.search.options import SearchOptions
from kb.search.vector_cache import get_matrix, sqlite_state
from kb.store import Store
from kb.types import Hit

TIMING_KEYS = ("embed", "vector", "keyword", "fuse", "total")


@dataclass
class SearchResult:
    """Ranked hits (``len(hits) <= k``) with per-stage timings in seconds."""

    query: str
    hits: list[Hit]
    timings: dict[str, float] = field(default_factory=dict)
    mode: str = "hybrid"

    def to_dict(self, k: int | None = None) -> dict[str, Any]:
        """The ``kb search --json`` shape: ``{query, mode, k, timings, hits}``."""
        return {
            "query": self.query,
            "mode": self.mode,
            "k": k,
            "timings": {name: round(v, 6) for name, v in self.timings.items()},
            "hits": [h.to_dict() for h in self.hits],
        }


class Retriever:
    """Searches one store. ``embedder`` is an :class:`Embedder` or a zero-argument
    callable returning one, called on the first vector/hybrid search only.

    ``vector_cache``: keep a copy of the vectors in ``<KB>/cache/search-vectors.bin``
    so a new process starts fast (config ``[search] vector_cache``; see
    :mod:`kb.search.vector_cache`).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | Callable[[], Embedder],
        *,
        vector_cache: bool = True,
    ) -> None:
        self.store = store
        self.vector_cache = vector_cache
        self._embedder: Embedder | None = None
        self._factory: Callable[[], Embedder] | None = None
        if hasattr(embedder, "embed_query") and not isinstance(embedder, type):
            self._embedder = embedder  # type: ignore[assignment]
        else:
            self._factory = embedder  # type: ignore[assignment]
        self._checked_model: str | None = None
        # scope -> (SQLite state when computed, allowed document ids)
        self._scopes: dict[tuple[Any, ...], tuple[tuple[int, int], set[int] | None]] = {}

    @property
    def embedder(self) -> Embedder:
        """The embedder, loaded now if it was given lazily; checked against the store."""
        if self._embedder is None:
            assert self._factory is not None
            self._embedder = self._factory()
        model_id = self._embedder.model_id
        if self._checked_model != model_id:
            self.store.check_embedding_model(model_id)
            self._checked_model = model_id
        return self._embedder

    def search(self, query: str, opts: SearchOptions) -> SearchResult:
        """Ranked hits for ``query``; see the module docs for every step.

        ``timings`` (seconds): ``embed`` the query embedding, ``vector`` the cosine
        search (including a cache reload), ``keyword`` FTS5, ``fuse`` fusion, score
        filtering and loading the hit rows, ``total`` all of it. A first-use model
        load is not counted: it is a one-off cost of the process, not of the search.
        """
        if not query or not query.strip():
            raise UsageError("empty query; pass the words or question to search for")
        conn = self.store.conn
        if conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
            raise EmptyStoreError(
                f"the KB at {self.store.home} has no chunks; run `kb ingest PATH` first"
            )
        embedder = self.embedder if opts.mode != "keyword" else None
        t_start = time.perf_counter()
        timings = dict.fromkeys(TIMING_KEYS, 0.0)
        mode = opts.mode
        allowed = self._allowed(opts)
        per_leg = opts.k if mode != "hybrid" else max(opts.candidates, opts.k)

        vec: list[tuple[int, float]] = []
        matrix: VectorMatrix | None = None
        sims: np.ndarray | None = None
        if embedder is not None:
            t = time.perf_counter()
            qvec = embedder.embed_query(query)
            timings["embed"] = time.perf_counter() - t
            t = time.perf_counter()
            matrix = get_matrix(self.store, persist=self.vector_cache)
            sims = matrix.similarities(qvec)
            mask = matrix.allowed_mask(allowed)
            vec = matrix.top(sims, per_leg, mask)
            timings["vector"] = time.perf_counter() - t

        kw: list[tuple[int, float]] = []
        if mode in ("keyword", "hybrid"):
            t = time.perf_counter()
            kw = keyword_search(conn, query, per_leg, allowed)
            timings["keyword"] = time.perf_counter() - t

        t = time.perf_counter()
        hits = self._assemble(mode, vec, kw, matrix, sims, opts)
        timings["fuse"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - t_start
        return SearchResult(query=query, hits=hits, timings=timings, mode=mode)

    def _allowed(self, opts: SearchOptions) -> set[int] | None:
        """The scope's document ids, recomputed only after the database changed."""
        if not opts.scoped:
            return None
        key = (opts.paths, opts.types, opts.tags)
        state = sqlite_state(self.store.conn)
        cached = self._scopes.get(key)
        if cached is not None and cached[0] == state:
            return cached[1]
        allowed = allowed_documents(self.store.conn, opts)
        if len(self._scopes) >= 32:
            self._scopes.clear()
        self._scopes[key] = (state, allowed)
        return allowed

    def _assemble(
        self,
        mode: str,
        vec: list[tuple[int, float]],
        kw: list[tuple[int, float]],
        matrix: VectorMatrix | None,
        sims: np.ndarray | None,
        opts: SearchOptions,
    ) -> list[Hit]:
        kw_score = dict(kw)
        if mode == "hybrid":
            fused = rrf(
                {"vector": [i for i, _ in vec], "keyword": [i for i, _ in kw]},
                {"vector": opts.vector_weight, "keyword": opts.keyword_weight},
                opts.rrf_k,
            )
        elif mode == "vector":
            fused = [Fused(i, s, {"vector": r}) for r, (i, s) in enumerate(vec, start=1)]
        else:
            fused = [Fused(i, s, {"keyword": r}) for r, (i, s) in enumerate(kw, start=1)]

        cosine: dict[int, float] = {}
        if matrix is not None and sims is not None and fused:
            ids = np.array([f.id for f in fused], dtype=np.int64)
            rows = matrix.rows_for(ids)
            cosine = {int(i): float(sims[r]) for i, r in zip(ids, rows, strict=True) if r >= 0}
        if mode != "keyword" and opts.min_score > -1:
            fused = [f for f in fused if f.id in cosine and cosine[f.id] >= opts.min_score]
        fused = fused[: opts.k]

        rows_by_id = self.store.hits_for([f.id for f in fused])
        hits: list[Hit] = []
        for f in fused:
            hit = rows_by_id.get(f.id)
            if hit is None:  # deleted by a concurrent ingest since the legs ran
                continue
            hit.score = f.score
            hit.ranks = dict(f.ranks)
            scores: dict[str, float] = {}
            if f.id in cosine:
                scores["vector"] = cosine[f.id]
            if f.id in kw_score:
                scores["keyword"] = kw_score[f.id]
            if mode == "hybrid":
                scores["rrf"] = f.score
            hit.scores = scores
            hits.append(hit)
        return hits
