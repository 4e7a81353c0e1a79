"""Per-query drill-down: why one query scored what it did, as plain JSON.

:func:`query_detail` gathers, for one stored :class:`~eval.result.QueryResult`
under one matching mode (``strict`` = ``exact`` or ``span`` = ``doc_span``, see
:mod:`eval.matching`):

- ``query``: id, question, category, answerable, tags;
- ``supports``: each golden support with the ranks (within ``K``) of the retrieved
  hits matching it and the answer's context numbers ``[#n]`` citing a chunk that
  matches it;
- ``hits``: the first ``K`` retrieved chunks with score, locator, text and the
  indexes of the supports each matches (``credited``: the support unit the metrics
  credit at that rank, see :mod:`eval.judgements`);
- ``answer`` (``None`` for a ``--no-answer`` run): text, mode, refusal (and reason),
  ``truncated``, every sentence with its verdict, support scores, evidence quote and
  suggested citation (runs made before the verifier have no sentences), the cited
  contexts with the supports they match and the evidence quoted from them, the
  answer checks item by item (``found`` per ``any_of`` / ``must_contain`` /
  ``forbidden`` text; ``pass`` as :func:`eval.metrics.answers.check_answer`), and
  this query's value of every answer metric (``None``: outside its denominator).

Every renderer (terminal, Markdown, HTML) reads this form only.
"""

from __future__ import annotations

from typing import Any

from eval.judgements import judge
from eval.matching import StoredHit, fold, matched_supports
from eval.metrics.answers import FUNCS, AnswerView, check_answer
from eval.result import AnswerResult, QueryResult, Sentence

PREVIEW = 400  # characters of a passage shown before it is cut (full text stays in JSON)


def where(loc: dict[str, Any] | None, fallback: str = "") -> str:
    """A locator dict (``Locator.to_dict()``) as one line: its ``display`` form, else
    built from path, heading, page, lines and seconds; ``fallback`` when empty."""
    if not loc:
        return fallback
    if loc.get("display"):
        return str(loc["display"])
    parts = [
        str(loc.get("path") or fallback) + (f" › {loc['heading']}" if loc.get("heading") else "")
    ]
    for key, label in (("page", "p."), ("lines", "lines"), ("seconds", "s")):
        v = loc.get(key)
        if isinstance(v, list | tuple) and v:
            parts.append(f"{label} {v[0]}–{v[-1]}" if v[0] != v[-1] else f"{label} {v[0]}")
    return " · ".join(parts)


def _support(i: int, s: Any) -> dict[str, Any]:
    out = {"index": i, **s.to_dict()}
    out["hit_ranks"] = []
    out["cited"] = []
    return out


def _hit(rank: int, h: StoredHit, matches: list[int], credited: int | None) -> dict[str, Any]:
    return {
        "rank": rank,
        "chunk_id": h.chunk_id,
        "score": round(h.score, 4),
        "where": h.locator_text(),
        "matches": matches,
        "credited": credited,
        "text": h.text,
    }


def _checks(text: str, r: QueryResult) -> dict[str, Any] | None:
    c = r.query.answer
    if c is None or c.empty:
        return None
    t = fold(text)
    items = {
        key: [{"text": x, "found": fold(x) in t} for x in getattr(c, key)]
        for key in ("any_of", "must_contain", "forbidden")
    }
    return {"pass": check_answer(text, c), **items}


def _sentence(d: dict[str, Any], ctx: list[StoredHit], i: int) -> dict[str, Any]:
    s = Sentence.from_dict(d, i)
    out: dict[str, Any] = {
        "i": s.i,
        "text": s.text,
        "claim": s.claim,
        "citations": list(s.citations),
        "support": {str(n): round(v, 4) for n, v in s.support.items()},
        "verdict": s.verdict,
        "score": s.score,
        "evidence": None,
        "suggested": None,
    }
    for key in ("evidence", "suggested"):
        e = getattr(s, key)
        if e is None:
            continue
        n = e.get("n")
        fallback = ctx[n - 1].locator_text() if isinstance(n, int) and 1 <= n <= len(ctx) else ""
        out[key] = {
            "n": n,
            "chunk_id": e.get("chunk_id"),
            "quote": str(e.get("quote") or ""),
            "score": e.get("score"),
            "where": where(e.get("locator"), str(e.get("path") or fallback)),
        }
    return out


