"""Sources and documents, end to end: the real CLI, real files, real SQLite and LanceDB,
the real bundled embedding model (shared across the module)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.clirun import Result, kb
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow
Cap = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def shared_embedder(monkeypatch: pytest.MonkeyPatch, real_embedder) -> None:  # type: ignore[no-untyped-def]
    import kb.backends.embedder as emb

    monkeypatch.setattr(emb, "make_embedder", lambda *a, **k: real_embedder)


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """notes/ (two subfolders, a todo.txt) and papers/ (another todo.txt)."""
    root = tmp_path / "files"
    notes = root / "notes"
    (notes / "work").mkdir(parents=True)
    (notes / "cooking").mkdir()
    (notes / "garden.md").write_text("# Garden\n\nTomatoes need staking in June.\n")
    (notes / "work" / "project.md").write_text("# Project\n\nThe kickoff is on Monday.\n")
    (notes / "cooking" / "bread.md").write_text("# Bread\n\nBake the loaf at 230 degrees.\n")
    (notes / "todo.txt").write_text("buy quinces for the jelly\n")
    (root / "papers").mkdir()
    (root / "papers" / "todo.txt").write_text("read the paper about marmalade\n")
    return root


def ok(r: Result) -> Result:
    assert r.code == 0, (r.out, r.err)
    return r


def docs(capsys: Cap) -> list[dict]:  # type: ignore[type-arg]
    return json.loads(ok(kb(capsys, "docs", "--json")).out)  # type: ignore[no-any-return]


def search_paths(capsys: Cap, query: str, *args: str) -> list[str]:
    out = ok(kb(capsys, "search", query, "--mode", "keyword", "--json", *args)).out
    return [h["path"] for h in json.loads(out)["hits"]]


def doctor_clean(capsys: Cap) -> None:
    out = json.loads(ok(kb(capsys, "doctor", "--no-devices", "--json")).out)
    assert out["clean"], out


def test_subfolder_and_single_file_reingest_update_in_place(capsys: Cap, folders: Path) -> None:
    notes = folders / "notes"
    ok(kb(capsys, "ingest", str(notes)))
    before = {d["path"]: d for d in docs(capsys)}
    assert set(before) == {
        "notes/garden.md",
        "notes/work/project.md",
        "notes/cooking/bread.md",
        "notes/todo.txt",
    }
    assert before["notes/garden.md"]["abs_path"] == (notes / "garden.md").resolve().as_posix()
    (notes / "work" / "project.md").write_text("# Project\n\nThe kickoff moved to Friday.\n")
    r = ok(kb(capsys, "ingest", str(notes / "work" / "project.md"), "--json"))
    assert json.loads(r.out)["counts"]["updated"] == 1
    r = ok(kb(capsys, "ingest", str(notes / "cooking"), "--json"))
    assert json.loads(r.out)["counts"]["unchanged"] == 1
    after = docs(capsys)
    assert sorted(d["path"] for d in after) == sorted(before)  # no second copy anywhere
    assert [s["name"] for s in json.loads(ok(kb(capsys, "sources", "--json")).out)] == ["notes"]
    assert search_paths(capsys, "kickoff") == ["notes/work/project.md"]  # one copy, fresh
    assert search_paths(capsys, "Friday") == ["notes/work/project.md"]
    assert search_paths(capsys, "Monday") == []
    out = json.loads(ok(kb(capsys, "search", "Friday", "--mode", "keyword", "--json")).out)
    loc = out["hits"][0]["locator"]
    real = (notes / "work" / "project.md").resolve().as_posix()
    assert loc["abs_path"] == real and loc["open"] == f"{real}:{loc['lines'][0]}"
    doctor_clean(capsys)


def test_several_sources_keep_their_names_in_paths(capsys: Cap, folders: Path) -> None:
    ok(kb(capsys, "ingest", str(folders / "notes"), str(folders / "papers")))
    paths = {d["path"] for d in docs(capsys)}
    assert {"notes/todo.txt", "papers/todo.txt"} <= paths  # same relative path, two documents
    assert search_paths(capsys, "quinces OR marmalade") and set(
        search_paths(capsys, "quinces OR marmalade")
    ) == {"notes/todo.txt", "papers/todo.txt"}
    assert search_paths(capsys, "quinces OR marmalade", "--path", "notes/") == ["notes/todo.txt"]
    assert search_paths(capsys, "quinces OR marmalade", "--path", "papers/") == ["papers/todo.txt"]
    listed = json.loads(ok(kb(capsys, "docs", "--path", "papers/", "--json")).out)
    assert [d["path"] for d in listed] == ["papers/todo.txt"]
    text = ok(kb(capsys, "sources")).out
    assert "notes" in text and "papers" in text and "1 document" in text


def test_include_on_a_reingest_deletes_nothing_else(capsys: Cap, folders: Path) -> None:
    notes = folders / "notes"
    ok(kb(capsys, "ingest", str(notes)))
    r = ok(kb(capsys, "ingest", str(notes), "--include", "garden.md", "--json"))
    counts = json.loads(r.out)["counts"]
    assert counts["unchanged"] == 1 and counts["removed"] == 0
    assert len(docs(capsys)) == 4
    (notes / "todo.txt").unlink()  # a file that is really gone, but not looked at
    r = ok(kb(capsys, "ingest", str(notes), "--include", "garden.md", "--json"))
    assert json.loads(r.out)["counts"]["removed"] == 0 and len(docs(capsys)) == 4
    r = ok(kb(capsys, "ingest", "--json"))  # no path: every source re-scanned
    assert json.loads(r.out)["counts"]["removed"] == 1 and len(docs(capsys)) == 3


def test_source_move_keeps_documents_and_vectors(capsys: Cap, folders: Path) -> None:
    from kb.store import Store

    notes = folders / "notes"
    ok(kb(capsys, "ingest", str(notes)))

    def chunk_ids() -> list[int]:
        with Store.open(Path(kb_home_of(capsys))) as store:
            return sorted(store.chunk_ids("embedded"))

    ids = chunk_ids()
    moved = folders / "renamed-notes"
    notes.rename(moved)
    r = kb(capsys, "ingest")
    assert r.code == 1 and "source folder or file" in r.err and "kb sources move notes" in r.err
    assert len(docs(capsys)) == 4  # a missing source is reported, never emptied
    r = kb(capsys, "ingest", str(notes))
    assert r.code == 2 and "kb sources move notes NEW_PATH" in r.err and r.err.count("\n") == 1
    r = ok(kb(capsys, "sources", "move", "notes", str(moved)))
    assert "4 unchanged" in r.out
    assert chunk_ids() == ids  # same chunks, same vectors
    assert {d["abs_path"] for d in docs(capsys)} == {
        (moved / p).resolve().as_posix()
        for p in ("garden.md", "work/project.md", "cooking/bread.md", "todo.txt")
    }
    assert search_paths(capsys, "kickoff") == ["notes/work/project.md"]
    doctor_clean(capsys)


def kb_home_of(capsys: Cap) -> str:
    return str(json.loads(ok(kb(capsys, "status", "--json")).out)["home"])


def test_source_and_document_removal(capsys: Cap, folders: Path) -> None:
    ok(kb(capsys, "ingest", str(folders / "notes"), str(folders / "papers")))
    papers = (folders / "papers").resolve()
    dry = ok(kb(capsys, "sources", "remove", "papers", "--dry-run"))
    (listed,) = dry.out.splitlines()  # one document, with its chunks
    assert listed.startswith("papers/") and listed.endswith(" chunk")
    assert dry.err.splitlines() == [
        f"kb: would remove the source papers ({papers}) with 1 document and 1 chunk; "
        "nothing was deleted (--dry-run)"
    ]
    # no terminal, no --yes: refused, nothing deleted (a script never deletes by accident)
    r = kb(capsys, "sources", "remove", "papers")
    assert r.code == 2
    assert r.err.splitlines() == [
        f"kb: error: kb sources remove would delete the source papers ({papers}) with "
        "1 document and 1 chunk; stdin is not a terminal, so nothing was asked and nothing "
        "deleted: add --yes to delete, or --dry-run to list what would go"
    ]
    assert search_paths(capsys, "marmalade") != []
    r = ok(kb(capsys, "sources", "remove", "papers", "--yes"))
    assert "1 document" in r.out
    assert all(d["path"].startswith("notes/") for d in docs(capsys))
    assert search_paths(capsys, "marmalade") == []
    r = kb(capsys, "sources", "remove", "papers")
    assert r.code == 2 and "no source named 'papers'" in r.err
    r = kb(capsys, "docs", "remove", "notes/todo.txt")
    assert r.code == 2 and "kb docs remove would delete the document notes/todo.txt with" in r.err
    ok(kb(capsys, "docs", "remove", "notes/todo.txt", "--yes"))
    assert "notes/todo.txt" not in {d["path"] for d in docs(capsys)}
    assert kb(capsys, "docs", "remove", "notes/nothing.md").code == 2
    doctor_clean(capsys)  # their vectors went too: no orphans, no tombstones


def test_the_chunker_is_remembered(capsys: Cap, folders: Path) -> None:
    notes = folders / "notes"
    ok(kb(capsys, "ingest", str(notes)))
    r = ok(kb(capsys, "ingest", "--chunker", "window", "--json"))
    assert "chunker changed from structure" in r.err and "to window" in r.err
    assert json.loads(r.out)["counts"]["rechunked"] == 4
    r = ok(kb(capsys, "ingest", "--json"))  # plain ingest: stays on window, no re-embedding
    out = json.loads(r.out)
    assert out["counts"]["unchanged"] == 4 and out["chunks_embedded"] == 0
    assert r.err == ""
    status = json.loads(ok(kb(capsys, "status", "--json")).out)
    assert status["chunker"]["name"] == "window"
    assert {c["name"] for c in status["chunkers"]} == {"window"}
    assert "chunker: window" in ok(kb(capsys, "status")).out


def test_a_kb_of_the_previous_schema_is_migrated_in_place(
    capsys: Cap, tmp_path: Path, kb_home: Path
) -> None:
    """fixtures/db/kb-schema-v2: a KB built and evaluated by the previous version (schema
    2) from a copy of fixtures/demo/notes at /tmp/cli-v2notes/notes."""
    from kb.store import Store

    shutil.copytree(FIXTURES / "db" / "kb-schema-v2", kb_home)
    with Store.open(kb_home) as store:
        rows = store.conn.execute(
            "SELECT d.path, d.abs_path, s.name FROM documents d JOIN sources s "
            "ON s.id = d.source_id"
        ).fetchall()
        assert len(rows) == 5
        assert all(r["path"] == f"notes/{Path(r['abs_path']).name}" for r in rows)
        assert {r["name"] for r in rows} == {"notes"}
        embedded = store.chunk_ids("embedded")
        assert embedded == store.chunk_ids() and len(embedded) == 30
        # every chunk keeps its vector, now keyed by its text's hash: nothing re-embedded
        model = store.embedding_model()
        assert model is not None and not store.vectors.has_legacy()
        texts = {str(r[0]) for r in store.conn.execute("SELECT embed_sha256 FROM chunks")}
        assert texts == store.vectors.hashes(model.model_id)
        live = store.conn.execute("SELECT count(*) FROM live_chunks").fetchone()[0]
        assert live == 30  # one chunking, live, holds every chunk
    doctor_clean(capsys)
    runs = json.loads(ok(kb(capsys, "eval", "list", "--json")).out)
    assert [r["name"] for r in runs] == ["old"] and runs[0]["overall"]["hit@5"] == 1.0
    assert "old" in ok(kb(capsys, "eval", "show", "old")).out
    assert search_paths(capsys, "fermentation")[0] == "notes/sourdough.md"
    # the notes now live elsewhere: point the source there; nothing is re-embedded
    copy = tmp_path / "notes"
    shutil.copytree(FIXTURES / "demo" / "notes", copy)
    r = ok(kb(capsys, "sources", "move", "notes", str(copy)))
    # the structure chunker is at version 2 now (PDF headings), so the notes are
    # chunked again, into the same chunks: their vectors are found, none is embedded
    assert "5 rechunked" in r.out and "embedded" not in r.out
    doctor_clean(capsys)
