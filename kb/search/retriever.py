"""Hybrid retrieval: FTS5 keywords + exact vector search, fused into one ranking.

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
   :mod:`kb.search.vector_cache`), top ``n``; in a KB past ``[search] ann_threshold``
   with an index, the LanceDB ANN index instead (:mod:`kb.search.ann_leg`);
4. keyword leg (modes ``keyword``, ``hybrid``): FTS5 bm25 (:mod:`kb.search.keyword`),
   top ``n``; in a KB past ``[search] keyword_index_threshold`` with a current
   derived index, LanceDB's full-text index instead (:mod:`kb.search.keyword_lance`;
   a stale or missing one falls back to FTS5 with a one-line notice). In hybrid
   mode the index query runs on a worker thread while the query is embedded and
   the vector leg runs (both are native code that releases the GIL), so the legs
   overlap instead of adding up; past the ANN threshold that thread also fetches the
   keyword candidates' stored vectors, for their exact cosines;
5. fusion (:mod:`kb.search.candidates`): hybrid mode combines both legs, by default
   ``score = (w_v * cosine/best cosine + w_k * bm25/best bm25) / (w_v + w_k)``
   (``fusion = "score"``) or by reciprocal rank (``fusion = "rrf"``), where a keyword
   candidate outside the vector leg's top ``n`` still gets its true cosine and vector
   rank. **No threshold removes a hybrid hit**: a chunk
   either leg ranks highly stays a candidate, so an exact match of a rare word (a
   name, a code) is found even when its cosine is low; the best cosine counts as at
   least 0.25 (:data:`kb.search.candidates.COSINE_FLOOR`), and a lookup (at most 3
   query words, in at most 3 chunks; :func:`kb.search.candidates.lookups_first`) puts
   its chunks first. Vector mode drops
   chunks whose cosine is below ``opts.min_score`` (``-1`` keeps all); keyword mode is
   bm25 order;
6. sentence rerank (modes ``vector``, ``hybrid``; :mod:`kb.search.rerank`): the top
   ``opts.rerank_depth`` fused candidates are re-scored with each one's best sentence
   cosine ``s``, ``final = (1 - a) * f/max f + a * s/max s`` with ``a =
   opts.sentence_weight`` (0 = off); skipped when too many of them have no stored
   sentence vectors;
   then title links (modes ``vector``, ``hybrid``; :mod:`kb.search.links`): up to
   ``opts.links`` documents the query or its best hit names by title get a chunk at
   rank 3;
7. ``SearchResult.best_cosine`` is the highest cosine of any in-scope chunk and
   ``best_sentence`` the rerank's best sentence cosine: the refusal decision (``kb
   ask``: is there anything worth answering from?) is
   :func:`kb.search.evidence.has_evidence` on them, separate from ranking;
8. the best ``k`` become :class:`~kb.types.Hit` objects.

``n`` is ``opts.k`` for a single-leg mode (at least ``rerank_depth`` in vector mode when
the rerank runs) and ``max(opts.candidates, opts.k)`` per leg in hybrid mode.
``Hit.score`` is the fused score (hybrid), the cosine (vector) or ``-bm25`` (keyword);
after a sentence rerank it is the re-scored ``final``. ``Hit.ranks`` has the 1-based
rank from each leg that ranked the chunk (in hybrid mode the vector rank is the true
one whenever the chunk has a vector); ``Hit.scores`` has ``vector`` (cosine, whenever
known in vector/hybrid mode), ``keyword`` (``-bm25``, when that leg returned it), in
hybrid mode the fused score under the fusion's name (``score`` or ``rrf``), and
``sentence`` (``s``) when the sentence rerank ran.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kb.backends.embedder import Embedder
from kb.errors import EmptyStoreError, UsageError, notice
from kb.search import typos
from kb.search.ann_leg import (
    AnnOptions,
    ann_in_use,
    ann_top,
    keyword_cosines,
    keyword_vectors,
)
from kb.search.candidates import Candidates, fuse, meaning_found, true_ranks
from kb.search.chunking_fts import fts_for
from kb.search.faiss_leg import vectors_of as faiss_vectors_of
from kb.search.filters import allowed_documents
from kb.search.fusion import Fused
from kb.search.keyword import keyword_search, query_terms
from kb.search.keyword_lance import STALE_NOTICE, keyword_index_state
from kb.search.keyword_lance import search as index_keyword_search
from kb.search.links import (
    TitleIndex,
    chunk_documents,
    document_chunks,
    linked,
    load_titles,
    titles_state,
)
from kb.search.matrix import VectorMatrix
from kb.search.options import SearchOptions
from kb.search.rerank import reranked, sentence_scores
from kb.search.result import TIMING_KEYS as TIMING_KEYS
from kb.search.result import SearchResult as SearchResult
from kb.search.tasks import asks_tasks, task_chunks, with_tasks
from kb.search.vector_cache import get_matrix, sqlite_state
from kb.store import Store, keyword_index
from kb.store.ann import INDEX_TYPES
from kb.store.ann import recorded as ann_recorded
from kb.types import Hit

FAISS_TYPE = INDEX_TYPES["faiss_ivf_sq8"]


class Retriever:
    """Searches one store. ``embedder`` is an :class:`Embedder` or a zero-argument
    callable returning one, called on the first vector/hybrid search only.

    ``vector_cache``: keep a copy of the vectors in ``<KB>/cache/search-vectors.bin``
    so a new process starts fast (config ``[search] vector_cache``; see
    :mod:`kb.search.vector_cache`).

    ``chunking_id``: search this stored chunking instead of the live one
    (:mod:`kb.store.chunkings`; ``kb eval run --chunker``): its vectors, and a
    full-text index of its chunks alone (:mod:`kb.search.chunking_fts`). The live
    chunking and everything stored stay as they are.

    ``ann``: when the live chunking has at least ``ann.threshold`` embedded chunks and
    an ANN index was built, the vector leg queries it instead of the exact matrix
    (:mod:`kb.search.ann_leg`; config ``[search] ann_threshold``, ``ann_nprobes``,
    ``ann_refine_factor``). The default threshold 0 never uses it.

    ``keyword_threshold``: from that many live chunks on, the keyword leg queries the
    derived LanceDB full-text index when it is current (:mod:`kb.search.keyword_lance`;
    config ``[search] keyword_index_threshold``; 0 = never). ``notify`` receives the
    one-line notice when the index is missing or stale (default: standard error), once
    per database state.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | Callable[[], Embedder],
        *,
        vector_cache: bool = True,
        chunking_id: int | None = None,
        ann: AnnOptions | None = None,
        keyword_threshold: int = 0,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.vector_cache = vector_cache
        self.chunking_id = chunking_id
        self.ann = ann or AnnOptions()
        self._ann_state: tuple[tuple[int, int], bool, bool] | None = None
        self.keyword_threshold = keyword_threshold
        self._kw_state: tuple[tuple[int, int], str] | None = None
        self._kw_table: Any = None
        self._notify = notify or notice
        self._fts_built: dict[int, tuple[int, ...]] = {}
        self._embedder: Embedder | None = None
        self._factory: Callable[[], Embedder] | None = None
        if hasattr(embedder, "embed_query") and not isinstance(embedder, type):
            self._embedder = embedder  # type: ignore[assignment]
        else:
            self._factory = embedder  # type: ignore[assignment]
        self._checked_model: str | None = None
        self._titles: tuple[tuple[object, ...], TitleIndex] | None = None
        self._titles_checked: tuple[int, int] | None = None  # sqlite_state when last checked
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
        search (including a cache reload), ``keyword`` the keyword leg (on its worker
        thread, with the vector lookup of its candidates past the ANN threshold, it
        overlaps ``embed`` and ``vector``, so the stages add up to more than
        ``total``), ``fuse`` fusion, score
        filtering and loading the hit rows, ``rerank`` the sentence rerank (loading
        the sentence vectors), ``total`` all of it. A first-use model
        load is not counted: it is a one-off cost of the process, not of the search.
        """
        self._validate(query)
        if opts.mode != "keyword":
            self.embedder  # noqa: B018 - a first-use model load is not search time
        t_start = time.perf_counter()
        timings = dict.fromkeys(TIMING_KEYS, 0.0)
        per_leg = opts.k if opts.mode != "hybrid" else max(opts.candidates, opts.k)
        if opts.reranks and opts.mode == "vector":
            per_leg = max(per_leg, opts.rerank_depth)
        cands = self.candidates(query, opts, per_leg, timings)
        corrections = cands.corrections
        fixed = typos.corrected_query(query, corrections)
        if fixed != query and opts.mode == "hybrid" and not meaning_found(cands):
            # a typo explains the query best: both legs search it as meant
            cands = self.candidates(fixed, opts, per_leg, timings)
        t = time.perf_counter()
        fused = fuse(cands, opts, max(opts.k, opts.rerank_depth) if opts.reranks else None)
        timings["fuse"] = time.perf_counter() - t
        sentence: dict[int, float] = {}
        fused_score = {f.id: f.score if f.fused is None else f.fused for f in fused}
        if opts.reranks:
            t = time.perf_counter()
            fused, sentence = self.rerank(fused, cands, opts)
            timings["rerank"] = time.perf_counter() - t
        t = time.perf_counter()
        if opts.links > 0:
            fused = self.linked(query, fused, cands, opts)
        hits = self._hits(opts.mode, opts.fusion, fused[: opts.k], cands, sentence, fused_score)
        timings["fuse"] += time.perf_counter() - t
        timings["total"] = time.perf_counter() - t_start
        return SearchResult(
            query=query,
            hits=hits,
            timings=timings,
            mode=opts.mode,
            best_cosine=cands.best_cosine,
            query_vector=cands.query_vector,
            best_sentence=max(sentence.values()) if sentence else None,
            corrections=corrections,
        )

    def candidates(
        self,
        query: str,
        opts: SearchOptions,
        depth: int,
        timings: dict[str, float] | None = None,
    ) -> Candidates:
        """Both legs' candidates for ``query`` at ``depth`` chunks per leg (scope and
        mode from ``opts``); :func:`kb.search.candidates.fuse` ranks them. Stage
        timings are added to ``timings`` when given."""
        self._validate(query)
        tm = timings if timings is not None else {}
        embedder = self.embedder if opts.mode != "keyword" else None
        allowed = self._allowed(opts)
        out = Candidates(depth=depth)
        matrix: VectorMatrix | None = None
        sims: np.ndarray | None = None
        mask: np.ndarray | None = None
        keyword_leg: Future[_KeywordLeg] | None = None
        use_ann = embedder is not None and self.uses_ann()  # one SQLite state read per leg
        faiss_ann = use_ann and self._ann_state is not None and self._ann_state[2]
        if embedder is not None and opts.mode == "hybrid" and self._index_leg_threadable():
            # The LanceDB full-text query (and, past the ANN threshold, the lookup of its
            # candidates' vectors) runs in native code without the GIL: on a worker
            # thread it overlaps the query embedding and the vector leg instead of
            # following them. The connection allows use from other threads.
            lance_ann = use_ann and not faiss_ann
            model = self.store.embedding_model() if lance_ann else None
            keyword_leg = _keyword_pool().submit(
                _index_keyword_leg,
                self.store,
                query,
                depth,
                allowed,
                self._kw_table,
                None if model is None else model.model_id,
            )
        if embedder is not None:
            t = time.perf_counter()
            qvec = embedder.embed_query(query)
            out.query_vector = qvec
            tm["embed"] = time.perf_counter() - t
            t = time.perf_counter()
            if use_ann:
                a = self.ann
                out.vector = ann_top(
                    self.store, qvec, depth, allowed, a.nprobes, a.refine_factor, a.ef
                )
            else:
                matrix = get_matrix(self.store, self.vector_cache, self.chunking_id)
                sims = matrix.similarities(qvec)
                mask = matrix.allowed_mask(allowed)
                out.vector = matrix.top(sims, depth, mask)
            if out.vector:
                out.best_cosine = out.vector[0][1]
            tm["vector"] = time.perf_counter() - t

        prefetched: dict[int, np.ndarray] | None = None
        if opts.mode in ("keyword", "hybrid"):
            out.query_terms = len(query_terms(query))
        if keyword_leg is not None:
            leg = keyword_leg.result()
            out.keyword, tm["keyword"], prefetched = leg.hits, leg.seconds, leg.vectors
            out.corrections.update(leg.corrections)
        elif opts.mode in ("keyword", "hybrid"):
            t = time.perf_counter()
            if self.uses_keyword_index():
                if self._kw_table is None:
                    self._kw_table = keyword_index.table(self.store)
                out.keyword = index_keyword_search(
                    self.store, query, depth, allowed, self._kw_table, out.corrections
                )
            else:
                fts = fts_for(self.store.conn, self.chunking_id, self._fts_built)
                out.keyword = keyword_search(
                    self.store.conn, query, depth, allowed, fts, out.corrections
                )
            tm["keyword"] = time.perf_counter() - t
        if opts.mode in ("keyword", "hybrid") and asks_tasks(query):
            t = time.perf_counter()
            tasks = task_chunks(self.store.conn, query, self.chunking_id, allowed)
            out.tasks = set(tasks)
            out.keyword = with_tasks(out.keyword, tasks, depth)
            tm["keyword"] = tm.get("keyword", 0.0) + time.perf_counter() - t
            prefetched = None  # the index leg fetched the vectors of its own hits only

        if matrix is not None and sims is not None:
            t = time.perf_counter()
            for r, (i, s) in enumerate(out.vector, start=1):
                out.cosine[i] = s
                out.vector_rank[i] = r
            rest = np.array([i for i, _ in out.keyword if i not in out.cosine], dtype=np.int64)
            if rest.size:
                rows = matrix.rows_for(rest)
                known = rows >= 0
                ranks = true_ranks(sims, rows[known], mask)
                for i, r, rank in zip(rest[known], rows[known], ranks, strict=True):
                    out.cosine[int(i)] = float(sims[r])
                    out.vector_rank[int(i)] = int(rank)
            tm["vector"] = tm.get("vector", 0.0) + time.perf_counter() - t
        elif embedder is not None:
            t = time.perf_counter()
            if prefetched is None and faiss_ann:
                ranked = dict(out.vector)
                outside = [i for i, _ in out.keyword if i not in ranked]
                prefetched = faiss_vectors_of(self.store, outside)
            keyword_cosines(self.store, out, qvec, prefetched)
            tm["vector"] = tm.get("vector", 0.0) + time.perf_counter() - t
        return out

    def rerank(
        self, fused: list[Fused], cands: Candidates, opts: SearchOptions
    ) -> tuple[list[Fused], dict[int, float]]:
        """The sentence rerank of ``fused`` (:mod:`kb.search.rerank`); returns the new
        order and each re-scored chunk's ``s`` (empty, order kept, when skipped)."""
        top = [f.id for f in fused[: opts.rerank_depth]]
        if len(top) < 2:
            return fused, {}
        s = self.sentence_scores(cands, top)
        if s is None:
            return fused, {}
        return reranked(fused, s, opts, cands), s

    def sentence_scores(self, cands: Candidates, chunk_ids: list[int]) -> dict[int, float] | None:
        """Each chunk's best sentence cosine to the query of ``cands``
        (:func:`kb.search.rerank.sentence_scores`); ``None``: skip the rerank."""
        if cands.query_vector is None:
            return None
        embedder = self.embedder
        return sentence_scores(
            self.store, embedder.model_id, chunk_ids, cands.query_vector, embedder.embed_batch
        )

    def linked(
        self, query: str, fused: list[Fused], cands: Candidates, opts: SearchOptions
    ) -> list[Fused]:
        """``fused`` with the documents the query or its best hit names by title placed
        at rank 3 (:func:`kb.search.links.linked`). A named document none of whose
        chunks is ranked gets its chunk closest to the query, from the exact vector
        matrix; past the ANN threshold (no matrix in memory) only ranked chunks move."""
        if not fused or cands.query_vector is None:
            return fused
        index = self._title_index()
        if not index.keys:
            return fused
        head = fused[: max(opts.k, opts.rerank_depth)]
        rows = chunk_documents(self.store.conn, [f.id for f in head])
        doc_of = {i: d for i, (d, _) in rows.items()}
        best = rows.get(head[0].id)
        named = [(d, 0) for d in index.named(query)]
        if best is not None:
            named += [(d, 1) for d in index.named(best[1]) if d != best[0]]
        if not named:
            return fused
        allowed = self._allowed(opts)
        named = [(d, w) for d, w in named if allowed is None or d in allowed]
        qvec = np.asarray(cands.query_vector, dtype=np.float32).ravel()

        def closest(doc: int) -> int | None:
            ids = np.array(document_chunks(self.store.conn, doc, self.chunking_id), np.int64)
            matrix = get_matrix(self.store, self.vector_cache, self.chunking_id)
            rows_ = matrix.rows_for(ids)
            known = rows_ >= 0
            if not known.any():
                return None
            sims = matrix.vectors[rows_[known]] @ qvec
            at = int(np.argmax(sims))
            chunk = int(ids[known][at])
            cands.cosine.setdefault(chunk, float(sims[at]))
            return chunk

        def unranked(doc: int) -> int | None:  # past the ANN threshold: no matrix in memory
            return None

        pick = unranked if self.uses_ann() else closest
        return [*linked(head, named, doc_of, pick, opts.links), *fused[len(head) :]]

    def _title_index(self) -> TitleIndex:
        """The documents' titles (:func:`kb.search.links.load_titles`), read again only
        after the documents changed (:func:`kb.search.links.titles_state`, itself read
        only after some commit: an eval run storing its rows between two searches
        costs a scan of the documents, not a reload of the titles)."""
        conn = self.store.conn
        written = sqlite_state(conn)  # cheap; any commit moves it
        if self._titles is not None and self._titles_checked == written:
            return self._titles[1]
        state = titles_state(conn, self.chunking_id)  # a scan of the documents
        if self._titles is None or self._titles[0] != state:
            self._titles = (state, load_titles(conn, self.chunking_id))
        self._titles_checked = written
        return self._titles[1]

    def uses_ann(self) -> bool:
        """Whether the vector leg queries the ANN index (re-decided after any commit)."""
        if self.chunking_id is not None or self.ann.threshold <= 0:
            return False
        state = sqlite_state(self.store.conn)
        if self._ann_state is None or self._ann_state[0] != state:
            # an ingest (maybe by another process) commits SQLite after its vectors:
            # search the vectors and index it wrote, not the version opened earlier
            self.store.vectors_raw.refresh()
            use = ann_in_use(self.store, self.ann.threshold)
            rec = ann_recorded(self.store) if use else None
            self._ann_state = (state, use, rec is not None and rec.get("type") == FAISS_TYPE)
        return self._ann_state[1]

    def _faiss_ann(self) -> bool:
        """Whether the ANN index in use is kb's faiss file (:mod:`kb.search.faiss_leg`),
        whose keyword candidates' vectors come from the vector cache file."""
        return self.uses_ann() and self._ann_state is not None and self._ann_state[2]

    def uses_keyword_index(self) -> bool:
        """Whether the keyword leg queries the LanceDB full-text index (re-decided after
        any commit; a stale index is reported once per state and not used)."""
        if self.chunking_id is not None or self.keyword_threshold <= 0:
            return False
        state = sqlite_state(self.store.conn)
        if self._kw_state is None or self._kw_state[0] != state:
            kw = keyword_index_state(self.store, self.keyword_threshold)
            self._kw_state = (state, kw)
            self._kw_table = None  # reopened: a rebuild makes a new table
            if kw == "stale":
                self._notify(STALE_NOTICE)
        return self._kw_state[1] == "index"

    def _index_leg_threadable(self) -> bool:
        """Whether the keyword leg queries the LanceDB index (opened here, on the
        calling thread), so that it can run beside the vector leg."""
        if not self.uses_keyword_index():
            return False
        if self._kw_table is None:
            self._kw_table = keyword_index.table(self.store)
        return self._kw_table is not None

    def _validate(self, query: str) -> None:
        if not query or not query.strip():
            raise UsageError("empty query; pass the words or question to search for")
        if self.chunking_id is None:
            sql, params = "SELECT 1 FROM live_chunks LIMIT 1", []
        else:
            sql = "SELECT 1 FROM chunks WHERE chunking_id = ? LIMIT 1"
            params = [self.chunking_id]
        if self.store.conn.execute(sql, params).fetchone() is None:
            raise EmptyStoreError(
                f"the KB at {self.store.home} has no chunks; run `kb ingest PATH` first"
            )

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

    def _hits(
        self,
        mode: str,
        fusion: str,
        fused: list[Fused],
        c: Candidates,
        sentence: dict[int, float] | None = None,
        fused_score: dict[int, float] | None = None,
    ) -> list[Hit]:
        """Fused entries as :class:`Hit` rows (see the module docs for the fields);
        ``sentence``: the rerank's ``s``, ``fused_score``: the scores before it."""
        kw_score = dict(c.keyword)
        fused_score = fused_score or {}
        rows_by_id = self.store.hits_for([f.id for f in fused])
        hits: list[Hit] = []
        for f in fused:
            hit = rows_by_id.get(f.id)
            if hit is None:  # deleted by a concurrent ingest since the legs ran
                continue
            hit.score = f.score
            hit.ranks = dict(f.ranks)
            scores: dict[str, float] = {}
            if f.id in c.cosine:
                scores["vector"] = c.cosine[f.id]
            if f.id in c.tasks:  # its keyword score is the leg's best, not a bm25 of its own
                scores["task"] = 1.0
            elif f.id in kw_score:
                scores["keyword"] = kw_score[f.id]
            if mode == "hybrid":
                scores[fusion] = fused_score.get(f.id, f.score)
            if sentence and f.id in sentence:
                scores["sentence"] = sentence[f.id]
            hit.scores = scores
            hits.append(hit)
        return hits


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
#: keyword legs that can run at once (searches of a server's concurrent requests)
KEYWORD_WORKERS = 4


