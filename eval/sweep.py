"""A leaderboard of chunkings evaluated on one golden set (``kb eval sweep``).

Input: one stored run per chunking (the first is the **baseline**) plus what building
each chunking cost. Every run is scored with document-span matching (``doc_span``:
the chunkings differ, so only span matching compares them fairly; see
:mod:`eval.matching`).

Per challenger, on the **primary metric** (default ``mrr@10``), paired by query:

- ``delta = mean(b) - mean(a)``, the two-sided paired randomization test and the
  bootstrap 95% interval (:func:`eval.stats.paired`);
- **Holm** correction over the ``m`` challengers: with raw p-values sorted ascending
  ``p_(1) <= ... <= p_(m)``, ``p_holm_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``;
- verdict: ``win`` (or ``loss``) only when ``p_holm < alpha`` (0.05) and the delta is
  in the metric's better (worse) direction; otherwise ``tie``;
- **minimum detectable difference** (two-sided alpha = 0.05, power 0.8):
  ``MDD = (z_0.975 + z_0.8) * sd(b - a) / sqrt(n) = 2.8016 * sd / sqrt(n)`` with the
  sample SD of the paired differences (``None`` for fewer than 2 pairs). A difference
  smaller than it is unlikely to be detected by this set; with fewer than
  :data:`FEW_QUERIES` queries the leaderboard warns.

Chunk-level metrics (token recall/precision/IoU) live in another module; a function
appended to :data:`EXTRA_COLUMNS` adds its columns to every row.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval import stats
from eval.metrics import compute_table
from eval.names import parse_metric
from eval.result import QueryResult
from eval.store import RunRow

FEW_QUERIES = 200
Z_SUM = 1.959964 + 0.841621  # z_{1-0.05/2} + z_{0.8}
SHOWN = (
    "hit@1",
    "hit@5",
    "hit@10",
    "mrr@10",
    "ndcg@10",
    "recall_all@10",
    # chunk level, in the embedder's tokens (eval.metrics.chunks): present when the runs
    # recorded token spans
    "token_recall@5",
    "token_iou@5",
    "precision_omega",
)


@dataclass
class SweepEntry:
    """One chunking's run and what building it cost (``build``: the keys of
    :meth:`ingest.chunkings.BuildReport.to_dict` plus ``seconds_eval``)."""

    spec: str
    run: RunRow
    results: list[QueryResult]
    build: dict[str, Any]
    chunks: int
    mean_tokens: float | None
    p95_tokens: float | None


# hook: callables adding columns per entry (e.g. chunk-level token IoU); name -> value
EXTRA_COLUMNS: list[Callable[[SweepEntry], dict[str, float | None]]] = []


@dataclass
class Row:
    spec: str
    metrics: dict[str, float | None]
    chunks: int
    mean_tokens: float | None
    p95_tokens: float | None
    texts_embedded: int
    texts_cached: int
    seconds: float
    verdict: str = "baseline"
    delta: float | None = None
    p_value: float | None = None
    p_holm: float | None = None
    ci95: tuple[float | None, float | None] = (None, None)
    mdd: float | None = None
    extra: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "verdict": self.verdict,
            "metrics": self.metrics,
            "chunks": self.chunks,
            "mean_tokens": self.mean_tokens,
            "p95_tokens": self.p95_tokens,
            "texts_embedded": self.texts_embedded,
            "texts_cached": self.texts_cached,
            "seconds": round(self.seconds, 3),
            "delta": self.delta,
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "ci95": list(self.ci95),
            "min_detectable_difference": self.mdd,
            **({"extra": self.extra} if self.extra else {}),
        }


@dataclass
class Leaderboard:
    metric: str
    k: int
    queries: int
    alpha: float
    rows: list[Row]
    warnings: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "k": self.k,
            "queries": self.queries,
            "alpha": self.alpha,
            "matching": "doc_span",
            "rows": [r.to_dict() for r in self.rows],
            "warnings": self.warnings,
        }


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm-adjusted p-values (see the module docs); ``None`` stays ``None`` and does
    not count towards ``m``."""
    idx = sorted((i for i, p in enumerate(p_values) if p is not None), key=lambda i: p_values[i])  # type: ignore[arg-type, return-value]
    m = len(idx)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(idx):
        p = p_values[i]
        assert p is not None
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = round(running, 4)
    return out


def min_detectable(diff: np.ndarray) -> float | None:
    """``2.8016 * sd(diff) / sqrt(n)`` (module docs); ``None`` below 2 pairs."""
    n = int(diff.size)
    if n < 2:
        return None
    return round(Z_SUM * float(np.std(diff, ddof=1)) / math.sqrt(n), 4)


def leaderboard(
    entries: list[SweepEntry],
    metric: str = "mrr@10",
    alpha: float = 0.05,
    n_perm: int = stats.N_PERM,
    n_boot: int = stats.N_BOOT,
) -> Leaderboard:
    """The leaderboard of ``entries`` (``entries[0]`` is the baseline)."""
    k = min(e.run.k for e in entries)
    shown = [n for n in SHOWN if parse_metric(n).k is None or (parse_metric(n).k or 0) <= k]
    names = list(dict.fromkeys([*shown, metric]))
    spec = parse_metric(metric)
    base = entries[0]
    base_ids = [r.query_id for r in base.results]
    tables = []
    for e in entries:
        by_id = {r.query_id: r for r in e.results}
        common = [by_id[q] for q in base_ids if q in by_id]
        tables.append(compute_table(common, k, "span", names))
    rows: list[Row] = []
    raw_p: list[float | None] = []
    va = tables[0].values[metric]
    for e, t in zip(entries, tables, strict=True):
        row = Row(
            spec=e.spec,
            metrics={n: t.aggregate(n)[0] for n in names},
            chunks=e.chunks,
            mean_tokens=e.mean_tokens,
            p95_tokens=e.p95_tokens,
            texts_embedded=int(e.build.get("texts_embedded", 0)),
            texts_cached=int(e.build.get("texts_cached", 0)),
            seconds=float(e.build.get("seconds_chunk", 0))
            + float(e.build.get("seconds_embed", 0))
            + float(e.build.get("seconds_eval", 0)),
        )
        # lint of the stored chunks (kb/cli/eval_sweep.py puts it in the build record)
        row.extra.update({f"lint {k}": v for k, v in (e.build.get("lint") or {}).items()})
        for col in EXTRA_COLUMNS:
            row.extra.update(col(e))
        if e is not base:
            vb = t.values[metric]
            both = np.isfinite(va) & np.isfinite(vb) if va.size == vb.size else None
            if both is not None:
                pr = stats.paired(va[both], vb[both], spec.aggregate, n_perm, n_boot)
                row.delta, row.p_value, row.ci95 = pr.delta, pr.p_value, (pr.ci_low, pr.ci_high)
                row.mdd = min_detectable(vb[both] - va[both])
            raw_p.append(row.p_value)
        rows.append(row)
    for row, ph in zip(rows[1:], holm(raw_p), strict=True):
        row.p_holm = ph
        better = row.delta is not None and (row.delta > 0) == spec.higher_is_better
        if ph is None or ph >= alpha or not row.delta:
            row.verdict = "tie"
        else:
            row.verdict = "win" if better else "loss"
    n = len(base.results)
    warnings = []
    if n < FEW_QUERIES:
        warnings.append(
            f"only {n} queries (fewer than {FEW_QUERIES}): small differences cannot be "
            "detected; see the min. detectable difference column"
        )
    return Leaderboard(metric, k, n, alpha, rows, warnings)
