"""kb's own ANN index: a faiss IVF index of 8-bit scalar-quantised vectors (``[search]
ann_index = "faiss_ivf_sq8"``), derived from SQLite and the embedding cache like the
LanceDB indexes of :mod:`kb.store.ann`, kept in one file, ``<KB>/cache/ann-faiss.bin``.

Why a second library: at a million chunks LanceDB's IVF_PQ query takes ~24 ms and
IVF_HNSW_SQ ~5 ms, while faiss ``IVF,SQ8`` answers in 1-3 ms and builds in 80 s on 2
cores (``bench/search.py --ann``; IVF_PQ took 490 s on the same store). kb re-scores
what it finds with the exact vectors (:mod:`kb.search.faiss_leg`), so the cosines
shown stay exact and only the *set* found is approximate.

What it holds: the **live chunking's embedded chunks**, labelled by chunk id (two
chunks of one text are two rows), ``nlist = min(round(sqrt(n)), n // 39, 4096)`` (at
least 1) inverted lists trained by k-means on at most :data:`TRAIN_PER_LIST` vectors
per list, inner-product metric (vectors are L2-normalised: a dot product is the
cosine).

The file: :data:`_MAGIC`, a JSON header (``fingerprint`` of the SQLite side, as
:func:`fingerprint`; ``rows``, ``trained_rows``, ``dim``, ``nlist``, ``model``,
``built_at``), the chunk ids (int64, ascending), their document ids (same order), then
the faiss index. It is written under a temporary name and renamed over the old one
(``os.replace``), so a reader opens the old file or the new, never half of one.

Kept fit by :func:`maintain` (after every ingest, through :func:`kb.store.ann.maintain`):
chunks embedded or removed since the file was written are added to or removed from the
index with its trained lists (faiss IVF supports both), and the file is rewritten; it is
retrained from scratch when it would hold more than twice the rows it was trained on.
A search never trusts a stale file: it compares the fingerprint and searches the
difference exactly (:mod:`kb.search.faiss_leg`). ``kb doctor`` reports a stale or
missing file (``ann_index_stale``) and ``--repair`` rebuilds it.

faiss and numpy are imported inside functions: ``kb status`` reads the header without them.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from kb.progress import step
from kb.store import embedded

KIND = "faiss_ivf_sq8"
TYPE = "FAISS_IVF_SQ8"
FILE = Path("cache") / "ann-faiss.bin"
MIN_ROWS = 256
MAX_LISTS = 4096
#: k-means sees at most this many vectors per inverted list (faiss' advice: 39-256)
TRAIN_PER_LIST = 64
#: vectors added to the index in one call while it is built (progress moves between them)
ADD_RUN = 65536
_MAGIC = b"KBANNF01"


def _faiss(module: Any) -> Any:
    """faiss untyped (its stubs miss the Python-side helpers it has)."""
    return module


def path(home: Path) -> Path:
    return Path(home) / FILE


def fingerprint(conn: sqlite3.Connection) -> list[Any]:
    """The fingerprint of the live chunking's embedded chunks
    (:func:`kb.store.embedded.fingerprint`, the one the search's vector matrix is keyed
    on) as a list, the form the file's JSON header keeps it in."""
    return list(embedded.fingerprint(conn))


def live_rows(conn: sqlite3.Connection) -> tuple[list[Any], list[tuple[int, int, str]]]:
    """Fingerprint and ``(chunk id, document id, text hash)`` of the live chunking's
    embedded chunks in id order, read in one snapshot (:func:`kb.store.embedded.
    embedded_rows`)."""
    fp, rows = embedded.embedded_rows(conn)
    return list(fp), [(int(i), int(d), str(s)) for i, d, s in rows]


def read_header(p: Path) -> dict[str, Any] | None:
    """The file's header (``None``: no file, or not one of ours)."""
    try:
        with p.open("rb") as f:
            return _header(f)
    except (OSError, ValueError):
        return None


