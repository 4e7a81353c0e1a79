"""Retrieval metrics on hand-worked judgements (each judgement commented)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.judgements import credit, groups_rank, judge
from eval.metrics import compute_table
from eval.names import parse_metric, retrieval_names
from kb.errors import UsageError
from tests.eval.builders import hit, miss, query, result, sup

A = sup("a.md", snippet="alpha", grade=2)
B = sup("b.md", snippet="beta")


def a_chunk(cid: int) -> object:
    return hit("a.md", "some alpha text", cid=cid)


def b_chunk(cid: int) -> object:
    return hit("b.md", "beta here", cid=cid)


def fixture_results() -> list:
    return [
        # q1: one support; ranks [miss, match, miss] -> first match at rank 2
        result(query("q1", [sup("a.md", snippet="alpha")]), [miss(1), a_chunk(2), miss(3)], 0),
        # q2: supports A (grade 2) and B (grade 1), groups [[0], [1]];
        # ranks [B, A, A again, miss] -> credited [B, A, none (repeat), none]
        result(
            query("q2", [A, B], support_groups=((0,), (1,))),
            [b_chunk(4), a_chunk(5), a_chunk(6), miss(7)],
            1,
        ),
        # q3: unanswerable: outside every ranked metric; one hit, so not an empty result
        result(query("q3", [], answerable=False), [miss(8)], 2),
        # q4: has a support but the search returned nothing -> zeros, and an empty result
        result(query("q4", [sup("a.md")]), [], 3),
        # q5: retrieval failed -> outside ranked metrics and empty_result_rate; an error
        result(query("q5", [sup("a.md")]), [], 4, error="boom", error_stage="retrieval"),
    ]


def per_query(name: str, k: int = 5) -> list[float]:
    t = compute_table(fixture_results(), k, names=[name])
    values = t.values[parse_metric(name).name]  # canonical name (aliases resolved)
    return [None if math.isnan(v) else round(float(v), 4) for v in values]


def test_hit() -> None:
    # q1: match at rank 2 -> hit@1 0, hit@3 1; q2: B at rank 1 -> 1; q4: no hits -> 0
    assert per_query("hit@1") == [0.0, 1.0, None, 0.0, None]
    assert per_query("hit@3") == [1.0, 1.0, None, 0.0, None]
    assert per_query("recall_any@3") == per_query("hit@3")  # alias


def test_mrr() -> None:
    # q1: rr = 1/2; q2: rr = 1/1; q4: 0
    assert per_query("mrr@5") == [0.5, 1.0, None, 0.0, None]
    # with k = 1, q1's match at rank 2 is outside the cutoff -> 0
    assert per_query("mrr@1") == [0.0, 1.0, None, 0.0, None]


def test_recall() -> None:
    # q2 at k=1: only B credited -> 1/2; at k=2 both -> 1
    assert per_query("recall@1") == [0.0, 0.5, None, 0.0, None]
    assert per_query("recall@2") == [1.0, 1.0, None, 0.0, None]


def test_precision() -> None:
    # q1: one credited in top 3 -> 1/3; q2: B and A credited, the repeat of A is not -> 2/3
    assert per_query("precision@3") == [0.3333, 0.6667, None, 0.0, None]
    # the denominator stays k even when fewer hits came back: q1 has 3 hits -> 1/5
    assert per_query("precision@5") == [0.2, 0.4, None, 0.0, None]


def test_map() -> None:
    # q1: precision@2 = 1/2 at the credited rank, R = 1 -> 0.5
    # q2: credited at ranks 1 and 2 -> (1/1 + 2/2) / R=2 -> 1.0; at k=1 -> (1/1) / 2 = 0.5
    assert per_query("map@5") == [0.5, 1.0, None, 0.0, None]
    assert per_query("map@1") == [0.0, 0.5, None, 0.0, None]


def test_ndcg() -> None:
    # q1: gain 1 at rank 2 -> (1/log2 3) / (1/log2 2) = 0.6309
    # q2: gains [1 (B), 2 (A), 0 (repeat)] -> DCG = 1 + 2/log2 3 = 2.2619;
    #     ideal [2, 1] -> IDCG = 2 + 1/log2 3 = 2.6309 -> 0.8597
    assert per_query("ndcg@3") == [0.6309, 0.8597, None, 0.0, None]


def test_recall_all() -> None:
    # q2 needs both groups: after rank 1 only B -> 0; after rank 2 A too -> 1
    # q1 (no groups: one group of all supports) behaves like hit
    assert per_query("recall_all@1") == [0.0, 0.0, None, 0.0, None]
    assert per_query("recall_all@2") == [1.0, 1.0, None, 0.0, None]


def test_empty_result_and_error_rates() -> None:
    # empty results among queries whose retrieval ran (q1..q4): only q4 -> 1/4
    assert per_query("empty_result_rate") == [0.0, 0.0, 0.0, 1.0, None]
    # errors among all queries: q5 -> 1/5
    assert per_query("error_rate") == [0.0, 0.0, 0.0, 0.0, 1.0]


def test_aggregates_round_and_count() -> None:
    t = compute_table(
        fixture_results(),
        5,
        names=["hit@1", "mrr@5", "empty_result_rate", "error_rate", "scope_miss_rate"],
    )
    s = t.summary()
    # hit@1 over q1, q2, q4 = (0 + 1 + 0) / 3
    assert s["metrics"]["hit@1"] == 0.3333 and s["n"]["hit@1"] == 3
    assert s["metrics"]["mrr@5"] == 0.5  # (0.5 + 1 + 0) / 3
    assert s["metrics"]["empty_result_rate"] == 0.25 and s["n"]["empty_result_rate"] == 4
    assert s["metrics"]["error_rate"] == 0.2
    # the run was not scoped: empty denominator -> None, never 0 or NaN
    assert s["metrics"]["scope_miss_rate"] is None and s["n"]["scope_miss_rate"] == 0


def test_one_chunk_holding_two_supports() -> None:
    # supports A2 and B2 are both in a.md; rank 1 holds both snippets, rank 2 only "beta"
    a2, b2 = sup("a.md", snippet="alpha"), sup("a.md", snippet="beta")
    r = result(
        query("q", [a2, b2], support_groups=((0,), (1,))),
        [hit("a.md", "alpha beta", cid=1), hit("a.md", "beta", cid=2)],
    )
    j = judge(r)
    assert j.matches == [[0, 1], [1]]
    # rank 1 is credited with one unit (equal grades: the lowest index, A2), rank 2 with B2
    assert j.credited == [0, 1]
    t = compute_table([r], 2, names=["recall@1", "recall@2", "recall_all@1"])
    # recall counts credited units: 1/2 at k=1, 2/2 at k=2 (as ranx on the unit qrels);
    # recall_all looks at matches: both groups are matched by rank 1 -> 1
    assert [float(t.values[n][0]) for n in ("recall@1", "recall@2", "recall_all@1")] == [
        0.5,
        1.0,
        1.0,
    ]


def test_credit_prefers_the_highest_grade() -> None:
    # rank 1 matches supports 0 (grade 1) and 1 (grade 3): credited with 1
    assert credit([[0, 1], [0, 1], [0]], [1, 3]) == [1, 0, None]
    assert groups_rank([[], [0], [1]], ((0,), (1,))) == 3
    assert groups_rank([[0]], ()) is None


def test_metric_names() -> None:
    assert parse_metric("Hit@5").name == "hit@5"
    assert parse_metric("recall_any@3").name == "hit@3"
    assert parse_metric("latency_total_p95").aggregate == "p95"
    for bad in ("hit", "hit@0", "foo@5", "abstention_accuracy@5", "hit@5x"):
        with pytest.raises(UsageError):
            parse_metric(bad)
    assert retrieval_names(3)[:3] == ["hit@1", "hit@3", "mrr@3"]
    with pytest.raises(UsageError, match="needs a run made with --k 10"):
        compute_table(fixture_results(), 5, names=["hit@10"])


def test_values_never_nan_in_json() -> None:
    t = compute_table(fixture_results()[2:3], 5)  # only an unanswerable query
    data = t.to_json()
    flat = [v for v in data["overall"]["metrics"].values()]
    assert all(v is None or (isinstance(v, float) and np.isfinite(v)) for v in flat)
    assert data["overall"]["metrics"]["hit@5"] is None
