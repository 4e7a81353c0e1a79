"""Read-only KBs, damaged databases and full disks, on real SQLite files and mounts.

Read-only folders are real read-only bind mounts (tests run as root, where ``chmod``
stops nothing); they skip when mounting is not possible and always unmount.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from eval.store import EvalStore
from kb.cli.failures import translate
from kb.errors import DamagedStoreError, DiskFullError, ReadOnlyStoreError, StoreError
from kb.store import Store
from kb.store.vectors import VectorIndex
from kb.types import ChunkDraft, ChunkerInfo, Span

CHUNKER = ChunkerInfo("structure", "1", {})


def add_doc(store: Store, path: str, text: str) -> None:
    store.save_document(
        root="/corpus",
        path=path,
        doc_type="md",
        content_hash=path,
        size=len(text),
        mtime=1.0,
        chunks=[ChunkDraft(text, (), Span(line_start=1, line_end=1), 0, len(text), 5)],
        chunker=CHUNKER,
    )


@contextmanager
def read_only_view(src: Path, dst: Path) -> Iterator[Path]:
    """``dst``: a read-only bind mount of ``src`` (skips without root or mount rights)."""
    if os.geteuid() != 0:
        pytest.skip("read-only bind mounts need root")
    dst.mkdir()
    if subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True).returncode:
        pytest.skip("mount --bind is not permitted here")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(dst)], check=True)
        yield dst
    finally:
        if subprocess.run(["umount", str(dst)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(dst)], check=False)  # still busy: detach


@pytest.fixture
def kb_with_rows(kb_home: Path) -> Path:
    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
        es = EvalStore(store)
        run_id = es.create_run("nightly", "g.yaml", "h", {}, {"k": 5})
        es.finish_run(run_id, "complete", None)
    return kb_home


def _fts(store: Store, word: str) -> int:
    return len(
        store.conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (word,)
        ).fetchall()
    )


# -- read-only ---------------------------------------------------------------------------


def test_read_only_kb_reads_and_refuses_writes(kb_with_rows: Path, tmp_path: Path) -> None:
    with read_only_view(kb_with_rows, tmp_path / "ro") as ro:
        with Store.open(ro, create=False) as store:
            assert store.read_only and _fts(store, "kestrels") == 1
            assert [r.name for r in EvalStore(store).list_runs()] == ["nightly"]
            assert store.fts_integrity_ok()
            with pytest.raises(ReadOnlyStoreError, match=f"KB folder {ro} is read-only"):
                add_doc(store, "b.md", "more")
            with pytest.raises(ReadOnlyStoreError, match="kb eval run needs write access"):
                store.require_writable("kb eval run")
        with pytest.raises(ReadOnlyStoreError) as e:
            Store.open(ro)  # a writing command (kb ingest) fails at once
        assert str(e.value) == f"KB folder {ro} is read-only; kb ingest needs write access"
        assert not (ro / "kb.sqlite-wal").exists()


def test_read_only_kb_with_a_live_write_ahead_log(kb_home: Path, tmp_path: Path) -> None:
    """Committed pages still in ``kb.sqlite-wal`` (its writer is alive) are read.

    SQLite keeps a closed connection's descriptor open while another connection of the
    same process holds locks on the file, so the writer closes before the unmount."""
    with read_only_view(kb_home.parent, tmp_path / "ro") as ro_parent:
        writer = Store.open(kb_home)
        try:
            writer.conn.execute("PRAGMA wal_autocheckpoint = 0")
            add_doc(writer, "a.md", "Herons wade in shallow water.")
            assert (kb_home / "kb.sqlite-wal").stat().st_size > 0
            with Store.open(ro_parent / kb_home.name, create=False) as s:
                assert s.read_only and _fts(s, "herons") == 1
        finally:
            writer.close()


# -- damaged / unopenable ----------------------------------------------------------------


def test_overwritten_header_is_named_damaged(kb_with_rows: Path) -> None:
    db = kb_with_rows / "kb.sqlite"
    with db.open("r+b") as f:
        f.write(b"\xff" * 100)
    with pytest.raises(DamagedStoreError) as e:
        Store.open(kb_with_rows, create=False)
    msg = str(e.value)
    assert msg.startswith(f"{db}: the KB database is damaged")
    assert "kb doctor --salvage" in msg and "eval runs only from a backup" in msg
    assert "move it away" not in msg and "\n" not in msg


def test_a_database_that_cannot_be_opened_is_not_called_damaged(kb_home: Path) -> None:
    kb_home.mkdir(parents=True)
    (kb_home / "kb.sqlite").mkdir()  # exists, but SQLite cannot open it as a file
    with pytest.raises(StoreError) as e:
        Store.open(kb_home, create=False)
    assert not isinstance(e.value, DamagedStoreError)
    assert "cannot open the KB database" in str(e.value) and "damaged (" not in str(e.value)


def test_corruption_found_by_a_later_query_is_translated(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        for i in range(300):
            add_doc(store, f"d{i}.md", f"note {i} " + "word " * 200)
    db = kb_home / "kb.sqlite"
    size = db.stat().st_size
    with db.open("r+b") as f:  # wreck the pages after the schema, keep the header
        f.seek(size // 2)
        f.write(os.urandom(size // 4))
    store = Store.open(kb_home, create=False)
    try:
        with pytest.raises(Exception) as e:  # noqa: PT011 - sqlite3 raises several types
            store.conn.execute("SELECT count(*), sum(length(text)) FROM chunks").fetchall()
            store.conn.execute("PRAGMA integrity_check").fetchall()
            raise AssertionError("no corruption was detected")  # pragma: no cover
        known = translate(e.value)
        assert isinstance(known, DamagedStoreError) and str(db) in str(known)
    finally:
        store.close()


# -- full disk -----------------------------------------------------------------------------


def test_sqlite_full_is_one_line_and_loses_nothing(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        add_doc(store, "kept.md", "Stored before the disk filled.")
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(DiskFullError) as e:
            add_doc(store, "big.md", "word " * 50_000)
        assert str(e.value) == (
            f"the disk holding {kb_home} is full (writing kb.sqlite); nothing stored is lost: "
            "free space and re-run kb ingest"
        )
        assert store.count_chunks() == 1 and _fts(store, "stored") == 1
        assert not store.conn.in_transaction


def test_enospc_from_the_vector_index_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = VectorIndex(tmp_path / "kb" / "lancedb")
    index.add("m", ["h1"], np.ones((1, 4), dtype=np.float32))
    table = index.table()

    def no_space(*a: object, **k: object) -> object:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(type(table), "merge_insert", no_space)
    with pytest.raises(DiskFullError, match=r"full \(writing the vector index lancedb/\)"):
        index.add("m", ["h2"], np.ones((1, 4), dtype=np.float32))
    assert index.hashes("m") == {"h1"}


def test_translate_maps_enospc_and_leaves_other_errors() -> None:
    e = OSError(errno.ENOSPC, "No space left on device", "/kb/cache/search-vectors.bin")
    known = translate(e)
    assert isinstance(known, DiskFullError) and "search-vectors.bin" in str(known)
    assert translate(ValueError("something else")) is None