def _keyword_pool() -> ThreadPoolExecutor:
    """The worker threads for keyword legs, started on first use."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(KEYWORD_WORKERS, thread_name_prefix="kb-keyword")
        return _POOL


@dataclass
class _KeywordLeg:
    """The keyword leg's hits and seconds, and (``vectors``, past the ANN threshold)
    the stored vector of each hit, by chunk id, for its exact cosine."""

    hits: list[tuple[int, float]]
    seconds: float
    vectors: dict[int, np.ndarray] | None
    #: words no chunk holds -> the spellings searched instead (:mod:`kb.search.typos`)
    corrections: dict[str, list[str]] = field(default_factory=dict)


def _index_keyword_leg(
    store: Store,
    query: str,
    depth: int,
    allowed: set[int] | None,
    table: Any,
    model: str | None,
) -> _KeywordLeg:
    """The keyword leg through the LanceDB index, run on the worker thread; with
    ``model``, also the vectors of its hits (:func:`kb.search.ann_leg.keyword_vectors`)."""
    t = time.perf_counter()
    fixed: dict[str, list[str]] = {}
    hits = index_keyword_search(store, query, depth, allowed, table, fixed)
    vectors = None if model is None else keyword_vectors(store, model, [i for i, _ in hits])
    return _KeywordLeg(hits, time.perf_counter() - t, vectors, fixed)
