"""One report object per thing shown; several renderings (``render_*``).

:class:`RunReport` (``kb eval run`` / ``show``) and :func:`comparison_json`
(``kb eval compare``) give the JSON form, which every renderer reads, so the
terminal, Markdown and HTML views never disagree with ``--json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval.compare import Comparison, MetricDelta
from eval.drilldown import query_detail
from eval.metrics.table import matching_name
from eval.names import parse_metric
from eval.store import RunRow

# metrics worth a column in breakdown tables (those present in the run are shown)
BREAKDOWN_FAMILIES = (
    "hit@5",
    "mrr@10",
    "ndcg@10",
    "recall_all@10",
    "answer_correct",
    "attribution_hit_rate",
    "citation_support_rate",
    "abstention_accuracy",
    "hallucination_rate_unanswerable",
    "error_rate",
)


def matching_of(metrics: dict[str, Any]) -> str:
    """The matching name (``exact`` | ``doc_span``) of a metrics JSON; caches written
    before the name was stored carry only ``match_mode``."""
    return str(metrics.get("matching") or matching_name(str(metrics.get("match_mode", "strict"))))


def describe(name: str) -> str:
    return parse_metric(name).description


def group_of(name: str) -> str:
    return parse_metric(name).group


def breakdown_columns(names: list[str], k: int) -> list[str]:
    out = []
    for f in BREAKDOWN_FAMILIES:
        if "@" in f:
            fam, cut = f.split("@")
            f = f"{fam}@{min(int(cut), k)}"
        if f in names and f not in out:
            out.append(f)
    return out


@dataclass
class RunReport:
    run: RunRow
    metrics: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    gate_failures: list[str] | None = None
    queries: list[dict[str, Any]] | None = None  # drill-downs (eval.drilldown), when asked

    @property
    def k(self) -> int:
        return int(self.metrics.get("k", self.run.k))

    def metric_names(self) -> list[str]:
        return list(self.metrics.get("overall", {}).get("metrics", {}))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "run": self.run.to_dict(),
            "matching": matching_of(self.metrics),
            "metrics": self.metrics,
            "descriptions": {n: describe(n) for n in self.metric_names()},
            "warnings": self.warnings,
        }
        if self.gate_failures is not None:
            out["gates_failed"] = self.gate_failures
        if self.queries is not None:
            out["queries"] = self.queries
        return out


def delta_json(d: MetricDelta) -> dict[str, Any]:
    r = d.result
    return {
        "metric": d.spec.name,
        "group": d.spec.group,
        "n": r.n,
        "a": r.a,
        "b": r.b,
        "delta": r.delta,
        "p_value": r.p_value,
        "ci95": [r.ci_low, r.ci_high],
        "mdd": d.mdd,
        "higher_is_better": d.spec.higher_is_better,
        "improved": d.improved,
        "own_a": {"value": d.own_a[0], "n": d.own_a[1]},
        "own_b": {"value": d.own_b[0], "n": d.own_b[1]},
    }


def comparison_json(c: Comparison, details: bool = True) -> dict[str, Any]:
    """The JSON form of a comparison; ``details``: each changed query's drill-down in
    both runs (``changes[].a`` / ``.b``, see :mod:`eval.drilldown`)."""
    pa = {r.query_id: r for r in c.results_a}
    pb = {r.query_id: r for r in c.results_b}
    changes = []
    for ch in c.changes:
        row: dict[str, Any] = {
            "query_id": ch.query_id,
            "category": ch.category,
            "direction": ch.direction,
            "changes": [
                {"metric": x.metric, "a": x.a, "b": x.b, "better": x.better} for x in ch.changes
            ],
        }
        if details and ch.query_id in pa and ch.query_id in pb:
            row["a"] = query_detail(pa[ch.query_id], c.k, c.match_mode)
            row["b"] = query_detail(pb[ch.query_id], c.k, c.match_mode)
        changes.append(row)
    return {
        "a": _run_brief(c.run_a),
        "b": _run_brief(c.run_b),
        "k": c.k,
        "chunker_version_match": c.chunker_version_match,
        "match_mode": c.match_mode,
        "matching": c.matching,
        "test": {
            "kind": "paired randomization (two-sided) + bootstrap 95% CI",
            "permutations": c.n_permutations,
            "bootstrap": c.n_bootstrap,
            "seed": c.seed,
            "mdd": "minimum detectable difference: (z_0.975 + z_0.8) · SD(B − A) / sqrt(n), "
            "alpha 0.05, power 0.8",
        },
        "metrics": [delta_json(d) for d in c.metrics],
        "judge": [delta_json(d) for d in c.judge],
        "outcomes": {"totals": c.totals(), "by_category": c.by_category()},
        "regressions": [
            {"query_id": o.query_id, "category": o.category, "rank_a": o.rank_a}
            for o in c.regressions()
        ],
        "queries": [
            {
                "query_id": o.query_id,
                "category": o.category,
                "rank_a": o.rank_a,
                "rank_b": o.rank_b,
                "outcome": o.outcome,
                "regression": o.regression,
            }
            for o in c.outcomes
        ],
        "changes": changes,
        "notes": c.notes,
    }


def _run_brief(r: RunRow) -> dict[str, Any]:
    idx = r.config.get("index", {})
    return {
        "id": r.id,
        "name": r.name,
        "created_at": r.created_at,
        "status": r.status,
        "k": r.k,
        "golden_path": r.golden_path,
        "chunkers": [f"{c.get('name')} {c.get('version')}" for c in idx.get("chunkers", [])],
        "embedding": (idx.get("embedding") or {}).get("model_id"),
    }
