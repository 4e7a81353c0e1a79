"""Metrics: one function per metric (formula, denominator and edge cases in its
docstring), grouped by kind: :mod:`.retrieval`, :mod:`.answers`, :mod:`.ops`,
:mod:`.judge`; :mod:`.table` computes them all from stored rows."""

from eval.metrics.table import MetricTable, compute_table

__all__ = ["MetricTable", "compute_table"]
