"""Compute every metric of a run from its stored rows, overall and by group.

Aggregation: ``mean`` metrics average the per-query values over the queries where the
value is defined; ``p50``/``p95`` metrics take percentiles. The result is rounded to
4 decimals; with an empty denominator it is ``None``. Each value comes with ``n``, the
size of its denominator.

Matching: ``mode`` is the rule of :mod:`eval.matching` that decides which chunk
matches a support (``strict`` or ``span``); reports name it ``exact`` or
``doc_span`` (:data:`MATCHING`), on every table, because the same run scores
differently under each (``kb eval compare`` uses ``doc_span`` for runs made with
different chunkers; ``kb eval show RUN --matching doc_span`` reproduces it).

Breakdowns: by ``category`` (``(none)`` when unset), ``difficulty`` (when any query
has one), ``tag`` (a query counts in each of its tags) and ``answerable``
(``answerable`` / ``unanswerable``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from eval.judgements import QueryJudgement, build_arrays, judge
from eval.metrics import answers, ops, retrieval
from eval.metrics import judge as judge_metrics
from eval.metrics.token_views import chunk_values, has_tokens, split_evidence
from eval.names import CHUNK, JUDGE_NAMES, MetricSpec, default_names, parse_metric
from eval.result import QueryResult
from kb.errors import UsageError
from kb.lang.detect import UNKNOWN, question_language

NONE_GROUP = "(none)"
MATCHING = {"exact": "strict", "doc_span": "span"}  # the name reports use -> matching mode


def matching_name(mode: str) -> str:
    """``strict`` -> ``exact``, ``span`` -> ``doc_span``."""
    return "doc_span" if mode == "span" else "exact"


def matching_mode(name: str) -> str:
    """``exact`` -> ``strict``, ``doc_span`` -> ``span``; UsageError for anything else."""
    if name not in MATCHING:
        raise UsageError(f"--matching {name!r}: expected exact or doc_span")
    return MATCHING[name]


@dataclass
class MetricTable:
    results: list[QueryResult]
    K: int
    mode: str
    specs: dict[str, MetricSpec]
    values: dict[str, np.ndarray]
    judgements: list[QueryJudgement] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def aggregate(self, name: str, mask: np.ndarray | None = None) -> tuple[float | None, int]:
        """``(value, n)`` of metric ``name`` over the rows in ``mask`` (all by default)."""
        v = self.values[name] if mask is None else self.values[name][mask]
        v = v[np.isfinite(v)]
        if v.size == 0:
            return None, 0
        agg = self.specs[name].aggregate
        x = float(v.mean()) if agg == "mean" else float(np.percentile(v, float(agg[1:])))
        return round(x, 4), int(v.size)

    def summary(
        self, names: list[str] | None = None, mask: np.ndarray | None = None
    ) -> dict[str, Any]:
        names = names if names is not None else self.names
        values: dict[str, float | None] = {}
        counts: dict[str, int] = {}
        for n in names:
            values[n], counts[n] = self.aggregate(n, mask)
        size = len(self.results) if mask is None else int(mask.sum())
        return {"queries": size, "metrics": values, "n": counts}

    def groups(self) -> dict[str, dict[str, np.ndarray]]:
        """Breakdown dimension -> group label -> row mask."""
        qs = [r.query for r in self.results]
        n = len(qs)
        out: dict[str, dict[str, np.ndarray]] = {}

        def add(dim: str, label: str, i: int) -> None:
            out.setdefault(dim, {}).setdefault(label, np.zeros(n, dtype=bool))[i] = True

        for i, q in enumerate(qs):
            add("category", q.category or NONE_GROUP, i)
            add("answerable", "answerable" if q.answerable else "unanswerable", i)
            for t in q.tags:
                add("tag", t, i)
        if any(q.difficulty for q in qs):
            for i, q in enumerate(qs):
                add("difficulty", q.difficulty or NONE_GROUP, i)
        # the question's language (kb.lang.detect, from its function words), when a set
        # asks in more than one: "de" beside "en" shows what German questions cost
        langs = [question_language(q.question) for q in qs]
        if len({x for x in langs if x != UNKNOWN}) > 1:
            for i, lang in enumerate(langs):
                add("lang", lang, i)
        return {d: dict(sorted(g.items())) for d, g in out.items()}

    def to_json(self) -> dict[str, Any]:
        """The cached form stored in ``eval_runs.metrics``."""
        main = [n for n in self.names if self.specs[n].gateable]
        judged = [n for n in self.names if not self.specs[n].gateable]
        by = {
            dim: {label: self.summary(main, mask) for label, mask in groups.items()}
            for dim, groups in self.groups().items()
        }
        out: dict[str, Any] = {
            "k": self.K,
            "match_mode": self.mode,
            "matching": matching_name(self.mode),
            "overall": self.summary(main),
            "by": by,
        }
        if judged:
            out["judge"] = self.summary(judged)
        if has_tokens(self.results):
            out["split_evidence"] = split_evidence(self.results)
        return out


def compute_table(
    results: list[QueryResult],
    K: int,
    mode: str = "strict",
    names: list[str] | None = None,
    scoped: bool = False,
    extra: list[str] | None = None,
) -> MetricTable:
    """Per-query values of ``names`` (default: every metric that applies to the run)
    plus ``extra``."""
    has_answers = any(r.answer is not None for r in results)
    if names is None:
        names = default_names(K, has_answers, has_tokens(results))
        if any(r.answer is not None and r.answer.judge for r in results):
            names = names + JUDGE_NAMES
    names = names + [n for n in extra or [] if parse_metric(n).name not in names]
    specs = {}
    for n in names:
        spec = parse_metric(n)
        if spec.k is not None and spec.k > K:
            raise UsageError(
                f"metric {spec.name} needs a run made with --k {spec.k} or more "
                f"(this run used k={K})"
            )
        specs[spec.name] = spec
    judgements = [judge(r, mode, K) for r in results]
    arrays = build_arrays(results, judgements, K, scoped)
    views = [answers.AnswerView.of(r, mode) for r in results]
    values: dict[str, np.ndarray] = {}
    for name, spec in specs.items():
        if spec.group == CHUNK:
            values[name] = chunk_values(spec, results)
        elif spec.k is not None:
            values[name] = retrieval.AT_K_FUNCS[spec.family](arrays, spec.k)
        elif name in retrieval.SCALAR_FUNCS:
            values[name] = retrieval.SCALAR_FUNCS[name](arrays)
        elif name in answers.FUNCS:
            fn = answers.FUNCS[name]
            values[name] = np.array(
                [np.nan if v is None else _nan(fn(v)) for v in views], dtype=np.float64
            )
        elif name == "error_rate":
            values[name] = ops.error_flags(results)
        elif name.startswith("latency_"):
            values[name] = ops.latency(results, name[len("latency_") :].rsplit("_", 1)[0])
        elif name in judge_metrics.FUNCS:
            values[name] = judge_metrics.FUNCS[name](results)
        else:  # pragma: no cover - names.py and this table must agree
            raise UsageError(f"metric {name} has no implementation")
    return MetricTable(results, K, mode, specs, values, judgements)


def _nan(v: float | None) -> float:
    return np.nan if v is None else float(v)
