"""`kb ingest`, `kb status`, `kb doctor`, `kb reindex` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, require_squad


def kb(*args: str, home: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KB_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True, check=check
    )


def test_ingest_status_doctor_json(kb_home: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(FIXTURES / "demo" / "notes", corpus)
    r = kb("ingest", str(corpus), "--json", home=kb_home)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["counts"]["added"] >= 4 and summary["exit_code"] == 0
    # no library noise on the user's terminal: only kb's own progress and notes
    noise = [
        ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith(("ingest:", "note:"))
    ]
    assert noise == [], r.stderr
    st = json.loads(kb("status", "--json", home=kb_home, check=True).stdout)
    assert st["totals"]["chunks_pending"] == 0
    assert st["totals"]["chunks"] == st["totals"]["chunks_embedded"] > 0
    assert st["embedding_model"]["dim"] == 384
    doc = kb("doctor", "--json", "--no-devices", home=kb_home)
    assert doc.returncode == 0 and json.loads(doc.stdout)["clean"] is True
    again = json.loads(kb("ingest", str(corpus), "--json", home=kb_home).stdout)
    assert again["chunks_embedded"] == 0


def test_failed_file_gives_one_line_and_exit_1(kb_home: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "ok.md").write_text("# Fine\n\nA good note about kestrels.\n")
    (corpus / "broken.pdf").write_bytes(b"not a pdf at all")
    r = kb("ingest", str(corpus), home=kb_home)
    assert r.returncode == 1
    lines = [ln for ln in r.stderr.splitlines() if "broken.pdf" in ln]
    assert len(lines) == 1 and "Traceback" not in r.stderr
    st = json.loads(kb("status", "--json", home=kb_home, check=True).stdout)
    assert st["totals"]["documents_failed"] == 1 and st["totals"]["chunks_embedded"] >= 1


def test_usage_errors_exit_2(kb_home: Path) -> None:
    r = kb("ingest", "/definitely/not/here", home=kb_home)
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    r = kb("ingest", str(FIXTURES), "--chunker", "bogus", home=kb_home)
    assert r.returncode == 2 and "bogus" in r.stderr


def test_status_on_missing_kb_is_one_line(tmp_path: Path) -> None:
    r = kb("status", home=tmp_path / "none")
    assert r.returncode == 1 and "no KB here" in r.stderr and len(r.stderr.splitlines()) == 1


def test_reindex_after_changing_the_embedding_model(kb_home: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    shutil.copytree(FIXTURES / "demo" / "notes", corpus)
    kb("ingest", str(corpus), home=kb_home, check=True)
    # a second copy of the bundled model in a local folder counts as another model
    from kb.backends.bundled import embedding_model_dir

    other = tmp_path / "my-model"
    shutil.copytree(embedding_model_dir(), other)
    (kb_home / "config.toml").write_text(f'[embedding]\nmodel = "{other}"\n')
    r = kb("ingest", str(corpus), home=kb_home)
    assert r.returncode == 1 and "kb reindex" in r.stderr
    r = kb("reindex", "--json", home=kb_home)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["model"].startswith("local:")
    doc = kb("doctor", "--json", "--no-devices", home=kb_home)
    assert json.loads(doc.stdout)["clean"] is True


def test_sigkill_during_embedding_then_complete(kb_home: Path, tmp_path: Path) -> None:
    """kill -9 in the middle of embedding; the next ingest completes with no chunk lost,
    duplicated or orphaned, and `kb doctor` is clean."""
    squad = require_squad()
    corpus = tmp_path / "hotpot"
    corpus.mkdir()
    for f in sorted((squad / "corpus" / "hotpot").glob("*.md"))[:200]:
        shutil.copy(f, corpus / f.name)
    kb_home.mkdir(parents=True)
    # small commit batches: many embed-then-mark steps to be killed in between
    (kb_home / "config.toml").write_text("[ingest]\nembed_batch_size = 16\n")
    env = {**os.environ, "KB_HOME": str(kb_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb", "ingest", str(corpus)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = kb_home / "kb.sqlite"
    killed_mid_embedding = False
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        if db.exists():
            try:
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
                emb, pend = con.execute(
                    "SELECT sum(embedding_status='embedded'), sum(embedding_status='pending') "
                    "FROM chunks"
                ).fetchone()
                con.close()
            except sqlite3.OperationalError:
                emb = pend = None
            if emb and pend:
                os.kill(proc.pid, signal.SIGKILL)
                killed_mid_embedding = True
                break
        time.sleep(0.05)
    proc.wait(timeout=60)
    assert killed_mid_embedding, "ingest finished before it could be killed mid-embedding"
    assert proc.returncode == -signal.SIGKILL
    r = kb("ingest", str(corpus), "--json", home=kb_home)
    assert r.returncode == 0, r.stderr
    doc = json.loads(kb("doctor", "--json", "--no-devices", home=kb_home).stdout)
    assert doc["clean"] is True, doc
    con = sqlite3.connect(db)
    n_files = len(list(corpus.rglob("*.md")))
    assert (
        con.execute("SELECT count(*) FROM documents WHERE status='indexed'").fetchone()[0]
        == n_files
    )
    dup = con.execute(
        "SELECT count(*) FROM "
        "(SELECT document_id, ord FROM chunks GROUP BY 1, 2 HAVING count(*) > 1)"
    ).fetchone()[0]
    assert dup == 0


@pytest.mark.parametrize("flag", ["--help"])
def test_help_lists_commands(flag: str, kb_home: Path) -> None:
    r = kb(flag, home=kb_home)
    assert r.returncode == 0
    for name in ("ingest", "status", "doctor", "reindex", "config"):
        assert name in r.stdout
