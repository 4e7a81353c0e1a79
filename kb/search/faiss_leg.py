"""The vector leg through kb's faiss index (``[search] ann_index = "faiss_ivf_sq8"``,
:mod:`kb.store.ann_faiss`), chosen by :func:`kb.search.ann_leg.ann_top`.

Per process and KB folder the index file is loaded once (about 400 MB at a million
384-d chunks) and read again only when a rebuild replaced it. Per query:

1. **stale or not**: on the first search after any SQLite commit, the live chunking's
   fingerprint is compared with the one the file was built for. When they differ, the
   difference is found (one read of the embedded chunk ids): chunks embedded since the
   build are searched **exactly** beside the index, chunks removed since are dropped from
   what it returns. So a chunk added after the build is never missed and a removed one
   never returned. A difference of more than :data:`MAX_DELTA` chunks (an ingest that
   did not finish its upkeep) is not patched over: the search is exact over the whole
   matrix, with a one-line notice naming ``kb reindex --ann`` / ``kb doctor --repair``;
2. the index returns the nearest ``fetch`` chunk ids by their 8-bit codes
   (``nprobe = [search] ann_nprobes`` lists); with a scope (``--path``/``--type``/
   ``--tag``) those outside it are dropped and, while fewer than ``depth`` remain,
   ``fetch`` grows four-fold and ``nprobe`` two-fold (as far as :data:`MAX_FETCH` and
   every list). A scope of at most :data:`kb.search.ann_leg.EXACT_SCOPE` chunks never
   gets here: :mod:`kb.search.ann_leg` ranks it exactly;
3. every chunk found is **re-scored exactly** with its float32 vector: from the vector
   cache file (``<KB>/cache/search-vectors.bin``, the rows read one by one with
   ``pread``: a memory map would page the readahead around each row into the process,
   tens of MB per query; :class:`kb.search.vector_cache.RowReader`) when it is current,
   else looked up in the embedding cache. So every cosine shown is exact and ties break
   by chunk id, as in the exact leg; only the *set* found is approximate (recall@10:
   ``bench/search.py --ann``).

The keyword candidates' cosines come from the same exact vectors (:func:`vectors_of`).
faiss is imported on first use.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kb.search.sql_state import sqlite_state

MAX_FETCH = 16_384
#: chunks added or removed since the build that a search patches over (exactly)
MAX_DELTA = 20_000

STALE_NOTICE = (
    "kb: note: the ANN index is out of date ({n} chunks changed since it was built); "
    "searching exactly until `kb reindex --ann` or `kb doctor --repair` rebuilds it"
)


@dataclass
class _Delta:
    """What changed since the file was built, for one fingerprint."""

    fingerprint: list[Any]
    removed: np.ndarray  # chunk ids in the file no longer embedded (ascending)
    ids: np.ndarray  # chunk ids embedded since (ascending)
    docs: np.ndarray
    vectors: np.ndarray  # float32[len(ids), dim]
    exact: Any = None  # rows of the current vector cache file (RowReader), if any
    usable: bool = True
    changed: int = 0


@dataclass
class _View:
    """The loaded file and its delta; ``checked``: per Store, the SQLite state it was
    last compared at."""

    stat: tuple[int, int, int]
    header: dict[str, Any]
    ids: np.ndarray
    docs: np.ndarray
    index: Any
    delta: _Delta | None = None
    checked: weakref.WeakKeyDictionary[Any, tuple[int, int]] = field(
        default_factory=weakref.WeakKeyDictionary
    )


_VIEWS: dict[str, _View] = {}
_LOCK = threading.Lock()
_NOTED: set[tuple[str, int]] = set()


def _stat(p: Path) -> tuple[int, int, int] | None:
    try:
        st = p.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def current(store: Any) -> tuple[_View, _Delta] | None:
    """The index of ``store`` with its delta for the SQLite state now; ``None`` when
    there is no readable file."""
    from kb.store import ann_faiss

    conn: sqlite3.Connection = store.conn
    key = str(Path(store.home).resolve())
    with _LOCK:
        state = sqlite_state(conn)
        v = _VIEWS.get(key)
        if v is not None and v.delta is not None and v.checked.get(store) == state:
            return v, v.delta
        st = _stat(ann_faiss.path(store.home))
        if st is None:
            _VIEWS.pop(key, None)
            return None
        if v is None or v.stat != st:
            try:
                header, ids, docs, index = ann_faiss.load(ann_faiss.path(store.home))
            except (OSError, ValueError):
                _VIEWS.pop(key, None)
                return None
            v = _VIEWS[key] = _View(st, header, ids, docs, index)
        fp = ann_faiss.fingerprint(conn)
        if v.delta is None or v.delta.fingerprint != fp:
            v.delta = _delta(store, v, fp)
        v.checked[store] = state
        return v, v.delta


def _delta(store: Any, v: _View, fp: list[Any]) -> _Delta:
    from kb.search.vector_cache import cache_path, open_rows
    from kb.store import ann_faiss

    exact = open_rows(cache_path(store.home), tuple(fp))
    dim = int(v.header.get("dim", 0))
    empty = np.zeros(0, dtype=np.int64)
    model = store.embedding_model()
    if model is None or model.model_id != v.header.get("model"):
        return _Delta(fp, empty, empty, empty, np.zeros((0, dim), np.float32), usable=False)
    if v.header.get("fingerprint") == fp:
        return _Delta(fp, empty, empty, empty, np.zeros((0, dim), np.float32), exact)
    fp, rows = ann_faiss.live_rows(store.conn)
    now = np.array([(i, d) for i, d, _ in rows], dtype=np.int64).reshape(-1, 2)
    removed = np.setdiff1d(v.ids, now[:, 0], assume_unique=True)
    new = ~np.isin(now[:, 0], v.ids, assume_unique=True)
    changed = int(removed.size + new.sum())
    if changed > MAX_DELTA:
        return _Delta(
            fp, removed, empty, empty, np.zeros((0, dim), np.float32), exact, False, changed
        )
    new_ids, new_docs = now[new, 0], now[new, 1]
    hashes = [sha for (_, _, sha), m in zip(rows, new.tolist(), strict=True) if m]
    found = _exact_vectors(store, exact, new_ids, hashes)
    keep = np.array([int(i) in found for i in new_ids], dtype=bool)
    vecs = np.array([found[int(i)] for i in new_ids[keep]], dtype=np.float32).reshape(-1, dim)
    return _Delta(fp, removed, new_ids[keep], new_docs[keep], vecs, exact, True, changed)


def _exact_vectors(
    store: Any, exact: Any, chunk_ids: np.ndarray, hashes: list[str] | None = None
) -> dict[int, np.ndarray]:
    """The float32 vector of each chunk id that has one: rows of the memory-mapped
    vector cache when current, else the embedding cache looked up by text hash."""
    out: dict[int, np.ndarray] = {}
    ids = np.asarray(chunk_ids, dtype=np.int64)
    if exact is not None and len(exact):
        known, vecs = exact.vectors(ids)
        out.update(zip(known.tolist(), vecs, strict=True))
        ids = ids[~np.isin(ids, known)] if known.size < ids.size else ids[:0]
        hashes = None
    if ids.size:
        from kb.search.ann_leg import hashes_of
        from kb.store import ann

        model = store.embedding_model()
        if model is None:
            return out
        if hashes is None or len(hashes) != ids.size:
            sha = hashes_of(store.conn, ids.tolist())
        else:
            sha = dict(zip(ids.tolist(), hashes, strict=True))
        by_hash = ann.vectors_of(store.vectors, model.model_id, sorted(set(sha.values())))
        out.update((i, by_hash[h]) for i, h in sha.items() if h in by_hash)
    return out


def vectors_of(store: Any, chunk_ids: list[int]) -> dict[int, np.ndarray] | None:
    """Exact vectors of the given chunks (keyword candidates), or ``None`` when there is
    no usable index (the caller looks them up in the embedding cache itself)."""
    got = current(store)
    if got is None or not got[1].usable:
        return None
    return _exact_vectors(store, got[1].exact, np.array(chunk_ids, dtype=np.int64))


_ALLOWED: dict[int, tuple[set[int], np.ndarray]] = {}


def _allowed_array(allowed: set[int]) -> np.ndarray:
    """``allowed`` as a sorted array, remembered for the same set object (the Retriever
    reuses it while the database is unchanged)."""
    hit = _ALLOWED.get(id(allowed))
    if hit is not None and hit[0] is allowed:
        return hit[1]
    arr = np.sort(np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
    if len(_ALLOWED) >= 32:
        _ALLOWED.clear()
    _ALLOWED[id(allowed)] = (allowed, arr)
    return arr


def top(
    store: Any,
    q: np.ndarray,
    depth: int,
    allowed: set[int] | None,
    nprobe: int,
    fetch: int,
) -> list[tuple[int, float]] | None:
    """The ``depth`` best ``(chunk_id, exact cosine)`` in the scope (module docs);
    ``None`` when the index cannot be used (no file, another model, too stale): the
    caller searches exactly. ``q`` is L2-normalised; ``fetch``: how many to ask the
    index for first (the caller sized it for the scope's share)."""
    import faiss

    fx: Any = faiss  # its stubs miss SearchParametersIVF's keywords
    got = current(store)
    if got is None:
        return None
    v, d = got
    if not d.usable:
        _note_stale(store, d.changed)
        return None
    if q.shape[0] != int(v.header.get("dim", -1)):
        return None
    scope = None if allowed is None else _allowed_array(allowed)
    nlist = int(v.header.get("nlist", 1))
    nprobe = max(1, min(nprobe, nlist))
    fetch = min(MAX_FETCH, fetch + min(int(d.removed.size), depth))
    q2 = np.ascontiguousarray(q.reshape(1, -1), dtype=np.float32)
    while True:
        _, labels = _search(fx, v.index, q2, fetch, nprobe)
        found = labels[0][labels[0] >= 0]
        ids = found
        if d.removed.size:
            ids = ids[~np.isin(ids, d.removed)]
        if scope is not None and ids.size:
            rows = np.minimum(np.searchsorted(v.ids, ids), len(v.ids) - 1)
            ids = ids[np.isin(v.docs[rows], scope)]
        done = found.size < fetch and nprobe >= nlist
        if ids.size >= depth or done or fetch >= MAX_FETCH:
            break
        fetch, nprobe = min(fetch * 4, MAX_FETCH), min(nprobe * 2, nlist)
    vecs = _exact_vectors(store, d.exact, ids)
    pairs: list[tuple[int, float]] = []
    if vecs:  # the exact leg's arithmetic (einsum, float32): the same cosines
        sims = np.einsum("ij,j->i", np.stack(list(vecs.values())), q)
        pairs = list(zip(vecs.keys(), sims.tolist(), strict=True))
    if d.ids.size:  # chunks embedded since the build: exactly
        keep = np.ones(d.ids.size, bool) if scope is None else np.isin(d.docs, scope)
        sims = np.einsum("ij,j->i", d.vectors[keep], q)
        pairs += list(zip(d.ids[keep].tolist(), sims.tolist(), strict=True))
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs[:depth]


def _search(fx: Any, index: Any, q2: np.ndarray, fetch: int, nprobe: int) -> Any:
    """One index query on this thread alone: one query's lists are too few to share,
    and on a busy 2-core machine waking (and spinning) OpenMP threads cost more than
    they save (measured: vector leg p50 8.0 -> 5.2 ms at load 8). OpenMP's thread
    count is per calling thread, so it is put back for whatever runs here next."""
    threads = fx.omp_get_max_threads()
    fx.omp_set_num_threads(1)
    try:
        return index.search(q2, fetch, params=fx.SearchParametersIVF(nprobe=nprobe))
    finally:
        fx.omp_set_num_threads(threads)


def _note_stale(store: Any, changed: int) -> None:
    key = (str(store.home), changed)
    if key in _NOTED:
        return
    _NOTED.add(key)
    from kb.errors import notice

    notice(STALE_NOTICE.format(n=changed))


def clear() -> None:
    """Forget every loaded index (tests)."""
    with _LOCK:
        _VIEWS.clear()
        _ALLOWED.clear()
