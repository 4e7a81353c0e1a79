"""LanceDB vector table: idempotent upserts, deletes, loading (real LanceDB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kb.store.vectors import VectorIndex


def unit(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_upsert_is_idempotent_and_replaces(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    assert idx.count() == 0 and idx.dim() is None
    v = unit(5)
    idx.upsert([1, 2, 3, 4, 5], v)
    idx.upsert([1, 2, 3, 4, 5], v)  # a crash-and-retry writes the same batch again
    assert idx.count() == 5
    idx.upsert([3], unit(1, seed=9))
    ids, mat = idx.load_all()
    assert sorted(ids.tolist()) == [1, 2, 3, 4, 5]
    row = mat[list(ids).index(3)]
    assert np.allclose(row, unit(1, seed=9)[0])
    assert idx.dim() == 8


def test_delete_and_ids(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    idx.upsert(list(range(10)), unit(10))
    idx.delete([0, 2, 4, 99])
    assert idx.ids() == {1, 3, 5, 6, 7, 8, 9}
    # a fresh handle sees the same data (it is on disk)
    assert VectorIndex(tmp_path / "lance").ids() == {1, 3, 5, 6, 7, 8, 9}


def test_drop_then_recreate_with_other_dim(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    idx.upsert([1], unit(1))
    idx.drop()
    idx.upsert([1], unit(1, dim=4))
    assert idx.dim() == 4
