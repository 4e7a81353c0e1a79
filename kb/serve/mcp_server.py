"""``kb mcp``: the KB as Model Context Protocol tools over stdio (the official ``mcp``
SDK's FastMCP).

Tools (each description says what it returns):

- ``search(query, k, mode, path, type, tag)``: ranked passages with KB path, place and
  score, the shape of ``kb search --json``'s hits;
- ``ask(question, ...)``: the cited answer with per-sentence verdicts and sources;
- ``read_document(path, lines, page, seconds)``: a document's text in a range, read
  through the same confined reader as the web viewer (:mod:`kb.serve.reader`);
- ``list_sources()``: the KB's sources with document, chunk and failure counts.

The same :class:`~kb.serve.runtime.Runtime` as ``kb serve``: models load on first
need and stay loaded for the session. stdout carries the protocol only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.serve.runtime import Runtime


def _filters(
    k: int | None,
    mode: str | None,
    path: list[str] | None,
    type: list[str] | None,
    tag: list[str] | None,
) -> dict[str, Any]:
    return {"k": k, "mode": mode, "path": path or [], "type": type or [], "tag": tag or []}


def _hit(h: dict[str, Any]) -> dict[str, Any]:
    loc = h["locator"]
    return {
        "chunk_id": h["chunk_id"],
        "path": h["path"],
        "place": loc["display"],
        "lines": loc["lines"],
        "page": loc["page"],
        "seconds": loc["seconds"],
        "score": h["score"],
        "text": h["text"],
    }


def answer_summary(record: Any) -> dict[str, Any]:
    """What an MCP client needs of an :class:`~kb.rag.AnswerRecord`."""
    d = record.to_dict()
    evidence = {n: e.quote for n, e in record.evidence_by_n().items()}
    return {
        "answer": d["text"],
        "grounded": d["grounded"],
        "refused": d["refused"],
        "refusal_reason": d["refusal_reason"],
        # the same words as kb ask and the web page (kb.rag.reasons.outcome)
        "reason": d["outcome"]["line"],
        "outcome": d["outcome"]["kind"],
        "responsive": None if d["responsive"] is None else d["responsive"]["verdict"],
        "citations": [
            {
                "n": c["n"],
                "path": c["path"],
                "place": c["locator"]["display"],
                "quote": evidence.get(int(c["n"])),
            }
            for c in d["citations"]
        ],
        "sentences": [
            {
                "text": v["text"],
                "verdict": v["verdict"],
                "score": v["score"],
                "citations": v["citations"],
            }
            for v in d["sentences"]
        ],
        "invalid_citations": d["invalid_citations"],
        # a question refused because nothing passed the retrieval threshold: where the
        # closest passage is (AnswerRecord.nearest), so the client can read it
        "closest": None if d["nearest"] is None else d["nearest"]["locator"]["display"],
        "error": d["error"],
    }


def build_server(rt: Runtime) -> Any:
    """A FastMCP server whose tools call ``rt``; errors become tool errors (one line)."""
    from mcp.server.fastmcp import FastMCP

    from kb.limits import check_question
    from kb.serve import reader
    from kb.serve.api import read_range

    server = FastMCP("kb")

    @server.tool(
        description="Search the knowledge base. Returns {query, mode, hits: [{chunk_id, "
        "path, place, lines, page, seconds, score, text}]}, best first. path/type/tag "
        "filter like kb search (type: md, txt, pdf, audio); mode: hybrid, vector, keyword."
    )
    def search(
        query: str,
        k: int = 5,
        mode: str | None = None,
        path: list[str] | None = None,
        type: list[str] | None = None,
        tag: list[str] | None = None,
    ) -> dict[str, Any]:
        check_question(query, "query")
        opts = rt.options(_filters(k, mode, path, type, tag))
        result = rt.search(query, opts).to_dict(k=opts.k)
        return {
            "query": result["query"],
            "mode": result["mode"],
            "hits": [_hit(h) for h in result["hits"]],
        }

    @server.tool(
        description="Answer a question from the knowledge base with citations. Returns "
        "{answer (text with [#n] markers), grounded, refused, refusal_reason, reason (why, "
        "in words), outcome, responsive, citations: "
        "[{n, path, place, quote}], sentences: [{text, verdict (supported, unsupported, "
        "uncited), score, citations}], closest (for a refusal with nothing close enough: "
        "the nearest passage's place), error}. Refuses rather than guess when the KB "
        "does not hold the answer."
    )
    def ask(
        question: str,
        k: int | None = None,
        path: list[str] | None = None,
        type: list[str] | None = None,
        tag: list[str] | None = None,
    ) -> dict[str, Any]:
        check_question(question)
        opts = rt.options(_filters(k, None, path, type, tag))
        events = rt.ask(question, opts)
        record = None
        for event in events:
            record = getattr(event, "record", record)
        assert record is not None
        return answer_summary(record)

    @server.tool(
        description="Read a document of the knowledge base by its KB path (as search "
        "returns it, e.g. 'notes/a.md'). Range: lines='A-B' for md/txt, page='A-B' for "
        "pdf, seconds='A-B' for audio; none = the whole document. Returns {path, type, "
        "text, lines | segments: [{text, page, seconds, lines}]}."
    )
    def read_document(
        path: str, lines: str | None = None, page: str | None = None, seconds: str | None = None
    ) -> dict[str, Any]:
        with rt.search_lock:
            doc = reader.by_path(rt.store.conn, path)
            q = {"lines": lines, "page": page, "seconds": seconds}
            return read_range(rt, doc, q)

    @server.tool(
        description="List the knowledge base's sources. Returns {sources: [{name, path, "
        "kind, documents, chunks, failed, last_ingest_at}]}."
    )
    def list_sources() -> dict[str, Any]:
        from kb.store.sources import list_sources as sources

        with rt.search_lock:
            return {"sources": [s.to_dict() for s in sources(rt.store, with_stats=True)]}

    return server


def run_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes the pipe."""
    from kb.serve.runtime import Runtime

    rt = Runtime.open(settings)
    try:
        import anyio

        from kb.serve.mcp_stdio import serve

        # the SDK's stdio transport, answering bad lines and over-long questions itself
        anyio.run(serve, build_server(rt))
    finally:
        rt.close()