def _header(f: Any) -> dict[str, Any]:
    if f.read(len(_MAGIC)) != _MAGIC:
        raise ValueError("not a kb ANN index file")
    size = int.from_bytes(f.read(4), "little")
    header = json.loads(f.read(size))
    if not isinstance(header, dict):
        raise ValueError("bad header")
    return header


def load(p: Path) -> tuple[dict[str, Any], Any, Any, Any]:
    """``(header, chunk ids, document ids, faiss index)`` from the file; raises
    ``OSError``/``ValueError`` when it is missing or damaged. The index is read in
    pieces (no second copy of it in memory)."""
    import faiss
    import numpy as np

    with p.open("rb") as f:
        header = _header(f)
        n = int(header["rows"])
        ids = np.fromfile(f, dtype="<i8", count=n)
        docs = np.fromfile(f, dtype="<i8", count=n)
        if len(ids) != n or len(docs) != n:
            raise ValueError("truncated kb ANN index file")
        try:
            index = faiss.read_index(_faiss(faiss).PyCallbackIOReader(f.read))
        except RuntimeError as e:  # faiss reports a short or bad file this way
            raise ValueError(f"damaged kb ANN index file: {e}") from e
    if index.ntotal != n:
        raise ValueError("kb ANN index file: row counts disagree")
    return header, ids, docs, index