def _answer(r: QueryResult, a: AnswerResult, mode: str, supports: list[dict[str, Any]]) -> dict:
    q = r.query
    sentences = [_sentence(d, a.contexts, i) for i, d in enumerate(a.sentences)]
    cited_ns = sorted({int(c["n"]) for c in a.citations if 1 <= int(c["n"]) <= len(a.contexts)})
    cited = []
    for n in cited_ns:
        h = a.contexts[n - 1]
        m = matched_supports(h, q.supports, r.resolved, mode)
        for i in m:
            supports[i]["cited"].append(n)
        quotes = [
            s["evidence"]["quote"]
            for s in sentences
            if s["evidence"] is not None and s["evidence"]["n"] == n and s["evidence"]["quote"]
        ]
        cited.append(
            {
                "n": n,
                "chunk_id": h.chunk_id,
                "where": h.locator_text(),
                "matches": m,
                "quotes": list(dict.fromkeys(quotes)),
                "text": h.text,
            }
        )
    view = AnswerView.of(r, mode)
    values = {name: (None if view is None else fn(view)) for name, fn in FUNCS.items()}
    return {
        "text": a.text,
        "mode": a.mode,
        "verifier": a.verifier,
        "answerability": a.answerability,
        "refused": a.refused,
        "refusal_reason": a.refusal_reason,
        "grounded": a.grounded,
        "truncated": a.truncated,
        "contexts_cut": a.contexts_cut,
        "interrupted": a.interrupted,
        "error": a.error,
        "citation_support_rate": a.support_rate(),
        "sentences": sentences,
        "cited": cited,
        "invalid_citations": list(a.invalid_citations),
        "contexts": len(a.contexts),
        "checks": _checks(a.text, r),
        "values": {k: (None if v is None else round(float(v), 4)) for k, v in values.items()},
    }


def query_detail(r: QueryResult, K: int, mode: str = "strict") -> dict[str, Any]:
    """The drill-down of one query (see the module docs)."""
    q = r.query
    j = judge(r, mode, K)
    supports = [_support(i, s) for i, s in enumerate(q.supports)]
    hits = []
    for rank, (h, m) in enumerate(zip(r.hits[:K], j.matches, strict=False), start=1):
        for i in m:
            supports[i]["hit_ranks"].append(rank)
        hits.append(_hit(rank, h, m, j.credited[rank - 1]))
    out: dict[str, Any] = {
        "query": {
            "id": q.id,
            "question": q.question,
            "category": q.category,
            "answerable": q.answerable,
            "tags": list(q.tags),
        },
        "error": r.error,
        "error_stage": r.error_stage,
        "first_rank": j.first_rank_within(K) if r.retrieval_ok else None,
        "supports": supports,
        "hits": hits,
        "answer": None,
    }
    if r.answer is not None:
        out["answer"] = _answer(r, r.answer, mode, supports)
    return out


def details(results: list[QueryResult], K: int, mode: str, ids: list[str] | None = None) -> list:
    """Drill-downs of ``results`` (only the queries in ``ids`` when given, in that
    order); an unknown id is a :class:`~kb.errors.UsageError` naming it."""
    if not ids:
        return [query_detail(r, K, mode) for r in results]
    by_id = {r.query_id: r for r in results}
    missing = [i for i in ids if i not in by_id]
    if missing:
        from kb.errors import UsageError

        raise UsageError(
            f"query {missing[0]!r} is not in this run; see `kb eval export RUN` for its ids"
        )
    return [query_detail(by_id[i], K, mode) for i in ids]
