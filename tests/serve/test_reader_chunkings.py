"""The document reader shows the live chunking once: no chunk of a chunking kept beside
it, and no sentence that a chunk repeats from the one before its cut (real ingest, real
SQLite and LanceDB, the bundled embedder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kb.config import load_settings, override
from kb.serve import reader

SENTENCES = [f"Sentence {k} tells about item{k} in plain words only." for k in range(12)]


def test_reader_shows_the_live_chunks_each_sentence_once(
    tmp_path: Path, real_embedder: Any
) -> None:
    from ingest.pipeline import ingest_paths
    from kb.store import Store

    src = tmp_path / "src"
    src.mkdir()
    (src / "log.txt").write_text(" ".join(SENTENCES) + "\n", encoding="utf-8")  # one line
    home = tmp_path / "kb"
    base = load_settings(home, user_file=tmp_path / "none.toml")
    small = override(
        base, **{"chunkers.structure.max_tokens": 40, "chunkers.structure.min_tokens": 0}
    )
    with Store.open(home) as store:
        ingest_paths(store, small, [src], embedder=real_embedder)
        window = override(small, **{"ingest.chunker": "window:size=30,overlap=5"})
        ingest_paths(store, window, [src], embedder=real_embedder)  # a second chunking
        ingest_paths(store, small, [src], embedder=real_embedder)  # structure live again
        (doc_id,) = store.conn.execute("SELECT id FROM documents").fetchone()
        doc = reader.by_id(store.conn, int(doc_id))
        segs = reader.segments(store.conn, doc)
        live = store.conn.execute("SELECT count(*) FROM live_chunks").fetchone()[0]
        every = store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert len(segs) == live < every  # the window chunking is stored, not shown
    assert any(s.fresh for s in segs)  # a cut inside the line repeats a sentence ...
    joined = reader.joined_text(segs)
    for sentence in SENTENCES:  # ... which the whole text shows once
        assert joined.count(sentence) == 1, sentence
    assert " ".join(joined.split()) == " ".join(SENTENCES)
