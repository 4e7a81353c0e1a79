"""What both legs found for one query, and how it becomes one ranking.

:class:`Candidates` is gathered once per query by the retriever at some ``depth``
(chunks per leg) and :func:`fuse` turns it into the final order for any settings
whose per-leg depth is at most ``depth``. ``kb search`` gathers at exactly the depth
it fuses; ``kb eval tune`` gathers once, deep, and re-fuses in memory for every grid
point; both give the same order for the same settings, because a leg's top ``n`` is
the first ``n`` entries of its deeper list.

Fusion (hybrid mode), with ``n = max(candidates, k)`` chunks kept per leg:

- the keyword leg ranks its top ``n`` by bm25 (a chunk matching no query term has no
  keyword rank);
- the vector leg ranks its top ``n`` by cosine, **and** every keyword candidate gets
  its true rank in the vector leg, ``1 + #{in-scope chunks with a higher cosine}``
  (the vector search is exact, so every rank is known). A chunk the keyword leg ranks
  highly is therefore never a one-leg candidate that any vector-only chunk can tie:
  it keeps what both legs say about it;
- reciprocal rank fusion over both, ``score = w_v/(rrf_k + rank_v) + w_k/(rrf_k +
  rank_k)`` (:mod:`kb.search.fusion`).

No threshold removes a hybrid candidate: ranking and refusal are separate decisions
(:mod:`kb.search.evidence`). In **vector** mode the cosine is a hit's only evidence,
so chunks below ``min_score`` are dropped there (``-1`` keeps all). Keyword mode is
bm25 order, unfiltered.

A chunk without a vector (still ``pending``) can only be found by the keyword leg;
it has no cosine and no vector rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kb.search.fusion import Fused, rrf_ranks


@dataclass
class Candidates:
    """One query's candidates from both legs, ``depth`` deep (see the module docs).

    ``vector``: the top ``depth`` ``(chunk_id, cosine)``, best first (empty in keyword
    mode). ``keyword``: the top ``depth`` ``(chunk_id, -bm25)``, best first (empty in
    vector mode). ``cosine``: the cosine of every candidate that has a vector.
    ``vector_rank``: the true 1-based vector rank (within the scope) of every
    candidate that has a vector. ``best_cosine``: the highest cosine of any chunk in
    the scope (``None`` when no vector was searched or none is in scope).
    """

    depth: int
    vector: list[tuple[int, float]] = field(default_factory=list)
    keyword: list[tuple[int, float]] = field(default_factory=list)
    cosine: dict[int, float] = field(default_factory=dict)
    vector_rank: dict[int, int] = field(default_factory=dict)
    best_cosine: float | None = None


def true_ranks(sims: np.ndarray, rows: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``1 + #{allowed rows r' with sims[r'] > sims[r]}`` for each ``r`` in ``rows``.

    ``mask`` (boolean, one per row) limits the count to the scope; ``None`` = all rows.
    Ties share the better rank. Cost: one pass over ``sims`` per row asked for, so
    callers ask only for the few keyword candidates outside the vector leg's top.
    """
    scores = sims if mask is None else sims[mask]
    out = np.empty(len(rows), dtype=np.int64)
    for i, r in enumerate(rows):
        out[i] = 1 + int(np.count_nonzero(scores > sims[r]))
    return out


def fuse(
    c: Candidates,
    mode: str,
    k: int,
    candidates: int,
    rrf_k: float,
    vector_weight: float,
    keyword_weight: float,
    min_score: float,
) -> list[Fused]:
    """The best ``k`` entries for ``mode`` (see the module docs); ``Fused.ranks`` holds
    each leg's rank (in hybrid mode the vector rank is the true one when known)."""
    if mode == "vector":
        out = [Fused(i, s, {"vector": r}) for r, (i, s) in enumerate(c.vector, start=1)]
        if min_score > -1:
            out = [f for f in out if f.score >= min_score]
        return out[:k]
    if mode == "keyword":
        return [Fused(i, s, {"keyword": r}) for r, (i, s) in enumerate(c.keyword[:k], start=1)]
    n = max(candidates, k)
    kw_ranks = {i: r for r, (i, _) in enumerate(c.keyword[:n], start=1)}
    vec_ranks = {i: r for r, (i, _) in enumerate(c.vector[:n], start=1)}
    for i in kw_ranks:
        if i not in vec_ranks and i in c.vector_rank:
            vec_ranks[i] = c.vector_rank[i]
    fused = rrf_ranks(
        {"vector": vec_ranks, "keyword": kw_ranks},
        {"vector": vector_weight, "keyword": keyword_weight},
        rrf_k,
    )
    return fused[:k]
