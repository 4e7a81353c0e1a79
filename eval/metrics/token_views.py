"""Stored query results -> :class:`~eval.metrics.chunks.TokenView` and per-query arrays of
the chunk-level metrics (:mod:`eval.metrics.chunks`).

A run has token data when a support of it was annotated with ``doc_tokens``
(:mod:`eval.token_space`, at run time); without any (runs stored before these metrics,
runs made without a tokenizer) every chunk metric is NaN. Unanswerable queries never
count. Hits count only while retrieval ran: a failed retrieval leaves the ranked
metrics undefined (NaN) but not Precision_Ω, which reads the chunking alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from eval.matching import ResolvedSupport
from eval.metrics import chunks as cm
from eval.names import MetricSpec
from eval.result import QueryResult


def has_tokens(results: list[QueryResult]) -> bool:
    """Whether any result recorded token spans (the chunk metrics then apply)."""
    return any(s.doc_tokens is not None for r in results for s in r.resolved or ())


def token_view(r: QueryResult) -> cm.TokenView:
    """The view of one stored result (supports never located give no evidence span)."""
    hits = tuple(None if h.tokens is None else (h.path, h.tokens[0], h.tokens[1]) for h in r.hits)
    spans = tuple(evidence_spans(r.resolved or []))
    return cm.TokenView(len(r.query.supports), spans, hits)


def chunk_values(spec: MetricSpec, results: list[QueryResult]) -> np.ndarray:
    """Per-query values of the chunk metric ``spec`` (NaN where undefined)."""
    out = np.full(len(results), np.nan)
    if not has_tokens(results):
        return out
    for i, r in enumerate(results):
        if not r.query.answerable:
            continue
        v = token_view(r)
        if spec.family in cm.SCALAR:
            x = cm.SCALAR[spec.family](v)
        elif not r.retrieval_ok:
            x = None
        elif spec.budget is not None:
            x = cm.BUDGET[spec.family](v, spec.budget)
        else:
            assert spec.k is not None
            x = cm.AT_K[spec.family](v, spec.k)
        if x is not None:
            out[i] = x
    return out


def split_evidence(results: list[QueryResult]) -> list[dict[str, object]]:
    """Every evidence span of an answerable query that no single chunk contains, as
    ``{"query_id", "support", "path"}`` (``support``: index into the query's supports)."""
    out: list[dict[str, object]] = []
    for r in results:
        if not r.query.answerable:
            continue
        for i, e in indexed_spans(r.resolved or []):
            if cm.is_split(e):
                out.append({"query_id": r.query_id, "support": i, "path": e.span[0]})
    return out


def evidence_spans(resolved: Sequence[ResolvedSupport]) -> list[cm.EvidenceSpan]:
    """The located supports of one query as :class:`~eval.metrics.chunks.EvidenceSpan`
    (empty and unlocated ones left out)."""
    return [e for _, e in indexed_spans(resolved)]


def indexed_spans(resolved: Sequence[ResolvedSupport]) -> list[tuple[int, cm.EvidenceSpan]]:
    out = []
    for i, r in enumerate(resolved):
        if r.doc_tokens is None or r.doc_tokens[1] <= r.doc_tokens[0]:
            continue
        chunks = (
            None if r.chunk_tokens is None else tuple((r.kb_path, s, e) for s, e in r.chunk_tokens)
        )
        out.append((i, cm.EvidenceSpan((r.kb_path, *r.doc_tokens), chunks)))
    return out
