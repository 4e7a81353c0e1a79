"""LanceDB embedding cache: keyed by (model, text hash), insert-if-absent (real LanceDB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kb.store.vectors import VectorIndex

M = "bundled:test-model"


def unit(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_add_is_idempotent_and_keeps_the_first_vector(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    assert idx.count() == 0 and idx.dim() is None
    v = unit(5)
    keys = [f"h{i}" for i in range(5)]
    idx.add(M, keys, v)
    idx.add(M, keys, v)  # a crash-and-retry writes the same batch again
    assert idx.count() == 5
    idx.add(M, ["h3"], unit(1, seed=9))  # same key: a vector of the same text, kept as is
    hashes, mat = idx.load(M)
    assert sorted(hashes) == keys
    assert np.allclose(mat[hashes.index("h3")], v[3])
    assert idx.dim() == 8


def test_models_are_kept_apart(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    idx.add(M, ["a", "b"], unit(2))
    idx.add("local:/other's model", ["a"], unit(1, seed=3))  # quotes in a model id are safe
    assert idx.hashes(M) == {"a", "b"} and idx.hashes("local:/other's model") == {"a"}
    assert idx.count() == 3 and idx.count(M) == 2
    idx.delete(M, ["a", "zz"])
    assert idx.hashes(M) == {"b"} and idx.hashes("local:/other's model") == {"a"}
    # a fresh handle sees the same data (it is on disk)
    keys = sorted(VectorIndex(tmp_path / "lance").keys())
    assert keys == [(M, "b"), ("local:/other's model", "a")]


def test_drop_then_recreate_with_other_dim(tmp_path: Path) -> None:
    idx = VectorIndex(tmp_path / "lance")
    idx.add(M, ["a"], unit(1))
    idx.drop()
    idx.add(M, ["a"], unit(1, dim=4))
    assert idx.dim() == 4
