"""``kb ingest --watch`` on real files: edit, add, delete and move while watching, then
stop; the KB matches the folder and ``kb doctor`` is clean. Real watchfiles, store and
bundled embedding model."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ingest.watch import scopes_for
from kb.store.sources import Source

pytestmark = pytest.mark.slow


def test_scopes_are_the_deepest_existing_folder_per_source(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "a" / "b").mkdir(parents=True)
    src = Source(1, "notes", notes.as_posix(), "folder")
    f = Source(2, "todo.txt", (tmp_path / "todo.txt").as_posix(), "file")
    (tmp_path / "todo.txt").write_text("x")
    one = scopes_for([str(notes / "a" / "b" / "x.md")], [src])
    assert one == [notes / "a" / "b"]
    two = scopes_for([str(notes / "a" / "b" / "x.md"), str(notes / "a" / "y.md")], [src])
    assert two == [notes / "a"]  # a move from a/ to a/b/ stays one scope: kept as a move
    gone = scopes_for([str(notes / "deleted-folder" / "z.md")], [src])
    assert gone == [notes]
    assert scopes_for([str(tmp_path / "elsewhere.md")], [src]) == []
    assert scopes_for([str(tmp_path / "todo.txt")], [src, f]) == [tmp_path / "todo.txt"]


def test_watch_applies_edits_adds_deletes_and_moves(
    tmp_path: Path, kb_home: Path, real_embedder
) -> None:  # type: ignore[no-untyped-def]
    from ingest.pipeline import ingest_paths
    from ingest.watch import watch_sources
    from kb.config import load_settings
    from kb.store import Store
    from kb.store.doctor import check

    notes = tmp_path / "notes"
    (notes / "sub").mkdir(parents=True)
    (notes / "a.md").write_text("# A\n\nApples grow in the orchard.\n")
    (notes / "b.md").write_text("# B\n\nBlueberries like acid soil.\n")
    (notes / "c.md").write_text("# C\n\nCherries ripen in July.\n")
    settings = load_settings(kb_home)
    store = Store.open(kb_home)
    ingest_paths(store, settings, [notes], embedder=real_embedder)
    ids_c = _chunk_ids(store, "notes/c.md")

    lines: list[str] = []
    stop = threading.Event()
    worker = threading.Thread(
        target=watch_sources,
        args=(store, settings, lines.extend, stop),
        kwargs={"debounce_ms": 800, "step_ms": 200, "ingest_kwargs": {"embedder": real_embedder}},
    )
    worker.start()
    try:
        time.sleep(1.5)  # let the watcher arm
        (notes / "a.md").write_text("# A\n\nApricots grow in the orchard.\n")
        _wait(lines, "updated notes/a.md")
        (notes / "d.md").write_text("# D\n\nDates need heat.\n")
        _wait(lines, "added notes/d.md")
        (notes / "b.md").unlink()
        _wait(lines, "removed notes/b.md")
        (notes / "c.md").rename(notes / "sub" / "c.md")
        _wait(lines, "moved notes/c.md -> notes/sub/c.md")
    finally:
        stop.set()
        worker.join(timeout=30)
    assert not worker.is_alive()
    paths = {str(r[0]) for r in store.conn.execute("SELECT path FROM documents")}
    assert paths == {"notes/a.md", "notes/d.md", "notes/sub/c.md"}
    assert _chunk_ids(store, "notes/sub/c.md") == ids_c  # moved: same chunks and vectors
    text = " ".join(str(r[0]) for r in store.conn.execute("SELECT text FROM chunks"))
    assert "Apricots" in text and "Apples" not in text
    assert check(store).clean
    store.close()


def _chunk_ids(store, path: str) -> set[int]:  # type: ignore[no-untyped-def]
    return {
        int(r[0])
        for r in store.conn.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?",
            (path,),
        )
    }


def _wait(lines: list[str], want: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if want in lines:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {want!r} within {timeout}s; got {lines}")


def test_kb_ingest_watch_stops_cleanly_on_ctrl_c(tmp_path: Path, kb_home: Path) -> None:
    """The real command in a subprocess: first pass, one edit, SIGINT; exit 0, KB clean."""
    import os
    import signal
    import subprocess
    import sys

    from kb.store import Store
    from kb.store.doctor import check
    from tests.conftest import ROOT

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nApples grow in the orchard.\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "kb", "ingest", str(notes), "--watch", "--kb", str(kb_home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert p.stderr is not None
    seen: list[str] = []
    try:
        _read_until(p, seen, "watching the sources")
        time.sleep(1.0)
        (notes / "a.md").write_text("# A\n\nApricots grow in the orchard.\n")
        _read_until(p, seen, "updated notes/a.md")
    finally:
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (seen, err)
    assert "stopped watching" in err and "Traceback" not in err
    assert "ingested into" in out
    with Store.open(kb_home) as store:
        assert check(store).clean
        text = " ".join(str(r[0]) for r in store.conn.execute("SELECT text FROM chunks"))
        assert "Apricots" in text and "Apples" not in text


def _read_until(p, seen: list[str], want: str, timeout: float = 90.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = p.stderr.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        if want in line:
            return
    raise AssertionError(f"no {want!r}; stderr so far: {seen}")
