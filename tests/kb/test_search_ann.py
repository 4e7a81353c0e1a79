"""The ANN vector leg on a real SQLite + LanceDB KB with a tiny threshold.

With ``nprobes`` covering every IVF partition and a refine factor that re-scores every
row, IVF-PQ returns exactly what the exact matrix does, so the ANN path can be compared
hit for hit; the CLI tests check ``kb reindex --ann``, ``kb status`` and the ingest
upkeep (:func:`kb.store.ann.maintain`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kb.cli import app
from kb.search import Retriever, SearchOptions, ann_leg
from kb.search.ann_leg import AnnOptions, describe, describe_line
from kb.store import Store, ann
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending

EVERYTHING = AnnOptions(threshold=50, nprobes=1000, refine_factor=1000)


def _texts(doc: int, n: int) -> list[str]:
    return [f"w{doc}x{i} w{i % 11} w{(i * 7 + doc) % 17} topic{doc % 3} common" for i in range(n)]


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


def _ids(store: Store, emb: BowEmbedder, q: str, opts: SearchOptions, a: AnnOptions) -> list:
    return [
        (h.chunk_id, round(h.score, 5)) for h in Retriever(store, emb, ann=a).search(q, opts).hits
    ]


def test_ann_is_used_only_above_the_threshold_with_an_index(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    assert not Retriever(store, emb, ann=EVERYTHING).uses_ann()  # no index yet
    built = ann.build_and_record(store)
    assert built is not None and built.index_type == "IVF_PQ" and built.indexed_rows == 300
    assert Retriever(store, emb, ann=EVERYTHING).uses_ann()
    assert not Retriever(store, emb, ann=AnnOptions(threshold=301)).uses_ann()
    assert not Retriever(store, emb, ann=AnnOptions(threshold=0)).uses_ann()
    assert not Retriever(store, emb).uses_ann()  # the default never uses it


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_ann_hits_equal_exact_when_every_partition_is_probed(
    big: tuple[Store, BowEmbedder], mode: str
) -> None:
    store, emb = big
    ann.build_and_record(store)
    for q in ("w3 w5 topic1", "w2x7 common", "w10 w4 w1x3"):
        opts = SearchOptions(k=10, mode=mode, min_score=-1)
        exact = _ids(store, emb, q, opts, AnnOptions())
        assert _ids(store, emb, q, opts, EVERYTHING) == exact


def test_default_probes_keep_recall_high(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    ann.build_and_record(store)
    found = total = 0
    for i in range(20):
        q = f"w{i % 11} w{i % 17} topic{i % 3}"
        opts = SearchOptions(k=10, mode="vector", min_score=-1)
        exact = {c for c, _ in _ids(store, emb, q, opts, AnnOptions())}
        approx = {c for c, _ in _ids(store, emb, q, opts, AnnOptions(threshold=50))}
        found, total = found + len(exact & approx), total + len(exact)
    assert found / total >= 0.9


@pytest.mark.parametrize("narrow", [True, False])
def test_filters_still_return_k_hits(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch, narrow: bool
) -> None:
    """A narrow scope is ranked exactly; a wide one (EXACT_SCOPE forced to 0) over-fetches
    from the index until ``k`` in-scope chunks are found."""
    store, emb = big
    ann.build_and_record(store)
    if not narrow:
        monkeypatch.setattr(ann_leg, "EXACT_SCOPE", 0)
    a = AnnOptions(threshold=50, nprobes=1000, refine_factor=1000)
    for scope in ({"tags": ("red",)}, {"types": ("txt",)}, {"paths": ("d5.md",)}):
        opts = SearchOptions(k=12, mode="vector", min_score=-1, **scope)  # type: ignore[arg-type]
        got = Retriever(store, emb, ann=a).search("w3 topic1 common", opts).hits
        assert len(got) == 12
        assert [h.chunk_id for h in got] == [
            c for c, _ in _ids(store, emb, "w3 topic1 common", opts, AnnOptions())
        ]


def test_maintain_builds_then_extends(big: tuple[Store, BowEmbedder]) -> None:
    store, emb = big
    assert ann.maintain(store, 0) is None and ann.maintain(store, 1000) is None
    assert ann.recorded(store) is None
    assert ann.maintain(store, 50) == "built the ANN index (300 vectors)"
    add_doc(store, "late.md", _texts(9, 30))
    embed_pending(store, emb)
    assert ann.maintain(store, 50) == "added 30 vectors to the ANN index"
    info = ann.info(store.vectors)
    assert info is not None and info.unindexed_rows == 0 and info.indexed_rows == 330
    vs = describe(store, 50)
    assert vs["method"] == "ann" and vs["chunks"] == 330
    assert describe_line(vs).startswith("vector search: ANN index IVF_PQ (330 chunks, built ")
    assert describe_line(describe(store, 0)) == "vector search: exact (330 chunks)"


def test_a_long_lived_reader_sees_what_another_process_adds(
    big: tuple[Store, BowEmbedder], kb_home: Path
) -> None:
    """A server's Retriever (its own Store, as in another process) searches the
    vectors and index extension an ingest wrote after its first search, not the
    LanceDB version it opened."""
    writer, emb = big
    ann.build_and_record(writer)
    reader = Store.open(kb_home)
    try:
        r = Retriever(reader, emb, ann=EVERYTHING)
        opts = SearchOptions(k=5, mode="vector", min_score=-1)
        assert r.uses_ann() and r.search("w2x7 common", opts).hits  # opens the table
        new_ids = add_doc(writer, "late.md", ["zebra quagga okapi"] * 3)
        embed_pending(writer, emb)
        assert ann.maintain(writer, 50) == "added 3 vectors to the ANN index"
        top = r.search("zebra quagga okapi", opts).hits
        assert top and top[0].chunk_id in new_ids
    finally:
        reader.close()


def test_keyword_index_leg_prefetches_vectors_for_the_same_hits(
    big: tuple[Store, BowEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past both thresholds the keyword leg (on its worker thread) also fetches its
    candidates' vectors; hits, scores and cosines equal the one-thread path."""
    from kb.search import retriever as retriever_mod
    from kb.store import keyword_index

    store, emb = big
    ann.build_and_record(store)
    keyword_index.build(store)
    opts = SearchOptions(k=10, mode="hybrid", min_score=-1, candidates=30)

    def run() -> list[list[tuple[int, float, dict[str, float]]]]:
        r = Retriever(store, emb, ann=EVERYTHING, keyword_threshold=50)
        assert r.uses_ann() and r.uses_keyword_index()
        out = []
        for q in ("w3 w5 topic1", "w2x7 common", "w10 w4 w1x3", "w4x9"):
            hits = r.search(q, opts).hits
            out.append([(h.chunk_id, round(h.score, 5), h.scores) for h in hits])
        return out

    fetched: list[int] = []
    real = retriever_mod.keyword_vectors

    def spy(store: Store, model: str, ids: list[int]) -> dict[int, np.ndarray]:
        fetched.append(len(ids))
        return real(store, model, ids)

    monkeypatch.setattr(retriever_mod, "keyword_vectors", spy)
    threaded = run()
    assert len(fetched) == 4 and all(n > 0 for n in fetched)
    monkeypatch.setattr(retriever_mod.Retriever, "_index_leg_threadable", lambda self: False)
    assert run() == threaded
    assert any("keyword" in s and "vector" in s for hits in threaded for _, _, s in hits)


