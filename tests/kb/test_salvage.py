"""``kb doctor --salvage`` on real damaged databases, then a real re-ingest completes it."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from eval.store import EvalStore
from ingest.pipeline import ingest_paths
from kb.backends.embedder import Embedder
from kb.config import Settings, load_settings
from kb.errors import DamagedStoreError
from kb.store import Store
from kb.store.doctor import check, repair
from kb.store.salvage import salvage

N_DOCS = 40


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for i in range(N_DOCS):
        words = " ".join(f"w{i}x{j}" for j in range(300))
        (root / f"n{i:02d}.md").write_text(f"# Note {i}\n\nTopic {i}: {words}\n")
    return root


def _build(home: Path, corpus: Path, embedder: Embedder) -> Settings:
    settings = load_settings(home, user_file=home.parent / "none.toml")
    with Store.open(home) as store:
        report = ingest_paths(store, settings, [corpus], embedder=embedder)
        assert report.exit_code == 0
        es = EvalStore(store)
        es.finish_run(es.create_run("nightly", "g.yaml", "h", {}, {"k": 5}), "complete", None)
    return settings


def _wreck(db: Path, start: float, length: float) -> None:
    size = db.stat().st_size
    with db.open("r+b") as f:
        f.seek(int(size * start))
        f.write(random.Random(7).randbytes(int(size * length)))


def test_salvage_keeps_readable_rows_and_reingest_completes_the_rest(
    kb_home: Path, corpus: Path, real_embedder: Embedder
) -> None:
    settings = _build(kb_home, corpus, real_embedder)
    db = kb_home / "kb.sqlite"
    _wreck(db, 0.45, 0.2)
    with (
        pytest.raises((DamagedStoreError, sqlite3.DatabaseError, AssertionError)),
        Store.open(kb_home, create=False) as store,
    ):  # the damage is seen: at opening, by a read, or as integrity_check findings
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    report = salvage(kb_home)
    kept = Path(report.damaged_copy)
    assert kept.is_file() and kept.name.startswith("kb.sqlite.damaged-")
    saved = {name: t.saved for name, t in report.tables.items()}
    assert saved["eval_runs"] == 1 and 0 < saved["documents"] <= N_DOCS
    with Store.open(kb_home, create=False) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert store.fts_integrity_ok()
        assert [r.name for r in EvalStore(store).list_runs()] == ["nightly"]
        ingest_paths(store, settings, [kb_home.parent / "corpus"], embedder=real_embedder)
        repair(store, check(store))  # vectors of chunks that were lost
        n_docs = store.conn.execute(
            "SELECT count(*) FROM documents WHERE status = 'indexed'"
        ).fetchone()[0]
        assert n_docs == N_DOCS
        final = check(store)
        assert final.clean, final.to_dict()
        hit = store.conn.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'w39x299'"
        ).fetchone()[0]
        assert hit == 1


def test_salvage_of_an_overwritten_header_starts_empty_and_says_so(
    kb_home: Path, corpus: Path, real_embedder: Embedder
) -> None:
    _build(kb_home, corpus, real_embedder)
    with (kb_home / "kb.sqlite").open("r+b") as f:
        f.write(b"\xff" * 100)
    report = salvage(kb_home)
    assert report.tables["(schema)"].error == "file is not a database"
    assert "0 rows saved" in "\n".join(report.lines())
    with Store.open(kb_home, create=False) as store:
        assert store.count_chunks() == 0
