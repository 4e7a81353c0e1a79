"""kb.store.stats: `kb status` counts the embedding cache without opening LanceDB while
the count the last ingest remembered is current (real SQLite and LanceDB)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kb.store import Store, stats
from kb.store.sqlite import EmbeddingModelInfo


def test_the_remembered_count_is_used_until_the_table_changes(
    kb_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(kb_home) as store:
        assert stats.vectors_stamp(kb_home) is None
        assert stats.embedding_cache(store) == {"vectors": 0, "texts_used": 0, "unused": 0}
        store.set_embedding_model(EmbeddingModelInfo("m", 4))
        store.vectors.add("m", ["a" * 64, "b" * 64], np.eye(2, 4, dtype=np.float32))
        stats.remember_vector_count(store)
        stamp = stats.vectors_stamp(kb_home)
        assert stamp is not None
        slow: list[str] = []

        def counted(s: Store) -> dict[str, int]:
            slow.append("lancedb")
            return {"vectors": -1, "texts_used": 0, "unused": 0}

        monkeypatch.setattr(stats, "cache_stats", counted)
        assert stats.embedding_cache(store)["vectors"] == 2 and slow == []
        # another write to the table (kb reindex, doctor --repair): the stamp moves on
        store.vectors.add("m", ["c" * 64], np.eye(1, 4, dtype=np.float32))
        assert stats.vectors_stamp(kb_home) != stamp
        assert stats.embedding_cache(store)["vectors"] == -1 and slow == ["lancedb"]
