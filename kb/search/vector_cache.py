"""Loading and caching the vector matrix of a KB.

SQLite is the truth, LanceDB is derived: the matrix holds the LanceDB vectors of the
chunks SQLite marks ``embedded`` (a vector of a deleted or still-pending chunk is
never searched).

A matrix belongs to one chunking (default: the live one; :mod:`kb.store.chunkings`)
and holds the vectors of its embedded chunks, looked up in the embedding cache by
text hash. Identity of a matrix: the **fingerprint** of the SQLite side, ``(count,
max(id), sum(id), sum(id·2654435761 mod 4294967311), embedding model record,
chunking id)`` over the chunking's embedded chunks (:mod:`kb.store.embedded`, shared
with the faiss ANN file), plus the LanceDB table **version**. Vectors are a function
of (chunk text, model), chunk ids are never reused for other text (AUTOINCREMENT),
and writers add vectors *before* marking chunks ``embedded``, so a change that
matters always changes the fingerprint; the LanceDB version is a second check.

Three levels, cheapest first:

1. **in memory**, per KB folder per process (``kb eval`` and other long-lived users
   share it across queries and Retriever instances). Reused without any query while
   SQLite reports no change (``PRAGMA data_version`` for other connections' commits,
   ``total_changes`` for this one's) and the LanceDB version was checked less than
   :data:`LANCE_RECHECK_S` ago; otherwise the fingerprint and/or version are compared.
2. **on disk**, ``<KB>/cache/search-vectors.bin`` (one file, replaced atomically):
   a new process (each ``kb search``) maps it instead of reading LanceDB, when its
   recorded fingerprint equals the current one. This skips importing lancedb (~1.5 s)
   and decoding the table (~1 s at 100k chunks). The LanceDB version it recorded is
   compared on the next query that reaches the recheck interval.
3. **LanceDB**, the model's vectors read whole (``VectorIndex.load``); the result is then written to
   level 2 (best effort: a read-only KB folder skips it with one note,
   :func:`note_unwritable`). ``kb ingest`` and the other commands that change the
   vectors write level 2 themselves (:func:`get_matrix` at their end), so a KB mounted
   read-only straight after an ingest starts as fast as a writable one.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from kb.progress import step
from kb.search.matrix import VectorMatrix
from kb.search.sql_state import live_chunking, sqlite_state
from kb.store.embedded import embedded_rows, fingerprint

LANCE_RECHECK_S = 1.0
CACHE_FILE = Path("cache") / "search-vectors.bin"
_MAGIC = b"KBVEC001"
_ALIGN = 64

_CACHE: dict[str, VectorMatrix] = {}
_LOCK = threading.Lock()


def load_from_lance(
    store: Any, lance_version: int | None, chunking_id: int | None = None
) -> VectorMatrix:
    """The matrix of one chunking: its embedded chunks joined with the cache by text
    hash (a chunk whose vector is missing is left out; two chunks of the same text
    share the vector, copied into both rows)."""
    fp, emb = embedded_rows(store.conn, chunking_id)
    model = store.embedding_model()
    keys, mat = ([], None) if model is None or not emb else store.vectors.load(model.model_id)
    if not keys or mat is None:
        empty = np.zeros(0, dtype=np.int64)
        return VectorMatrix(empty, empty, np.zeros((0, 0), np.float32), lance_version, fp)
    row_of = {k: i for i, k in enumerate(keys)}
    picked = [(cid, did, row_of[sha]) for cid, did, sha in emb if sha in row_of]
    arr = np.array(picked, dtype=np.int64).reshape(-1, 3)
    vecs = np.ascontiguousarray(mat[arr[:, 2]])
    return VectorMatrix(arr[:, 0].copy(), arr[:, 1].copy(), vecs, lance_version, fp)


# -- level 2: the file ------------------------------------------------------------------
def cache_path(home: Path) -> Path:
    return Path(home) / CACHE_FILE


def write_file(path: Path, m: VectorMatrix) -> bool:
    """Write ``m`` atomically (temp file + rename); ``False`` if the folder is not writable."""
    header = json.dumps(
        {
            "n": len(m),
            "dim": m.dim,
            "fingerprint": list(m.fingerprint),
            "lance_version": m.lance_version,
        }
    ).encode()
    start = len(_MAGIC) + 4 + len(header)
    header += b" " * (-start % _ALIGN)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as f:
            f.write(_MAGIC + len(header).to_bytes(4, "little") + header)
            f.write(np.ascontiguousarray(m.ids, dtype="<i8").tobytes())
            f.write(np.ascontiguousarray(m.doc_ids, dtype="<i8").tobytes())
            np.ascontiguousarray(m.vectors, dtype="<f4").tofile(f)
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):  # on a read-only disk even unlink fails (EROFS)
            tmp.unlink()
        return False


_NOTED: set[str] = set()


def note_unwritable(path: Path) -> None:
    """Once per KB folder and process: the cache file could not be written (a read-only
    KB), so each new process reads the vectors from LanceDB instead."""
    key = str(path)
    if key in _NOTED:
        return
    _NOTED.add(key)
    from kb.errors import notice

    notice(
        f"kb: note: could not write {path} (the KB folder is not writable); searching "
        "works, with the vectors read from LanceDB at each start; `kb ingest` with write "
        "access writes the file"
    )


def _header(f: Any, path: Path, fp: tuple[Any, ...]) -> tuple[dict[str, Any], int, int, int] | None:
    """``(meta, rows, dim, offset of the ids)`` of the open cache file ``f`` at ``path``
    when it holds a non-empty matrix of fingerprint ``fp`` whose size matches its
    header, else ``None`` (may raise what reading a damaged header raises)."""
    if f.read(len(_MAGIC)) != _MAGIC:
        return None
    size = int.from_bytes(f.read(4), "little")
    meta = json.loads(f.read(size))
    if tuple(meta["fingerprint"]) != fp:
        return None
    n, dim = int(meta["n"]), int(meta["dim"])
    offset = len(_MAGIC) + 4 + size
    if n == 0 or path.stat().st_size != offset + n * 16 + n * dim * 4:
        return None
    return meta, n, dim, offset


def read_file(path: Path, fp: tuple[Any, ...]) -> VectorMatrix | None:
    """The cached matrix when ``path`` holds one for fingerprint ``fp``, else ``None``."""
    try:
        with path.open("rb") as f:
            head = _header(f, path, fp)
        if head is None:
            return None
        meta, n, dim, offset = head
        ids = np.memmap(path, dtype="<i8", mode="r", offset=offset, shape=(n,))
        docs = np.memmap(path, dtype="<i8", mode="r", offset=offset + 8 * n, shape=(n,))
        vecs = np.memmap(path, dtype="<f4", mode="r", offset=offset + 16 * n, shape=(n, dim))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    version = meta.get("lance_version")
    return VectorMatrix(ids, docs, vecs, None if version is None else int(version), fp)


class RowReader:
    """Given rows of a cache file read with ``pread``, not a memory map: a search that
    needs a few hundred scattered rows of a big file (:mod:`kb.search.faiss_leg`) would
    otherwise map the readahead around each one into the process (tens of MB per query at
    a million rows, all of it counted in its resident memory). The chunk ids are read into
    memory (8 bytes a row); :meth:`vectors` costs one system call per row."""

    def __init__(self, path: Path, ids: np.ndarray, offset: int, dim: int) -> None:
        self.path = path
        self.ids = ids
        self.dim = dim
        self._offset = offset
        self._fd = os.open(path, os.O_RDONLY)
        self._lock = threading.Lock()

    def __del__(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.close(self._fd)

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def vectors(self, chunk_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(found chunk ids, their float32 vectors)`` for the ids the file holds."""
        ids = np.asarray(chunk_ids, dtype=np.int64)
        if ids.size == 0 or len(self) == 0:
            return ids[:0], np.zeros((0, self.dim), np.float32)
        pos = np.minimum(np.searchsorted(self.ids, ids), len(self) - 1)
        found = self.ids[pos] == ids
        size = self.dim * 4
        out = np.empty((int(found.sum()), self.dim), dtype="<f4")
        with self._lock:
            for j, r in enumerate(pos[found].tolist()):
                raw = os.pread(self._fd, size, self._offset + r * size)
                if len(raw) != size:
                    raise OSError(f"{self.path}: short read")
                out[j] = np.frombuffer(raw, dtype="<f4")
        return ids[found], out.astype(np.float32, copy=False)


