"""A chunker change is tried before it goes live (real SQLite, LanceDB and embedding model).

Before, ``kb ingest --chunker raises.py#chunk notes`` switched the live chunker first:
every document failed, ``kb search`` said the KB had no chunks and ``kb doctor`` said it
was consistent. Now the new chunking is built beside the live one, and a chunker that
fails on any document is never made live: one line per failure, one line saying what
stayed, exit 1, and search answers exactly as before.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.store import Store, chunkings
from tests.cli.clirun import Result, kb
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow

Cap = pytest.CaptureFixture[str]

RAISES = """
def chunk(text):
    if "sourdough" in text.lower():
        raise ValueError("cannot split this")
    return [(0, len(text))]
"""


def ok(r: Result) -> Result:
    assert r.code == 0, (r.out, r.err)
    return r


@pytest.fixture
def notes(tmp_path: Path, capsys: Cap, kb_home: Path) -> Path:
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "demo" / "notes", notes)
    ok(kb(capsys, "ingest", str(notes), "-q"))
    return notes


def state(capsys: Cap, kb_home: Path) -> tuple[object, ...]:
    hits = json.loads(ok(kb(capsys, "search", "sourdough cold proof", "--json")).out)["hits"]
    with Store.open(kb_home, create=False) as store:
        stored = [(c.spec, c.live, c.chunks) for c in chunkings.list_all(store)]
        recorded = store.meta_get("chunker")
    return [h["chunk_id"] for h in hits], stored, recorded


def test_a_failing_chunker_never_goes_live(
    capsys: Cap, tmp_path: Path, kb_home: Path, notes: Path
) -> None:
    plugin = tmp_path / "raises.py"
    plugin.write_text(RAISES, encoding="utf-8")
    spec = f"{plugin}#chunk"
    before = state(capsys, kb_home)
    with Store.open(kb_home) as store:
        live = chunkings.get(store, chunkings.live_id(store) or 0).spec
        total = store.conn.execute("SELECT count(*) FROM documents").fetchone()[0]

    r = kb(capsys, "ingest", "--chunker", spec, str(notes))
    assert r.code == 1
    assert r.err.splitlines() == [
        f"kb: trying the chunker {spec} on the indexed documents before it goes live",
        f"kb: notes/sourdough.md: chunker {plugin.resolve()}#chunk: raised ValueError: "
        "cannot split this",
        f"kb: chunker {spec} failed on 1 of {total} documents (listed above), so it was not "
        f"made live: search still uses {live} and nothing else changed; fix the chunker "
        f"(`kb chunkers check {spec} PATH` shows each failure) and run again",
    ]
    assert state(capsys, kb_home) == before  # same hits, same chunkings, same chunker

    use = kb(capsys, "chunkers", "use", spec)
    assert use.code == 1 and "so it was not made live" in use.err.splitlines()[-1]
    assert state(capsys, kb_home) == before
    doctor = kb(capsys, "doctor", "--no-devices")
    assert doctor.code == 0, doctor.out  # nothing pending: the try embedded nothing


def test_a_chunker_that_works_is_tried_then_made_live(
    capsys: Cap, kb_home: Path, notes: Path
) -> None:
    r = ok(kb(capsys, "ingest", "--chunker", "window", str(notes), "--json"))
    assert "trying the chunker window" in r.err
    assert "chunker changed from structure" in r.err
    counts = json.loads(r.out)["counts"]  # the try's work is reported as the ingest's
    assert counts["rechunked"] == len(list(notes.iterdir())) and counts["unchanged"] == 0
    with Store.open(kb_home) as store:
        assert chunkings.get(store, chunkings.live_id(store) or 0).name == "window"
    again = ok(kb(capsys, "ingest", "--chunker", "window"))
    assert "trying" not in again.err  # the live chunking: nothing to try
