"""Server-rendered pages: Ask, Search, the source viewer, Sources and Eval.

Templates are Jinja2 with autoescaping on, so every question, answer, file name and
passage is escaped where shown; the few HTML fragments built in Python come from
:mod:`kb.serve.render`, which escapes them itself. Scripts are static files
(``/static/*.js``), never inline, as the CSP demands.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from kb.errors import KbError
from kb.serve import reader
from kb.serve.render import excerpt_html, markdown_html, text_html

if TYPE_CHECKING:
    from kb.serve.runtime import Runtime

HERE = Path(__file__).parent


@lru_cache(maxsize=1)
def environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    from kb import __version__

    env.globals["version"] = __version__
    return env


def page(name: str, code: int = 200, **context: Any) -> HTMLResponse:
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=code, headers={"cache-control": "no-store"})


def error_page(e: KbError) -> HTMLResponse:
    from kb.serve.api import status_of

    return page("error.html", status_of(e), message=str(e), status=status_of(e))


def _cited(value: str | None) -> tuple[int, int] | None:
    from kb.serve.api import span

    got = span(value)
    return None if got is None else (int(got[0]), int(got[1]))


def view_context(rt: Runtime, doc: reader.Document, chunk: Any, q: Any) -> dict[str, Any]:
    """What view.html needs: the rendered body for md/txt, the page for pdf, the start
    second and transcript for audio. The place comes from the chunk, else ``lines``,
    ``page`` or ``t`` in the query."""
    ctx: dict[str, Any] = {"doc": doc, "raw": f"/api/documents/{doc.id}/raw", "chunk": chunk}
    segs = reader.segments(rt.store.conn, doc)
    if doc.doc_type in ("md", "txt"):
        lines = (
            (int(chunk["line_start"]), int(chunk["line_end"] or chunk["line_start"]))
            if chunk is not None and chunk["line_start"] is not None
            else _cited(q.get("lines"))
        )
        text = reader.read_lines(doc)
        body = (
            markdown_html("\n".join(text), lines)
            if doc.doc_type == "md"
            else text_html(text, lines)
        )
        ctx.update(body=body, lines=lines)
    elif doc.doc_type == "pdf":
        page_no = int(chunk["page_start"]) if chunk is not None and chunk["page_start"] else None
        if page_no is None:
            got = _cited(q.get("page"))
            page_no = got[0] if got else 1
        ctx.update(page=max(1, page_no), segments=segs)
    else:
        t = float(chunk["seconds_start"]) if chunk is not None and chunk["seconds_start"] else None
        if t is None:
            try:
                t = max(0.0, float(q.get("t") or 0))
            except ValueError:
                t = 0.0
        cited = chunk["id"] if chunk is not None else None
        ctx.update(t=t, segments=segs, cited=cited)
    return ctx


def page_routes(rt: Runtime) -> list[Route]:
    from kb.serve.api import endpoint

    def wrap(fn: Any) -> Any:
        return endpoint(rt, fn, error_page)

    def ask(request: Request) -> Response:
        return page("ask.html", nav="ask", q=request.query_params.get("q", ""), **_filters(request))

    def search(request: Request) -> Response:
        from kb.limits import check_question
        from kb.serve.api import params

        q = check_question(request.query_params.get("q", ""), "query")  # HTTP 413, as the API
        f = _filters(request)
        if not q.strip():
            return page("search.html", nav="search", q=q, result=None, **f)
        opts = rt.options(params(request))
        result = rt.search(q, opts)
        from kb.search.evidence import weak_hit, weak_note
        from kb.search.typos import corrected_query

        searched = corrected_query(q, result.corrections)  # a typo's correction is marked
        hits = [
            {
                "hit": h,
                "excerpt": excerpt_html(h.text, searched),
                "rank": i,
                "weak": weak_note(opts.min_score) if weak_hit(h.scores, opts.min_score) else "",
            }
            for i, h in enumerate(result.hits, 1)
        ]
        # the note that Ask would refuse: kb ask's own rule, as kb search prints it
        refuses = (
            bool(result.hits)
            and result.best_cosine is not None
            and not rt.ask_would_answer(result, opts)
        )
        return page(
            "search.html",
            nav="search",
            q=q,
            result=result,
            hits=hits,
            opts=opts,
            refuses=refuses,
            **f,
        )

    def view_chunk(request: Request) -> Response:
        doc, chunk = reader.by_chunk(rt.store.conn, _num(request.path_params["chunk_id"]))
        ctx = view_context(rt, doc, chunk, request.query_params)
        return page("view.html", nav="", embed=_embed(request), **ctx)

    def view_doc(request: Request) -> Response:
        doc = reader.by_id(rt.store.conn, _num(request.path_params["doc_id"]))
        ctx = view_context(rt, doc, None, request.query_params)
        return page("view.html", nav="", embed=_embed(request), **ctx)

    def sources(request: Request) -> Response:
        from kb.serve.api import list_documents
        from kb.store.sources import list_sources

        docs = list_documents(rt, None)
        return page(
            "sources.html",
            nav="sources",
            sources=list_sources(rt.store, with_stats=True),
            documents=docs,
            failed=[d for d in docs if d["status"] == "failed"],
        )

    def evals(request: Request) -> Response:
        from kb.serve.eval_api import runs

        newest_first = sorted(runs(rt), key=lambda r: -int(r["id"]))
        return page("eval.html", nav="eval", runs=newest_first)

    return [
        Route("/", wrap(ask)),
        Route("/search", wrap(search)),
        Route("/view/chunk/{chunk_id}", wrap(view_chunk)),
        Route("/view/{doc_id}", wrap(view_doc)),
        Route("/sources", wrap(sources)),
        Route("/eval", wrap(evals)),
        Route("/favicon.ico", lambda r: Response(status_code=204)),  # browsers ask anyway
    ]


def _embed(request: Request) -> bool:
    return request.query_params.get("embed") == "1"


def _num(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise reader.Missing(f"{value!r}: not a number") from None


def _filters(request: Request) -> dict[str, Any]:
    q = request.query_params
    return {
        "f_mode": q.get("mode", ""),
        "f_path": q.get("path", ""),
        "f_type": q.get("type", ""),
        "f_tag": q.get("tag", ""),
        "f_k": q.get("k", ""),
        "f_min": q.get("min_score", ""),
    }