def _write(p: Path, header: dict[str, Any], ids: Any, docs: Any, index: Any) -> None:
    """Write atomically: a temporary file in the same folder, then ``os.replace``."""
    import faiss
    import numpy as np

    raw = json.dumps(header).encode()
    tmp = p.with_name(f"{p.name}.tmp{os.getpid()}")
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        with tmp.open("wb") as f:
            f.write(_MAGIC + len(raw).to_bytes(4, "little") + raw)
            f.write(np.ascontiguousarray(ids, dtype="<i8").tobytes())
            f.write(np.ascontiguousarray(docs, dtype="<i8").tobytes())
            writer = _faiss(faiss).PyCallbackIOWriter(f.write)
            faiss.write_index(index, writer)
            del writer
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def n_lists(rows: int) -> int:
    """Inverted lists for ``rows`` vectors: about ``sqrt(rows)``, at least 39 training
    vectors each (fewer makes faiss' k-means complain), at most :data:`MAX_LISTS`."""
    return max(1, min(round(math.sqrt(rows)), rows // 39, MAX_LISTS))


def _vectors_for(store: Any, model: str, rows: list[tuple[int, int, str]]) -> tuple[Any, Any]:
    """``(row mask, float32 vectors)`` of ``rows`` from the embedding cache (rows whose
    text has no stored vector are masked out)."""
    import numpy as np

    keys, mat = store.vectors.load(model)
    row_of = {k: i for i, k in enumerate(keys)}
    at = np.array([row_of.get(sha, -1) for _, _, sha in rows], dtype=np.int64)
    keep = at >= 0
    return keep, np.ascontiguousarray(mat[at[keep]], dtype=np.float32)


def build(store: Any) -> dict[str, Any] | None:
    """(Re)build the file from every embedded chunk of the live chunking; returns its
    header, or ``None`` (and removes any old file) when there are fewer than
    :data:`MIN_ROWS` vectors."""
    import faiss
    import numpy as np

    model = store.embedding_model()
    fp, rows = live_rows(store.conn)
    p = path(store.home)
    if model is None or len(rows) < MIN_ROWS:
        p.unlink(missing_ok=True)
        return None
    with step("reading the stored vectors", len(rows), "vectors") as reading:
        keep, vecs = _vectors_for(store, model.model_id, rows)
        reading.reach(len(rows))
    arr = np.array([(i, d) for i, d, _ in rows], dtype=np.int64).reshape(-1, 2)[keep]
    n, dim = vecs.shape
    if n < MIN_ROWS:
        p.unlink(missing_ok=True)
        return None
    nlist = n_lists(n)
    index = faiss.index_factory(dim, f"IVF{nlist},SQ8", faiss.METRIC_INNER_PRODUCT)
    every = max(1, n // (nlist * TRAIN_PER_LIST))
    with step(f"training the vector index ({nlist} lists)"):
        index.train(vecs[::every])
    with step("adding vectors to the vector index", n, "vectors") as adding:
        for at in range(0, n, ADD_RUN):
            index.add_with_ids(vecs[at : at + ADD_RUN], arr[at : at + ADD_RUN, 0])
            adding.advance(min(ADD_RUN, n - at))
    header = {
        "type": TYPE,
        "fingerprint": fp,
        "rows": n,
        "trained_rows": n,
        "dim": dim,
        "nlist": nlist,
        "model": model.model_id,
        "built_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    _write(p, header, arr[:, 0], arr[:, 1], index)
    return header


def is_current(store: Any) -> bool:
    """Whether the file covers exactly the live chunking's embedded chunks now."""
    header = read_header(path(store.home))
    return header is not None and header.get("fingerprint") == fingerprint(store.conn)


def check(store: Any) -> bool:
    """Whether the whole file reads back and covers exactly the embedded live chunks
    (``kb doctor``; a search reads it the same way and falls back to exact search)."""
    try:
        header, _, _, _ = load(path(store.home))
    except (OSError, ValueError):
        return False
    return header.get("fingerprint") == fingerprint(store.conn)


def update(store: Any) -> tuple[int, int] | None:
    """Bring the file up to date without retraining: add the chunks embedded since it
    was written, remove those no longer embedded. Returns ``(added, removed)``, or
    ``None`` when it must be rebuilt instead (no readable file, another model or
    dimension, or more than twice the rows it was trained on)."""
    with step("updating the vector index"):
        return _update(store)


def _update(store: Any) -> tuple[int, int] | None:
    """:func:`update`'s work."""
    import faiss
    import numpy as np

    p = path(store.home)
    try:
        header, ids, docs, index = load(p)
    except (OSError, ValueError):
        return None
    model = store.embedding_model()
    fp, rows = live_rows(store.conn)
    if model is None or header.get("model") != model.model_id:
        return None
    if header.get("fingerprint") == fp:
        return 0, 0
    if len(rows) > 2 * int(header.get("trained_rows", 0)):
        return None
    now = np.array([(i, d) for i, d, _ in rows], dtype=np.int64).reshape(-1, 2)
    gone = np.setdiff1d(ids, now[:, 0], assume_unique=True)
    new_mask = ~np.isin(now[:, 0], ids, assume_unique=True)
    new_rows = [r for r, m in zip(rows, new_mask.tolist(), strict=True) if m]
    if gone.size:
        index.remove_ids(faiss.IDSelectorBatch(gone))
    added = 0
    if new_rows:
        keep, vecs = _vectors_for(store, model.model_id, new_rows)
        if vecs.shape[1] != int(header["dim"]):
            return None
        new_ids = now[new_mask][keep]
        index.add_with_ids(vecs, new_ids[:, 0])
        added = len(new_ids)
    # the rows a search may return, in id order (a text without a vector is left out)
    kept = ~np.isin(ids, gone, assume_unique=True)
    new_part = now[new_mask][keep] if added else now[:0]
    pairs = np.concatenate([np.stack([ids[kept], docs[kept]], axis=1), new_part])
    pairs = pairs[np.argsort(pairs[:, 0], kind="stable")]
    all_ids, all_docs = pairs[:, 0], pairs[:, 1]
    header = {**header, "fingerprint": fp, "rows": len(all_ids)}
    _write(p, header, all_ids, all_docs, index)
    return added, int(gone.size)


def maintain(store: Any) -> str | None:
    """Keep the file fit after an ingest (the caller decided that the KB is past the
    threshold and that this kind is configured); a one-line note of what was done."""
    header = read_header(path(store.home))
    if header is not None and header.get("fingerprint") == fingerprint(store.conn):
        return None
    done = update(store) if header is not None else None
    if done is None:
        built = build(store)
        return None if built is None else f"built the ANN index ({built['rows']} vectors)"
    added, removed = done
    parts = [f"added {added} vectors to"] if added else []
    parts += [f"removed {removed} vectors from"] if removed else []
    return f"{' and '.join(parts)} the ANN index" if parts else None
