"""Embedding in runs smaller than a batch, so progress moves (real SQLite and LanceDB,
a fake embedder that counts its calls), and the plain progress lines for it."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ingest.embedding import RunSizer
from kb.backends.embedder import Embedder


class CountingEmbedder(Embedder):
    model_id = "fake:counting"
    dim = 8

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, hashlib.sha256(t.encode()).digest()[0] % self.dim] = 1.0
        return out


def test_run_sizes_follow_the_measured_rate() -> None:
    runs = RunSizer(first=8, most=256, target_s=1.0)
    assert runs.size == 8
    runs.took(8, 0.1)  # 80 texts/s: about a second is 80
    assert runs.size == 80
    runs.took(80, 20.0)  # slow: never below the first size
    assert runs.size == 8
    runs.took(8, 0.0)  # instant: never above the most
    assert runs.size == 256


def test_a_batch_is_embedded_in_runs_and_reported_as_it_goes(tmp_path: Path) -> None:
    from ingest.embedding import EmbedStats, embed_pending
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings, override
    from kb.store import Store

    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(40):
        (notes / f"n{i:02}.md").write_text(
            f"# Note {i}\n\nThe note number {i} says something of its own. A second "
            f"sentence for note {i}.\n",
            encoding="utf-8",
        )
    home = tmp_path / "kb"
    settings = override(load_settings(home), **{"embedding.sentence_vectors": False})
    with Store.open(home) as store:
        ingest_paths(store, settings, [notes], embedder=CountingEmbedder())
    shutil.rmtree(home / "lancedb")  # as after an interrupted first ingest: all pending
    with Store.open(home) as store:
        store.conn.execute("UPDATE chunks SET embedding_status = 'pending'")
        pending = store.count_chunks("pending")
        assert pending >= 40
        emb = CountingEmbedder()
        seen: list[int] = []
        stats = EmbedStats()
        embed_pending(store, emb, on_batch=seen.append, stats=stats, sentences=False)
        assert sum(seen) == pending and len(seen) > 1  # moved more than once per batch
        assert emb.calls[0] == 8 and len(emb.calls) == len(seen)
        assert store.count_chunks("pending") == 0 and stats.chunks == pending
        assert store.vectors.count("fake:counting") == stats.embedded + stats.cached


def test_plain_progress_says_how_embedding_goes_then_at_most_every_10_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kb.cli.progress import LineRate, PlainProgress, time_left

    now = [100.0]
    p = PlainProgress(rate=LineRate(interval=5, clock=lambda: now[0]))
    p.embed_total(100)  # the clock starts (the model loads, the first run embeds)
    for _ in range(8):  # one run of 10 chunks every 4 s
        now[0] += 4
        p.embedded(10)
    lines = capsys.readouterr().err.splitlines()
    # a line after the first run, then never closer than 10 s: at 4 s, 16 s and 28 s
    assert lines == [
        "ingest: embedding chunks 10/100 (10%), about 00:36 left",
        "ingest: embedding chunks 40/100 (40%), about 00:24 left",
        "ingest: embedding chunks 70/100 (70%), about 00:12 left",
    ]
    assert time_left(10.0, 0, 100) == "?" and time_left(10.0, 100, 100) == "00:00"
    quiet = PlainProgress(quiet=True, rate=LineRate(interval=5, clock=lambda: now[0]))
    quiet.embed_total(10)
    now[0] += 1
    quiet.embedded(1)
    now[0] += 60
    quiet.embedded(1)
    assert capsys.readouterr().err == ""
