"""The sentence rerank (kb.search.rerank): formula, ties, depth, missing vectors.

Unit level: hand-worked scores, and a real SQLite store with the bag-of-words fake
embedder for the stored / missing sentence vectors.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kb.search import Retriever, SearchOptions
from kb.search.fusion import Fused
from kb.search.rerank import MAX_EMBED_AT_QUERY, SENTENCE_FLOOR, rescore, sentence_scores
from kb.sentence_spans import split_sentences
from kb.store import Store
from kb.store import sentences as stored
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending


def fused(*scores: float) -> list[Fused]:
    return [Fused(i, s, {"vector": i}) for i, s in enumerate(scores, start=1)]


def test_formula_by_hand() -> None:
    # f = 1.0, 0.8, 0.5 (F = 1); s = 0.2, 0.9, 0.45 (S = 0.9); a = 0.3:
    #   1: 0.7*1.0 + 0.3*0.2/0.9  = 0.76667
    #   2: 0.7*0.8 + 0.3*1.0      = 0.86
    #   3: 0.7*0.5 + 0.3*0.5      = 0.5
    out = rescore(fused(1.0, 0.8, 0.5), {1: 0.2, 2: 0.9, 3: 0.45}, 0.3, 20)
    assert [e.id for e in out] == [2, 1, 3]
    assert [round(e.score, 5) for e in out] == [0.86, 0.76667, 0.5]
    assert out[0].ranks == {"vector": 2}  # the legs' ranks are kept


def test_weight_zero_keeps_the_ranking_exactly() -> None:
    f = fused(0.9, 0.7, 0.7, 0.1)
    out = rescore(f, {1: 0.1, 2: 0.9, 3: 0.9, 4: 1.0}, 0.0, 20)
    assert [(e.id, e.score) for e in out] == [(e.id, e.score) for e in f]


def test_ties_keep_the_fused_order() -> None:
    # equal f and equal s: final ties, so the fused order decides
    out = rescore(fused(0.5, 0.5, 0.5), {1: 0.3, 2: 0.3, 3: 0.3}, 0.3, 20)
    assert [e.id for e in out] == [1, 2, 3]


def test_only_the_top_depth_is_rescored() -> None:
    # depth 2: chunk 3's high s does not count; it stays third with (1 - a) * f / F
    out = rescore(fused(1.0, 0.9, 0.8), {1: 0.1, 2: 0.9}, 0.5, 2)
    assert [e.id for e in out] == [2, 1, 3]
    assert out[2].score == pytest.approx(0.5 * 0.8)
    assert out[2].score <= min(e.score for e in out[:2])


def test_edge_cases_of_the_normalisers() -> None:
    # every s <= 0: the sentence term is 0 and the fused order stays
    out = rescore(fused(1.0, 0.9), {1: -0.2, 2: -0.1}, 0.3, 20)
    assert [e.id for e in out] == [1, 2]
    # a single candidate or depth 1: nothing to re-rank
    assert rescore(fused(0.4), {1: 0.9}, 0.3, 20)[0].score == 0.4
    assert [e.id for e in rescore(fused(1.0, 0.9), {1: 0.0, 2: 1.0}, 0.3, 1)] == [1, 2]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(tmp_path / "kb")
    yield s  # type: ignore[misc]
    s.close()


def _store_sentences(store: Store, emb: BowEmbedder, ids: list[int]) -> None:
    for cid in ids:
        text, sha = store.conn.execute(
            "SELECT text, embed_sha256 FROM chunks WHERE id = ?", (cid,)
        ).fetchone()
        spans = split_sentences(text)
        vecs = emb.embed_batch([text[a:b] for a, b in spans])
        stored.add(store, emb.model_id, [(sha, spans, vecs)])


def test_sentence_scores_stored_missing_and_too_many_missing(store: Store) -> None:
    emb = BowEmbedder()
    texts = [
        f"Filler sentence number {i} about nothing. The lighthouse keeper lit lamp {i}."
        for i in range(8)
    ]
    ids = add_doc(store, "a.md", texts)
    embed_pending(store, emb)
    q = emb.embed_query("lighthouse keeper lit lamp 3")
    _store_sentences(store, emb, ids)
    got = sentence_scores(store, emb.model_id, ids, q)
    assert got is not None and max(got, key=got.__getitem__) == ids[3]
    # the stored value is the best sentence's cosine (float16, so to 1e-3)
    best = emb.embed_batch(["The lighthouse keeper lit lamp 3."])[0] @ q
    assert got[ids[3]] == pytest.approx(float(best), abs=2e-3)

    # a few rows missing: embedded now, same values
    stored.delete(
        store,
        [
            (emb.model_id, sha)
            for (sha,) in store.conn.execute(
                "SELECT embed_sha256 FROM chunks WHERE id IN (?, ?)", ids[:2]
            )
        ],
    )
    again = sentence_scores(store, emb.model_id, ids, q, emb.embed_batch)
    assert again is not None
    assert again[ids[0]] == pytest.approx(got[ids[0]], abs=2e-3)
    # without an embed function, or with too many missing: skip (None)
    assert sentence_scores(store, emb.model_id, ids, q) is None
    store.conn.execute("DELETE FROM sentence_vectors")
    assert len(ids) > MAX_EMBED_AT_QUERY
    assert sentence_scores(store, emb.model_id, ids, q, emb.embed_batch) is None


def test_retriever_records_the_sentence_score_and_weight_zero_is_off(store: Store) -> None:
    emb = BowEmbedder()
    long = (
        "Bread needs flour and water. Salt adds flavour to the dough. "
        "The oven should be very hot. The starter ferments overnight in a cool place."
    )
    ids = add_doc(store, "a.md", [long, "starter overnight", "cool place bread oven"])
    embed_pending(store, emb)
    _store_sentences(store, emb, ids)
    r = Retriever(store, emb, vector_cache=False)
    query = "The starter ferments overnight in a cool place"
    on = r.search(query, SearchOptions(k=3, sentence_weight=0.5, min_score=-1))
    off = r.search(query, SearchOptions(k=3, sentence_weight=0.0, min_score=-1))
    assert all("sentence" in h.scores for h in on.hits)
    assert all("sentence" not in h.scores for h in off.hits)
    assert on.hits[0].chunk_id == ids[0]
    assert on.hits[0].scores["sentence"] == pytest.approx(1.0, abs=2e-3)
    # the fused score is still recorded under the fusion's name
    assert {h.chunk_id: h.scores["score"] for h in on.hits} == {
        h.chunk_id: h.scores["score"] for h in off.hits
    }
    # keyword mode never re-ranks (no model)
    kw = r.search(query, SearchOptions(k=3, mode="keyword", sentence_weight=0.5))
    assert all("sentence" not in h.scores for h in kw.hits)
    assert np.isfinite(on.timings["rerank"])


def test_noise_cosines_do_not_outrank_an_exact_name() -> None:
    """A one-word name query ("Garcia-Molina") that the embedder relates to nothing:
    the best chunk cosine is 0.15 and the best sentence 0.14, both noise. The chunk
    that holds the name (keyword rank 1, cosine 0.01) stays first through fusion and
    the sentence rerank: fusion scales the cosines by min_score (0.25), not by the
    noise's best, and the rerank scales sentences by 0.45 at least."""
    from kb.search.candidates import Candidates, fuse

    c = Candidates(
        10,
        vector=[(1, 0.146), (2, 0.100), (4, 0.099)],
        keyword=[(3, 2.475)],
        cosine={1: 0.146, 2: 0.100, 4: 0.099, 3: 0.009},
        vector_rank={1: 1, 2: 3, 4: 4, 3: 17},
        best_cosine=0.146,
        query_terms=1,
    )
    opts = SearchOptions(k=4)
    out = fuse(c, opts, limit=20)
    assert out[0].id == 3
    # scaled by the noise's own best, the name led fusion by 0.03 only (0.53 vs 0.5)
    assert out[0].score - out[1].score > 0.2
    s = {1: 0.141, 2: 0.280, 3: 0.042, 4: 0.227}
    assert [e.id for e in rescore(out, s, 0.3, 20, SENTENCE_FLOOR)][0] == 3
    # the floors are constants: a refusal threshold of -1 (keep everything) ranks alike
    assert [e.id for e in fuse(c, replace(opts, min_score=-1.0), limit=20)] == [e.id for e in out]
    # a query some sentence does paraphrase (S above the floor) is re-ranked as before
    assert rescore(fused(1.0, 0.8), {1: 0.2, 2: 0.9}, 0.3, 20, 0.45)[0].id == 2


