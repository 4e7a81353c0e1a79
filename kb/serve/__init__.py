"""``kb serve`` and ``kb mcp``: the second composition root beside :mod:`kb.cli`.

A thin layer over :mod:`kb.search`, :mod:`kb.rag`, :mod:`kb.store` and :mod:`eval`:

- :mod:`kb.serve.runtime`: the warm store, retriever and pipeline a server shares;
- :mod:`kb.serve.reader`: the one confined reader of source files and ranges;
- :mod:`kb.serve.security`: Host/Origin/token guard and the CSP;
- :mod:`kb.serve.api`, :mod:`kb.serve.eval_api`, :mod:`kb.serve.openapi`: ``/api/``;
- :mod:`kb.serve.pages`, :mod:`kb.serve.render`: the web app's pages;
- :mod:`kb.serve.mcp_server`: the Model Context Protocol server over stdio.

Starlette, uvicorn and mcp are imported only here, never by ``kb --help``.
"""
