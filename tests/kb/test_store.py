"""SQLite store: migrations, transactions, document replacement, tombstones (real SQLite)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from kb.errors import DamagedStoreError, EmbeddingMismatchError, SchemaTooNewError, StoreError
from kb.store import Store, migrations
from kb.store.sqlite import EmbeddingModelInfo
from kb.types import ChunkDraft, ChunkerInfo, Span
from tests.conftest import FIXTURES

CHUNKER = ChunkerInfo("structure", "1", {"max_tokens": 200})


def drafts(*texts: str) -> list[ChunkDraft]:
    return [
        ChunkDraft(t, ("Doc", f"Part {i}"), Span(line_start=i + 1, line_end=i + 1), 0, len(t), 3)
        for i, t in enumerate(texts)
    ]


def save(store: Store, path: str, *texts: str, digest: str = "h1") -> int:
    return store.save_document(
        root="/r",
        path=path,
        doc_type="md",
        content_hash=digest,
        size=1,
        mtime=1.0,
        chunks=drafts(*texts),
        chunker=CHUNKER,
        tags=["t"],
    )


def test_blank_database_is_migrated_to_latest_with_wal_and_foreign_keys(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        ids = [r[0] for r in store.conn.execute("SELECT id FROM _migrations ORDER BY id")]
        assert ids == [m[0] for m in migrations.MIGRATIONS]
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST


def test_old_database_is_migrated_and_keeps_its_data(kb_home: Path) -> None:
    kb_home.mkdir(parents=True)
    shutil.copy(FIXTURES / "db" / "kb-schema-v1.sqlite", kb_home / "kb.sqlite")
    with Store.open(kb_home) as store:
        assert store.conn.execute("SELECT max(id) FROM _migrations").fetchone()[0] == (
            migrations.LATEST
        )
        row = store.conn.execute("SELECT text FROM chunks").fetchone()
        assert row[0] == "An old chunk about zebras."
        # the FTS index of the old database still answers
        hit = store.conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'zebras'"
        ).fetchall()
        assert len(hit) == 1
        # the new eval tables exist
        store.conn.execute("SELECT count(*) FROM eval_runs").fetchone()


def test_database_from_a_newer_kb_is_refused(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        store.conn.execute("INSERT INTO _migrations VALUES (99, 'future', 0)")
    with pytest.raises(SchemaTooNewError, match="newer kb"):
        Store.open(kb_home)


def test_failed_migration_rolls_back_completely(
    kb_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    nxt = migrations.LATEST + 1
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, (nxt, "broken", broken)])
    with pytest.raises(RuntimeError):
        Store.open(kb_home)
    conn = sqlite3.connect(kb_home / "kb.sqlite")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "half_done" not in tables
    assert conn.execute("SELECT max(id) FROM _migrations").fetchone()[0] == migrations.LATEST


def test_not_a_database_gives_a_clear_error(kb_home: Path) -> None:
    kb_home.mkdir(parents=True)
    (kb_home / "kb.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DamagedStoreError, match=r"kb.sqlite: the KB database is damaged") as e:
        Store.open(kb_home)
    assert "kb doctor --salvage" in str(e.value) and "move it away" not in str(e.value)


def test_open_without_create_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no KB here"):
        Store.open(tmp_path / "nothing", create=False)


def test_replacing_a_document_tombstones_old_chunk_ids_and_updates_fts(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        doc = save(store, "a.md", "alpha apples", "beta bananas")
        old_ids = sorted(store.chunk_ids())
        assert store.count_chunks("pending") == 2
        doc2 = save(store, "a.md", "gamma grapes", digest="h2")
        assert doc2 == doc
        assert sorted(store.tombstones()) == old_ids
        new_ids = store.chunk_ids()
        assert not new_ids & set(old_ids)  # AUTOINCREMENT: ids are never reused
        match = lambda q: store.conn.execute(  # noqa: E731
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (q,)
        ).fetchone()[0]
        assert match("apples") == 0
        assert match("grapes") == 1
        assert store.fts_integrity_ok()


def test_mark_failed_removes_earlier_chunks(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        save(store, "a.md", "alpha")
        store.mark_failed(root="/r", path="a.md", doc_type="md", error="invalid UTF-8")
        assert store.count_chunks() == 0
        row = store.conn.execute("SELECT status, error FROM documents").fetchone()
        assert tuple(row) == ("failed", "invalid UTF-8")


def test_rename_keeps_chunks_and_delete_cascades(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        doc = save(store, "a.md", "alpha", "beta")
        ids = store.chunk_ids()
        store.rename_document(doc, "moved/a.md", 2.0)
        assert store.chunk_ids() == ids
        assert store.hits_for(sorted(ids))[min(ids)].locator.path == "moved/a.md"
        store.delete_documents([doc])
        assert store.count_chunks() == 0
        assert set(store.tombstones()) == ids


def test_hits_carry_locators(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        save(store, "a.md", "alpha", "beta")
        hits = store.hits_for(sorted(store.chunk_ids()))
        h = hits[min(hits)]
        assert h.locator.heading_path == ("Doc", "Part 0")
        assert h.locator.span.line_start == 1
        assert h.tags == ["t"]
        assert h.locator.render().endswith("· line 1")  # one line: "line 1", not "lines 1–1"


def test_embedding_model_mismatch_points_to_reindex(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        save(store, "a.md", "alpha")
        store.set_embedding_model(EmbeddingModelInfo("bundled:all-MiniLM-L6-v2", 384))
        store.check_embedding_model("bundled:all-MiniLM-L6-v2")
        with pytest.raises(EmbeddingMismatchError, match="kb reindex"):
            store.check_embedding_model("local:/models/other")


def test_pending_batches_stream_in_id_order_with_heading_prefix(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        save(store, "a.md", *[f"text {i}" for i in range(7)])
        batches = list(store.iter_pending(3))
        assert [len(b) for b in batches] == [3, 3, 1]
        ids = [cid for b in batches for cid, _, _ in b]
        assert ids == sorted(ids)
        assert batches[0][0][1] == "Doc > Part 0\ntext 0"


def test_transaction_rolls_back_on_error(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        save(store, "a.md", "alpha")
        with pytest.raises(ZeroDivisionError), store.tx() as c:
            c.execute("DELETE FROM chunks")
            1 / 0  # noqa: B018
        assert store.count_chunks() == 1
