"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009).

For rankings ``r`` (each a list of ids, best first) with weights ``w_r``::

    score(d) = sum over rankings r that contain d of  w_r / (rrf_k + rank_r(d))

``rank_r(d)`` is 1-based. A document missing from a ranking contributes nothing
for it. Larger ``rrf_k`` flattens the curve (rank 1 and rank 10 differ less);
``rrf_k = 0`` is allowed and gives ``w / rank``. Ties in the fused score are broken
by the best single rank the document has anywhere, then by id, so the order is
deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Fused:
    """One fused entry: its id, fused score and the 1-based rank in each ranking."""

    id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)


def rrf(
    rankings: Mapping[str, Sequence[int]],
    weights: Mapping[str, float],
    rrf_k: float,
) -> list[Fused]:
    """Fuse ``rankings`` (name -> ids best first); returns entries by descending score.

    A ranking named in ``rankings`` but not in ``weights`` gets weight 1. Duplicate
    ids inside one ranking keep their first (best) rank.
    """
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {rrf_k}")
    entries: dict[int, Fused] = {}
    for name, ids in rankings.items():
        w = float(weights.get(name, 1.0))
        for pos, doc in enumerate(ids, start=1):
            e = entries.get(doc)
            if e is None:
                e = entries[doc] = Fused(id=doc, score=0.0)
            if name in e.ranks:
                continue
            e.ranks[name] = pos
            e.score += w / (rrf_k + pos)
    return sorted(entries.values(), key=lambda e: (-e.score, min(e.ranks.values()), e.id))
