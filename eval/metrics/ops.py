"""Operational metrics: errors and latencies, per query (NaN = no value).

- error_rate: 1 if the query failed at any stage (its error is stored), else 0; over
  every query run.
- latency_<stage>_p50/p95: the 50th/95th percentile (numpy's linear interpolation) of
  the per-query seconds, over queries that have that timing:
  ``retrieval`` = wall time of the eval's own ``Retriever.search`` call;
  ``first_token`` and ``total`` = the answer record's ``first_token_s`` / ``total_s``
  (from the start of ``ask``; ``first_token_s`` is missing when no token was written,
  e.g. a refusal without hits).
"""

from __future__ import annotations

import math

import numpy as np

from eval.result import QueryResult


def error_flags(results: list[QueryResult]) -> np.ndarray:
    """1.0 for each query with an error, else 0.0."""
    return np.array([1.0 if r.error else 0.0 for r in results], dtype=np.float64)


def _num(v: object) -> float:
    if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return math.nan


def latency(results: list[QueryResult], stage: str) -> np.ndarray:
    """Seconds per query for ``stage`` in retrieval | first_token | total (NaN if none)."""
    out = np.full(len(results), np.nan)
    for i, r in enumerate(results):
        if stage == "retrieval":
            out[i] = _num(r.timings.get("retrieval_s"))
        elif r.answer is not None and not r.error:
            out[i] = _num(r.answer.timings.get(f"{stage}_s"))
    return out


def percentile(values: np.ndarray, q: float) -> float | None:
    """``q``-th percentile (linear interpolation) of the finite values; None if none."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return None
    return float(np.percentile(v, q))
