"""A stored run's report JSON, the one ``kb eval show`` prints and ``kb serve`` shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.store import Store


def load_report(
    store: Store,
    ref: str,
    recompute: bool,
    matching: str | None = None,
    queries: list[str] | None = None,
    details: bool = False,
) -> dict[str, Any]:
    """The run's report JSON under ``matching`` (``exact`` | ``doc_span``; default: the
    cached metrics' mode). Metrics are recomputed from the stored rows when asked, when
    none are cached, when the cache is under another matching or lacks a metric kb now
    reports; only ``exact`` results are written back to the cache. ``details``: add
    the drill-down of ``queries`` (every query when none is named)."""
    from eval.drilldown import details as drill
    from eval.metrics import compute_table
    from eval.metrics.table import matching_mode
    from eval.names import default_names
    from eval.report import RunReport, matching_of
    from eval.store import EvalStore

    es = EvalStore(store)
    row = es.find_run(ref)
    results = es.results(row.id)
    metrics = row.metrics
    name = matching or (matching_of(metrics) if metrics else "exact")
    mode = matching_mode(name)
    answers = any(r.answer is not None for r in results)
    stale = (
        metrics is None
        or matching_of(metrics) != name
        or bool(set(default_names(row.k, answers)) - set(metrics["overall"]["metrics"]))
    )
    if recompute or stale:
        table = compute_table(results, row.k, mode, scoped=bool(row.options.get("scoped")))
        metrics = table.to_json()
        if mode == "strict" and not store.read_only:  # a read-only KB: shown, not cached
            es.set_metrics(row.id, metrics)
    assert metrics is not None
    shown = drill(results, row.k, mode, queries) if details or queries else None
    return RunReport(row, metrics, queries=shown).to_json()
