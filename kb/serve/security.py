"""Request guards and response headers for ``kb serve`` (a pure ASGI middleware).

Every HTTP request passes these checks, in order:

1. ``Host`` must name this server: ``127.0.0.1:PORT``, ``localhost:PORT``,
   ``[::1]:PORT``, the bound address with its port, or a name given with
   ``--allow-host``. Anything else is 421 (a DNS-rebinding page reaches the server under
   its own name, and is refused here). When bound to every address (``0.0.0.0``/``::``)
   any ``Host`` passes this step and the token (3.) is what guards the server.
2. ``Origin``, when sent, must be ``http://`` + the request's own ``Host``; and
   ``Sec-Fetch-Site: cross-site`` is refused: another site's page cannot drive the API
   (403).
3. With a token (required whenever the server listens beyond the loopback address),
   the request must carry it: ``Authorization: Bearer TOKEN``, the ``kb_token`` cookie,
   or ``?token=TOKEN`` (a page opened with it gets the cookie, ``HttpOnly`` and
   ``SameSite=Strict``, and is redirected to the same URL without it). Otherwise 401.
   Tokens are compared in constant time.

Before these, a request whose decoded path holds a control character (``%0d%0a``,
``%09``, ``%00``) is 400: no page has such a name, and it must never reach a header
(a redirect's ``Location``) or a browser that drops tabs and newlines from URLs
(``/%09/evil.com`` would become ``//evil.com``, another site).

Every response gets ``Content-Security-Policy`` (scripts only from this server: no
inline script, no eval, no remote script; workers from this server), ``X-Content-
Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and ``X-Frame-Options:
SAMEORIGIN`` (the ask page shows a source in a frame of its own; no other site may).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; "
    "style-src 'self'; img-src 'self' data: blob:; media-src 'self'; font-src 'self'; "
    "frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'; "
    "object-src 'none'"
)
#: the stored eval reports are single files with inline CSS and no script at all
REPORT_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
COOKIE = "kb_token"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def is_loopback(host: str) -> bool:
    return host in LOOPBACK or host.startswith("127.")


def allowed_hosts(host: str, port: int, extra: tuple[str, ...] = ()) -> set[str] | None:
    """The ``Host`` header values this server answers to; ``None``: any (wildcard bind)."""
    if host in ("0.0.0.0", "::", ""):
        return None
    names = {"127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host, *extra}
    return {f"{n}:{port}" for n in names} | ({*names} if port == 80 else set())


class Guard:
    """The ASGI middleware; ``token`` ``None`` means no token is asked for."""

    def __init__(self, app: ASGIApp, hosts: set[str] | None, token: str | None) -> None:
        self.app = app
        self.hosts = hosts
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _has_control(scope.get("path", "")):
            await _plain(send, 400, "the URL path holds a control character; refused")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts is not None and host.lower() not in self.hosts:
            await _plain(send, 421, f"unknown Host {host!r}: open the URL kb serve printed")
            return
        origin = headers.get("origin")
        if origin is not None and origin != "null" and origin.lower() != f"http://{host}".lower():
            await _plain(send, 403, f"cross-origin request from {origin!r} refused")
            return
        if origin == "null" or headers.get("sec-fetch-site") == "cross-site":
            await _plain(send, 403, "cross-site request refused")
            return
        if self.token is not None:
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if _same(query.get("token"), self.token) and scope["method"] == "GET":
                rest = urlencode([(k, v) for k, v in query.items() if k != "token"])
                await _redirect(send, local_location(scope["path"], rest), self.token)
                return
            if not (
                _same(_bearer(headers.get("authorization")), self.token)
                or _same(_cookie(headers.get("cookie"), COOKIE), self.token)
            ):
                await _plain(send, 401, "missing or wrong token: open the URL kb serve printed")
                return
        await self.app(scope, receive, _with_headers(send, scope["path"]))


def _has_control(path: str) -> bool:
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path)


def local_location(path: str, query: str = "") -> str:
    """The redirect target for the decoded ``path``: percent-encoded again (a tab,
    newline, space or backslash becomes ``%09``, ``%0A``, ``%20``, ``%5C``) and with
    exactly one leading slash, so it always names a page of this server: ``//evil.com``
    and ``/\\evil.com`` would send a browser to another site."""
    quoted = quote(path, safe="/-._~!$&'()*+,;=:@")
    local = "/" + quoted.lstrip("/")
    return local + (f"?{query}" if query else "")


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _bearer(value: str | None) -> str | None:
    if value and value.lower().startswith("bearer "):
        return value[7:].strip()
    return None


def _cookie(value: str | None, name: str) -> str | None:
    for part in (value or "").split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return None


def security_headers(path: str) -> list[tuple[bytes, bytes]]:
    csp = REPORT_CSP if path.startswith("/eval/report") or path.startswith("/eval/compare") else CSP
    return [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"SAMEORIGIN"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]


def _with_headers(send: Send, path: str) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [h for h in security_headers(path) if h[0] not in names]
            message["headers"] = list(message.get("headers", [])) + extra
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), *security_headers("")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, location: str, token: str) -> None:
    cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
    headers = [
        (b"location", location.encode("latin-1", "replace")),
        (b"set-cookie", cookie.encode()),
        *security_headers(""),
    ]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
