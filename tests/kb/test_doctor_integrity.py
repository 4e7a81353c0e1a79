"""``kb doctor`` sees what SQLite sees: one 4 KB page of a real KB database overwritten.

Before, with an eval table's page overwritten, ``kb doctor`` and ``kb doctor --repair``
said "consistent"; with a full-text page overwritten, doctor advised ``--repair``, which
then failed and advised ``--salvage``. Now SQLite's ``quick_check`` finds both, doctor
names the unreadable table, and the one advice it gives (``--salvage``) works.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from eval.store import EvalStore
from kb.store import Store
from kb.store.doctor import check
from kb.store.integrity import check_database, loss_note
from tests.cli.clirun import kb
from tests.kb.test_store_health import add_doc

Cap = pytest.CaptureFixture[str]


@pytest.fixture
def real_kb(kb_home: Path) -> Path:
    """A KB with enough documents and eval runs that each table spans several pages."""
    with Store.open(kb_home) as store:
        for i in range(300):
            words = " ".join(f"w{(i * 7919 + j) % 100003}" for j in range(40))
            add_doc(store, f"n{i:03d}.md", f"Note {i} about kestrels. {words}")
        es = EvalStore(store)
        for i in range(120):
            config = {"k": 5, "note": "x" * 200, "i": i}
            es.finish_run(es.create_run(f"run{i}", "g.yaml", "h", {}, config), "complete", None)
    with sqlite3.connect(kb_home / "kb.sqlite") as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
    return kb_home


def damage(db: Path, table: str) -> int:
    """Overwrite one page in the middle of ``table`` with garbage; returns its number."""
    with sqlite3.connect(db) as c:
        size = int(c.execute("PRAGMA page_size").fetchone()[0])
        pages = [int(r[0]) for r in c.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
    assert len(pages) > 2, f"{table} spans {len(pages)} pages"
    page = sorted(pages)[len(pages) // 2]
    with db.open("r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xde\xad" * (size // 2))
    return page


def test_a_clean_kb_passes_both_checks(real_kb: Path) -> None:
    with Store.open(real_kb) as store:
        assert check_database(store.conn).ok
        deep = check_database(store.conn, deep=True)
        assert deep.ok and deep.mode == "integrity_check"
        assert check(store).database.ok


def test_a_damaged_eval_page_is_found_named_and_salvaged(capsys: Cap, real_kb: Path) -> None:
    db = real_kb / "kb.sqlite"
    damage(db, "eval_runs")
    with Store.open(real_kb) as store:
        report = check(store)
    assert report.damaged and not report.clean
    assert report.database.damaged_tables == ["eval_runs"]

    r = kb(capsys, "doctor", "--no-devices")
    assert r.code == 1
    fail = [line for line in r.out.splitlines() if "FAIL" in line]
    assert fail == [
        "  FAIL  database: SQLite quick_check found damage (database disk image is "
        "malformed); unreadable rows in eval_runs; `kb doctor --salvage` copies every "
        "readable row into a new database (eval runs on the damaged pages are lost unless "
        "you have `kb eval export` files; documents come back with `kb ingest`)"
    ]
    assert r.err.splitlines() == [f"kb: {db} is damaged; run `kb doctor --salvage`"]
    # --repair tries nothing it cannot do, and gives the same advice
    rep = kb(capsys, "doctor", "--repair", "--no-devices")
    assert rep.code == 1 and rep.err == r.err and "repaired" not in rep.out
    # the advice works
    assert kb(capsys, "doctor", "--salvage").code == 0
    after = kb(capsys, "doctor", "--no-devices", "--deep")
    assert "ok    database pages (SQLite integrity_check)" in after.out
    # what is left is what was there before the damage: add_doc never embeds
    assert [line for line in after.out.splitlines() if "FAIL" in line] == [
        "  FAIL  pending chunks: 300 chunks not yet embedded"
    ]
    with Store.open(real_kb) as store:
        assert store.count_chunks() == 300  # the documents were not on the damaged page


def test_a_damaged_full_text_page_advises_salvage_not_repair(capsys: Cap, real_kb: Path) -> None:
    damage(real_kb / "kb.sqlite", "chunks_fts_data")
    r = kb(capsys, "doctor", "--no-devices", "--json")
    assert r.code == 1
    out = json.loads(r.out)
    assert out["clean"] is False
    assert out["database"]["ok"] is False
    assert out["database"]["damaged_tables"] == ["chunks_fts_data"]
    assert "--salvage" in r.err and "--repair" not in r.err
    assert kb(capsys, "doctor", "--salvage").code == 0
    after = json.loads(kb(capsys, "doctor", "--no-devices", "--json").out)
    assert after["database"]["ok"] and after["fts_in_sync"]
    with Store.open(real_kb) as store:  # the full-text index was rebuilt from the chunks
        q = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'kestrels'"
        assert store.conn.execute(q).fetchone()[0] == 300


def test_doctor_deep_on_a_copy_leaves_the_original_alone(real_kb: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(real_kb, copy)
    damage(copy / "kb.sqlite", "chunks")
    with Store.open(copy, create=False) as store:
        deep = check_database(store.conn, deep=True)
    assert not deep.ok and "chunks" in deep.damaged_tables
    with Store.open(real_kb) as store:
        assert check_database(store.conn, deep=True).ok


@pytest.mark.parametrize(
    ("tables", "said"),
    [
        ([], "the damage is in an index or free pages: no row is lost"),
        (
            ["chunks_fts_data"],
            "only the full-text index is damaged: it is rebuilt, nothing is lost",
        ),
        (["chunks"], "documents on the damaged pages are read again by the next `kb ingest`"),
        (["meta"], "rows of meta on the damaged pages are lost"),
    ],
)
def test_loss_note_says_what_salvage_cannot_bring_back(tables: list[str], said: str) -> None:
    assert loss_note(tables) == said