def open_rows(path: Path, fp: tuple[Any, ...]) -> RowReader | None:
    """A :class:`RowReader` of ``path`` when it holds the matrix of fingerprint ``fp``."""
    try:
        with path.open("rb") as f:
            head = _header(f, path, fp)
            if head is None:
                return None
            _, n, dim, offset = head
            ids = np.fromfile(f, dtype="<i8", count=n)
        return RowReader(path, ids, offset + 16 * n, dim)
    except (OSError, ValueError, KeyError, TypeError):
        return None


# -- the entry point --------------------------------------------------------------------
def get_matrix(store: Any, persist: bool = True, chunking_id: int | None = None) -> VectorMatrix:
    """The current matrix of ``store`` (a :class:`kb.store.Store`) for one chunking
    (default: the live one), reloaded when stale.

    ``persist``: use and refresh the on-disk cache file (level 2); only the live
    chunking has one.
    """
    conn: sqlite3.Connection = store.conn
    if chunking_id is not None and chunking_id != live_chunking(conn):
        persist = False
    key = f"{Path(store.home).resolve()}#{chunking_id}"
    with _LOCK:
        # read the SQLite state *before* the data: a commit landing in between shows up
        # as a change next time (a spurious recheck, never a missed change)
        state = sqlite_state(conn)
        now = time.monotonic()
        cached = _CACHE.get(key)
        if cached is not None:
            same_sqlite = cached._checked.get(store) == state
            fresh_lance = now - cached.lance_checked_at < LANCE_RECHECK_S
            if not (same_sqlite and fresh_lance):
                fp_ok = same_sqlite or fingerprint(conn, chunking_id) == cached.fingerprint
                if fp_ok and store.vectors.version() == cached.lance_version:
                    cached.lance_checked_at = now
                else:
                    cached = None
            if cached is not None:
                cached._checked[store] = state
                return cached
        elif persist:
            cached = read_file(cache_path(store.home), fingerprint(conn, chunking_id))
            if cached is not None:  # LanceDB version compared on the next recheck
                cached.lance_checked_at = now
                cached._checked[store] = state
                _CACHE[key] = cached
                return cached
        fresh = load_from_lance(store, store.vectors.version(), chunking_id)
        fresh.lance_checked_at = now
        fresh._checked[store] = state
        _CACHE[key] = fresh
        if persist and len(fresh) and not write_file(cache_path(store.home), fresh):
            note_unwritable(cache_path(store.home))
        return fresh


def write_for_readers(store: Any) -> None:
    """Bring ``<KB>/cache/search-vectors.bin`` up to date for the live chunking, as the
    last step of a command that changed the vectors (``kb ingest`` and the like): a
    reading command then never has to write it, which a read-only KB could not. Costs
    one fingerprint query when the file is current."""
    if not store.read_only:
        with step("writing the search's vector cache"):
            get_matrix(store, persist=True)


def clear_cache() -> None:
    """Forget every in-memory matrix (the files stay; tests, memory pressure)."""
    with _LOCK:
        _CACHE.clear()
