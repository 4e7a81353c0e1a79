"""Chunkings side by side and the embedding cache, through the CLI on real parts
(SQLite, LanceDB, the bundled embedding model): kb eval run --chunker leaves the live
chunking exactly as it was; kb chunkers use/rm; kb status and kb doctor --repair."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.store import Store, chunkings
from tests.cli.clirun import Result, kb
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow  # embeds the demo notes with the real model (about 20 s)

Cap = pytest.CaptureFixture[str]


def ok(r: Result) -> Result:
    assert r.code == 0, (r.out, r.err)
    return r


def search_json(capsys: Cap, query: str) -> dict[str, object]:
    out = json.loads(ok(kb(capsys, "search", query, "--json")).out)
    out.pop("timings")
    return out  # type: ignore[no-any-return]


def test_eval_on_another_chunking_leaves_the_live_one_and_reuses_the_cache(
    capsys: Cap, tmp_path: Path, kb_home: Path
) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "demo" / "notes", notes)
    golden = tmp_path / "demo.yaml"
    text = (FIXTURES / "golden" / "demo.yaml").read_text()
    golden.write_text(text)
    ok(kb(capsys, "ingest", str(notes), "-q"))
    before = search_json(capsys, "sourdough cold proof")
    with Store.open(kb_home) as store:
        live_before = store.count_chunks()
        cache_before = store.vectors.count()

    r = kb(capsys, "eval", "run", str(golden), "--no-answer", "--chunker", "window", "--json")
    assert r.code == 0, r.err
    assert "texts embedded" in r.err
    run = json.loads(r.out)
    # it searched the window chunks (exact matching: windows cut some snippets)
    assert run["metrics"]["overall"]["metrics"]["hit@5"] > 0.3
    chunking = run["run"]["config"]["chunking"]
    assert chunking["spec"] == "window" and chunking["live"] is False
    with Store.open(kb_home) as store:
        stored = chunkings.list_all(store)
        assert [(c.name, c.live) for c in stored] == [("structure", True), ("window", False)]
        assert store.count_chunks() == live_before  # the live chunks are untouched
        window = stored[1]
        new_vectors = store.vectors.count() - cache_before
        assert 0 < new_vectors <= window.chunks
    assert search_json(capsys, "sourdough cold proof") == before

    # an ingest with no changes: nothing re-embedded, the window chunking still current
    out = json.loads(ok(kb(capsys, "ingest", "--json")).out)
    assert out["chunks_embedded"] == 0 and out["stale_chunkings"] == {}
    assert search_json(capsys, "sourdough cold proof") == before

    # evaluating the window chunking again costs no embedding
    r = kb(capsys, "eval", "run", str(golden), "--no-answer", "--chunker", "window", "--json")
    assert "texts embedded" not in r.err

    # make it live: built already, nothing embedded; then back: nothing embedded either
    r = ok(kb(capsys, "chunkers", "use", "window", "--json"))
    assert json.loads(r.out)["texts_embedded"] == 0
    assert search_json(capsys, "sourdough cold proof") != before
    listing = json.loads(ok(kb(capsys, "chunkers", "list", "--json")).out)
    assert [c["live"] for c in listing["chunkings"]] == [True, False]
    assert listing["chunkings"][0]["name"] == "window"
    r = ok(kb(capsys, "chunkers", "use", "structure", "--json"))
    assert json.loads(r.out)["texts_embedded"] == 0
    assert search_json(capsys, "sourdough cold proof") == before

    # an edited note: the live chunking follows, the stored one is stale and says so
    f = notes / "sourdough.md"
    f.write_text(f.read_text() + "\n\n## Storage\n\nKeep the loaf in a linen bag.\n")
    r = ok(kb(capsys, "ingest", "--json"))
    assert json.loads(r.out)["stale_chunkings"] == {"window:size=128,overlap=32": 1}
    assert "stale" in ok(kb(capsys, "chunkers", "list")).out

    # drop it: the live one cannot go; its vectors stay cached until doctor --repair
    assert kb(capsys, "chunkers", "rm", "structure").code == 2
    ok(kb(capsys, "chunkers", "rm", "window"))
    status = json.loads(ok(kb(capsys, "status", "--json")).out)
    assert status["embedding_cache"]["unused"] > 0
    assert "no chunking uses" in ok(kb(capsys, "doctor", "--no-devices")).out  # a note, exit 0
    doctor = json.loads(ok(kb(capsys, "doctor", "--repair", "--no-devices", "--json")).out)
    assert any("no chunking uses" in line for line in doctor["repaired"])
    status = json.loads(ok(kb(capsys, "status", "--json")).out)
    assert status["embedding_cache"]["unused"] == 0
    assert [c["name"] for c in status["chunkings"]] == ["structure"]


def test_after_a_chunker_upgrade_one_new_folder_keeps_every_source_searchable(
    capsys: Cap, tmp_path: Path, kb_home: Path
) -> None:
    """A KB built by an older version of its chunker (an upgrade of kb), given one new
    folder: the other source is re-chunked in the same run (before, it dropped out of
    search), and the old chunking is reported as outdated, not stale, with the way to
    drop it."""
    notes, more = tmp_path / "notes", tmp_path / "more"
    shutil.copytree(FIXTURES / "demo" / "notes", notes)
    more.mkdir()
    (more / "garden.md").write_text("# Garden\n\nThe comfrey bed is cut back in June.\n")
    ok(kb(capsys, "ingest", str(notes), "-q"))
    ok(kb(capsys, "chunkers", "use", "window"))  # a second chunking, stored beside it
    ok(kb(capsys, "chunkers", "use", "structure"))
    with Store.open(kb_home) as store:  # as an older kb would have recorded them
        store.conn.execute("UPDATE chunkings SET version = '0'")
        store.conn.commit()
        n_old = store.count_chunks(chunking="all")
    r = ok(kb(capsys, "ingest", str(more), "--json"))
    out = json.loads(r.out)
    assert out["counts"]["added"] == 1
    assert out["counts"]["rechunked"] == len([f for f in notes.rglob("*") if f.is_file()])
    # both old chunkings are outdated (the window one too, though no new window chunking
    # exists): neither can be brought up to date, so neither is called stale
    assert out["stale_chunkings"] == {} and len(out["outdated_chunkings"]) == 2
    hits = search_json(capsys, "sourdough cold proof")["hits"]
    assert hits and "sourdough" in hits[0]["path"]  # type: ignore[index]
    assert "garden" in search_json(capsys, "comfrey")["hits"][0]["path"]  # type: ignore[index]
    r = ok(kb(capsys, "ingest", str(more)))
    assert "outdated" in r.err and "kb chunkers rm --outdated" in r.err
    assert "outdated: version 0" in ok(kb(capsys, "chunkers", "list")).out
    listing = json.loads(ok(kb(capsys, "chunkers", "list", "--json")).out)["chunkings"]
    assert [(c["live"], c["outdated"]) for c in listing] == [(True, False)] + [(False, True)] * 2
    assert kb(capsys, "chunkers", "rm").code == 2  # a SPEC or --outdated
    r = ok(kb(capsys, "chunkers", "rm", "--outdated", "--json"))
    assert sum(d["chunks_dropped"] for d in json.loads(r.out)["dropped"]) == n_old
    assert "no outdated chunking" in ok(kb(capsys, "chunkers", "rm", "--outdated")).out
    with Store.open(kb_home) as store:
        assert [c.version for c in chunkings.list_all(store)] != ["0"]
        assert len(chunkings.list_all(store)) == 1
