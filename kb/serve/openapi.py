"""The OpenAPI 3.1 document of ``/api/`` (served at ``/api/openapi.json``).

Written out by hand from the routes in :mod:`kb.serve.api` and :mod:`kb.serve.eval_api`;
``tests/serve/test_api.py`` checks that every ``/api`` route is described here.
"""

from __future__ import annotations

from typing import Any

from kb import __version__

_FILTERS = [
    ("k", "integer", "Number of passages (1-100). Default: [search] k."),
    ("mode", "string", "hybrid, vector or keyword. Default: [search] mode."),
    ("path", "array", "Only documents under this folder/file or matching this glob."),
    ("type", "array", "Only this document type: md, txt, pdf, audio."),
    ("tag", "array", "Only documents with this front-matter tag."),
    ("min_score", "number", "Refusal threshold on cosine (-1 = off)."),
]


def _param(name: str, typ: str, desc: str, where: str = "query", required: bool = False) -> Any:
    schema: dict[str, Any] = {"type": typ}
    if typ == "array":
        schema["items"] = {"type": "string"}
    return {
        "name": name,
        "in": where,
        "required": required,
        "description": desc,
        "schema": schema,
        **({"style": "form", "explode": True} if typ == "array" else {}),
    }


def _op(summary: str, params: list[Any], media: str = "application/json", **extra: Any) -> Any:
    return {
        "summary": summary,
        "parameters": params,
        "responses": {
            "200": {"description": "OK", "content": {media: {}}},
            "400": {"description": "Bad parameter: {error}"},
            "403": {"description": "Refused name or file: {error}"},
            "404": {"description": "No such document or run: {error}"},
        },
        **extra,
    }


def openapi() -> dict[str, Any]:
    filters = [_param(*f) for f in _FILTERS]
    doc_id = _param("doc_id", "integer", "Document id (see /api/documents).", "path", True)
    ranges = [
        _param("lines", "string", "md/txt: lines A-B (1-based, inclusive)."),
        _param("page", "string", "pdf: pages A-B."),
        _param("seconds", "string", "audio: seconds A-B (transcript segments)."),
    ]
    q = _param("q", "string", "The query or question.", required=True)
    ask_body = {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["question"],
                    "properties": {"question": {"type": "string"}, "k": {"type": "integer"}},
                }
            }
        }
    }
    stream_doc = (
        "Server-sent events: sources {sources: [{n, chunk_id, path, locator, score, text}], "
        "retrieval_s, at_s} first, as soon as retrieval ends (with Accept: text/event-stream "
        "before the model is loaded; an error after it is an error event), then token {text}, "
        "citation {n, valid, chunk_id, path, locator}, "
        "verdict {i, text, verdict, score, citations, evidence}, done {answer}, "
        "error {error, status}."
    )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "kb",
            "version": __version__,
            "description": "Local knowledge base: search, cited answers, sources, eval runs. "
            "With a token: Authorization: Bearer TOKEN.",
        },
        "paths": {
            "/api/search": {"get": _op("Ranked passages (kb search --json).", [q, *filters])},
            "/api/ask": {
                "get": _op(
                    "A cited answer, streamed. " + stream_doc, [q, *filters], "text/event-stream"
                ),
                "post": _op(
                    "A cited answer, streamed (JSON body). " + stream_doc,
                    [],
                    "text/event-stream",
                    requestBody=ask_body,
                ),
            },
            "/api/sources": {"get": _op("Sources with document, chunk and failure counts.", [])},
            "/api/documents": {
                "get": _op(
                    "Documents with status, error and chunk count.",
                    [_param("status", "string", "indexed or failed.")],
                )
            },
            "/api/documents/{doc_id}": {
                "get": _op("A document and its segments (chunks with places).", [doc_id])
            },
            "/api/documents/{doc_id}/raw": {
                "get": _op(
                    "The source file's bytes (confined to its source folder).",
                    [doc_id],
                    "application/octet-stream",
                )
            },
            "/api/documents/{doc_id}/text": {
                "get": _op("A document's text in a range.", [doc_id, *ranges])
            },
            "/api/read": {
                "get": _op(
                    "A document's text by KB path and range.",
                    [
                        _param("path", "string", "KB path, e.g. demo/notes/a.md.", required=True),
                        *ranges,
                    ],
                )
            },
            "/api/eval/runs": {"get": _op("Stored eval runs with overall metrics.", [])},
            "/api/eval/runs/{ref}": {
                "get": _op(
                    "A run's report (kb eval show --json).",
                    [
                        _param("ref", "string", "Run id or name.", "path", True),
                        _param("details", "boolean", "Add every query's drill-down."),
                    ],
                )
            },
            "/api/eval/compare": {
                "get": _op(
                    "Compare run b against baseline a (kb eval compare --json).",
                    [
                        _param("a", "string", "Baseline run.", required=True),
                        _param("b", "string", "Candidate run.", required=True),
                    ],
                )
            },
            "/api/openapi.json": {"get": _op("This document.", [])},
        },
    }
