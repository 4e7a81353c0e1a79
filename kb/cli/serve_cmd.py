"""``kb serve`` (the web app and JSON API) and ``kb mcp`` (an MCP server over stdio).

Starlette, uvicorn and the mcp SDK are imported inside the commands, so ``kb --help``
does not load them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from kb.cli.common import KbOption, err, settings_for


def serve(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="ADDR",
            help="Address to listen on. Anything but the loopback address (127.0.0.1, "
            "localhost, ::1) requires a token: --token, or one is generated and printed.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", metavar="PORT", help="TCP port to listen on (1-65535).")
    ] = 8765,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            metavar="TOKEN",
            envvar="KB_SERVE_TOKEN",
            help="Require this token on every request (Authorization: Bearer TOKEN, or open "
            "the printed URL once: it sets a cookie). [env: KB_SERVE_TOKEN]",
            show_default=False,
            show_envvar=False,
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Another Host name the server answers to (e.g. a LAN name); repeatable. "
            "Requests naming any other host are refused (DNS rebinding).",
            show_default=False,
        ),
    ] = None,
    preload: Annotated[
        bool,
        typer.Option(
            "--preload",
            help="Load the embedding and answer models before serving (else on "
            "first need; either way they stay loaded).",
        ),
    ] = False,
    kb: KbOption = None,
) -> None:
    """Serve the KB at http://HOST:PORT/: Ask (streamed, cited answers), Search, a source
    viewer that opens each citation at its place (lines, PDF page, audio second),
    Sources and Eval runs; and a JSON API under /api/ (OpenAPI at /api/openapi.json).

    The server reads the KB and its source files only: it never ingests, and it
    serves a file only when it is a document of the KB inside its source folder.
    Requests whose Host or Origin is not this server's are refused; pages send a
    Content-Security-Policy that allows no inline or remote script.

    \b
    Examples:
      kb serve
      kb serve --port 9000 --preload
      kb serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"

    Exit codes: 0 stopped (Ctrl-C); 2 bad option; 4 the KB is empty.
    """
    import secrets

    from kb.errors import UsageError
    from kb.serve.security import is_loopback

    if not 1 <= port <= 65535:
        raise UsageError(f"--port {port}: must be between 1 and 65535")
    if token is not None and len(token) < 8:
        raise UsageError("--token: use at least 8 characters")
    generated = token is None and not is_loopback(host)
    if generated:
        token = secrets.token_urlsafe(24)
    settings = settings_for(kb)

    import uvicorn

    from kb.serve.app import create_app
    from kb.serve.runtime import Runtime

    rt = Runtime.open(settings)
    try:
        if preload:
            err("kb serve: loading models…")
            rt.warm()
        app = create_app(rt, host, port, token, tuple(allow_host or ()))
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
        err(f"kb serve: {settings.home} at {url}" + (f"?token={token}" if token else ""))
        if generated:
            err(f"kb serve: listening on {host}: every request needs the token {token}")
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    finally:
        rt.close()


def mcp(kb: KbOption = None) -> None:
    """Run a Model Context Protocol server over stdio for an MCP client (Claude Desktop,
    an IDE, an agent). Tools: search (ranked passages), ask (answer with citations and
    verdicts), read_document (a document range by KB path and lines/page/seconds),
    list_sources.

    Register it in the client as the command `kb` with the argument `mcp`, and KB_HOME
    in its environment (the README's MCP section has the configuration snippet).
    stdout carries the protocol; messages go to stderr.

    \b
    Examples:
      kb mcp
      KB_HOME=~/kb kb mcp
    """
    from kb.serve.mcp_server import run_stdio

    run_stdio(settings_for(kb))
