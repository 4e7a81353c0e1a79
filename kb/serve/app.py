"""``kb serve``'s ASGI application: pages, the JSON API and static assets behind the
request guard (:mod:`kb.serve.security`).

Every asset is a file inside the package (``kb/serve/static``: the app's CSS and
scripts, and pdf.js under ``vendor/pdfjs``), so the app needs no network.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.serve.runtime import Runtime

STATIC = Path(__file__).parent / "static"


def create_app(
    rt: Runtime,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    allow_hosts: tuple[str, ...] = (),
) -> Any:
    """The guarded application for a server bound to ``host:port``."""
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from kb.serve.api import routes
    from kb.serve.pages import page_routes
    from kb.serve.security import Guard, allowed_hosts

    mimetypes.add_type("text/javascript", ".mjs")  # pdf.js modules: nosniff needs a JS type
    app = Starlette(
        routes=[
            *routes(rt),
            *page_routes(rt),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ],
    )
    return Guard(app, allowed_hosts(host, port, allow_hosts), token)
