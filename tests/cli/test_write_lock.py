"""One writer per KB (:mod:`kb.store.lock`), with real processes.

Before the lock, two ``kb ingest`` of one new folder at once failed one of them on a
UNIQUE constraint, and two of different folders each embedded the other's pending
chunks (325 chunks twice). Now the second writer waits, after one line naming the KB and
the command that holds it; a holder killed with SIGKILL never blocks anyone.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kb.store import Store
from kb.store.lock import LOCK_NAME, write_lock
from tests.conftest import FIXTURES
from tests.kb.test_store_health import add_doc

pytestmark = pytest.mark.slow

HOLD = (
    "import sys, pathlib\n"
    "from kb.store.lock import write_lock\n"
    "with write_lock(pathlib.Path(sys.argv[1]), 'kb ingest'):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.readline()\n"
)


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "KB_HOME": str(home), "HF_HUB_OFFLINE": "1"}


def kb_popen(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kb", *args],
        env=env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def holder(home: Path) -> subprocess.Popen[str]:
    """A process holding the KB's lock until :func:`release` (or a kill)."""
    p = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert p.stdout is not None
    assert p.stdout.readline().strip() == "held"
    return p


def release(p: subprocess.Popen[str]) -> None:
    p.communicate(timeout=30)  # closes its stdin: the holder lets go and exits


def first_line(stream: object, timeout: float) -> str | None:
    """The first line ``stream`` gives within ``timeout`` seconds (None: nothing)."""
    q: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: q.put(stream.readline()), daemon=True).start()  # type: ignore[attr-defined]
    try:
        return q.get(timeout=timeout)
    except queue.Empty:
        return None


@pytest.fixture
def kb_with_doc(kb_home: Path) -> Path:
    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
        add_doc(store, "b.md", "Herons wait by the water.")
    return kb_home


def documents(home: Path) -> list[str]:
    with Store.open(home, create=False) as store:
        return [str(r[0]) for r in store.conn.execute("SELECT path FROM documents ORDER BY 1")]


def test_a_writer_waits_for_the_holder_with_one_line(kb_with_doc: Path) -> None:
    hold = holder(kb_with_doc)
    try:
        rm = kb_popen(kb_with_doc, "docs", "remove", "a.md", "--yes")
        line = first_line(rm.stderr, 60)
        assert line is not None and line.rstrip("\n") == (
            f"kb: the KB at {kb_with_doc} is being written by `kb ingest` (pid {hold.pid}); "
            "waiting for it to finish (Ctrl-C stops waiting; this command has written "
            "nothing yet)"
        )
        time.sleep(0.5)
        assert rm.poll() is None  # still waiting
        assert documents(kb_with_doc) == ["a.md", "b.md"]  # and it wrote nothing
    finally:
        release(hold)
    out, rest = rm.communicate(timeout=120)
    assert rm.returncode == 0, rest
    assert out.strip() == "removed a.md" and rest == ""
    assert documents(kb_with_doc) == ["b.md"]


def test_ctrl_c_while_waiting_writes_nothing(kb_with_doc: Path) -> None:
    hold = holder(kb_with_doc)
    try:
        rm = kb_popen(kb_with_doc, "docs", "remove", "a.md", "--yes")
        assert first_line(rm.stderr, 60) is not None  # waiting
        rm.send_signal(signal.SIGINT)
        rm.communicate(timeout=60)  # (the reader thread's pipe is closed here too)
        assert rm.returncode == 130
        assert documents(kb_with_doc) == ["a.md", "b.md"]
    finally:
        release(hold)


def test_a_killed_holder_never_blocks(kb_with_doc: Path) -> None:
    hold = holder(kb_with_doc)
    hold.kill()  # SIGKILL: no cleanup ran; the lock file stays, the kernel dropped the lock
    release(hold)
    assert (kb_with_doc / LOCK_NAME).read_text().startswith(f"{hold.pid} kb ingest")
    started = time.monotonic()
    rm = kb_popen(kb_with_doc, "docs", "remove", "a.md", "--yes")
    out, errs = rm.communicate(timeout=120)
    assert rm.returncode == 0 and errs == "", errs
    assert time.monotonic() - started < 60
    assert documents(kb_with_doc) == ["b.md"]


def test_the_lock_is_reentrant_in_one_thread_and_exclusive_across_processes(
    tmp_path: Path,
) -> None:
    home = tmp_path / "kb"
    said: list[str] = []
    with write_lock(home, "kb ingest", create=True), write_lock(home, "kb reindex"):
        pass  # nested: no deadlock, no message
    hold = holder(home)
    try:
        waited = threading.Event()

        def take() -> None:
            with write_lock(home, "kb sources add", on_wait=said.append):
                waited.set()

        t = threading.Thread(target=take, daemon=True)
        t.start()
        time.sleep(1.0)
        assert not waited.is_set() and len(said) == 1
        assert "`kb ingest`" in said[0]
    finally:
        release(hold)
    t.join(30)
    assert waited.is_set()


def test_two_ingests_of_one_new_folder_at_once_embed_each_chunk_once(
    tmp_path: Path, kb_home: Path
) -> None:
    """The real scenario, with the real embedding model: both succeed, the chunks are
    embedded once in all, and the second said it waited."""
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "demo" / "notes", notes)
    a = kb_popen(kb_home, "ingest", str(notes), "--json", "-q")
    time.sleep(1.0)
    b = kb_popen(kb_home, "ingest", str(notes), "--json", "-q")
    (out_a, err_a), (out_b, err_b) = a.communicate(timeout=600), b.communicate(timeout=600)
    assert a.returncode == 0, err_a
    assert b.returncode == 0, err_b
    ra, rb = json.loads(out_a), json.loads(out_b)
    with Store.open(kb_home, create=False) as store:
        chunks = store.count_chunks()
        sources = store.conn.execute("SELECT count(*) FROM sources").fetchone()[0]
    assert ra["chunks_embedded"] + rb["chunks_embedded"] == chunks
    assert sources == 1
    waits = [e for e in (err_a, err_b) if "is being written by `kb ingest`" in e]
    assert len(waits) == 1
