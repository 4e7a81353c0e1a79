"""Small builders for eval unit tests: stored hits, queries and results by hand."""

from __future__ import annotations

from typing import Any

from eval.golden import AnswerCheck, GoldenQuery, Support
from eval.matching import ResolvedSupport, StoredHit
from eval.result import AnswerResult, QueryResult


def hit(path: str, text: str = "", heading: str = "", cid: int = 0, **kw: Any) -> StoredHit:
    return StoredHit(chunk_id=cid, path=path, text=text, heading=heading, **kw)


def sup(path: str, **kw: Any) -> Support:
    return Support(path=path, **kw)


def query(
    qid: str, supports: list[Support] | None = None, answerable: bool = True, **kw: Any
) -> GoldenQuery:
    return GoldenQuery(
        id=qid,
        question=f"question {qid}?",
        answerable=answerable,
        supports=tuple(supports or ()),
        **kw,
    )


def result(
    q: GoldenQuery,
    hits: list[StoredHit],
    pos: int = 0,
    answer: AnswerResult | None = None,
    error: str | None = None,
    error_stage: str | None = None,
    resolved: list[ResolvedSupport] | None = None,
    timings: dict[str, Any] | None = None,
) -> QueryResult:
    return QueryResult(
        query=q,
        position=pos,
        hits=hits,
        resolved=resolved,
        answer=answer,
        timings=timings or {},
        error=error,
        error_stage=error_stage,
    )


def answer(
    text: str,
    contexts: list[StoredHit],
    cited: list[int] = (),  # type: ignore[assignment]
    invalid: list[int] = (),
    refused: bool = False,  # type: ignore[assignment]
    **kw: Any,
) -> AnswerResult:
    cits = [
        {"n": n, "chunk_id": contexts[n - 1].chunk_id, "path": contexts[n - 1].path, "locator": {}}
        for n in cited
    ]
    return AnswerResult(
        text=text,
        refused=refused,
        citations=cits,
        invalid_citations=list(invalid),
        contexts=contexts,
        grounded=bool(cits) and not refused,
        **kw,
    )


def check(**kw: Any) -> AnswerCheck:
    return AnswerCheck(**{k: tuple(v) for k, v in kw.items()})


def miss(cid: int) -> StoredHit:
    """A chunk that matches nothing (its own path)."""
    return hit(f"other/{cid}.md", "unrelated text", cid=cid)
