"""Eval runs over HTTP: the list, a run's report and a compare of two runs.

JSON under ``/api/eval/`` (the shapes ``kb eval list/show/compare --json`` print) and
the HTML reports ``kb eval show --html`` / ``kb eval compare --html`` write
(:mod:`eval.render_html`, with their per-query drill-down), under ``/eval/report/REF``
and ``/eval/compare?a=A&b=B``, with a link back to the app. Those reports are single
files with inline CSS and no script; they are served with a CSP that allows inline
style and still no script (:data:`kb.serve.security.REPORT_CSP`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from kb.errors import UsageError

if TYPE_CHECKING:
    from kb.serve.runtime import Runtime

#: permutations (and bootstrap resamples) of a compare, as ``kb eval compare``
PERMUTATIONS = 10000
SEED = 20240601
_BACK = (
    '<nav style="font:14px system-ui,sans-serif;margin-bottom:1rem">'
    '<a href="/eval">&larr; eval runs</a> · <a href="/">ask</a></nav>'
)


def runs(rt: Runtime) -> list[dict[str, Any]]:
    from eval.store import EvalStore

    return [
        {**r.to_dict(), "overall": (r.metrics or {}).get("overall", {}).get("metrics")}
        for r in EvalStore(rt.store).list_runs()
    ]


def report(rt: Runtime, ref: str, details: bool) -> dict[str, Any]:
    from eval.report_load import load_report
    from kb.limits import check_name

    check_name(ref, "run id or name in the path")

    return load_report(rt.store, ref, False, None, None, details)


def comparison(rt: Runtime, a: str, b: str) -> dict[str, Any]:
    from eval.compare import compare_runs
    from eval.report import comparison_json
    from eval.store import EvalStore
    from kb.limits import check_name

    if not a or not b:
        raise UsageError("compare needs two runs: ?a=RUN&b=RUN (ids or names)")
    check_name(a, "parameter a (a run id or name)")
    check_name(b, "parameter b (a run id or name)")
    c = compare_runs(EvalStore(rt.store), a, b, False, PERMUTATIONS, PERMUTATIONS, SEED, None)
    return comparison_json(c)


def with_nav(html: str) -> str:
    """The report with a link back to the app right after ``<body>``."""
    return html.replace("<body>", "<body>" + _BACK, 1)


def eval_routes(rt: Runtime, guarded: Any) -> list[Route]:
    def api_runs(request: Request) -> Response:
        return JSONResponse({"runs": runs(rt)})

    def api_run(request: Request) -> Response:
        details = request.query_params.get("details") in ("1", "true")
        return JSONResponse(report(rt, request.path_params["ref"], details))

    def api_compare(request: Request) -> Response:
        q = request.query_params
        return JSONResponse(comparison(rt, q.get("a", ""), q.get("b", "")))

    def html_run(request: Request) -> Response:
        from eval.render_html import run_html

        rep = report(rt, request.path_params["ref"], True)
        return HTMLResponse(with_nav(run_html(rep)))

    def html_compare(request: Request) -> Response:
        from eval.render_html import compare_html

        q = request.query_params
        return HTMLResponse(with_nav(compare_html(comparison(rt, q.get("a", ""), q.get("b", "")))))

    return [
        Route("/api/eval/runs", guarded(api_runs)),
        Route("/api/eval/runs/{ref}", guarded(api_run)),
        Route("/api/eval/compare", guarded(api_compare)),
        Route("/eval/report/{ref}", guarded(html_run)),
        Route("/eval/compare", guarded(html_compare)),
    ]
