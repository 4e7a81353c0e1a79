"""kb's faiss ANN index (``ann_index = "faiss_ivf_sq8"``) on a real SQLite + LanceDB KB
with a tiny threshold: the file (build, header, atomic write, damage), the search leg
against the exact matrix (every list probed: equal hit for hit), stale detection
(chunks added or removed after the build are found or dropped, never missed or
returned), filters, the upkeep after ingest, ``kb doctor --repair`` and ``kb status``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kb.cli import app
from kb.search import Retriever, SearchOptions, ann_leg, faiss_leg, vector_cache
from kb.search.ann_leg import AnnOptions
from kb.store import Store, ann, ann_faiss
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending

KIND = "faiss_ivf_sq8"
#: every inverted list probed: the index finds what the exact matrix does
WIDE = AnnOptions(threshold=50, nprobes=4096, index=KIND)
EXACT = AnnOptions()


def _texts(doc: int, n: int) -> list[str]:
    return [f"w{doc}x{i} w{i % 11} w{(i * 7 + doc) % 17} topic{doc % 3} common" for i in range(n)]


@pytest.fixture(autouse=True)
def _fresh() -> None:
    faiss_leg.clear()
    vector_cache.clear_cache()


@pytest.fixture
def big(kb_home: Path) -> tuple[Store, BowEmbedder]:
    """Six documents of 50 chunks (300 in all), two of type ``txt``, one tagged."""
    store = Store.open(kb_home)
    emb = BowEmbedder()
    for d in range(6):
        tags = ["red"] if d == 4 else []
        add_doc(store, f"d{d}.md", _texts(d, 50), doc_type="txt" if d < 2 else "md", tags=tags)
    embed_pending(store, emb)
    yield store, emb  # type: ignore[misc]
    store.close()


def _hits(store: Store, emb: BowEmbedder, q: str, opts: SearchOptions, a: AnnOptions) -> list:
    r = Retriever(store, emb, ann=a)
    assert r.uses_ann() == (a.threshold > 0)
    return [(h.chunk_id, round(h.score, 5)) for h in r.search(q, opts).hits]


QUERIES = ("w3 w5 topic1", "w2x7 common", "w10 w4 w1x3")


def test_build_writes_one_file_with_its_header(big: tuple[Store, BowEmbedder]) -> None:
    store, _ = big
    built = ann.build_and_record(store, KIND)
    assert built is not None and built.index_type == "FAISS_IVF_SQ8"
    assert built.indexed_rows == 300
    assert ann.recorded(store)["type"] == "FAISS_IVF_SQ8"  # type: ignore[index]
    header, ids, docs, index = ann_faiss.load(ann_faiss.path(store.home))
    assert header["rows"] == index.ntotal == 300 and header["dim"] == BowEmbedder().dim
    assert header["nlist"] == ann_faiss.n_lists(300) == 7
    assert list(ids) == sorted(store.chunk_ids())
    assert header["fingerprint"] == list(vector_cache.fingerprint(store.conn))
    assert ann_faiss.is_current(store)
    assert not list(ann_faiss.path(store.home).parent.glob("*.tmp*"))


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_hits_equal_exact_when_every_list_is_probed(
    big: tuple[Store, BowEmbedder], mode: str
) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    for q in QUERIES:
        opts = SearchOptions(k=10, mode=mode, min_score=-1)
        assert _hits(store, emb, q, opts, WIDE) == _hits(store, emb, q, opts, EXACT)


def test_cosines_are_exact_without_the_vector_cache_file(big: tuple[Store, BowEmbedder]) -> None:
    """No current ``search-vectors.bin``: the found chunks are re-scored with vectors
    looked up in the embedding cache, and still equal the exact leg."""
    store, emb = big
    ann.build_and_record(store, KIND)
    vector_cache.cache_path(store.home).unlink(missing_ok=True)
    opts = SearchOptions(k=10, mode="vector", min_score=-1)
    got = Retriever(store, emb, ann=WIDE, vector_cache=False).search("w3 w5 topic1", opts)
    want = Retriever(store, emb, vector_cache=False).search("w3 w5 topic1", opts)
    assert faiss_leg.current(store)[1].exact is None  # type: ignore[index]
    assert [h.chunk_id for h in got.hits] == [h.chunk_id for h in want.hits]
    assert [h.scores["vector"] for h in got.hits] == pytest.approx(
        [h.scores["vector"] for h in want.hits], abs=1e-6
    )


def test_default_probes_keep_recall_high(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    found = total = 0
    for i in range(20):
        q = f"w{i % 11} w{i % 17} topic{i % 3}"
        opts = SearchOptions(k=10, mode="vector", min_score=-1)
        exact = {c for c, _ in _hits(store, emb, q, opts, EXACT)}
        approx = {c for c, _ in _hits(store, emb, q, opts, AnnOptions(50, index=KIND))}
        found, total = found + len(exact & approx), total + len(exact)
    assert found / total >= 0.9


@pytest.mark.parametrize("narrow", [True, False])
def test_filters_still_return_k_hits(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    """A narrow scope is ranked exactly; a wide one (EXACT_SCOPE forced to 0) is
    filtered from what the index returns, fetching more until ``k`` are in scope, even
    with a single list probed at first."""
    store, emb = big
    ann.build_and_record(store, KIND)
    if not narrow:
        monkeypatch.setattr(ann_leg, "EXACT_SCOPE", 0)
    one = AnnOptions(threshold=50, nprobes=1, index=KIND)
    for scope in ({"tags": ("red",)}, {"types": ("txt",)}, {"paths": ("d5.md",)}):
        opts = SearchOptions(k=12, mode="vector", min_score=-1, **scope)  # type: ignore[arg-type]
        for a in (WIDE, one):
            got = _hits(store, emb, "w3 topic1 common", opts, a)
            assert len(got) == 12
            if a is WIDE:
                assert got == _hits(store, emb, "w3 topic1 common", opts, EXACT)


def test_a_chunk_added_after_the_build_is_found(big: tuple[Store, BowEmbedder]) -> None:
    """Stale file (the upkeep did not run): the new chunks are searched exactly beside it."""
    store, emb = big
    ann.build_and_record(store, KIND)
    r = Retriever(store, emb, ann=WIDE)
    opts = SearchOptions(k=5, mode="vector", min_score=-1)
    assert r.search("zebra quagga okapi", opts).hits
    new_ids = add_doc(store, "late.md", ["zebra quagga okapi"] * 3)
    embed_pending(store, emb)
    assert not ann_faiss.is_current(store)
    top = r.search("zebra quagga okapi", opts).hits
    assert {h.chunk_id for h in top[:3]} == set(new_ids)
    assert _hits(store, emb, "w3 w5 topic1", opts, WIDE) == _hits(
        store, emb, "w3 w5 topic1", opts, EXACT
    )


def test_a_chunk_removed_after_the_build_is_never_returned(
    big: tuple[Store, BowEmbedder],
) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    opts = SearchOptions(k=10, mode="vector", min_score=-1)
    r = Retriever(store, emb, ann=WIDE)
    before = [h.chunk_id for h in r.search("w2x7 common", opts).hits]
    doc = store.conn.execute("SELECT document_id FROM chunks WHERE id = ?", (before[0],))
    store.delete_documents([int(doc.fetchone()[0])])
    after = [h.chunk_id for h in r.search("w2x7 common", opts).hits]
    live = set(store.chunk_ids())
    assert before[0] not in after and set(after) <= live and len(after) == 10
    assert _hits(store, emb, "w2x7 common", opts, WIDE) == _hits(
        store, emb, "w2x7 common", opts, EXACT
    )


def test_too_stale_an_index_is_not_used(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    monkeypatch.setattr(faiss_leg, "MAX_DELTA", 2)
    add_doc(store, "late.md", ["zebra quagga okapi"] * 3)
    embed_pending(store, emb)
    opts = SearchOptions(k=10, mode="vector", min_score=-1)
    assert _hits(store, emb, "zebra okapi", opts, AnnOptions(50, nprobes=1, index=KIND)) == (
        _hits(store, emb, "zebra okapi", opts, EXACT)
    )
    assert "the ANN index is out of date (3 chunks changed" in capsys.readouterr().err


def test_update_adds_and_removes_without_retraining(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    assert ann.maintain(store, 50, KIND) == "built the ANN index (300 vectors)"
    assert ann.maintain(store, 50, KIND) is None  # current: nothing to do
    new_ids = add_doc(store, "late.md", _texts(9, 30))
    embed_pending(store, emb)
    d0 = store.conn.execute("SELECT id FROM documents WHERE path LIKE '%d0.md'").fetchone()
    store.delete_documents([int(d0[0])])
    note = ann.maintain(store, 50, KIND)
    assert note == "added 30 vectors to and removed 50 vectors from the ANN index"
    header, ids, docs, index = ann_faiss.load(ann_faiss.path(store.home))
    assert header["rows"] == index.ntotal == 280 and header["trained_rows"] == 300
    assert list(ids) == sorted(store.chunk_ids()) and set(new_ids) <= set(ids.tolist())
    assert ann_faiss.is_current(store)
    assert ann.recorded(store)["rows"] == 280  # type: ignore[index]
    opts = SearchOptions(k=10, mode="hybrid", min_score=-1)
    for q in (*QUERIES, "w9x3 common"):
        assert _hits(store, emb, q, opts, WIDE) == _hits(store, emb, q, opts, EXACT)


def test_building_and_updating_report_their_steps(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build trains (one opaque step), then adds the vectors in runs that count;
    the in-place update and the keyword index build are steps too (kb.progress)."""
    from kb import progress
    from kb.store import keyword_index

    store, emb = big
    monkeypatch.setattr(ann_faiss, "ADD_RUN", 128)  # 300 vectors: runs of 128, 128, 44
    seen: list[tuple[str, str, float, float | None]] = []

    class Sink:
        def step_started(self, st: progress.Step) -> None:
            seen.append(("start", st.label, st.done, st.total))

        def step_advanced(self, st: progress.Step) -> None:
            seen.append(("advance", st.label, st.done, st.total))

        def step_done(self, st: progress.Step) -> None:
            seen.append(("done", st.label, st.done, st.total))

    with progress.reporting(Sink()):
        ann.maintain(store, 50, KIND)
    adding = "adding vectors to the vector index"
    reading = "reading the stored vectors"
    assert seen == [
        ("start", reading, 0, 300),
        ("advance", reading, 300, 300),
        ("done", reading, 300, 300),
        ("start", "training the vector index (7 lists)", 0, None),
        ("done", "training the vector index (7 lists)", 0, None),
        ("start", adding, 0, 300),
        ("advance", adding, 128, 300),
        ("advance", adding, 256, 300),
        ("advance", adding, 300, 300),
        ("done", adding, 300, 300),
    ]
    opts = SearchOptions(k=10, mode="hybrid", min_score=-1)
    for q in QUERIES:  # added in runs, the index finds what the exact matrix does
        assert _hits(store, emb, q, opts, WIDE) == _hits(store, emb, q, opts, EXACT)
    add_doc(store, "late.md", _texts(9, 30))
    embed_pending(store, emb)
    seen.clear()
    with progress.reporting(Sink()):
        assert ann.maintain(store, 50, KIND) == "added 30 vectors to the ANN index"
        keyword_index.build(store)
    labels = [(e, label) for e, label, _, _ in seen if e != "advance"]
    assert labels[:2] == [
        ("start", "updating the vector index"),
        ("done", "updating the vector index"),
    ]
    assert ("done", "building the keyword index", 330, 330) in seen