def test_a_long_question_is_never_a_lookup() -> None:
    """In a KB of a few notes most words of a question occur in few chunks; a question of
    more than LOOKUP_TERMS terms keeps the fused order (a paraphrase that shares no word
    with the question can stay first)."""
    from kb.search.candidates import LOOKUP_TERMS, Candidates, lookup_ids

    c = Candidates(
        10,
        vector=[(1, 0.6), (2, 0.5)],
        keyword=[(2, 3.0)],
        cosine={1: 0.6, 2: 0.5},
        vector_rank={1: 1, 2: 2},
        best_cosine=0.6,
        query_terms=LOOKUP_TERMS + 1,
    )
    assert lookup_ids(c) == set()
    c.query_terms = LOOKUP_TERMS
    assert lookup_ids(c) == {2}
    c.keyword = [(2, 3.0), (3, 2.0), (4, 1.0), (5, 0.5)]  # more matches than a lookup has
    assert lookup_ids(c) == set()
    # a keyword list of corrected spellings is a lookup only when nothing is close in
    # meaning: a word the KB lacks may have been "corrected" to an unrelated one
    c.keyword = [(2, 3.0)]
    c.corrections = {"pasport": ["passport"]}
    assert lookup_ids(c) == set()  # best cosine 0.6: the meaning wins
    c.best_cosine = 0.3
    assert lookup_ids(c) == {2}