def test_cli_reindex_ann_and_status(big: tuple[Store, BowEmbedder]) -> None:
    store, _ = big
    store.close()
    Path(os.environ["KB_CONFIG"]).write_text(
        '[search]\nann_threshold = 50\nann_index = "ivf_pq"\n', encoding="utf-8"
    )
    runner = CliRunner()
    r = runner.invoke(app, ["status"])
    assert r.exit_code == 0, r.output
    assert (
        "vector search: exact (300 chunks; over ann_threshold 50: `kb reindex --ann`)" in r.output
    )
    r = runner.invoke(app, ["reindex", "--ann"])
    assert r.exit_code == 0, r.output
    assert "built the ANN index IVF_PQ over 300 vectors" in r.output
    r = runner.invoke(app, ["status", "--json"])
    assert '"method": "ann"' in r.output
    assert (
        "vector search: ANN index IVF_PQ (300 chunks, built"
        in runner.invoke(app, ["status"]).output
    )


def test_exact_scores_are_unit_norm_cosines(big: tuple[Store, BowEmbedder]) -> None:
    """The cosines the index reports are the stored vectors' exact dot products."""
    store, emb = big
    ann.build_and_record(store)
    q = emb.embed_query("w1 w2 topic0")
    found = ann.search(store.vectors, emb.model_id, q, 5, 1000, 1000)
    vecs = ann.vectors_of(store.vectors, emb.model_id, [h for h, _ in found])
    for h, s in found:
        assert s == pytest.approx(float(np.dot(vecs[h], q)), abs=1e-5)


