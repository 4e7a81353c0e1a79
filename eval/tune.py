"""``kb eval tune``: fit the retrieval settings to the user's own golden set.

Procedure (everything seeded, so a rerun on the same KB and golden set gives the same
answer):

1. **Split.** The queries are split into train and test with a fixed seed,
   stratified by ``answerable`` (each stratum is shuffled, its first
   ``round(n * test_fraction)`` go to test). Test queries are never looked at while
   choosing.
2. **Retrieve once.** Every query runs through the real retriever once, in hybrid
   mode, ``depth`` chunks deep per leg (:meth:`kb.search.Retriever.candidates`).
   Each grid point is then ranked in memory by :func:`kb.search.candidates.fuse`,
   which gives exactly the order ``kb search`` would give with those settings (a
   leg's top ``n`` is a prefix of its deeper list).
3. **Fusion** (``fusion``, ``candidates``, ``rrf_k``, ``keyword_weight`` with
   ``vector_weight`` 1; both fusions depend only on the weights' ratio): the grid point
   with the highest **mrr@10** over the answerable train queries wins; ties keep the
   current settings, then the earlier grid point. Then, at the winning fusion point,
   ``sentence_weight`` (the sentence rerank of :mod:`kb.search.rerank`, with each
   candidate's best sentence cosine computed once per query and reused) is chosen the
   same way from :attr:`Grid.sentence_weight`.
4. **Threshold** (``min_score``, the refusal decision of
   :mod:`kb.search.evidence`): a query is refused when its best cosine is below the
   threshold and no sentence clears it by the margin (by none when a sentence of its
   top hits holds every content word of the question, as ``kb ask`` judges). Train objective:
   the most abstention on unanswerable queries while over-refusal on answerable ones
   stays within a budget (default 5%: refusing a question the KB can answer costs the
   user more than letting the answer model say "not in context"); ties take the lowest
   threshold; no gain keeps the current value. Needs answerable and unanswerable
   train queries, else the current value is kept.
5. **Report** on the test queries only: hit@1/5/10, mrr@10 and recall_all@10 of the
   current and the best settings, and abstention / over-refusal of both thresholds
   with the balanced accuracy's paired randomization test and bootstrap CI
   (:mod:`eval.stats`). :meth:`TuneReport.to_apply` keeps only the changes that did
   not lose on the test queries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from eval.golden import GoldenQuery, GoldenSet
from eval.matching import ResolvedSupport, StoredHit, matched_supports
from eval.metrics import compute_table
from eval.resolve import Resolver, stored_hits
from eval.result import QueryResult
from eval.stats import PairedResult, paired
from kb.errors import (
    ConfigError,
    EmbeddingMismatchError,
    EmptyStoreError,
    ModelError,
    StoreError,
    UsageError,
)
from kb.search.candidates import Candidates, fuse
from kb.search.evidence import ask_passes
from kb.search.options import SearchOptions
from kb.search.rerank import reranked
from kb.store import Store

if TYPE_CHECKING:
    from eval.tune_answerable import AnswerableTune

SEED = 20240601
K = 10
FATAL = (ModelError, EmptyStoreError, EmbeddingMismatchError, StoreError, ConfigError)
FUSION_KEYS = (
    "fusion",
    "candidates",
    "rrf_k",
    "vector_weight",
    "keyword_weight",
    "sentence_weight",
)
MAX_OVER_REFUSAL = 0.05
RANK_METRICS = ("hit@1", "hit@5", "hit@10", "mrr@10", "recall_all@10")


@dataclass(frozen=True)
class Grid:
    """The fusion settings tried (``vector_weight`` is 1 throughout) and thresholds.

    Points: every ``fusion`` x ``candidates`` x ``keyword_weight``, and for ``rrf``
    also every ``rrf_k`` (score fusion does not use it: the current value is kept).
    """

    fusion: tuple[str, ...] = ("score", "rrf")
    candidates: tuple[int, ...] = (20, 50, 100, 200)
    rrf_k: tuple[int, ...] = (10, 30, 60, 100)
    keyword_weight: tuple[float, ...] = (0.5, 0.75, 1.0, 1.5, 2.0)
    sentence_weight: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
    min_score: tuple[float, ...] = (-1.0, *(round(0.01 * i, 2) for i in range(81)))

    @property
    def depth(self) -> int:
        """Chunks per leg to gather: enough for every point at depth :data:`K`."""
        return max(*self.candidates, K)

    def points(self, base: SearchOptions) -> list[SearchOptions]:
        out = []
        for f in self.fusion:
            for c in self.candidates:
                for r in self.rrf_k if f == "rrf" else (base.rrf_k,):
                    for w in self.keyword_weight:
                        out.append(
                            replace(
                                base,
                                mode="hybrid",
                                fusion=f,
                                candidates=c,
                                rrf_k=r,
                                vector_weight=1.0,
                                keyword_weight=w,
                            )
                        )
        return out


class CandidateSource(Protocol):
    def candidates(self, query: str, opts: SearchOptions, depth: int) -> Candidates: ...


#: ``(candidates, chunk ids) -> {chunk id: best sentence cosine}`` or ``None`` (skip the
#: rerank); :meth:`kb.search.Retriever.sentence_scores`
SentenceScorer = Callable[[Candidates, list[int]], "dict[int, float] | None"]


@dataclass
class Gathered:
    """One query's deep candidates and resolved supports; ``scorer`` gives the sentence
    rerank's ``s`` (memoised per chunk in ``sentence``), ``None`` without one."""

    query: GoldenQuery
    cands: Candidates
    resolved: list[ResolvedSupport]
    scorer: SentenceScorer | None = None
    sentence: dict[int, float] = field(default_factory=dict)
    #: a sentence of the current settings' top hits holds every content word of the
    #: question (:func:`kb.rag.answerability.says_every_term`): ``kb ask`` then waives
    #: the sentence margin (set by :func:`tune`, on the hits of the chosen fusion
    #: settings, which both thresholds are judged with)
    says_every_term: bool = False
    #: a hit's own section heading names what the question asks about
    #: (:func:`kb.rag.naming.names_section`): ``kb ask`` then needs no cosine
    names_section: bool = False

    def sentence_scores(self, ids: list[int]) -> dict[int, float] | None:
        """``s`` of ``ids`` (computed once per chunk), or ``None`` to skip the rerank."""
        if self.scorer is None:
            return None
        todo = [i for i in ids if i not in self.sentence]
        if todo:
            got = self.scorer(self.cands, todo)
            if got is None:
                return None
            self.sentence.update(got)
        return {i: self.sentence[i] for i in ids}


