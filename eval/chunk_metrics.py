"""Chunk metrics of one chunking against a golden set, without embedding anything.

The API a chunker sweep calls::

    evidence = locate_evidence(store.conn, golden)          # once per KB and golden set
    space = TokenSpace(store.conn, counter_for("bundled"))  # tokenises each document once
    report = chunk_metrics(evidence, space.with_chunking(spans_by_path))
    report.summary()["precision_omega"]

``spans_by_path`` maps each document's KB path (as ``kb docs`` prints it) to its chunk
character spans, in the offsets of the document text (the span contract,
:mod:`ingest.chunkers.spans`); without it the KB's stored chunks are the chunking.
:func:`evaluate_chunking` does all three in one call. ``retrieved`` (optional: query
id -> ranked ``(path, (char_start, char_end))``) adds the retrieval metrics at ``k``
and the token budget. Formulas: :mod:`eval.metrics.chunks`;
tokens: the embedder's tokenizer (:mod:`eval.token_space`).

Evidence: golden supports located as character spans by :class:`eval.resolve.Resolver`
(snippet search in the stored document text). ``resolved`` in the summary is the
share of all supports that became spans (pooled over queries); supports without a
snippet, or whose snippet was not found, are left out of every token metric.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.golden import GoldenSet
from eval.matching import ResolvedSupport
from eval.metrics import chunks as cm
from eval.metrics.intervals import Interval
from eval.metrics.token_views import evidence_spans, indexed_spans
from eval.resolve import Resolver
from eval.token_space import Tokenizer, TokenSpace

Retrieved = Mapping[str, Sequence[tuple[str, tuple[int, int] | None]]]


@dataclass(frozen=True)
class Evidence:
    """Each query's supports as resolved against the KB (``query id -> supports``),
    in golden order; only queries with supports."""

    resolved: dict[str, list[ResolvedSupport]]

    @property
    def supports(self) -> int:
        return sum(len(r) for r in self.resolved.values())


def locate_evidence(
    conn: sqlite3.Connection, golden: GoldenSet, corpus_dir: Path | None = None
) -> Evidence:
    """Resolve every support of ``golden`` (see :mod:`eval.resolve`)."""
    resolver = Resolver(conn, corpus_dir if corpus_dir is not None else golden.corpus_dir)
    return Evidence({q.id: resolver.resolve_query(q) for q in golden.queries if q.supports})


@dataclass
class QueryChunkMetrics:
    query_id: str
    supports: int
    located: int
    split: list[int]  # support indexes whose evidence span no single chunk contains
    values: dict[str, float | None]


@dataclass
class ChunkMetrics:
    """Per-query values and their means (over the queries where each is defined)."""

    tokenizer: str
    k: int | None
    budget: int
    queries: list[QueryChunkMetrics] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        names = dict.fromkeys(n for q in self.queries for n in q.values)
        out: dict[str, Any] = {}
        for n in names:
            vals: list[float] = [v for q in self.queries if (v := q.values.get(n)) is not None]
            out[n] = round(sum(vals) / len(vals), 4) if vals else None
        supports = sum(q.supports for q in self.queries)
        located = sum(q.located for q in self.queries)
        out["supports"] = supports
        out["evidence_spans"] = located
        out["resolved"] = round(located / supports, 4) if supports else None
        out["split_spans"] = sum(len(q.split) for q in self.queries)
        return out

    def split(self) -> list[tuple[str, int]]:
        """``(query id, support index)`` of every evidence span the chunking splits."""
        return [(q.query_id, i) for q in self.queries for i in q.split]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokenizer": self.tokenizer,
            "k": self.k,
            "budget": self.budget,
            "summary": self.summary(),
            "split": [{"query_id": q, "support": i} for q, i in self.split()],
            "queries": [
                {"query_id": q.query_id, "supports": q.supports, "located": q.located, **q.values}
                for q in self.queries
            ],
        }


def chunk_metrics(
    evidence: Evidence,
    space: TokenSpace,
    retrieved: Retrieved | None = None,
    k: int = 5,
    budget: int = 512,
) -> ChunkMetrics:
    """Chunk metrics of ``space``'s chunking (module docs); retrieval metrics only for
    the queries in ``retrieved``."""
    out = ChunkMetrics(space.tokenizer.name, k if retrieved is not None else None, budget)
    for qid, resolved in evidence.resolved.items():
        annotated = [space.annotate_support(r) for r in resolved]
        view = cm.TokenView(len(resolved), tuple(evidence_spans(annotated)))
        values = {name: fn(view) for name, fn in cm.SCALAR.items()}
        if retrieved is not None and qid in retrieved:
            hits = tuple(_hit(space, p, c) for p, c in retrieved[qid])
            view = cm.TokenView(view.supports, view.evidence, hits)
            for name, f in cm.AT_K.items():
                values[f"{name}@{k}"] = f(view, k)
            values[f"budget_recall@{budget}"] = cm.budget_recall(view, budget)
        split = [i for i, e in indexed_spans(annotated) if cm.is_split(e)]
        out.queries.append(QueryChunkMetrics(qid, len(resolved), len(view.spans), split, values))
    return out


def evaluate_chunking(
    conn: sqlite3.Connection,
    golden: GoldenSet,
    tokenizer: Tokenizer,
    chunking: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    texts: Mapping[str, str] | None = None,
    retrieved: Retrieved | None = None,
    k: int = 5,
    budget: int = 512,
) -> ChunkMetrics:
    """One call: locate the evidence, tokenise, score ``chunking`` (default: the stored
    chunks). A sweep scoring many chunkings should keep the :class:`Evidence` and the
    :class:`TokenSpace` and call :func:`chunk_metrics` per chunking instead."""
    space = TokenSpace(conn, tokenizer, texts, chunking)
    return chunk_metrics(locate_evidence(conn, golden), space, retrieved, k, budget)


def _hit(space: TokenSpace, path: str, chars: tuple[int, int] | None) -> Interval | None:
    t = space.interval(path, chars)
    return None if t is None else (path, t[0], t[1])
