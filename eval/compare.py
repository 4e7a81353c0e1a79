"""``kb eval compare A B``: metric deltas with significance, and per-query outcomes.

Pairing: only queries present in both runs (by query id) are compared; both runs are
scored at depth ``K = min(k_A, k_B)``.

Chunkers: when both runs' indexes were built by the same chunkers (name, version and
parameters; :func:`eval.coverage.chunkers`), matching is the strict rule
(``chunker_version_match: exact``). Otherwise both runs are re-scored with the
``span`` rule of :mod:`eval.matching` (``chunker_version_match: fallback_doc_span``):
a snippet cut by one chunker then still counts, so neither chunker is penalised for
where it cuts. ``strict_chunker_version=True`` refuses to compare such runs.

Per metric (B − A): the values of both runs over the paired queries where the metric
is defined in both, the delta, a paired randomization test's two-sided p, a
bootstrap 95% CI of the delta (:mod:`eval.stats`) and, for averaged metrics, the
minimum detectable difference at alpha 0.05 and power 0.8 from n and the SD of the
paired differences (:mod:`eval.power`); fewer than 200 paired queries add a note.
The chunk-level metrics (:mod:`eval.metrics.chunks`) are compared when both runs
recorded token spans.

Per query with supports, on the rank of the first chunk matching a support within K
(``None`` = no match):

- **win**: B matched and (A did not, or B's rank is better, i.e. smaller);
- **loss**: A matched and (B did not, or B's rank is worse);
- **draw**: the same rank, or neither matched;
- **regression**: A matched and B did not (every regression is also a loss).

A query whose retrieval failed counts as "no match" in that run.

Per metric, besides the paired values, each run's own value over the shared queries
where the metric is defined *in that run* (``own_a``/``own_b``, with their ``n``):
with the same queries and matching this is what ``kb eval show RUN --matching
exact|doc_span`` prints, so a paired value that differs (the other run left a query
outside the metric's denominator) can be reconciled by reading both.

Changed queries (the drill-down lists): a query is a **regression** when B is worse
than A on the first matching rank (a loss) or on any answer metric defined for it in
both runs, and an **improvement** when B is better on one of them and worse on none.
Each change lists what moved (``metric``, A's value, B's value, ``better``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval import power, stats
from eval.metrics import MetricTable, compute_table
from eval.metrics.table import matching_name
from eval.metrics.token_views import has_tokens
from eval.names import ANSWER, JUDGE_NAMES, MetricSpec, default_names
from eval.result import QueryResult
from eval.store import EvalStore, RunRow
from kb.errors import UsageError

OUTCOMES = ("win", "loss", "draw", "regression")


@dataclass(frozen=True)
class MetricDelta:
    spec: MetricSpec
    result: stats.PairedResult
    own_a: tuple[float | None, int] = (None, 0)
    own_b: tuple[float | None, int] = (None, 0)
    mdd: float | None = None  # minimum detectable difference (eval.power); means only

    @property
    def improved(self) -> bool | None:
        """True when B is better than A (by the metric's direction), None when equal."""
        d = self.result.delta
        if d is None or d == 0:
            return None
        return (d > 0) == self.spec.higher_is_better


@dataclass(frozen=True)
class QueryOutcome:
    query_id: str
    category: str
    rank_a: int | None
    rank_b: int | None
    outcome: str
    regression: bool


@dataclass(frozen=True)
class Change:
    metric: str  # "first_rank" or an answer metric
    a: float | None
    b: float | None
    better: bool


@dataclass(frozen=True)
class QueryChange:
    query_id: str
    category: str
    direction: str  # regression | improvement
    changes: tuple[Change, ...]


@dataclass
class Comparison:
    run_a: RunRow
    run_b: RunRow
    k: int
    chunker_version_match: str
    match_mode: str
    metrics: list[MetricDelta]
    judge: list[MetricDelta]
    outcomes: list[QueryOutcome]
    notes: list[str] = field(default_factory=list)
    n_permutations: int = stats.N_PERM
    n_bootstrap: int = stats.N_BOOT
    seed: int = stats.SEED
    changes: list[QueryChange] = field(default_factory=list)
    results_a: list[QueryResult] = field(default_factory=list)  # paired, in A's order
    results_b: list[QueryResult] = field(default_factory=list)

    @property
    def matching(self) -> str:
        """``exact`` or ``doc_span`` (the name reports show for ``match_mode``)."""
        return matching_name(self.match_mode)

    def totals(self) -> dict[str, int]:
        out = dict.fromkeys(OUTCOMES, 0)
        for o in self.outcomes:
            out[o.outcome] += 1
            out["regression"] += int(o.regression)
        return out

    def by_category(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for o in self.outcomes:
            row = out.setdefault(o.category, dict.fromkeys(OUTCOMES, 0))
            row[o.outcome] += 1
            row["regression"] += int(o.regression)
        return dict(sorted(out.items()))

    def regressions(self) -> list[QueryOutcome]:
        return [o for o in self.outcomes if o.regression]


def chunker_keys(run: RunRow) -> list[tuple[Any, ...]]:
    items = run.config.get("index", {}).get("chunkers", [])
    return sorted(
        (str(c.get("name")), str(c.get("version")), repr(sorted((c.get("params") or {}).items())))
        for c in items
    )


def outcome_of(rank_a: int | None, rank_b: int | None) -> tuple[str, bool]:
    """(win | loss | draw, regression) from the two first-match ranks (see module docs)."""
    if rank_a == rank_b:
        return "draw", False
    if rank_b is not None and (rank_a is None or rank_b < rank_a):
        return "win", False
    return "loss", rank_b is None


def compare_runs(
    es: EvalStore,
    ref_a: str,
    ref_b: str,
    strict_chunker_version: bool = False,
    n_perm: int = stats.N_PERM,
    n_boot: int = stats.N_BOOT,
    seed: int = stats.SEED,
    es_b: EvalStore | None = None,
) -> Comparison:
    """Load runs ``ref_a`` (from ``es``) and ``ref_b`` (from ``es_b``, default ``es``: runs
    stored in two KBs, e.g. built with different chunkers, compare as well)."""
    other = es_b or es
    a, b = es.find_run(ref_a), other.find_run(ref_b)
    return compare_loaded(
        a, es.results(a.id), b, other.results(b.id), strict_chunker_version, n_perm, n_boot, seed
    )


def compare_loaded(
    a: RunRow,
    ra: list[QueryResult],
    b: RunRow,
    rb: list[QueryResult],
    strict_chunker_version: bool = False,
    n_perm: int = stats.N_PERM,
    n_boot: int = stats.N_BOOT,
    seed: int = stats.SEED,
) -> Comparison:
    same = chunker_keys(a) == chunker_keys(b)
    if not same and strict_chunker_version:
        raise UsageError(
            f"runs {a.id} and {b.id} were made with different chunkers "
            f"({_chunker_text(a)} vs {_chunker_text(b)}); drop --strict-chunker-version to "
            "compare them with document-span matching"
        )
    mode = "strict" if same else "span"
    notes = _notes(a, ra, b, rb)
    ids_b = {r.query_id for r in rb}
    common = [r.query_id for r in ra if r.query_id in ids_b]
    pa = {r.query_id: r for r in ra}
    pb = {r.query_id: r for r in rb}
    sel_a = [pa[q] for q in common]
    sel_b = [pb[q] for q in common]
    K = min(a.k, b.k)
    answers = any(r.answer is not None for r in sel_a) and any(r.answer is not None for r in sel_b)
    names = default_names(K, answers, has_tokens(sel_a) and has_tokens(sel_b))
    judged = [n for n in JUDGE_NAMES if _judged(sel_a) and _judged(sel_b)]
    ta = compute_table(sel_a, K, mode, names + judged, scoped=bool(a.options.get("scoped")))
    tb = compute_table(sel_b, K, mode, names + judged, scoped=bool(b.options.get("scoped")))
    deltas = [_delta(ta, tb, n, n_perm, n_boot, seed) for n in names]
    jd = [_delta(ta, tb, n, n_perm, n_boot, seed) for n in judged]
    outcomes = []
    for i, r in enumerate(sel_a):
        if not r.query.supports:
            continue
        rank_a = ta.judgements[i].first_rank_within(K) if r.retrieval_ok else None
        rank_b = tb.judgements[i].first_rank_within(K) if sel_b[i].retrieval_ok else None
        out, reg = outcome_of(rank_a, rank_b)
        outcomes.append(
            QueryOutcome(r.query_id, r.query.category or "(none)", rank_a, rank_b, out, reg)
        )
    changes = query_changes(ta, tb, outcomes)
    small = power.small_set_warning(len(common))
    if small is not None:
        notes.insert(0, small)
    return Comparison(
        a,
        b,
        K,
        "exact" if same else "fallback_doc_span",
        mode,
        deltas,
        jd,
        outcomes,
        notes,
        n_perm,
        n_boot,
        seed,
        changes,
        sel_a,
        sel_b,
    )


def query_changes(ta: MetricTable, tb: MetricTable, outcomes: list[QueryOutcome]) -> list:
    """Regressions, then improvements, in query order (see the module docs)."""
    by_outcome = {o.query_id: o for o in outcomes}
    answer = [n for n in ta.names if ta.specs[n].group == ANSWER]
    worse: list[QueryChange] = []
    better: list[QueryChange] = []
    for i, r in enumerate(ta.results):
        items: list[Change] = []
        o = by_outcome.get(r.query_id)
        if o is not None and o.outcome != "draw":
            items.append(
                Change(
                    "first_rank",
                    None if o.rank_a is None else float(o.rank_a),
                    None if o.rank_b is None else float(o.rank_b),
                    o.outcome == "win",
                )
            )
        for name in answer:
            va, vb = float(ta.values[name][i]), float(tb.values[name][i])
            if np.isfinite(va) and np.isfinite(vb) and va != vb:
                items.append(Change(name, va, vb, (vb > va) == ta.specs[name].higher_is_better))
        if not items:
            continue
        cat = r.query.category or "(none)"
        if any(not c.better for c in items):
            worse.append(QueryChange(r.query_id, cat, "regression", tuple(items)))
        else:
            better.append(QueryChange(r.query_id, cat, "improvement", tuple(items)))
    return worse + better


def _delta(
    ta: MetricTable, tb: MetricTable, name: str, n_perm: int, n_boot: int, seed: int
) -> MetricDelta:
    va, vb = ta.values[name], tb.values[name]
    both = np.isfinite(va) & np.isfinite(vb)
    spec = ta.specs[name]
    mdd = power.min_detectable_difference(vb[both] - va[both]) if spec.aggregate == "mean" else None
    return MetricDelta(
        spec,
        stats.paired(va[both], vb[both], spec.aggregate, n_perm, n_boot, seed),
        ta.aggregate(name),
        tb.aggregate(name),
        mdd,
    )


def _judged(results: list[QueryResult]) -> bool:
    return any(r.answer is not None and r.answer.judge for r in results)


def _chunker_text(run: RunRow) -> str:
    keys = chunker_keys(run)
    return ", ".join(f"{n} {v}" for n, v, _ in keys) or "unknown"


def _notes(a: RunRow, ra: list[QueryResult], b: RunRow, rb: list[QueryResult]) -> list[str]:
    notes = []
    if a.golden_hash != b.golden_hash:
        notes.append(
            "the runs used different golden files (or versions of one); only "
            "queries with the same id are paired"
        )
    ia, ib = a.config.get("index", {}), b.config.get("index", {})
    if ia.get("corpus_fingerprint") != ib.get("corpus_fingerprint"):
        notes.append("the indexed corpora differ (corpus fingerprints differ)")
    if ia.get("embedding") != ib.get("embedding"):
        notes.append(f"embedding models differ: {ia.get('embedding')} vs {ib.get('embedding')}")
    la = a.config.get("llm", {}).get("model_hash")
    lb = b.config.get("llm", {}).get("model_hash")
    if la and lb and la != lb:
        notes.append("answer models differ (GGUF hashes differ)")
    only_a = len({r.query_id for r in ra} - {r.query_id for r in rb})
    only_b = len({r.query_id for r in rb} - {r.query_id for r in ra})
    if only_a or only_b:
        notes.append(f"{only_a} queries only in A and {only_b} only in B are left out")
    for run in (a, b):
        if run.status != "complete":
            notes.append(f"run {run.id} is {run.status}")
    return notes
