"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009).

For rankings ``r`` with weights ``w_r``::

    score(d) = sum over rankings r that rank d of  w_r / (rrf_k + rank_r(d))

``rank_r(d)`` is 1-based. A document a ranking does not rank contributes nothing for
it. Larger ``rrf_k`` flattens the curve (rank 1 and rank 10 differ less);
``rrf_k = 0`` is allowed and gives ``w / rank``. Ties in the fused score are broken
by the best single rank the document has anywhere, then by id, so the order is
deterministic.

:func:`rrf` takes rankings as lists (best first); :func:`rrf_ranks` takes explicit
``id -> rank`` maps, which lets a caller give a document its true rank in a leg
even when it lies beyond the part of that leg's list that was kept (the retriever
does this for the vector leg, whose every rank is known; see
:mod:`kb.search.candidates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Fused:
    """One fused entry: its id, fused score and the 1-based rank in each ranking.
    ``fused`` keeps the score fusion gave it when a later step raised ``score`` (a
    lookup's chunk, :func:`kb.search.candidates.lookups_first`)."""

    id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    fused: float | None = None


def rrf(
    rankings: Mapping[str, Sequence[int]],
    weights: Mapping[str, float],
    rrf_k: float,
) -> list[Fused]:
    """Fuse ``rankings`` (name -> ids best first); returns entries by descending score.

    A ranking named in ``rankings`` but not in ``weights`` gets weight 1. Duplicate
    ids inside one ranking keep their first (best) rank.
    """
    as_ranks: dict[str, dict[int, int]] = {}
    for name, ids in rankings.items():
        ranks: dict[int, int] = {}
        for pos, doc in enumerate(ids, start=1):
            ranks.setdefault(doc, pos)
        as_ranks[name] = ranks
    return rrf_ranks(as_ranks, weights, rrf_k)


def rrf_ranks(
    ranks: Mapping[str, Mapping[int, int]],
    weights: Mapping[str, float],
    rrf_k: float,
) -> list[Fused]:
    """Fuse explicit ranks (name -> {id: 1-based rank}); same formula and order as
    :func:`rrf`. A rank below 1 is an error."""
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {rrf_k}")
    entries: dict[int, Fused] = {}
    for name, by_id in ranks.items():
        w = float(weights.get(name, 1.0))
        for doc, pos in by_id.items():
            if pos < 1:
                raise ValueError(f"rank {pos} of {doc} in {name!r}: ranks start at 1")
            e = entries.get(doc)
            if e is None:
                e = entries[doc] = Fused(id=doc, score=0.0)
            e.ranks[name] = pos
            e.score += w / (rrf_k + pos)
    return sorted(entries.values(), key=lambda e: (-e.score, min(e.ranks.values()), e.id))
