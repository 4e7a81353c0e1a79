"""The JSON API under ``/api/`` (described by ``/api/openapi.json``, see
:mod:`kb.serve.openapi`).

Errors are ``{"error": "one line"}`` with: 400 bad parameter (:class:`UsageError`),
403 a name or file the server may not read (:class:`~kb.serve.reader.Refused`), 404
no such document/run, 409 the KB is empty, 503 a model could not be loaded, 500
anything else. The source routes only ever read through :mod:`kb.serve.reader`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kb.errors import (
    ConfigError,
    EmptyStoreError,
    GoldenError,
    KbError,
    ModelError,
    QuestionTooLongError,
    UsageError,
)
from kb.limits import check_question
from kb.serve import reader
from kb.serve.sse import SourcesFirst, event_stream, message

if TYPE_CHECKING:
    from kb.serve.runtime import Runtime

MEDIA = {
    ".pdf": "application/pdf",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".m4a": "audio/mp4",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".webm": "audio/webm",
}


def endpoint(rt: Runtime, fn: Any, on_error: Any) -> Any:
    """An async endpoint running the blocking ``fn(request)`` in a worker thread under
    the store lock; a :class:`KbError` becomes ``on_error(e)`` (a JSON error or a page)."""

    async def run(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        def locked() -> Response:
            with rt.search_lock:
                return fn(request)  # type: ignore[no-any-return]

        try:
            return await run_in_threadpool(locked)
        except KbError as e:
            return on_error(e)  # type: ignore[no-any-return]

    return run


def status_of(e: KbError) -> int:
    if isinstance(e, reader.Refused | reader.Missing):
        return e.status
    if isinstance(e, QuestionTooLongError):
        return 413  # Content Too Large: the same limit as the CLI's exit 5
    if isinstance(e, UsageError | ConfigError | GoldenError):
        return 400
    if isinstance(e, EmptyStoreError):
        return 409
    if isinstance(e, ModelError):
        return 503
    return 500


def error(e: KbError) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=status_of(e))


def params(request: Request) -> dict[str, Any]:
    """Query parameters, the repeatable filters (path, type, tag) as lists."""
    q = request.query_params
    out: dict[str, Any] = {k: q.get(k) for k in ("k", "mode", "min_score")}
    for k in ("path", "type", "tag"):
        out[k] = q.getlist(k)
    return out


def span(text: str | None, conv: Any = int) -> tuple[Any, Any] | None:
    """``"3-9"`` -> (3, 9); ``"7"`` -> (7, 7); None when absent. UsageError on garbage."""
    if text is None or text == "":
        return None
    a, _, b = text.partition("-")
    try:
        lo, hi = conv(a), conv(b or a)
    except ValueError:
        raise UsageError(f"range {text!r}: expected N or N-M") from None
    if lo > hi or lo < 0:
        raise UsageError(f"range {text!r}: start must be 0 or more and not after the end")
    return lo, hi


def routes(rt: Runtime) -> list[Route]:
    def guarded(fn: Any) -> Any:
        return endpoint(rt, fn, error)

    def search(request: Request) -> Response:
        q = check_question(request.query_params.get("q", ""), "query")
        opts = rt.options(params(request))
        result = rt.search(q, opts)
        data = result.to_dict(k=opts.k)
        for h in data["hits"]:
            h["view"] = f"/view/chunk/{h['chunk_id']}"
        return JSONResponse(data)

    async def ask(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                return JSONResponse({"error": "the body must be JSON"}, status_code=400)
            if not isinstance(body, dict):
                return JSONResponse({"error": "the body must be a JSON object"}, 400)
            question, p = str(body.get("question") or ""), body
        else:
            question, p = request.query_params.get("q", ""), params(request)
        sse = "text/event-stream" in request.headers.get("accept", "")
        try:
            check_question(question)  # before the answer lock: a long one blocks nothing
            opts = rt.options(p)
            if sse:  # the sources as soon as retrieval ends; a later error is an event
                start = partial(rt.ask, question, opts)
                stream: Any = SourcesFirst(start, status_of)
            else:
                stream = await run_in_threadpool(rt.ask, question, opts)
        except KbError as e:
            if sse:
                # EventSource cannot read an error body: say it as the stream's one event
                return StreamingResponse(
                    iter([message("error", {"error": str(e), "status": status_of(e)})]),
                    media_type="text/event-stream",
                )
            return error(e)
        return StreamingResponse(
            event_stream(stream),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    def sources(request: Request) -> Response:
        from kb.store.sources import list_sources

        rows = list_sources(rt.store, with_stats=True)
        return JSONResponse({"sources": [s.to_dict() for s in rows]})

    def documents(request: Request) -> Response:
        status = request.query_params.get("status")
        if status not in (None, "", "indexed", "failed"):
            raise UsageError(f"status={status!r}: expected indexed or failed")
        return JSONResponse({"documents": list_documents(rt, status or None)})

    def document(request: Request) -> Response:
        doc = reader.by_id(rt.store.conn, _int(request.path_params["doc_id"]))
        segs = reader.segments(rt.store.conn, doc)
        return JSONResponse(
            {**doc.to_dict(), "segments": [s.to_dict() for s in segs], "raw": _raw_url(doc)}
        )

    def raw(request: Request) -> Response:
        doc = reader.by_id(rt.store.conn, _int(request.path_params["doc_id"]))
        path = reader.confined_file(doc)
        media = MEDIA.get(path.suffix.lower(), "application/octet-stream")
        return FileResponse(path, media_type=media, headers={"cache-control": "no-store"})

    def text(request: Request) -> Response:
        doc = reader.by_id(rt.store.conn, _int(request.path_params["doc_id"]))
        return JSONResponse(read_range(rt, doc, request.query_params))

    def read(request: Request) -> Response:
        doc = reader.by_path(rt.store.conn, request.query_params.get("path", ""))
        return JSONResponse(read_range(rt, doc, request.query_params))

    from kb.serve.eval_api import eval_routes
    from kb.serve.openapi import openapi

    return [
        Route("/api/search", guarded(search)),
        Route("/api/ask", ask, methods=["GET", "POST"]),
        Route("/api/sources", guarded(sources)),
        Route("/api/documents", guarded(documents)),
        Route("/api/documents/{doc_id}", guarded(document)),
        Route("/api/documents/{doc_id}/raw", guarded(raw)),
        Route("/api/documents/{doc_id}/text", guarded(text)),
        Route("/api/read", guarded(read)),
        *eval_routes(rt, guarded),
        Route("/api/openapi.json", lambda r: JSONResponse(openapi())),
    ]


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise reader.Missing(f"document id {value!r}: not a number") from None


def _raw_url(doc: reader.Document) -> str:
    return f"/api/documents/{doc.id}/raw"


def list_documents(rt: Runtime, status: str | None) -> list[dict[str, Any]]:
    """Every document (or those with ``status``) with its chunk count, by path."""
    sql = (
        "SELECT d.id, d.path, d.doc_type, d.status, d.error, d.tags, "
        "(SELECT count(*) FROM live_chunks c WHERE c.document_id = d.id) AS chunks "
        "FROM documents d" + (" WHERE d.status = ?" if status else "") + " ORDER BY d.path"
    )
    import json

    rows = rt.store.conn.execute(sql, (status,) if status else ()).fetchall()
    return [
        {
            "id": int(r["id"]),
            "path": r["path"],
            "type": r["doc_type"],
            "status": r["status"],
            "error": r["error"],
            "tags": json.loads(r["tags"] or "[]"),
            "chunks": int(r["chunks"]),
        }
        for r in rows
    ]


def read_range(rt: Runtime, doc: reader.Document, q: Any) -> dict[str, Any]:
    """A document's text in a range: ``lines=A-B`` (md, txt: from the file), ``page=A-B``
    (pdf) or ``seconds=A-B`` (audio: the transcript segments that overlap), or the whole
    document when no range is given."""
    base = doc.to_dict()
    if doc.doc_type in ("md", "txt"):
        lines = span(q.get("lines"))
        first, last = lines if lines else (None, None)
        got = reader.read_lines(doc, first, last)
        start = first or 1
        return {**base, "lines": [start, start + len(got) - 1], "text": "\n".join(got)}
    pages = span(q.get("page"))
    seconds = span(q.get("seconds"), float)
    segs = [s for s in reader.segments(rt.store.conn, doc) if reader.overlaps(s, pages, seconds)]
    return {
        **base,
        "segments": [s.to_dict() for s in segs],
        "text": reader.joined_text(segs, doc.meta.get("title")),
    }
