"""Relevance judgements: from matched supports to the arrays the metrics read.

Per query, the chunk at rank ``r`` matches a set ``M(r)`` of supports
(:mod:`eval.matching`). Its relevance is the largest grade in ``M(r)``. Ranked-list
metrics need each relevant *unit* counted once, so supports are the units ("support
units") and they are credited greedily down the ranking:

    credit(r) = the support in M(r) not credited at an earlier rank with the highest
                grade (ties: the lowest index); none if every support in M(r) was
                already credited

``gain(r)`` = grade of ``credit(r)`` (0 when none). A chunk repeating evidence already
found is therefore not relevant a second time (this keeps nDCG <= 1 and precision
honest), and exactly one unit is credited per rank. This is the ranking handed to
ranx/trec_eval by :mod:`eval.export`: qrels = ``{support unit: grade}``, run = the
credited unit id at each rank (an unmatched or repeating chunk keeps its own
non-relevant id), so every retrieval metric here equals theirs.

``all_groups_rank``: the first rank at which every support group has at least one
matched support among ranks ``1..r`` (groups as in ``GoldenQuery.groups()``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eval.matching import matched_supports
from eval.result import QueryResult


@dataclass(frozen=True)
class QueryJudgement:
    matches: list[list[int]]
    credited: list[int | None]
    grades: list[int]
    all_groups_rank: int | None

    @property
    def first_rank(self) -> int | None:
        """1-based rank of the first chunk matching any support (``None``: no match)."""
        for r, m in enumerate(self.matches, start=1):
            if m:
                return r
        return None

    def first_rank_within(self, k: int) -> int | None:
        r = self.first_rank
        return r if r is not None and r <= k else None


def credit(matches: list[list[int]], grades: list[int]) -> list[int | None]:
    """Greedy credit assignment (see module docs)."""
    taken: set[int] = set()
    out: list[int | None] = []
    for m in matches:
        free = [i for i in m if i not in taken]
        if not free:
            out.append(None)
            continue
        best = max(free, key=lambda i: (grades[i], -i))
        taken.add(best)
        out.append(best)
    return out


def groups_rank(matches: list[list[int]], groups: tuple[tuple[int, ...], ...]) -> int | None:
    if not groups:
        return None
    seen: set[int] = set()
    for r, m in enumerate(matches, start=1):
        seen.update(m)
        if all(any(i in seen for i in g) for g in groups):
            return r
    return None


def judge(result: QueryResult, mode: str = "strict", depth: int | None = None) -> QueryJudgement:
    """Match the first ``depth`` stored hits of ``result`` against its supports."""
    q = result.query
    hits = result.hits if depth is None else result.hits[:depth]
    matches = [matched_supports(h, q.supports, result.resolved, mode) for h in hits]
    grades = [s.grade for s in q.supports]
    return QueryJudgement(
        matches, credit(matches, grades), grades, groups_rank(matches, q.groups())
    )


@dataclass
class RetrievalArrays:
    """Column-wise judgements of ``n`` queries at depth ``K`` (see module docs).

    ``defined``: the query has supports and its retrieval did not fail; retrieval
    quality metrics are averaged over these rows only.
    """

    K: int
    gains: np.ndarray  # float64 [n, K]
    matched: np.ndarray  # bool [n, K]
    ideal: np.ndarray  # float64 [n, K]: support grades, descending, zero padded
    n_supports: np.ndarray  # int64 [n]
    all_groups_rank: np.ndarray  # float64 [n], inf when never fully supported
    returned: np.ndarray  # int64 [n]
    defined: np.ndarray  # bool [n]
    retrieval_ok: np.ndarray  # bool [n]
    scope_miss: np.ndarray  # float64 [n], nan when undefined

    @property
    def n(self) -> int:
        return int(self.gains.shape[0])


def build_arrays(
    results: list[QueryResult], judgements: list[QueryJudgement], K: int, scoped: bool = False
) -> RetrievalArrays:
    n = len(results)
    gains = np.zeros((n, K))
    matched = np.zeros((n, K), dtype=bool)
    ideal = np.zeros((n, K))
    n_sup = np.zeros(n, dtype=np.int64)
    agr = np.full(n, math.inf)
    returned = np.zeros(n, dtype=np.int64)
    defined = np.zeros(n, dtype=bool)
    ok = np.zeros(n, dtype=bool)
    scope_miss = np.full(n, np.nan)
    for i, (res, j) in enumerate(zip(results, judgements, strict=True)):
        depth = min(K, len(j.matches))
        for r in range(depth):
            matched[i, r] = bool(j.matches[r])
            c = j.credited[r]
            gains[i, r] = 0.0 if c is None else j.grades[c]
        g = sorted(j.grades, reverse=True)[:K]
        ideal[i, : len(g)] = g
        n_sup[i] = len(j.grades)
        if j.all_groups_rank is not None:
            agr[i] = j.all_groups_rank
        returned[i] = min(len(res.hits), K)
        ok[i] = res.retrieval_ok
        defined[i] = ok[i] and n_sup[i] > 0
        if scoped and n_sup[i] > 0 and res.resolved is not None:
            scope_miss[i] = 0.0 if any(r.in_scope for r in res.resolved) else 1.0
    return RetrievalArrays(K, gains, matched, ideal, n_sup, agr, returned, defined, ok, scope_miss)
