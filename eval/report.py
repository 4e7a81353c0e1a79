"""One report object per thing shown; several renderings (``render_*``).

:class:`RunReport` (``kb eval run`` / ``show``) and :func:`comparison_json`
(``kb eval compare``) give the JSON form, which every renderer reads, so the
terminal, Markdown and HTML views never disagree with ``--json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval.compare import Comparison, MetricDelta
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
    "abstention_accuracy",
    "hallucination_rate_unanswerable",
    "error_rate",
)


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

    @property
    def k(self) -> int:
        return int(self.metrics.get("k", self.run.k))

    def metric_names(self) -> list[str]:
        return list(self.metrics.get("overall", {}).get("metrics", {}))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "run": self.run.to_dict(),
            "metrics": self.metrics,
            "descriptions": {n: describe(n) for n in self.metric_names()},
            "warnings": self.warnings,
        }
        if self.gate_failures is not None:
            out["gates_failed"] = self.gate_failures
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
        "higher_is_better": d.spec.higher_is_better,
        "improved": d.improved,
    }


def comparison_json(c: Comparison) -> dict[str, Any]:
    return {
        "a": _run_brief(c.run_a),
        "b": _run_brief(c.run_b),
        "k": c.k,
        "chunker_version_match": c.chunker_version_match,
        "match_mode": c.match_mode,
        "test": {
            "kind": "paired randomization (two-sided) + bootstrap 95% CI",
            "permutations": c.n_permutations,
            "bootstrap": c.n_bootstrap,
            "seed": c.seed,
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
