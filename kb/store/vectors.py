"""The LanceDB half of a KB: one table ``vectors`` of ``(chunk_id int64, vector float32[dim])``.

Derived data: it can always be rebuilt from SQLite (``kb reindex``). Writes are
idempotent upserts keyed by ``chunk_id`` so a crash between writing vectors and
marking chunks ``embedded`` in SQLite never duplicates a vector.

Vectors are stored L2-normalised, so a dot product is the cosine similarity.
lancedb and pyarrow are imported lazily, inside methods.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kb.store.health import disk_full_guard

TABLE = "vectors"

# LanceDB's Rust layer logs WARN lines to stderr (e.g. "No existing dataset ..."); users must
# never see library noise. The variables are read when lancedb is first imported.
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("LANCEDB_LOG", "error")


class VectorIndex:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._db: Any = None
        self._table: Any = None

    def _connect(self) -> Any:
        if self._db is None:
            import lancedb

            self.folder.mkdir(parents=True, exist_ok=True)
            self._db = lancedb.connect(str(self.folder))
        return self._db

    def _names(self) -> list[str]:
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
                [pa.field("chunk_id", pa.int64()), pa.field("vector", pa.list_(pa.float32(), dim))]
            )
            self._table = db.create_table(TABLE, schema=schema, exist_ok=True)
        return self._table

    def dim(self) -> int | None:
        t = self.table()
        if t is None:
            return None
        return int(t.schema.field("vector").type.list_size)

    def upsert(self, chunk_ids: Sequence[int], vectors: np.ndarray) -> None:
        """Insert or replace the vectors of ``chunk_ids`` (idempotent)."""
        if len(chunk_ids) == 0:
            return
        import pyarrow as pa

        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        dim = vecs.shape[1]
        t = self.table(dim)
        data = pa.table(
            {
                "chunk_id": pa.array(list(chunk_ids), pa.int64()),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), dim),
            }
        )
        with disk_full_guard(self.folder.parent, f"the vector index {self.folder.name}/"):
            (
                t.merge_insert("chunk_id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .execute(data)
            )

    def delete(self, chunk_ids: Sequence[int]) -> None:
        t = self.table()
        if t is None or not chunk_ids:
            return
        ids = list(chunk_ids)
        with disk_full_guard(self.folder.parent, f"the vector index {self.folder.name}/"):
            for start in range(0, len(ids), 2000):
                part = ",".join(str(int(i)) for i in ids[start : start + 2000])
                t.delete(f"chunk_id IN ({part})")

    def count(self) -> int:
        t = self.table()
        return 0 if t is None else int(t.count_rows())

    def ids(self) -> set[int]:
        t = self.table()
        if t is None:
            return set()
        col = t.search().select(["chunk_id"]).limit(None).to_arrow().column("chunk_id")
        return {int(x) for x in col.to_numpy()}

    def version(self) -> int | None:
        t = self.table()
        if t is None:
            return None
        t.checkout_latest()
        return int(t.version)

    def load_all(self) -> tuple[np.ndarray, np.ndarray]:
        """All ``(chunk_ids int64[n], vectors float32[n, dim])`` for exact search."""
        t = self.table()
        if t is None:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        t.checkout_latest()
        arrow = t.to_arrow()
        ids = arrow.column("chunk_id").to_numpy()
        flat = arrow.column("vector").combine_chunks()
        dim = flat.type.list_size
        vecs = flat.flatten().to_numpy(zero_copy_only=False).reshape(-1, dim)
        return ids.astype(np.int64), np.ascontiguousarray(vecs, dtype=np.float32)

    def iter_batches(self, batch_size: int = 4096) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        ids, vecs = self.load_all()
        for s in range(0, len(ids), batch_size):
            yield ids[s : s + batch_size], vecs[s : s + batch_size]

    def drop(self) -> None:
        db = self._connect()
        if TABLE in self._names():
            db.drop_table(TABLE)
        self._table = None

    def optimize(self) -> None:
        t = self.table()
        if t is not None:
            t.optimize()