@dataclass
class RefusalOutcome:
    threshold: float
    abstention: float | None  # share of unanswerable queries refused
    over_refusal: float | None  # share of answerable queries refused


@dataclass
class TuneReport:
    n_train: int
    n_test: int
    current: SearchOptions
    best: SearchOptions
    train_mrr: tuple[float | None, float | None]  # current, best
    test: dict[str, PairedResult]
    refusal_train: tuple[RefusalOutcome, RefusalOutcome] | None  # current, best
    refusal_test: tuple[RefusalOutcome, RefusalOutcome] | None
    refusal_paired: PairedResult | None  # per-query "decision right" on test
    grid_size: int
    warnings: list[str] = field(default_factory=list)
    #: ``[answer] min_answerable``, tuned by :mod:`eval.tune_answerable` when asked
    answerable: AnswerableTune | None = None

    def changes(self) -> dict[str, Any]:
        """``[search]`` keys whose best value differs from the current one."""
        return {
            k: getattr(self.best, k)
            for k in FUSION_KEYS + ("min_score",)
            if getattr(self.best, k) != getattr(self.current, k)
        }

    def to_apply(self) -> dict[str, Any]:
        """The changes that hold up on the test queries: the fusion keys when test
        mrr@10 did not drop, ``min_score`` when its test objective did not drop."""
        out = {}
        m = self.test.get("mrr@10")
        if m is None or m.delta is None or m.delta >= 0:
            out.update({k: v for k, v in self.changes().items() if k in FUSION_KEYS})
        r = self.refusal_paired
        if "min_score" in self.changes() and (r is None or r.delta is None or r.delta >= 0):
            out["min_score"] = self.best.min_score
        return out

    def to_json(self) -> dict[str, Any]:
        def opts(o: SearchOptions) -> dict[str, Any]:
            return {
                "mode": o.mode,
                "fusion": o.fusion,
                "candidates": o.candidates,
                "rrf_k": o.rrf_k,
                "vector_weight": o.vector_weight,
                "keyword_weight": o.keyword_weight,
                "sentence_weight": o.sentence_weight,
                "min_score": o.min_score,
            }

        def refusal(r: RefusalOutcome) -> dict[str, Any]:
            return {
                "min_score": r.threshold,
                "abstention": r.abstention,
                "over_refusal": r.over_refusal,
            }

        return {
            "split": {"train": self.n_train, "test": self.n_test, "seed": SEED},
            "grid_size": self.grid_size,
            "current": opts(self.current),
            "best": opts(self.best),
            "changes": self.changes(),
            "train_mrr@10": {"current": self.train_mrr[0], "best": self.train_mrr[1]},
            "test": {name: vars(p) for name, p in self.test.items()},
            "refusal_test": None
            if self.refusal_test is None
            else {
                "current": refusal(self.refusal_test[0]),
                "best": refusal(self.refusal_test[1]),
                "balanced_accuracy": None
                if self.refusal_paired is None
                else vars(self.refusal_paired),
            },
            "to_apply": self.to_apply(),
            "answer": None if self.answerable is None else self.answerable.to_json(),
            "warnings": self.warnings,
        }


