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
  its true cosine and rank in the vector leg, ``1 + #{in-scope chunks with a higher
  cosine}`` (the vector search is exact, so every one is known). A chunk the keyword
  leg ranks highly keeps what both legs say about it;
- ``fusion = "score"`` (the default): a convex combination of the two scores, each
  divided by the query's best score of its leg (:func:`score_fusion`);
  ``fusion = "rrf"``: reciprocal rank fusion, ``score = w_v/(rrf_k + rank_v) +
  w_k/(rrf_k + rank_k)`` (:mod:`kb.search.fusion`).

Why score fusion is the default: rank fusion throws away how *much* better a leg's
first chunk is than its second. On squad-dev (300 answerable queries, bundled
MiniLM) it raised mrr@10 from 0.878 (RRF, k=60) to 0.913 with equal, untuned weights;
see the README's search section for the paired test.

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
from kb.search.options import SearchOptions


@dataclass
class Candidates:
    """One query's candidates from both legs, ``depth`` deep (see the module docs).

    ``vector``: the top ``depth`` ``(chunk_id, cosine)``, best first (empty in keyword
    mode). ``keyword``: the top ``depth`` ``(chunk_id, -bm25)``, best first (empty in
    vector mode). ``cosine``: the cosine of every candidate that has a vector.
    ``vector_rank``: the true 1-based vector rank (within the scope) of every
    candidate that has a vector. ``best_cosine``: the highest cosine of any chunk in
    the scope (``None`` when no vector was searched or none is in scope).
    ``query_vector``: the query's vector (``None`` in keyword mode), for the sentence
    rerank (:mod:`kb.search.rerank`).
    """

    depth: int
    vector: list[tuple[int, float]] = field(default_factory=list)
    keyword: list[tuple[int, float]] = field(default_factory=list)
    cosine: dict[int, float] = field(default_factory=dict)
    vector_rank: dict[int, int] = field(default_factory=dict)
    best_cosine: float | None = None
    query_vector: np.ndarray | None = None
    #: how many terms the keyword leg searched for (:func:`kb.search.keyword.query_terms`)
    query_terms: int = 0
    #: words no chunk holds -> the spellings searched instead (:mod:`kb.search.typos`)
    corrections: dict[str, list[str]] = field(default_factory=dict)
    #: chunks the task leg put at the head of ``keyword`` (:mod:`kb.search.tasks`)
    tasks: set[int] = field(default_factory=set)


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


#: the least best cosine that counts as a full vector score in score fusion
#: (:func:`score_fusion`): the default ``[search] min_score``, fixed, so that ranking
#: does not move with the refusal threshold a user or ``kb eval tune`` sets
COSINE_FLOOR = 0.25


def fuse(c: Candidates, opts: SearchOptions, limit: int | None = None) -> list[Fused]:
    """The best ``opts.k`` entries for ``opts.mode`` (see the module docs), or the best
    ``limit`` (the sentence rerank looks deeper than ``k``; the legs' depth ``n`` is
    still decided by ``opts.k``); ``Fused.ranks`` holds each leg's rank (in hybrid mode
    the vector rank is the true one whenever the chunk has a vector)."""
    keep = opts.k if limit is None else limit
    k = opts.k
    if opts.mode == "vector":
        out = [Fused(i, s, {"vector": r}) for r, (i, s) in enumerate(c.vector, start=1)]
        if opts.min_score > -1:
            out = [f for f in out if f.score >= opts.min_score]
        return out[:keep]
    if opts.mode == "keyword":
        return [Fused(i, s, {"keyword": r}) for r, (i, s) in enumerate(c.keyword[:keep], start=1)]
    n = max(opts.candidates, k)
    kw_ranks = {i: r for r, (i, _) in enumerate(c.keyword[:n], start=1)}
    vec_ranks = {i: r for r, (i, _) in enumerate(c.vector[:n], start=1)}
    for i in kw_ranks:
        if i not in vec_ranks and i in c.vector_rank:
            vec_ranks[i] = c.vector_rank[i]
    weights = {"vector": opts.vector_weight, "keyword": opts.keyword_weight}
    if opts.fusion == "rrf":
        fused = rrf_ranks({"vector": vec_ranks, "keyword": kw_ranks}, weights, opts.rrf_k)
    else:
        fused = score_fusion(c, vec_ranks, kw_ranks, opts.vector_weight, opts.keyword_weight)
    return lookups_first(fused, c)[:keep]


#: a query of at most this many terms, whose terms occur in at most this many chunks in
#: all, is a lookup (:func:`lookups_first`)
LOOKUP_TERMS = 3
LOOKUP_MATCHES = 3
#: the best cosine under which a query with corrected spellings may still be a lookup:
#: one-word typo searches of a notes + squad-dev KB ("pasport", "krishnamurti",
#: "Synology tikcet", "atmosphre") meet unrelated pages at 0.25 to 0.36, while a page
#: about what a word means scores 0.4 and more with MiniLM
TYPO_LOOKUP_COSINE = 0.4


def meaning_found(c: Candidates) -> bool:
    """Something in the scope is close to the query in meaning: best cosine at least
    :data:`TYPO_LOOKUP_COSINE` (``False`` without a cosine, e.g. in keyword mode)."""
    return c.best_cosine is not None and c.best_cosine >= TYPO_LOOKUP_COSINE


