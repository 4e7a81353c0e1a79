"""Retriever on real SQLite + LanceDB with a deterministic fake embedder (unit level).

The fake embeds a text as the normalised sum of one fixed random vector per word, so
texts sharing words are similar and the expected cosines can be computed here.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from kb.backends.embedder import Embedder
from kb.errors import EmbeddingMismatchError, EmptyStoreError, UsageError
from kb.search import Retriever, SearchOptions
from kb.search.vector_cache import cache_path, clear_cache, get_matrix
from kb.store import Store
from kb.store.embeddings import add_for_chunks
from kb.store.sqlite import EmbeddingModelInfo
from kb.types import ChunkDraft, ChunkerInfo, Span

DIM = 32


class BowEmbedder(Embedder):
    def __init__(self, model_id: str = "fake:bow") -> None:
        self.model_id = model_id
        self.dim = DIM
        self.queries = 0

    def _word(self, w: str) -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(w.encode()))
        return rng.standard_normal(DIM).astype(np.float32)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i] += self._word(w)
            n = np.linalg.norm(out[i])
            out[i] = (
                out[i] / n if n else self._word("<empty>") / np.linalg.norm(self._word("<empty>"))
            )
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.queries += 1
        return self.embed_batch([text])[0]


def add_doc(
    store: Store, path: str, texts: list[str], doc_type: str = "md", tags: Sequence[str] = ()
) -> list[int]:
    drafts = [
        ChunkDraft(t, ("Doc", f"Part {i}"), Span(line_start=i * 3 + 1, line_end=i * 3 + 2), 0, 1, 5)
        for i, t in enumerate(texts)
    ]
    doc = store.save_document(
        root="/r",
        path=path,
        doc_type=doc_type,
        content_hash=path + str(texts),
        size=1,
        mtime=0.0,
        chunks=drafts,
        chunker=ChunkerInfo("t", "1", {}),
        tags=list(tags),
    )
    return [
        int(r[0])
        for r in store.conn.execute(
            "SELECT id FROM chunks WHERE document_id = ? ORDER BY ord", (doc,)
        )
    ]


def embed_pending(store: Store, emb: BowEmbedder) -> dict[int, str]:
    """What the ingest pipeline does: vectors first, then mark embedded, then the model.
    Returns the text each chunk was embedded from (the store adds the heading path)."""
    done: dict[int, str] = {}
    store.set_embedding_model(EmbeddingModelInfo(emb.model_id, emb.dim))
    for batch in store.iter_pending(64):
        ids = [i for i, _, _ in batch]
        add_for_chunks(store, ids, emb.embed_batch([t for _, t, _ in batch]))
        store.mark_embedded(ids)
        done.update((i, t) for i, t, _ in batch)
    return done


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(tmp_path / "kb")
    yield s  # type: ignore[misc]
    s.close()


def test_empty_query_and_empty_store(store: Store) -> None:
    r = Retriever(store, BowEmbedder())
    with pytest.raises(EmptyStoreError, match="kb ingest"):
        r.search("anything", SearchOptions())
    add_doc(store, "a.md", ["hello world"])
    for q in ("", "   \n"):
        with pytest.raises(UsageError, match="empty query"):
            r.search(q, SearchOptions())


def test_mismatched_model_is_refused(store: Store) -> None:
    add_doc(store, "a.md", ["hello world"])
    embed_pending(store, BowEmbedder())
    with pytest.raises(EmbeddingMismatchError, match="kb reindex"):
        Retriever(store, BowEmbedder("fake:other")).search("hello", SearchOptions())


def test_keyword_mode_never_loads_the_embedder(store: Store) -> None:
    add_doc(store, "a.md", ["hello world", "goodbye moon"])

    def factory() -> BowEmbedder:
        raise AssertionError("keyword mode must not load the embedding model")

    res = Retriever(store, factory).search("moon", SearchOptions(mode="keyword", min_score=0.9))
    assert [h.text for h in res.hits] == ["goodbye moon"]  # min_score does not apply
    assert res.hits[0].ranks == {"keyword": 1} and set(res.hits[0].scores) == {"keyword"}
    assert res.hits[0].score == res.hits[0].scores["keyword"] > 0
    assert set(res.timings) == {"embed", "vector", "keyword", "fuse", "rerank", "total"}


def test_vector_mode_is_exact_cosine(store: Store) -> None:
    emb = BowEmbedder()
    ids = add_doc(store, "a.md", [f"w{i} w{i + 1} w{i * 7 % 13} common" for i in range(40)])
    embedded = embed_pending(store, emb)
    q = "w3 w4 w21"
    res = Retriever(store, emb).search(q, SearchOptions(k=5, mode="vector", min_score=-1))
    sims = emb.embed_batch([embedded[i] for i in ids]) @ emb.embed_query(q)
    expected = [ids[i] for i in np.argsort(-sims)[:5]]
    assert [h.chunk_id for h in res.hits] == expected
    for h in res.hits:
        assert h.score == pytest.approx(float(sims[ids.index(h.chunk_id)]), abs=1e-5)
        assert h.scores == {"vector": h.score}
        assert h.locator.path == "a.md" and h.locator.span.line_start is not None


def test_hybrid_scores_are_rrf_of_the_reported_ranks(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", [f"alpha beta w{i}" for i in range(10)] + ["zebra stripes"])
    embed_pending(store, emb)
    opts = SearchOptions(
        k=6, fusion="rrf", rrf_k=60, vector_weight=1.0, keyword_weight=2.0, min_score=-1
    )
    res = Retriever(store, emb).search("zebra alpha", opts)
    assert res.mode == "hybrid" and len(res.hits) == 6
    w = {"vector": 1.0, "keyword": 2.0}
    for h in res.hits:
        assert h.score == pytest.approx(sum(w[n] / (60 + r) for n, r in h.ranks.items()))
        assert h.scores["rrf"] == h.score
        assert "vector" in h.scores  # the cosine is reported for keyword-only chunks too
    assert [h.score for h in res.hits] == sorted((h.score for h in res.hits), reverse=True)
    zebra = next(h for h in res.hits if h.text == "zebra stripes")
    assert zebra.ranks["keyword"] == 1  # bm25: the rarest term wins the keyword leg


def test_hybrid_scores_are_the_convex_combination_of_normalised_scores(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", [f"alpha beta w{i}" for i in range(10)] + ["zebra stripes"])
    embed_pending(store, emb)
    opts = SearchOptions(k=8, vector_weight=1.0, keyword_weight=3.0, min_score=-1)
    assert opts.fusion == "score"  # the default
    r = Retriever(store, emb)
    res = r.search("zebra alpha", opts)
    best_bm25 = r.search("zebra alpha", SearchOptions(mode="keyword")).hits[0].score
    assert res.best_cosine is not None and res.best_cosine > 0
    for h in res.hits:
        v = max(h.scores["vector"], 0.0) / res.best_cosine
        b = h.scores.get("keyword", 0.0) / best_bm25
        assert h.score == pytest.approx((1.0 * v + 3.0 * b) / 4.0)
        assert h.scores["score"] == h.score
    assert [h.score for h in res.hits] == sorted((h.score for h in res.hits), reverse=True)
    # the keyword leg's first chunk gets b = 1: with weight 3 of 4 it leads
    assert res.hits[0].ranks["keyword"] == 1 and res.hits[0].score >= 0.75


def test_filters_apply_before_top_k_in_both_legs(store: Store) -> None:
    emb = BowEmbedder()
    # 30 strong matches outside the scope, 3 weak ones inside it
    add_doc(store, "a/many.md", [f"pump gasket seal {i}" for i in range(30)])
    inside = add_doc(store, "b/few.txt", ["pump manual", "pump warranty", "pump colour"], "txt")
    embed_pending(store, emb)
    for mode in ("vector", "keyword", "hybrid"):
        opts = SearchOptions(k=3, candidates=5, mode=mode, paths=("b/",), min_score=-1)
        res = Retriever(store, emb).search("pump gasket seal", opts)
        assert sorted(h.chunk_id for h in res.hits) == inside, mode
        opts = SearchOptions(k=3, candidates=5, mode=mode, types=("txt",), min_score=-1)
        assert len(Retriever(store, emb).search("pump gasket seal", opts).hits) == 3


def test_tag_filter(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", ["garden pump notes"], tags=["home"])
    work = add_doc(store, "b.md", ["office pump notes"], tags=["Work"])
    embed_pending(store, emb)
    res = Retriever(store, emb).search("pump", SearchOptions(tags=("work",), min_score=-1))
    assert [h.chunk_id for h in res.hits] == work and res.hits[0].tags == ["Work"]


def test_min_score_filters_vector_mode_only_and_drives_the_refusal(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "filler.md", [f"unrelated filler text {i}" for i in range(6)])
    ids = add_doc(store, "a.md", ["red apple pie", "red car", "blue whale song"])
    embedded = embed_pending(store, emb)
    pending = add_doc(store, "p.md", ["red pending chunk"])  # no vector yet
    q = "red apple pie"
    cos = emb.embed_batch([embedded[i] for i in ids]) @ emb.embed_query(q)
    assert cos[0] > cos[1] > cos[2]
    r = Retriever(store, emb)
    cut = float((cos[0] + cos[1]) / 2)  # between the best and the second chunk
    # vector mode: the cosine is a hit's only evidence, so the threshold cuts
    res = r.search(q, SearchOptions(mode="vector", min_score=cut))
    assert [h.chunk_id for h in res.hits] == [ids[0]]
    # hybrid mode: the same threshold hides nothing; the keyword-only, vector-less
    # chunk is a hit too ("red" matches it)
    res = r.search(q, SearchOptions(mode="hybrid", min_score=cut, k=10))
    assert res.hits[0].chunk_id == ids[0]
    assert {ids[1], pending[0]} <= {h.chunk_id for h in res.hits}
    no_vec = next(h for h in res.hits if h.chunk_id == pending[0])
    assert "vector" not in no_vec.scores and set(no_vec.ranks) == {"keyword"}
    # the refusal decision reads the best cosine of any chunk
    assert res.best_cosine == pytest.approx(float(cos[0]), abs=1e-5)
    assert res.has_evidence(cut) and res.has_evidence(-1)
    above = r.search(q, SearchOptions(mode="hybrid", min_score=1.01))
    assert above.hits and not above.has_evidence(1.01)  # hits shown, kb ask would refuse
    kw = r.search(q, SearchOptions(mode="keyword"))
    assert kw.best_cosine is None and kw.has_evidence(1.01)  # nothing to judge by


def test_keyword_candidates_get_their_true_vector_rank(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "filler.md", [f"unrelated filler text {i}" for i in range(6)])
    (whale,) = add_doc(store, "w.md", ["blue whale song"])
    embed_pending(store, emb)
    q = "whale"
    # give the whale chunk a vector pointing away from the query: cosine -1, the
    # last of all 7 chunks in the vector leg
    add_for_chunks(store, [whale], -emb.embed_query(q)[None, :], replace=True)
    store.mark_embedded([whale])
    r = Retriever(store, emb)
    for fusion in ("rrf", "score"):
        opts = SearchOptions(mode="hybrid", fusion=fusion, candidates=1, k=5, min_score=0.0)
        hit = r.search(q, opts).hits[0]  # the only keyword match wins despite its cosine
        assert hit.chunk_id == whale, fusion
        assert hit.ranks == {"keyword": 1, "vector": 7}  # its true rank, beyond the top 1
        assert hit.scores["vector"] == pytest.approx(-1.0, abs=1e-5)
        # rrf: both ranks count; score: b = 1, v = 0 -> 0.5, which ties the vector
        # leg's first chunk (v = 1, b = 0) and the chunk with both legs wins the tie
        assert hit.score == pytest.approx(1 / 61 + 1 / 67 if fusion == "rrf" else 0.5)


def test_cache_follows_new_and_deleted_vectors(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", ["first note about kites"])
    embed_pending(store, emb)
    r = Retriever(store, emb)
    opts = SearchOptions(mode="vector", k=5, min_score=-1)
    assert len(r.search("kites", opts).hits) == 1
    m1 = get_matrix(store)
    new = add_doc(store, "b.md", ["second note about kites"])
    # written to LanceDB but still pending in SQLite: not searchable yet
    add_for_chunks(store, new, emb.embed_batch(["second note about kites"]))
    assert [h.path for h in r.search("kites", opts).hits] == ["a.md"]
    store.mark_embedded(new)
    assert {h.path for h in r.search("kites", opts).hits} == {"a.md", "b.md"}
    assert get_matrix(store) is not m1  # reloaded, not patched
    # a re-ingested document gets new chunk ids; the old ones disappear at once
    add_doc(store, "a.md", ["first note, rewritten, about kites"])
    assert [h.path for h in r.search("kites", opts).hits] == ["b.md"]


def test_cache_sees_commits_from_another_connection(store: Store, tmp_path: Path) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", ["kites in the wind"])
    embed_pending(store, emb)
    r = Retriever(store, emb)
    opts = SearchOptions(mode="vector", min_score=-1)
    assert len(r.search("kites", opts).hits) == 1
    other = Store.open(store.home)  # e.g. `kb ingest` running in another process
    add_doc(other, "b.md", ["kites on the beach"])
    embed_pending(other, emb)
    other.close()
    assert len(r.search("kites", opts).hits) == 2


def test_cache_file_is_used_by_a_new_process_and_invalidated(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", [f"note {i} about kites" for i in range(5)])
    embed_pending(store, emb)
    opts = SearchOptions(mode="vector", min_score=-1)
    first = Retriever(store, emb).search("kites 3", opts)
    path = cache_path(store.home)
    assert path.is_file()
    clear_cache()  # a new process: nothing in memory
    m = get_matrix(store)
    assert isinstance(m.vectors, np.memmap)  # mapped from the file, LanceDB not read
    again = Retriever(store, emb).search("kites 3", opts)
    assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in first.hits]
    # the file no longer matches once SQLite changes: it is rebuilt from LanceDB
    add_doc(store, "b.md", ["kites 3 and more"])
    embed_pending(store, emb)
    clear_cache()
    m2 = get_matrix(store)
    assert not isinstance(m2.vectors, np.memmap) and len(m2) == 6
    # a corrupt file is ignored, never trusted
    path.write_bytes(b"KBVEC001garbage")
    clear_cache()
    assert len(get_matrix(store)) == 6


def test_vector_cache_can_be_switched_off(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", ["kites"])
    embed_pending(store, emb)
    Retriever(store, emb, vector_cache=False).search("kites", SearchOptions(min_score=-1))
    assert not cache_path(store.home).exists()


def test_k_larger_than_the_kb(store: Store) -> None:
    emb = BowEmbedder()
    add_doc(store, "a.md", ["one kite", "two kites"])
    embed_pending(store, emb)
    res = Retriever(store, emb).search("kite", SearchOptions(k=50, min_score=-1))
    assert len(res.hits) == 2
    assert res.to_dict(k=50)["k"] == 50 and len(res.to_dict()["hits"]) == 2


def test_one_close_sentence_is_evidence_when_it_clears_the_margin() -> None:
    from kb.search.evidence import SENTENCE_MARGIN, has_evidence, passes

    # the chunk rule as before
    assert passes(0.30, 0.25) and not passes(0.20, 0.25)
    assert passes(None, 0.25) and passes(0.0, -1)
    # a sentence must clear min_score by the margin: 0.45 with min_score 0.25
    assert passes(0.16, 0.25, best_sentence=0.25 + SENTENCE_MARGIN)
    assert not passes(0.16, 0.25, best_sentence=0.25 + SENTENCE_MARGIN - 0.01)
    assert not passes(0.16, 0.25, best_sentence=None)

    class Result:
        def __init__(self, hits: list[int], best: float, sentence: float | None) -> None:
            self.hits, self.best_cosine, self.best_sentence = hits, best, sentence

    assert has_evidence(Result([1], 0.16, 0.54), 0.25)
    assert not has_evidence(Result([], 0.16, 0.54), 0.25)  # no hits: nothing to answer from
    assert not has_evidence(Result([1], 0.16, 0.30), 0.25)
