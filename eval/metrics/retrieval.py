"""Retrieval metrics, one function each, over :class:`~eval.judgements.RetrievalArrays`.

Every function returns one value per query (``float64[n]``), NaN where the query is
outside the metric's denominator; :mod:`eval.metrics.table` averages the defined
values. Ranked metrics are defined for queries with at least one support whose
retrieval did not fail (``arrays.defined``); unanswerable queries never count. A
query that returned fewer than ``k`` hits is scored on what it returned (missing
ranks are non-relevant). ``k`` must satisfy ``1 <= k <= arrays.K``.

Definitions follow ranx / trec_eval on the support-unit qrels of
:mod:`eval.judgements` (``gain(r)`` = credited grade at rank r, ``R`` = number of
supports):

- hit@k = 1[any of ranks 1..k matches a support]           (ranx ``hit_rate@k``)
- mrr@k = 1 / first matching rank if <= k, else 0          (ranx ``mrr@k``)
- recall@k = #{r <= k : gain(r) > 0} / R                    (ranx ``recall@k``)
- precision@k = #{r <= k : gain(r) > 0} / k                 (ranx ``precision@k``)
- map@k = sum_{r <= k, gain(r) > 0} precision@r / R         (ranx ``map@k``)
- ndcg@k = sum_r gain(r)/log2(r+1) / sum_r ideal(r)/log2(r+1), ideal = grades sorted
  descending                                                (ranx ``ndcg@k``, Järvelin)
- recall_all@k = 1[all_groups_rank <= k] (no ranx counterpart)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eval.judgements import RetrievalArrays


def _check(a: RetrievalArrays, k: int) -> None:
    if not 1 <= k <= a.K:
        raise ValueError(f"cutoff {k} outside 1..{a.K} (the run's depth)")


def _masked(values: Any, mask: np.ndarray) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64).copy()
    out[~mask] = np.nan
    return out


def hit_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """hit@k (= recall_any@k): 1 if any of the first k hits matches a support, else 0.

    Example: matches at ranks [no, yes, no] -> hit@1 = 0, hit@2 = 1.
    """
    _check(a, k)
    return _masked(a.matched[:, :k].any(axis=1), a.defined)


def mrr_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """Reciprocal rank of the first matching hit within k (0 when none).

    Example: first match at rank 2 -> 0.5; at rank 4 with k=3 -> 0.
    """
    _check(a, k)
    m = a.matched[:, :k]
    first = np.argmax(m, axis=1)
    rr = np.where(m.any(axis=1), 1.0 / (first + 1), 0.0)
    return _masked(rr, a.defined)


def recall_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """Supports credited in the top k / number of supports R (R >= 1 where defined).

    Example: 2 supports, only support 0 matched in the top k -> 0.5.
    """
    _check(a, k)
    found = (a.gains[:, :k] > 0).sum(axis=1)
    return _masked(found / np.maximum(a.n_supports, 1), a.defined)


def precision_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """Supports credited in the top k / k (the denominator is k even when fewer hits
    came back; a chunk repeating an already-credited support counts as non-relevant).

    Example: k=5, one support credited at rank 1 -> 0.2.
    """
    _check(a, k)
    return _masked((a.gains[:, :k] > 0).sum(axis=1) / k, a.defined)


def map_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """Average precision at k: sum of precision@r at credited ranks r <= k, / R.

    Example: R=2, credited at ranks 1 and 3 -> (1/1 + 2/3) / 2 = 0.8333.
    """
    _check(a, k)
    rel = a.gains[:, :k] > 0
    prec = np.cumsum(rel, axis=1) / np.arange(1, k + 1)
    ap = (prec * rel).sum(axis=1) / np.maximum(a.n_supports, 1)
    return _masked(ap, a.defined)


def ndcg_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """nDCG@k with linear gains (grade) and log2(r + 1) discount.

    Example: one support (grade 1) credited at rank 2 -> (1/log2 3) / 1 = 0.6309.
    """
    _check(a, k)
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = (a.gains[:, :k] * disc).sum(axis=1)
    idcg = (a.ideal[:, :k] * disc).sum(axis=1)
    return _masked(dcg / np.where(idcg > 0, idcg, 1.0), a.defined)


def recall_all_at_k(a: RetrievalArrays, k: int) -> np.ndarray:
    """1 if every support group has a matched support within the top k (multi-hop: the
    query is fully supported), else 0. Without ``support_groups`` it equals hit@k.

    Example: groups [[0], [1]], support 0 at rank 1, support 1 at rank 4 ->
    recall_all@3 = 0, recall_all@5 = 1.
    """
    _check(a, k)
    return _masked(a.all_groups_rank <= k, a.defined)


def empty_result_rate(a: RetrievalArrays) -> np.ndarray:
    """1 if the search returned no hit, else 0; over every query whose retrieval ran
    (answerable or not)."""
    return _masked(a.returned == 0, a.retrieval_ok)


def scope_miss_rate(a: RetrievalArrays) -> np.ndarray:
    """1 if every support of the query lies outside the run's path/type/tag scope (the
    filter hides all evidence), else 0; over queries with supports, scoped runs only."""
    return a.scope_miss.copy()


AT_K_FUNCS = {
    "hit": hit_at_k,
    "mrr": mrr_at_k,
    "recall": recall_at_k,
    "precision": precision_at_k,
    "map": map_at_k,
    "ndcg": ndcg_at_k,
    "recall_all": recall_all_at_k,
}
SCALAR_FUNCS = {"empty_result_rate": empty_result_rate, "scope_miss_rate": scope_miss_rate}