def split(
    queries: Sequence[GoldenQuery], test_fraction: float, seed: int = SEED
) -> tuple[list[int], list[int]]:
    """Indexes of train and test queries (see the module docs), each in file order."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be between 0 and 1, got {test_fraction}")
    rng = np.random.default_rng(seed)
    test: set[int] = set()
    for answerable in (True, False):
        idx = np.array([i for i, q in enumerate(queries) if q.answerable == answerable])
        if idx.size == 0:
            continue
        idx = idx[rng.permutation(idx.size)]
        test.update(int(i) for i in idx[: int(round(idx.size * test_fraction))])
    train = [i for i in range(len(queries)) if i not in test]
    return train, sorted(test)


class Matcher:
    """Which supports each chunk matches, per query, computed once (lazily)."""

    def __init__(self, store: Store, gathered: list[Gathered]) -> None:
        self.store = store
        self.gathered = gathered
        self._hits: dict[int, StoredHit] = {}
        self._memo: dict[tuple[int, int], list[int]] = {}

    def hits(self, ids: Sequence[int]) -> list[StoredHit]:
        missing = [i for i in ids if i not in self._hits]
        if missing:
            self._hits.update(stored_hits(self.store.conn, missing))
        return [self._hits[i] for i in ids if i in self._hits]

    def first_rank(self, qi: int, ranking: Sequence[int]) -> int | None:
        """1-based rank of the first chunk in ``ranking`` matching a support of query
        ``qi`` (``None`` when none does)."""
        g = self.gathered[qi]
        self.hits([cid for cid in ranking if (qi, cid) not in self._memo])  # one query
        for r, cid in enumerate(ranking, start=1):
            key = (qi, cid)
            m = self._memo.get(key)
            if m is None:
                hit = self.hits([cid])
                m = matched_supports(hit[0], g.query.supports, g.resolved, "strict") if hit else []
                self._memo[key] = m
            if m:
                return r
        return None


def ranking(g: Gathered, opts: SearchOptions, k: int = K) -> list[int]:
    """Chunk ids of the top ``k`` for ``opts``, from the gathered candidates, sentence
    rerank included (as :meth:`kb.search.Retriever.search` ranks, title links aside:
    they place documents named by title whatever the weights, and none is tuned)."""
    o = replace(opts, k=k)
    if not o.reranks or g.scorer is None:
        return [f.id for f in fuse(g.cands, o)]
    fused = fuse(g.cands, o, max(k, o.rerank_depth))
    s = g.sentence_scores([f.id for f in fused[: o.rerank_depth]])
    if s is not None:
        fused = reranked(fused, s, o, g.cands)
    return [f.id for f in fused[:k]]


def mean_mrr(matcher: Matcher, rows: Sequence[int], opts: SearchOptions) -> float | None:
    """mrr@10 over ``rows`` (indexes of answerable queries with supports)."""
    if not rows:
        return None
    total = 0.0
    for qi in rows:
        r = matcher.first_rank(qi, ranking(matcher.gathered[qi], opts))
        total += 0.0 if r is None else 1.0 / r
    return total / len(rows)


def evidence_passes(g: Gathered, threshold: float) -> bool:
    """``kb ask``'s retrieval refusal rule (:func:`kb.search.evidence.ask_passes`) for one
    gathered query: its best chunk cosine, or its best sentence cosine among the
    candidates whose sentences were scored (the sentence rerank's)."""
    best_sentence = max(g.sentence.values()) if g.sentence else None
    return ask_passes(
        g.cands.best_cosine,
        threshold,
        best_sentence,
        lambda: g.says_every_term,
        lambda: g.names_section,
    )


def refusal_outcome(
    gathered: list[Gathered], rows: Sequence[int], threshold: float
) -> RefusalOutcome:
    """Abstention and over-refusal over ``rows`` when refusing below ``threshold``."""
    refused = {qi: not evidence_passes(gathered[qi], threshold) for qi in rows}
    ans = [refused[qi] for qi in rows if gathered[qi].query.answerable]
    una = [refused[qi] for qi in rows if not gathered[qi].query.answerable]
    return RefusalOutcome(
        threshold,
        None if not una else sum(una) / len(una),
        None if not ans else sum(ans) / len(ans),
    )


def choose_threshold(
    gathered: list[Gathered],
    rows: Sequence[int],
    thresholds: Sequence[float],
    max_over_refusal: float,
) -> float:
    """The threshold refusing the most unanswerable ``rows`` while refusing at most
    ``max_over_refusal`` of the answerable ones; ties take the lowest threshold. ``-1``
    (never refuse) when no threshold stays within the budget."""
    best, best_abst = -1.0, -1.0
    for t in sorted(thresholds):
        o = refusal_outcome(gathered, rows, t)
        if o.over_refusal is None or o.abstention is None or o.over_refusal > max_over_refusal:
            continue
        if o.abstention > best_abst:
            best, best_abst = t, o.abstention
    return best


def gather(
    store: Store,
    source: CandidateSource,
    golden: GoldenSet,
    opts: SearchOptions,
    depth: int,
    on_query: Callable[[str], None] | None = None,
) -> tuple[list[Gathered], list[str]]:
    """Deep candidates for every query (failures are skipped with a warning)."""
    resolver = Resolver(store.conn, golden.corpus_dir, opts)
    hybrid = replace(opts, mode="hybrid")
    scorer: SentenceScorer | None = getattr(source, "sentence_scores", None)
    out: list[Gathered] = []
    warnings: list[str] = []
    for q in golden.queries:
        try:
            cands = source.candidates(q.question, hybrid, depth)
        except FATAL:
            raise
        except Exception as e:  # noqa: BLE001 - one bad query does not stop tuning
            warnings.append(f"query '{q.id}': skipped: {e}")
            continue
        out.append(Gathered(q, cands, resolver.resolve_query(q), scorer))
        if on_query is not None:
            on_query(q.id)
    return out, warnings


def tune(
    store: Store,
    gathered: list[Gathered],
    current: SearchOptions,
    grid: Grid = Grid(),
    test_fraction: float = 0.5,
    seed: int = SEED,
    max_over_refusal: float = MAX_OVER_REFUSAL,
) -> TuneReport:
    """Choose fusion settings and threshold on train, report on test (module docs)."""
    if not gathered:
        raise UsageError("no golden query could be retrieved; nothing to tune")
    depth = min(g.cands.depth for g in gathered)
    if max(current.candidates, K) > depth:  # rank as deep as was gathered
        current = replace(current, candidates=depth)
    matcher = Matcher(store, gathered)
    train, test = split([g.query for g in gathered], test_fraction, seed)
    ranked = [i for i, g in enumerate(gathered) if g.query.answerable and g.query.supports]
    train_r = [i for i in train if i in set(ranked)]
    warnings: list[str] = []
    if not train_r:
        warnings.append("no answerable train query has supports: fusion settings kept")

    best = current
    best_mrr = mean_mrr(matcher, train_r, current)
    cur_mrr = best_mrr
    points = grid.points(current)
    if train_r:
        for p in points:
            m = mean_mrr(matcher, train_r, p)
            if m is not None and best_mrr is not None and m > best_mrr + 1e-12:
                best, best_mrr = p, m
        fused_best = best
        for w in grid.sentence_weight:
            p = replace(fused_best, sentence_weight=w)
            points.append(p)
            m = mean_mrr(matcher, train_r, p)
            if m is not None and best_mrr is not None and m > best_mrr + 1e-12:
                best, best_mrr = p, m

    refusal_train = refusal_test = None
    refusal_p: PairedResult | None = None
    mark_lexical_passes(store, gathered, best)  # the hits kb ask will see after --apply
    cur_train = refusal_outcome(gathered, train, current.min_score)
    if cur_train.abstention is None or cur_train.over_refusal is None:
        warnings.append(
            "the train split needs answerable and unanswerable queries to tune min_score: kept"
        )
    else:
        best_t = choose_threshold(gathered, train, grid.min_score, max_over_refusal)
        if refusal_outcome(gathered, train, best_t).abstention == cur_train.abstention:
            best_t = current.min_score  # no gain on train: keep what the user has
        best = replace(best, min_score=best_t)
        refusal_train = (cur_train, refusal_outcome(gathered, train, best_t))
        refusal_test = (
            refusal_outcome(gathered, test, current.min_score),
            refusal_outcome(gathered, test, best_t),
        )
        refusal_p = _paired_refusal(gathered, test, current.min_score, best_t)

    test_metrics = _compare_on(matcher, test, current, best)
    return TuneReport(
        n_train=len(train),
        n_test=len(test),
        current=current,
        best=best,
        train_mrr=(_r4(cur_mrr), _r4(best_mrr)),
        test=test_metrics,
        refusal_train=refusal_train,
        refusal_test=refusal_test,
        refusal_paired=refusal_p,
        grid_size=len(points),
        warnings=warnings,
    )


def mark_lexical_passes(store: Store, gathered: list[Gathered], opts: SearchOptions) -> None:
    """Set :attr:`Gathered.says_every_term` and :attr:`Gathered.names_section` from
    each query's top ``opts.k`` hits under ``opts``, as ``kb ask`` retrieves them."""
    from kb.rag.answerability import says_every_term, section_named
    from kb.rag.docfreq import doc_freq_of

    doc_freq = doc_freq_of(store)
    for g in gathered:
        ids = ranking(g, opts, opts.k)
        found = store.hits_for(ids)
        hits = [found[i] for i in ids if i in found]
        g.says_every_term = says_every_term(g.query.question, hits, doc_freq)
        g.names_section = section_named(g.query.question, hits)


def _r4(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _paired_refusal(
    gathered: list[Gathered], rows: Sequence[int], a: float, b: float
) -> PairedResult | None:
    """:func:`paired_decisions` of refusing below ``min_score`` ``a`` vs ``b``."""
    return paired_decisions(
        [gathered[qi].query.answerable for qi in rows],
        [not evidence_passes(gathered[qi], a) for qi in rows],
        [not evidence_passes(gathered[qi], b) for qi in rows],
    )


def paired_decisions(
    answerable: Sequence[bool], refused_a: Sequence[bool], refused_b: Sequence[bool]
) -> PairedResult | None:
    """Paired test of two refusal decisions' balanced accuracy, ``(abstention + 1 -
    over-refusal) / 2``: per query 1 when the decision is right, weighted so that both
    classes count half (``0.5 * n / n_class``), so the mean is the balanced accuracy.
    ``None`` without both answerable and unanswerable queries."""
    n_ans = sum(answerable)
    n_una = len(answerable) - n_ans
    if not n_ans or not n_una:
        return None
    n = len(answerable)
    va: list[float] = []
    vb: list[float] = []
    for ans, ra, rb in zip(answerable, refused_a, refused_b, strict=True):
        w = n * 0.5 / (n_ans if ans else n_una)
        va.append(w * float(ra != ans))  # right: refused iff unanswerable
        vb.append(w * float(rb != ans))
    return paired(np.array(va), np.array(vb))


def _compare_on(
    matcher: Matcher, rows: Sequence[int], a: SearchOptions, b: SearchOptions
) -> dict[str, PairedResult]:
    """The rank metrics of ``a`` and ``b`` on ``rows``, computed by eval's own metric
    table (the numbers ``kb eval run`` would report), with the paired test."""
    tables = []
    for opts in (a, b):
        results = []
        for pos, qi in enumerate(rows):
            g = matcher.gathered[qi]
            hits = matcher.hits(ranking(g, opts))
            results.append(QueryResult(query=g.query, position=pos, hits=hits, resolved=g.resolved))
        tables.append(compute_table(results, K, names=list(RANK_METRICS)))
    out: dict[str, PairedResult] = {}
    for name in RANK_METRICS:
        va, vb = tables[0].values[name], tables[1].values[name]
        keep = np.isfinite(va) & np.isfinite(vb)
        out[name] = paired(va[keep], vb[keep])
    return out
