"""kb.store.sources and migration 3 on a real SQLite file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kb.errors import UsageError
from kb.store import Store, migrations
from kb.store.sources import (
    Source,
    add_source,
    find_source,
    list_sources,
    move_source,
    owner,
    remove_source,
)
from kb.types import ChunkDraft, ChunkerInfo, Span

CHUNKER = ChunkerInfo("structure", "1", {})


def test_the_deepest_source_owns_a_file() -> None:
    outer = Source(1, "home", "/h", "folder")
    inner = Source(2, "notes", "/h/notes", "folder")
    single = Source(3, "x.md", "/h/x.md", "file")
    srcs = [outer, inner, single]
    assert owner(srcs, "/h/notes/a.md") is inner
    assert owner(srcs, "/h/notes") is inner
    assert owner(srcs, "/h/notes-old/a.md") is outer  # a name prefix is not a parent
    assert owner(srcs, "/h/x.md") is single
    assert owner(srcs, "/elsewhere/a.md") is None
    assert (
        inner.display("/h/notes/w/a.md") == "notes/w/a.md" and single.display("/h/x.md") == "x.md"
    )


def test_names_are_unique_and_sources_move_and_go(tmp_path: Path, kb_home: Path) -> None:
    (tmp_path / "a" / "notes").mkdir(parents=True)
    (tmp_path / "b" / "notes").mkdir(parents=True)
    (tmp_path / "todo.txt").write_text("x")
    with Store.open(kb_home) as store:
        first = add_source(store, tmp_path / "a" / "notes")
        second = add_source(store, tmp_path / "b" / "notes")
        third = add_source(store, tmp_path / "todo.txt")
        assert (first.name, second.name, third.name) == ("notes", "notes-2", "todo.txt")
        with pytest.raises(UsageError, match="has that name already"):
            add_source(store, tmp_path, name="notes")
        abs_path = f"{first.path}/w/a.md"
        store.save_document(
            root=first.path,
            path=first.display(abs_path),
            doc_type="md",
            content_hash="h",
            size=1,
            mtime=1.0,
            chunks=[ChunkDraft("alpha", (), Span(line_start=1, line_end=1), 0, 5, 1)],
            chunker=CHUNKER,
            abs_path=abs_path,
            source_id=first.id,
        )
        (tmp_path / "c").mkdir()
        moved = move_source(store, first, tmp_path / "c")
        row = store.conn.execute("SELECT root, path, abs_path FROM documents").fetchone()
        assert tuple(row) == (moved.path, "notes/w/a.md", f"{moved.path}/w/a.md")
        with pytest.raises(UsageError, match="is a folder"):
            move_source(store, moved, tmp_path / "todo.txt")
        assert remove_source(store, find_source(store, "notes")) == 1
        assert store.count_chunks() == 0 and len(store.tombstones()) == 1
        assert [s.name for s in list_sources(store)] == ["notes-2", "todo.txt"]
        with pytest.raises(UsageError, match="no source named 'notes'"):
            find_source(store, "notes")


def test_migration_3_names_sources_and_drops_overlap_duplicates(kb_home: Path) -> None:
    """A schema-2 KB where /r and /r/sub were both ingested: sub/a.md was stored twice."""
    kb_home.mkdir(parents=True)
    conn = sqlite3.connect(kb_home / "kb.sqlite", isolation_level=None)
    migrations.applied(conn)
    for mid, name, fn in migrations.MIGRATIONS[:2]:
        fn(conn)
        conn.execute("INSERT INTO _migrations VALUES (?, ?, 0)", (mid, name))
    docs = [("/r", "sub/a.md", 1.0), ("/r/sub", "a.md", 2.0), ("/x/sub", "b.md", 1.0)]
    for i, (root, path, updated) in enumerate(docs, start=1):
        conn.execute(
            "INSERT INTO documents (id, root, path, doc_type, status, updated_at) "
            "VALUES (?, ?, ?, 'md', 'indexed', ?)",
            (i, root, path, updated),
        )
        conn.execute(
            "INSERT INTO chunks (document_id, ord, text, token_count, chunker, chunker_version, "
            "chunker_params, content_hash) VALUES (?, 0, 'text', 1, 's', '1', '{}', 'h')",
            (i,),
        )
    conn.close()
    with Store.open(kb_home) as store:
        rows = store.conn.execute(
            "SELECT d.id, d.path, d.abs_path, s.name FROM documents d "
            "JOIN sources s ON s.id = d.source_id ORDER BY d.id"
        ).fetchall()
        # the newer copy of /r/sub/a.md is kept; /r/sub and /x/sub are both named sub
        assert [tuple(r) for r in rows] == [
            (2, "sub/a.md", "/r/sub/a.md", "sub"),
            (3, "sub-2/b.md", "/x/sub/b.md", "sub-2"),
        ]
        assert {s.name for s in list_sources(store)} == {"r", "sub", "sub-2"}
        assert store.tombstones() == [1]  # the duplicate's chunk: its vector is removed next
