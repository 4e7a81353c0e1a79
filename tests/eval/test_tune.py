"""``eval.tune``: the split, the threshold choice (hand-worked), and the in-memory
re-fusion, which must rank exactly as the real retriever does (real SQLite + LanceDB,
a deterministic bag-of-words embedder)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from eval.golden import load_golden
from eval.tune import (
    Gathered,
    Grid,
    _paired_refusal,
    choose_threshold,
    gather,
    ranking,
    refusal_outcome,
    split,
    tune,
)
from kb.search import Retriever, SearchOptions
from kb.search.candidates import Candidates
from kb.store import Store
from tests.eval.builders import query, sup
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending


def fake(answerable: list[float], unanswerable: list[float]) -> list[Gathered]:
    """Queries whose only relevant property is their best cosine."""
    out = []
    for i, c in enumerate(answerable):
        out.append(Gathered(query(f"a{i}", [sup("x.md")]), Candidates(10, best_cosine=c), []))
    for i, c in enumerate(unanswerable):
        q = query(f"u{i}", answerable=False)
        out.append(Gathered(q, Candidates(10, best_cosine=c), []))
    return out


def test_split_is_seeded_stratified_and_disjoint() -> None:
    qs = [g.query for g in fake([0.5] * 10, [0.1] * 6)]
    train, test = split(qs, 0.5)
    assert split(qs, 0.5) == (train, test)  # same seed, same split
    assert sorted(train + test) == list(range(16)) and not set(train) & set(test)
    assert sum(qs[i].answerable for i in test) == 5  # half of each stratum
    assert sum(not qs[i].answerable for i in test) == 3
    assert split(qs, 0.5, seed=1) != (train, test)
    with pytest.raises(ValueError, match="between 0 and 1"):
        split(qs, 1.0)


def test_threshold_refuses_most_unanswerable_within_the_over_refusal_budget() -> None:
    g = fake([0.5, 0.6, 0.7, 0.8], [0.2, 0.3, 0.55])
    rows = list(range(len(g)))
    grid = [-1.0, 0.1, 0.25, 0.31, 0.4, 0.5, 0.56, 0.7]
    # budget 0: t <= 0.5 refuses no answerable query; 0.31, 0.4 and 0.5 all refuse
    # 0.2 and 0.3 (2 of 3 unanswerable): the lowest of them wins
    assert choose_threshold(g, rows, grid, 0.0) == 0.31
    # budget 1/4: 0.56 refuses the 0.5 answerable query (1 of 4) and all 3 unanswerable
    assert choose_threshold(g, rows, grid, 0.25) == 0.56
    o = refusal_outcome(g, rows, 0.56)
    assert (o.abstention, o.over_refusal) == (1.0, 0.25)
    # -1 never refuses
    assert refusal_outcome(g, rows, -1.0).abstention == 0.0


def test_paired_refusal_is_the_balanced_accuracy() -> None:
    g = fake([0.5, 0.6, 0.7, 0.8], [0.2, 0.3, 0.55])
    rows = list(range(len(g)))
    p = _paired_refusal(g, rows, -1.0, 0.56)
    assert p is not None
    # -1: abstention 0, over-refusal 0 -> 0.5; 0.56: (1 + 1 - 0.25) / 2 = 0.875
    assert (p.a, p.b, p.delta) == (0.5, 0.875, 0.375)


TEXTS = {
    "pump.md": ["garden pump gasket part", "pump warranty card", "pump colour options"],
    "bread.md": ["sourdough starter feeding", "bread oven temperature", "rye flour notes"],
    "bike.md": ["bicycle tyre puncture repair", "chain oil and gears", "brake pads wear"],
}


def test_in_memory_fusion_ranks_exactly_like_search(tmp_path: Path) -> None:
    emb = BowEmbedder()
    with Store.open(tmp_path / "kb") as store:
        for path, texts in TEXTS.items():
            add_doc(store, path, texts)
        embed_pending(store, emb)
        golden = tmp_path / "g.yaml"
        golden.write_text(
            "schema_version: 1\nqueries:\n"
            + "".join(
                f"  - id: q{i}\n    question: {q}\n    answerable: true\n"
                f"    supports:\n      - path: {p}\n        snippet: {s}\n"
                for i, (q, p, s) in enumerate(
                    [
                        ("pump gasket", "pump.md", "gasket"),
                        ("feeding the starter", "bread.md", "starter"),
                        ("tyre repair", "bike.md", "puncture"),
                        ("oven heat", "bread.md", "oven"),
                    ]
                )
            )
            + "  - id: u0\n    question: tax return deadline\n    answerable: false\n"
            + "  - id: u1\n    question: moon landing year\n    answerable: false\n"
        )
        gs = load_golden(golden)
        r = Retriever(store, emb)
        base = SearchOptions(k=10, min_score=-1)
        grid = Grid(candidates=(2, 5), rrf_k=(10, 60), keyword_weight=(0.5, 2.0))
        gathered, warnings = gather(store, r, gs, base, grid.depth)
        assert not warnings and len(gathered) == 6
        for g in gathered:
            extra = [replace(base, mode="vector", min_score=0.1)]
            extra += [replace(base, sentence_weight=w, rerank_depth=3) for w in (0.0, 0.5)]
            for opts in [*grid.points(base), *extra]:
                want = [h.chunk_id for h in r.search(g.query.question, opts).hits]
                assert ranking(g, opts) == want, (g.query.id, opts)

        rep = tune(store, gathered, base, grid, test_fraction=0.5)
        assert rep.n_train + rep.n_test == 6 and rep.grid_size == 12 + len(grid.sentence_weight)
        assert set(rep.test) == {"hit@1", "hit@5", "hit@10", "mrr@10", "recall_all@10"}
        assert rep.test["mrr@10"].n == 2  # answerable test queries
        assert rep.train_mrr[1] is not None and rep.train_mrr[0] is not None
        assert rep.train_mrr[1] >= rep.train_mrr[0]
        assert set(rep.to_apply()) <= set(rep.changes())
        js = rep.to_json()
        assert js["split"] == {"train": rep.n_train, "test": rep.n_test, "seed": 20240601}
        assert np.isfinite(js["test"]["mrr@10"]["a"])
        # kb ask's lexical pass, judged on each query's top hits: "tyre repair" is said
        # word for word by a chunk; "oven heat" ("oven temperature") and "tax return
        # deadline" are not
        lexical = {g.query.id: g.says_every_term for g in gathered}
        assert lexical["q2"] and not lexical["q3"] and not lexical["u0"]


def test_min_answerable_is_chosen_on_train_within_the_over_refusal_budget() -> None:
    from types import SimpleNamespace

    from eval.tune_answerable import Evidence, tune_min_answerable

    def g(answerable: bool) -> Any:
        return SimpleNamespace(query=SimpleNamespace(answerable=answerable))

    # train 0-5: answerable scores 0.9, 0.7, 0.35 / unanswerable 0.1, 0.3, 0.5
    # test 6-9: answerable 0.8, 0.32 / unanswerable 0.2, 0.6
    scores = [0.9, 0.7, 0.35, 0.1, 0.3, 0.5, 0.8, 0.32, 0.2, 0.6]
    kinds = [True, True, True, False, False, False, True, True, False, False]
    ev = [Evidence(sc, False) for sc in scores]
    gathered = [g(k) for k in kinds]
    train, test = list(range(6)), list(range(6, 10))
    # budget 0: refuse no answerable train query -> highest t <= 0.35 refusing the most
    # unanswerable (0.1 and 0.3): t = 0.35 (ties take the lowest: 0.35 beats 0.35 only)
    t = tune_min_answerable(ev, gathered, train, test, 0.0, False, max_over_refusal=0.0)
    assert t is not None and t.best == 0.35
    assert (t.train[1].abstention, t.train[1].over_refusal) == (2 / 3, 0.0)
    # test at 0.35: refuses answerable 0.32 (1 of 2) and unanswerable 0.2 (1 of 2)
    assert (t.test[1].abstention, t.test[1].over_refusal) == (0.5, 0.5)
    assert t.test[0].abstention == 0.0  # current 0.0 never refuses
    # a budget of 1/3 lets 0.55 refuse all three unanswerable train queries
    t2 = tune_min_answerable(ev, gathered, train, test, 0.0, False, max_over_refusal=0.34)
    assert t2 is not None and t2.best == 0.55 and t2.train[1].abstention == 1.0
    # an absent key refuses whatever the score, when required
    ev_keys = [Evidence(0.9, True)] + ev[1:]
    t3 = tune_min_answerable(ev_keys, gathered, train, test, 0.0, True, max_over_refusal=0.0)
    assert t3 is not None and t3.train[0].over_refusal == 1 / 3
    # no unanswerable train query: nothing to choose
    assert tune_min_answerable(ev, gathered, [0, 1, 2], test, 0.0, False) is None


def test_the_threshold_is_judged_with_kb_asks_sentence_rule() -> None:
    g = fake([0.15], [0.15])
    g[0].sentence.update({1: 0.30, 2: 0.50})  # one sentence clears 0.25 + 0.2
    g[1].sentence.update({3: 0.40})  # none does
    o = refusal_outcome(g, [0, 1], 0.25)
    assert (o.over_refusal, o.abstention) == (0.0, 1.0)
    # a sentence with every word of the question needs no margin (kb ask's lexical
    # pass, kb.rag.answerability.says_every_term): 0.40 clears 0.25, not 0.5
    g[1].says_every_term = True
    assert refusal_outcome(g, [0, 1], 0.25).abstention == 0.0
    assert refusal_outcome(g, [0, 1], 0.5).abstention == 1.0
    # without sentence scores (no rerank) the chunk cosine alone decides
    assert refusal_outcome(fake([0.15], []), [0], 0.25).over_refusal == 1.0
