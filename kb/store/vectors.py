"""The LanceDB half of a KB: the embedding cache, one table ``embeddings`` of
``(model string, text_sha256 string, vector float32[dim])``.

A vector is a function of the embedding model and the text embedded, so it is keyed
by exactly those: the model's identity (``bundled:all-MiniLM-L6-v2``) and the SHA-256
of the text (:func:`kb.hashing.text_sha256` of :func:`kb.hashing.embed_text`), never
by chunk id. Chunks of any chunking that embed the same text share one vector; a
chunking built again after it was dropped embeds nothing while its vectors remain.

Derived data: it can always be rebuilt from SQLite (``kb reindex``). Writes insert
only keys that are absent (a key's vector never changes), so a crash between writing
vectors and marking chunks ``embedded`` in SQLite never duplicates a vector.

Before migration 5 the table was ``vectors`` of ``(chunk_id, vector)``;
:func:`kb.store.embeddings.adopt_legacy` re-keys it by text hash (no re-embedding).

Vectors are stored L2-normalised, so a dot product is the cosine similarity.
lancedb and pyarrow are imported lazily, inside methods.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from kb.store.health import disk_full_guard

TABLE = "embeddings"
LEGACY_TABLE = "vectors"
#: seconds between an open table's checks for versions written by other processes
READ_CONSISTENCY_S = 1.0

# LanceDB's Rust layer logs WARN lines to stderr (e.g. "No existing dataset ..."); users must
# never see library noise. The variables are read when lancedb is first imported.
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("LANCEDB_LOG", "error")


def _quote(value: str) -> str:
    """A SQL string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._db: Any = None
        self._table: Any = None

    def _connect(self) -> Any:
        if self._db is None:
            import lancedb

            self.folder.mkdir(parents=True, exist_ok=True)
            # Without an interval an open table never sees another process's writes:
            # a long-lived `kb serve` would search the ANN index of its start-up
            # forever, and read files a later cleanup removes. Every read checks for a
            # newer version at most this often (:meth:`refresh` checks at once).
            self._db = lancedb.connect(
                str(self.folder),
                read_consistency_interval=timedelta(seconds=READ_CONSISTENCY_S),
            )
        return self._db

    def refresh(self) -> None:
        """Move the open table to the latest version (another process may have added
        vectors or extended the index since it was opened); nothing when not open."""
        if self._table is not None:
            self._table.checkout_latest()

    def db(self) -> Any:
        """The LanceDB connection of this folder (created on first use); other derived
        tables (:mod:`kb.store.keyword_index`) live beside ``embeddings``."""
        return self._connect()

    def table_names(self) -> list[str]:
        """The tables in the folder (none when it does not exist)."""
        return self._names()

    def _names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        db = self._connect()
        res = db.list_tables()
        names = getattr(res, "tables", res)
        return [str(n) for n in names]

    def table(self, dim: int | None = None) -> Any:
        """The open table, created with ``dim`` if missing; ``None`` if missing and no ``dim``.

        Reading a KB without a ``lancedb/`` folder creates nothing (a read-only KB has
        no vectors yet rather than an error)."""
        if self._table is not None:
            return self._table
        if dim is None and not self.folder.is_dir():
            return None
        db = self._connect()
        if TABLE in self._names():
            self._table = db.open_table(TABLE)
        elif dim is not None:
            import pyarrow as pa

            schema = pa.schema(
                [
                    pa.field("model", pa.string()),
                    pa.field("text_sha256", pa.string()),
                    pa.field("vector", pa.list_(pa.float32(), dim)),
                ]
            )
            self._table = db.create_table(TABLE, schema=schema, exist_ok=True)
        return self._table

    def dim(self) -> int | None:
        t = self.table()
        if t is None:
            return None
        return int(t.schema.field("vector").type.list_size)

    def add(self, model: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Store the vectors of ``hashes`` under ``model``; keys already present are
        left as they are (idempotent)."""
        if len(hashes) == 0:
            return
        import pyarrow as pa

        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        dim = vecs.shape[1]
        t = self.table(dim)
        data = pa.table(
            {
                "model": pa.array([model] * len(hashes), pa.string()),
                "text_sha256": pa.array(list(hashes), pa.string()),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), dim),
            }
        )
        with disk_full_guard(self.folder.parent, f"the vector index {self.folder.name}/"):
            (t.merge_insert(["model", "text_sha256"]).when_not_matched_insert_all().execute(data))

    def delete(self, model: str, hashes: Sequence[str]) -> None:
        """Drop the vectors of ``hashes`` under ``model``."""
        t = self.table()
        if t is None or not hashes:
            return
        hs = list(hashes)
        with disk_full_guard(self.folder.parent, f"the vector index {self.folder.name}/"):
            for start in range(0, len(hs), 1000):
                part = ",".join(_quote(h) for h in hs[start : start + 1000])
                t.delete(f"model = {_quote(model)} AND text_sha256 IN ({part})")

    def count(self, model: str | None = None) -> int:
        t = self.table()
        if t is None:
            return 0
        return int(t.count_rows(None if model is None else f"model = {_quote(model)}"))

    def keys(self) -> list[tuple[str, str]]:
        """Every ``(model, text_sha256)`` stored."""
        t = self.table()
        if t is None:
            return []
        arrow = t.search().select(["model", "text_sha256"]).limit(None).to_arrow()
        return list(
            zip(
                arrow.column("model").to_pylist(),
                arrow.column("text_sha256").to_pylist(),
                strict=True,
            )
        )

    def hashes(self, model: str) -> set[str]:
        """The text hashes that have a vector under ``model``."""
        t = self.table()
        if t is None:
            return set()
        q = t.search().where(f"model = {_quote(model)}").select(["text_sha256"]).limit(None)
        return set(q.to_arrow().column("text_sha256").to_pylist())

    def version(self) -> int | None:
        t = self.table()
        if t is None:
            return None
        t.checkout_latest()
        return int(t.version)

    def load(self, model: str) -> tuple[list[str], np.ndarray]:
        """All ``(text hashes, vectors float32[n, dim])`` of ``model``, for exact search."""
        t = self.table()
        if t is None:
            return [], np.zeros((0, 0), dtype=np.float32)
        t.checkout_latest()
        arrow = t.search().where(f"model = {_quote(model)}").limit(None).to_arrow()
        return _split(arrow, "text_sha256")

    def drop(self) -> None:
        db = self._connect()
        for name in (TABLE, LEGACY_TABLE):
            if name in self._names():
                db.drop_table(name)
        self._table = None

    def optimize(self) -> None:
        t = self.table()
        if t is not None:
            t.optimize()

    # -- the table of kb before migration 5 --------------------------------------------
    def has_legacy(self) -> bool:
        return LEGACY_TABLE in self._names()

    def load_legacy(self) -> tuple[list[int], np.ndarray]:
        """All ``(chunk ids, vectors)`` of the pre-cache ``vectors`` table."""
        if not self.has_legacy():
            return [], np.zeros((0, 0), dtype=np.float32)
        arrow = self._connect().open_table(LEGACY_TABLE).to_arrow()
        return _split(arrow, "chunk_id")

    def drop_legacy(self) -> None:
        if self.has_legacy():
            self._connect().drop_table(LEGACY_TABLE)


def _split(arrow: Any, key: str) -> tuple[list[Any], np.ndarray]:
    keys = arrow.column(key).to_pylist()
    if not keys:
        return [], np.zeros((0, 0), dtype=np.float32)
    flat = arrow.column("vector").combine_chunks()
    dim = flat.type.list_size
    vecs = flat.flatten().to_numpy(zero_copy_only=False).reshape(-1, dim)
    return keys, np.ascontiguousarray(vecs, dtype=np.float32)