def test_bad_ann_settings_are_config_errors() -> None:
    from kb.errors import ConfigError

    with pytest.raises(ConfigError, match=r"ann_nprobes = 0: must be at least 1"):
        AnnOptions(threshold=10, nprobes=0)
    with pytest.raises(ConfigError, match=r"ann_threshold = -1"):
        AnnOptions(threshold=-1)


def test_too_few_vectors_get_no_index(kb_home: Path) -> None:
    store = Store.open(kb_home)
    add_doc(store, "a.md", _texts(0, 20))
    embed_pending(store, BowEmbedder())
    assert ann.build_and_record(store) is None and ann.maintain(store, 10) is None
    assert describe(store, 10)["method"] == "exact"
    store.close()


def test_ingest_past_the_threshold_builds_then_extends_the_index(
    kb_home: Path, tmp_path: Path
) -> None:
    """The real ingest pipeline (LanceDB's IVF_PQ; the default faiss index has its own
    test in test_search_faiss.py): the run that crosses the threshold builds the index,
    the next one folds its new vectors in, and kb search's retriever then uses it."""
    from dataclasses import replace

    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.rag.compose import make_retriever

    base = load_settings()
    settings = replace(base, search=replace(base.search, ann_threshold=256, ann_index="ivf_pq"))
    root = tmp_path / "corpus"
    root.mkdir()
    for i in range(300):
        (root / f"n{i:03d}.md").write_text(" ".join(_texts(i, 1)) + "\n", encoding="utf-8")
    from kb.backends.embedder import embedding_model_id

    emb = BowEmbedder(embedding_model_id(settings.embedding))  # stands in for the model
    with Store.open(kb_home) as store:
        report = ingest_paths(store, settings, [root], embedder=emb)
        assert report.to_dict()["ann_index"] == "built the ANN index (300 vectors)"
        for i in range(300, 310):
            (root / f"n{i:03d}.md").write_text(" ".join(_texts(i, 1)) + "\n", encoding="utf-8")
        report = ingest_paths(store, settings, [root], embedder=emb)
        assert report.ann_index == "added 10 vectors to the ANN index"
        retriever = make_retriever(settings, store)
        retriever._embedder = emb
        assert retriever.uses_ann()
        hits = retriever.search("w301x0 topic1", SearchOptions(k=3, min_score=-1)).hits
        assert hits[0].path.endswith("n301.md")


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_hnsw_index_hits_equal_exact_with_a_wide_search(
    big: tuple[Store, BowEmbedder], mode: str
) -> None:
    """``ann_index = "ivf_hnsw_sq"``: recorded as such, every partition probed, cosines
    re-scored with the full vectors; with ``ef`` over the row count it is exact."""
    store, emb = big
    built = ann.build_and_record(store, "ivf_hnsw_sq")
    assert built is not None and built.index_type == "IVF_HNSW_SQ"
    assert ann.recorded(store)["type"] == "IVF_HNSW_SQ"  # type: ignore[index]
    wide = AnnOptions(threshold=50, nprobes=1, refine_factor=1, index="ivf_hnsw_sq", ef=400)
    for q in ("w3 w5 topic1", "w2x7 common", "w10 w4 w1x3"):
        opts = SearchOptions(k=10, mode=mode, min_score=-1)
        assert _ids(store, emb, q, opts, wide) == _ids(store, emb, q, opts, AnnOptions())


def test_maintain_rebuilds_an_index_of_another_kind(big: tuple[Store, BowEmbedder]) -> None:
    store, _ = big
    assert ann.maintain(store, 50) == "built the ANN index (300 vectors)"
    assert ann.maintain(store, 50, "ivf_hnsw_sq") == "built the ANN index (300 vectors)"
    assert ann.recorded(store)["type"] == "IVF_HNSW_SQ"  # type: ignore[index]
    assert ann.maintain(store, 50, "ivf_hnsw_sq") is None


def test_unknown_ann_index_is_a_config_error() -> None:
    from kb.errors import ConfigError

    with pytest.raises(ConfigError, match=r"ann_index = 'hnsw': expected one of ivf_pq"):
        AnnOptions(index="hnsw")