def lookup_ids(c: Candidates) -> set[int]:
    """The chunks a hybrid query *looks up*: every chunk that holds any of its terms,
    when the query has at most :data:`LOOKUP_TERMS` of them (stop words aside) and
    they occur in at most :data:`LOOKUP_MATCHES` chunks of the scope (the keyword leg's
    whole list, shorter than its depth). Empty otherwise, and in a single-leg mode. A
    longer question is never a lookup: in a KB of a few notes, most of its words occur
    in few chunks, and a paraphrase that shares none of them must still rank first. A
    query whose keyword list holds corrected spellings (:mod:`kb.search.typos`) is one
    only when nothing is close to it in meaning (best cosine under
    :data:`TYPO_LOOKUP_COSINE`), where a typo explains the query best; otherwise the
    meaning wins, as a word the KB lacks may have been "corrected" to an unrelated one."""
    if not 1 <= c.query_terms <= LOOKUP_TERMS:
        return set()
    if c.corrections and meaning_found(c):
        return set()
    if not c.vector or not c.keyword or len(c.keyword) > LOOKUP_MATCHES:
        return set()
    if len(c.keyword) >= c.depth:  # the list may be cut: it need not be every match
        return set()
    return {i for i, _ in c.keyword}


def lookups_first(fused: list[Fused], c: Candidates) -> list[Fused]:
    """``fused`` with a lookup's chunks (:func:`lookup_ids`) first, in their order, and
    the rest after them in theirs; a lifted chunk's score is raised to the best score
    of the others, so scores still fall down the list.

    Why: a short query whose every word is that rare in the KB (a name, a code, a word
    typed to find the one note that has it: "Garcia-Molina", "HX-44821") asks for
    those chunks. The embedder cannot tell: it places the query near whatever *sounds*
    alike (other Spanish names at cosine 0.34, above ``min_score``), and score fusion
    plus the sentence rerank ranked those above the one chunk that holds the name
    (4th among 300 HotpotQA pages). A question that shares any common word with the
    KB ("When does the chimney sweep come?") matches more chunks and is ranked as
    before; on squad-dev's 460 questions no ranking changed."""
    lead = lookup_ids(c)
    if not lead:
        return list(fused)
    first = [f for f in fused if f.id in lead]
    rest = [f for f in fused if f.id not in lead]
    if not first or not rest:
        return first + rest
    best_rest = rest[0].score
    raised = [
        Fused(f.id, max(f.score, best_rest), f.ranks, f.score if f.fused is None else f.fused)
        for f in first
    ]
    return raised + rest


def score_fusion(
    c: Candidates,
    vec_ranks: dict[int, int],
    kw_ranks: dict[int, int],
    vector_weight: float,
    keyword_weight: float,
    cosine_floor: float = COSINE_FLOOR,
) -> list[Fused]:
    """Convex combination of max-normalised scores over the candidates in either map::

        v(d) = max(cosine(d), 0) / max(best_cosine, floor)  (0 without a vector)
        b(d) = bm25(d) / bm25(keyword rank 1)                (0 outside the keyword list)
        score(d) = (w_v * v(d) + w_k * b(d)) / (w_v + w_k)

    Both normalisers use the score's theoretical minimum (0) and the query's best
    score, so each leg's top chunk gets 1 and a chunk keeps how far it is from it
    (Bruch, Gai and Ingber, 2023, "An analysis of fusion functions for hybrid
    retrieval": such a convex combination beats RRF and needs little tuning). The
    cosine's ``floor`` (``cosine_floor``: :data:`COSINE_FLOOR`, 0.25) is the least
    best cosine that counts as a full score: when no chunk reaches it, nothing is about
    the query as the embedder sees it (a name, a code: "Garcia-Molina" scored 0.15 at
    best, against a travel note), and its cosines are scaled as they are instead of
    being blown up to 1, so the keyword leg's exact match decides. A leg
    whose best score is not positive contributes 0; weights summing to 0 give 0.
    Ties: a chunk both legs rank first (it has a keyword match *and* a vector
    rank), then the best single rank, then the chunk id. So a rare word's only chunk
    stays first even when its cosine is 0 or less (0.5 each with equal weights).
    """
    bm25 = dict(c.keyword)
    top_cos = max(c.best_cosine or 0.0, cosine_floor, 0.0)
    top_kw = max(c.keyword[0][1], 0.0) if c.keyword else 0.0
    total = vector_weight + keyword_weight
    out: list[Fused] = []
    for i in set(vec_ranks) | set(kw_ranks):
        v = max(c.cosine.get(i, 0.0), 0.0) / top_cos if top_cos > 0 else 0.0
        b = bm25[i] / top_kw if top_kw > 0 and i in kw_ranks else 0.0
        score = (vector_weight * v + keyword_weight * b) / total if total > 0 else 0.0
        ranks = {name: m[i] for name, m in (("vector", vec_ranks), ("keyword", kw_ranks)) if i in m}
        out.append(Fused(i, score, ranks))
    out.sort(key=lambda e: (-e.score, -len(e.ranks), min(e.ranks.values()), e.id))
    return out
