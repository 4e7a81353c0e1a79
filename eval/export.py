"""Export a stored run: TREC run + qrels files, or JSONL traces.

TREC (``kb eval export RUN --format trec``) writes the judgements of
:mod:`eval.judgements` so that trec_eval and ranx reproduce this run's retrieval
metrics exactly:

- qrels ``QID 0 UNIT GRADE``: one line per support unit ``<qid>::s<i>`` with its
  grade (queries with supports whose retrieval ran);
- run ``QID Q0 DOCNO RANK SCORE kb-<run id>``: per rank, DOCNO is the support unit the
  chunk was credited with, else ``chunk-<chunk id>`` (unmatched, or repeating an
  already credited support); ``SCORE = K - rank + 1`` keeps the order unambiguous.

Queries without hits have no run lines: use ``trec_eval -c`` (and ranx
``make_comparable=True``) so they count as zero, as here. White space in query ids
becomes ``_``. The chunk ids themselves are in the JSONL traces.

JSONL (``--format jsonl``): one object per query with the question, the ranked
retrieved chunks (id, path, locator, score, matched supports), the first matching
rank, the answer text, citations, refusal and timings.
"""

from __future__ import annotations

import re
from typing import Any

from eval.judgements import QueryJudgement, judge
from eval.result import QueryResult

_WS = re.compile(r"\s+")


def trec_qid(query_id: str) -> str:
    return _WS.sub("_", query_id.strip())


def unit_id(query_id: str, i: int) -> str:
    return f"{trec_qid(query_id)}::s{i}"


def trec_lines(
    results: list[QueryResult], K: int, run_tag: str = "kb", mode: str = "strict"
) -> tuple[list[str], list[str]]:
    """``(run_lines, qrels_lines)`` for the queries scored by the retrieval metrics."""
    run: list[str] = []
    qrels: list[str] = []
    for r in results:
        if not r.query.supports or not r.retrieval_ok:
            continue
        qid = trec_qid(r.query_id)
        for i, s in enumerate(r.query.supports):
            qrels.append(f"{qid} 0 {unit_id(r.query_id, i)} {s.grade}")
        j = judge(r, mode, K)
        for rank, doc in enumerate(ranked_docnos(r, j), start=1):
            run.append(f"{qid} Q0 {doc} {rank} {K - rank + 1} {run_tag}")
    return run, qrels


def ranked_docnos(r: QueryResult, j: QueryJudgement) -> list[str]:
    """The run's document numbers for one query, in rank order (unique per query)."""
    out: list[str] = []
    seen: set[str] = set()
    for rank, credited in enumerate(j.credited, start=1):
        doc = (
            unit_id(r.query_id, credited)
            if credited is not None
            else f"chunk-{r.hits[rank - 1].chunk_id}"
        )
        if doc in seen:  # the same chunk twice in one ranking
            doc = f"{doc}-r{rank}"
        seen.add(doc)
        out.append(doc)
    return out


def ranx_dicts(
    results: list[QueryResult], K: int, mode: str = "strict"
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """``(qrels, run)`` as nested dicts for ``ranx.Qrels`` / ``ranx.Run``."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for r in results:
        if not r.query.supports or not r.retrieval_ok:
            continue
        qid = trec_qid(r.query_id)
        qrels[qid] = {unit_id(r.query_id, i): s.grade for i, s in enumerate(r.query.supports)}
        j = judge(r, mode, K)
        run[qid] = {d: float(K - i) for i, d in enumerate(ranked_docnos(r, j))}
    return qrels, run


def trace(r: QueryResult, K: int, mode: str = "strict") -> dict[str, Any]:
    j = judge(r, mode, K)
    out: dict[str, Any] = {
        "id": r.query_id,
        "question": r.query.question,
        "category": r.query.category,
        "answerable": r.query.answerable,
        "error": r.error,
        "error_stage": r.error_stage,
        "retrieved": [
            {
                "rank": i,
                "chunk_id": h.chunk_id,
                "path": h.path,
                "locator": h.locator_text(),
                "score": h.score,
                "supports": j.matches[i - 1] if i <= len(j.matches) else [],
            }
            for i, h in enumerate(r.hits, start=1)
        ],
        "first_match_rank": j.first_rank,
        "timings": r.timings,
    }
    if r.answer is not None:
        a = r.answer
        out["answer"] = {
            "text": a.text,
            "refused": a.refused,
            "refusal_reason": a.refusal_reason,
            "grounded": a.grounded,
            "citations": a.citations,
            "invalid_citations": a.invalid_citations,
            "contexts": [h.chunk_id for h in a.contexts],
            "timings": a.timings,
            "error": a.error,
            "judge": a.judge,
        }
    return out
