"""Chunkings side by side in SQLite (kb.store.chunkings, migration 5): the live one
owns the full-text index, a changed document leaves the others stale, a text embedded
once is embedded for every chunking (real SQLite, no model)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.errors import UsageError
from kb.store import Store, chunkings, migrations
from kb.store.sqlite import insert_chunks
from kb.types import ChunkDraft, ChunkerInfo, Span
from tests.conftest import FIXTURES

LIVE = ChunkerInfo("structure", "1", {"max_tokens": 200})
OTHER = ChunkerInfo("window", "1", {"size": 64})


def drafts(*texts: str) -> list[ChunkDraft]:
    return [
        ChunkDraft(t, ("Doc",), Span(line_start=i + 1, line_end=i + 1), 0, len(t), 3)
        for i, t in enumerate(texts)
    ]


def save(store: Store, *texts: str, digest: str = "h1") -> int:
    return store.save_document(
        root="/r",
        path="a.md",
        doc_type="md",
        content_hash=digest,
        size=1,
        mtime=1.0,
        chunks=drafts(*texts),
        chunker=LIVE,
        abs_path="/r/a.md",
    )


def fts_ids(store: Store, word: str) -> set[int]:
    rows = store.conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (word,))
    return {int(r[0]) for r in rows}


def test_blank_and_old_databases_migrate_to_chunkings(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST
        assert chunkings.list_all(store) == [] and chunkings.live_id(store) is None
    old = kb_home.parent / "old"
    old.mkdir()
    shutil.copy(FIXTURES / "db" / "kb-schema-v1.sqlite", old / "kb.sqlite")
    with Store.open(old) as store:
        n = store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert n > 0
        (live,) = chunkings.list_all(store)
        assert live.live and live.chunks == n and not live.stale
        empty = store.conn.execute("SELECT count(*) FROM chunks WHERE embed_sha256 = ''")
        assert empty.fetchone()[0] == 0
        assert store.fts_integrity_ok()


def test_live_chunking_owns_the_index_and_others_go_stale(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        doc = save(store, "alpha kestrel", "beta falcon")
        live = chunkings.live_id(store)
        assert live is not None
        other = chunkings.ensure(store, "window:size=64", OTHER)
        assert chunkings.ensure(store, "again", OTHER) == other  # one per identity
        with store.tx() as c:
            insert_chunks(c, doc, other, "h1", drafts("alpha kestrel beta falcon"), OTHER)
        other_id = store.conn.execute(
            "SELECT id FROM chunks WHERE chunking_id = ?", (other,)
        ).fetchone()[0]
        assert other_id not in fts_ids(store, "kestrel")  # only live chunks are indexed
        assert store.count_chunks() == 2 and store.count_chunks(chunking="all") == 3
        assert [c.spec for c in chunkings.list_all(store)] == ["structure", "window:size=64"]

        assert chunkings.set_live(store, other) and not chunkings.set_live(store, other)
        assert fts_ids(store, "kestrel") == {other_id} and store.fts_integrity_ok()
        assert store.count_chunks() == 1
        with pytest.raises(UsageError, match="live"):
            chunkings.remove(store, other)
        chunkings.set_live(store, live)

        # the document changes: the live chunking follows, the other is stale for it
        save(store, "alpha kestrel", "gamma osprey", digest="h2")
        by_id = {c.id: c for c in chunkings.list_all(store)}
        assert not by_id[live].stale and by_id[other].stale and by_id[other].chunks == 0
        assert [d[0] for d in chunkings.documents_to_build(store, other)] == [doc]
        assert chunkings.remove(store, other) == 0
        assert [c.id for c in chunkings.list_all(store)] == [live]


def test_a_text_embedded_once_is_embedded_for_every_chunking(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        doc = save(store, "alpha kestrel", "beta falcon")
        store.mark_embedded(sorted(store.chunk_ids()))
        other = chunkings.ensure(store, "window", OTHER)
        with store.tx() as c:
            insert_chunks(c, doc, other, "h1", drafts("beta falcon", "new text"), OTHER)
        rows = store.conn.execute(
            "SELECT text, embedding_status FROM chunks WHERE chunking_id = ? ORDER BY ord",
            (other,),
        ).fetchall()
        # "beta falcon" has the same heading and text (so the same embedded text and
        # hash) as a live chunk: no need to embed it again
        assert [tuple(r) for r in rows] == [("beta falcon", "embedded"), ("new text", "pending")]
