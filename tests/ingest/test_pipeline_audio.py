"""Audio through the whole pipeline with the real bundled whisper and embedding models."""

from __future__ import annotations

import shutil
from pathlib import Path

from ingest.pipeline import ingest_paths
from kb.backends.embedder import Embedder
from kb.backends.transcriber import make_transcriber
from kb.config import load_settings, override
from kb.store import Store
from tests.conftest import FIXTURES
from tests.ingest.test_loaders_audio import Counting


def test_audio_chunks_know_their_seconds_and_rechunking_reuses_the_transcript(
    kb_home: Path, tmp_path: Path, real_embedder: Embedder
) -> None:
    corpus = tmp_path / "rec"
    shutil.copytree(FIXTURES / "demo" / "audio", corpus)
    settings = load_settings()
    tr = Counting(make_transcriber(settings.whisper, settings.home))
    with Store.open(settings.home) as store:
        report = ingest_paths(store, settings, [corpus], embedder=real_embedder, transcriber=tr)
        assert report.exit_code == 0 and tr.calls == 1
        assert report.audio_seconds > 5
        hits = list(store.hits_for(sorted(store.chunk_ids())).values())
        assert hits and all(h.locator.doc_type == "audio" for h in hits)
        spans = sorted((h.locator.span.seconds_start, h.locator.span.seconds_end) for h in hits)
        assert all(s is not None and e is not None and 0 <= s <= e for s, e in spans)
        assert spans[-1][1] <= report.audio_seconds + 1.0
        assert "–" in hits[0].locator.render()  # mm:ss–mm:ss
        words = " ".join(h.text for h in hits).lower()
        assert len(words.split()) >= 10

        window = override(settings, **{"ingest.chunker": "window"})
        again = ingest_paths(store, window, [corpus], embedder=real_embedder, transcriber=tr)
        assert again.count("rechunked") == 1
        assert tr.calls == 1  # the cached transcript was reused