def test_twice_the_trained_rows_retrains(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    ann.maintain(store, 50, KIND)
    for d in range(10, 17):
        add_doc(store, f"n{d}.md", _texts(d, 50))
    embed_pending(store, emb)
    assert ann.maintain(store, 50, KIND) == "built the ANN index (650 vectors)"
    assert ann_faiss.read_header(ann_faiss.path(store.home))["trained_rows"] == 650  # type: ignore[index]


def test_a_failed_write_leaves_the_old_file(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written under a temporary name and renamed: a crash mid-write (a full disk here)
    leaves the previous file whole and no temporary behind."""
    store, emb = big
    ann.build_and_record(store, KIND)
    p = ann_faiss.path(store.home)
    before = p.read_bytes()
    add_doc(store, "late.md", _texts(9, 30))
    embed_pending(store, emb)
    import faiss

    def full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(faiss, "write_index", full)
    with pytest.raises(OSError):
        ann_faiss.maintain(store)
    assert p.read_bytes() == before and not list(p.parent.glob("*.tmp*"))


def test_a_damaged_file_is_not_used(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    p = ann_faiss.path(store.home)
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    with pytest.raises(ValueError):
        ann_faiss.load(p)
    opts = SearchOptions(k=10, mode="vector", min_score=-1)
    assert _hits(store, emb, "w3 w5 topic1", opts, WIDE) == _hits(
        store, emb, "w3 w5 topic1", opts, EXACT
    )
    from kb.store import doctor

    report = doctor.check(store)  # reads the whole file, not only its header
    assert report.ann_index_stale
    assert doctor.repair(store, report).repaired == ["rebuilt the ANN index (300 vectors)"]
    assert ann_faiss.load(p)[0]["rows"] == 300


def test_fingerprint_equals_the_vector_caches(big: tuple[Store, BowEmbedder]) -> None:
    """The search compares the vector cache file with the index's fingerprint: both
    read one snapshot from kb.store.embedded, and it follows what is embedded."""
    from kb.store import embedded

    store, _ = big
    assert vector_cache.fingerprint is embedded.fingerprint
    assert ann_faiss.fingerprint(store.conn) == list(vector_cache.fingerprint(store.conn))
    fp, rows = ann_faiss.live_rows(store.conn)
    fp_raw, raw = embedded.embedded_rows(store.conn)
    assert (tuple(fp), rows) == (fp_raw, [tuple(r) for r in raw])
    assert len(rows) == fp[0] == 300 and [r[0] for r in rows] == sorted(store.chunk_ids())
    gone = rows[7][0]
    with store.tx() as c:
        c.execute("UPDATE chunks SET embedding_status = 'pending' WHERE id = ?", (gone,))
    fp2, rows2 = embedded.embedded_rows(store.conn)
    assert fp2[0] == 299 and fp2[2] == fp[2] - gone and gone not in {r[0] for r in rows2}
    assert fp2 == vector_cache.fingerprint(store.conn) and list(fp2) == ann_faiss.fingerprint(
        store.conn
    )
    other = embedded.fingerprint(store.conn, chunking_id=fp[-1] + 1)  # a chunking of none
    assert other == (0, 0, 0, 0, fp[4], fp[-1] + 1)


def test_keyword_index_leg_uses_the_exact_vectors(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past both thresholds the keyword candidates get their exact cosines; same
    hits, scores and cosines as the exact vector leg with the same keyword leg."""
    from kb.store import keyword_index

    store, emb = big
    ann.build_and_record(store, KIND)
    keyword_index.build(store)
    opts = SearchOptions(k=10, mode="hybrid", min_score=-1, candidates=30)
    for q in (*QUERIES, "w4x9"):
        a = Retriever(store, emb, ann=WIDE, keyword_threshold=50)
        b = Retriever(store, emb, keyword_threshold=50)
        assert a.uses_ann() and a.uses_keyword_index()
        ha, hb = a.search(q, opts).hits, b.search(q, opts).hits
        assert [h.chunk_id for h in ha] == [h.chunk_id for h in hb]
        for x, y in zip(ha, hb, strict=True):
            assert x.scores == pytest.approx(y.scores)


def test_doctor_reports_and_repairs_a_stale_index(big: tuple[Store, BowEmbedder]) -> None:
    from kb.store import doctor

    store, emb = big
    ann.build_and_record(store, KIND)
    assert not doctor.check(store).ann_index_stale
    add_doc(store, "late.md", _texts(9, 30))
    embed_pending(store, emb)
    report = doctor.check(store)
    assert report.ann_index_stale and report.to_dict()["ann_index_stale"]
    doctor.repair(store, report)
    assert "rebuilt the ANN index (330 vectors)" in report.repaired
    assert ann_faiss.is_current(store) and not doctor.check(store).ann_index_stale
    ann_faiss.path(store.home).unlink()  # a lost file is stale too
    assert doctor.check(store).ann_index_stale


def test_cli_reindex_status_and_search(big: tuple[Store, BowEmbedder]) -> None:
    store, _ = big
    store.close()
    Path(os.environ["KB_CONFIG"]).write_text(
        f'[search]\nann_threshold = 50\nann_index = "{KIND}"\n', encoding="utf-8"
    )
    runner = CliRunner()
    r = runner.invoke(app, ["reindex", "--ann"])
    assert r.exit_code == 0, r.output
    assert "built the ANN index FAISS_IVF_SQ8 over 300 vectors" in r.output
    out = runner.invoke(app, ["status"]).output
    assert "vector search: ANN index FAISS_IVF_SQ8 (300 chunks, built" in out


def test_ingest_past_the_threshold_builds_then_extends(kb_home: Path, tmp_path: Path) -> None:
    """The real ingest pipeline with the default ``ann_index``: the run that crosses the
    threshold builds the file, the next one adds to it, and the retriever uses it."""
    from dataclasses import replace

    from ingest.pipeline import ingest_paths
    from kb.backends.embedder import embedding_model_id
    from kb.config import load_settings
    from kb.rag.compose import make_retriever

    base = load_settings()
    assert base.search.ann_index == KIND  # the default
    settings = replace(base, search=replace(base.search, ann_threshold=256))
    root = tmp_path / "corpus"
    root.mkdir()
    for i in range(300):
        (root / f"n{i:03d}.md").write_text(" ".join(_texts(i, 1)) + "\n", encoding="utf-8")
    emb = BowEmbedder(embedding_model_id(settings.embedding))
    with Store.open(kb_home) as store:
        report = ingest_paths(store, settings, [root], embedder=emb)
        assert report.ann_index == "built the ANN index (300 vectors)"
        for i in range(300, 310):
            (root / f"n{i:03d}.md").write_text(" ".join(_texts(i, 1)) + "\n", encoding="utf-8")
        report = ingest_paths(store, settings, [root], embedder=emb)
        assert report.ann_index == "added 10 vectors to the ANN index"
        assert ann_faiss.is_current(store)
        retriever = make_retriever(settings, store)
        retriever._embedder = emb
        assert retriever.uses_ann() and retriever._faiss_ann()
        hits = retriever.search("w301x0 topic1", SearchOptions(k=3, min_score=-1)).hits
        assert hits[0].path.endswith("n301.md")


def test_exact_vectors_are_read_from_the_vector_cache_file(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    ann.build_and_record(store, KIND)
    vector_cache.write_for_readers(store)
    v, d = faiss_leg.current(store)  # type: ignore[misc]
    assert d.usable and isinstance(d.exact, vector_cache.RowReader) and len(d.exact) == 300
    ids, vecs = d.exact.vectors(np.array([v.ids[3], 10**9, v.ids[0]]))
    assert ids.tolist() == [v.ids[3], v.ids[0]]  # an id the file lacks is left out
    matrix = vector_cache.get_matrix(store)
    assert np.array_equal(vecs, matrix.vectors[matrix.rows_for(ids)])
    q = emb.embed_query("w3 w5 topic1")
    got = faiss_leg.top(store, q / np.linalg.norm(q), 5, None, 4096, 20)
    assert got is not None and len(got) == 5
    assert got == sorted(got, key=lambda p: (-p[1], p[0]))
