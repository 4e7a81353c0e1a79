"""kb serve's guards: Host/Origin/token, CSP, confined source reads, escaping, no writes.

Starlette's TestClient against the real app on a real KB (bag-of-words embedder, no
model load). Each traversal form gets its own test case and must be refused (4xx)
without the secret file being opened.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import EVIL_NAME, SECRET, ServeKb, doc_id


def test_loopback_hosts_pass_and_others_are_refused(client: Any) -> None:
    assert client.get("/api/sources").status_code == 200
    for host in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765"):
        assert client.get("/api/sources", headers={"host": host}).status_code == 200
    for host in ("evil.example:8765", "127.0.0.1:9999", "rebind.attacker.test", ""):
        r = client.get("/api/sources", headers={"host": host})
        assert r.status_code == 421, host


def test_other_origins_and_cross_site_requests_are_refused(client: Any) -> None:
    ok = client.get("/api/sources", headers={"origin": "http://127.0.0.1:8765"})
    assert ok.status_code == 200
    for origin in (
        "http://evil.example",
        "http://127.0.0.1:9999",
        "https://127.0.0.1:8765",
        "null",
    ):
        r = client.get("/api/search?q=bread", headers={"origin": origin})
        assert r.status_code == 403, origin
    r = client.post("/api/ask", json={"question": "x"}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.get("/api/sources", headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403


def test_token_is_required_once_set(runtime: Any) -> None:
    from starlette.testclient import TestClient

    from kb.serve.app import create_app

    app = create_app(runtime, "0.0.0.0", 8765, token="s3cret-token-123")
    with TestClient(app, base_url="http://192.168.1.5:8765") as c:
        assert c.get("/api/sources").status_code == 401
        assert c.get("/api/sources", headers={"authorization": "Bearer wrong"}).status_code == 401
        good = {"authorization": "Bearer s3cret-token-123"}
        assert c.get("/api/sources", headers=good).status_code == 200
        r = c.get("/search?q=x&token=s3cret-token-123", follow_redirects=False)
        assert r.status_code == 303
        assert r.headers["location"] == "/search?q=x"
        assert (
            "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
        )
        assert c.get("/api/sources").status_code == 200  # the cookie now
        # a wildcard bind still refuses foreign origins
        assert c.get("/api/sources", headers={"origin": "http://evil.example"}).status_code == 403


def test_token_redirect_never_leaves_the_site() -> None:
    """A path like ``//evil.example/x`` must not become a protocol-relative Location."""
    import anyio

    from kb.serve.security import Guard

    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the redirect answers first")

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {
        "type": "http",
        "method": "GET",
        "path": "//evil.example/x",
        "query_string": b"token=s3cret-token-123",
        "headers": [(b"host", b"127.0.0.1:8765")],
    }
    anyio.run(Guard(app, None, "s3cret-token-123"), scope, receive, send)
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 303 and headers[b"location"] == b"/evil.example/x"


def test_wildcard_bind_accepts_any_host_and_named_hosts_can_be_added() -> None:
    from kb.serve.security import allowed_hosts

    assert allowed_hosts("0.0.0.0", 80) is None
    hosts = allowed_hosts("192.168.1.5", 8000, ("kb.lan",))
    assert hosts is not None
    assert {"192.168.1.5:8000", "kb.lan:8000", "localhost:8000"} <= hosts
    assert "evil.example:8000" not in hosts


def test_pages_send_a_csp_without_inline_or_remote_scripts(client: Any) -> None:
    for url in ("/", "/search?q=bread", "/sources", "/eval", "/api/sources", "/static/app.css"):
        r = client.get(url)
        assert r.status_code == 200, url
        csp = r.headers["content-security-policy"]
        script = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
        assert script.split() == ["script-src", "'self'"], csp
        assert "default-src 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
    html = client.get("/").text
    assert "<script>" not in html and "http://" not in html and "https://" not in html


# -- confined reads ---------------------------------------------------------------------


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path opened with builtins.open during the test (FileResponse included)."""
    seen: list[str] = []
    real = builtins.open

    def spy(file: Any, *a: Any, **k: Any) -> Any:
        seen.append(str(file))
        return real(file, *a, **k)

    monkeypatch.setattr(builtins, "open", spy)
    return seen


TRAVERSALS = [
    "../secret.txt",
    "src/../../secret.txt",
    "src/notes/../../../secret.txt",
    "/etc/passwd",
    "C:/Windows/win.ini",
    "src\\..\\..\\secret.txt",
    "%2e%2e%2fsecret.txt",  # URL-encoded once more than the query decoding removes
    "src/%2e%2e/%2e%2e/secret.txt",
    "%252e%252e%252fsecret.txt",  # double-encoded
    "src/notes/sourdough.md\x00.txt",
    "./src/notes/sourdough.md",
]


@pytest.mark.parametrize("name", TRAVERSALS)
def test_read_by_path_refuses_traversal_without_opening_files(
    client: Any, fake_kb: ServeKb, opened: list[str], name: str
) -> None:
    r = client.get("/api/read", params={"path": name})
    assert 400 <= r.status_code < 500, (name, r.status_code)
    assert SECRET.strip() not in r.text
    assert not [p for p in opened if "secret" in p or p.startswith("/etc")]


@pytest.mark.parametrize(
    "raw_url",
    [
        "/api/read?path=..%2Fsecret.txt",
        "/api/read?path=%2Fetc%2Fpasswd",
        "/api/read?path=%252e%252e%252fsecret.txt",
        "/api/read?path=src%2Fnotes%2Fsourdough.md%00",
        "/api/documents/..%2F..%2Fsecret.txt/raw",
        "/api/documents/%2e%2e/raw",
        "/static/..%2F..%2Fserve%2Fapp.py",
        "/static/../../kb.sqlite",
        "/view/..%2Fsecret.txt",
    ],
)
def test_encoded_urls_are_refused(client: Any, opened: list[str], raw_url: str) -> None:
    r = client.get(raw_url)
    assert 400 <= r.status_code < 500, (raw_url, r.status_code)
    assert SECRET.strip() not in r.text and "import" not in r.text
    assert not [p for p in opened if "secret" in p or p.endswith(".sqlite")]


def test_symlink_out_of_the_source_is_refused(
    client: Any, runtime: Any, fake_kb: ServeKb, opened: list[str]
) -> None:
    link = doc_id(runtime, "notes/link.md")
    for url in (
        f"/api/documents/{link}/raw",
        f"/api/documents/{link}/text",
        f"/view/{link}",
        "/api/read?path=src/notes/link.md",
    ):
        r = client.get(url)
        assert r.status_code == 403, url
        assert SECRET.strip() not in r.text
    assert not [p for p in opened if "secret" in p]


def test_only_kb_documents_are_served(client: Any, fake_kb: ServeKb) -> None:
    (fake_kb.src / "notes" / "unindexed.md").write_text("not in the KB\n", encoding="utf-8")
    try:
        assert client.get("/api/read?path=src/notes/unindexed.md").status_code == 404
    finally:
        (fake_kb.src / "notes" / "unindexed.md").unlink()
    assert client.get("/api/documents/99999/raw").status_code == 404
    ok = client.get("/api/read?path=src/notes/sourdough.md&lines=4-4")
    assert ok.status_code == 200 and ok.json()["text"] == "# Country Sourdough Loaf"


# -- escaping ------------------------------------------------------------------------------


def test_document_text_and_names_are_escaped(client: Any, runtime: Any) -> None:
    evil = doc_id(runtime, "notes/evil.md")
    html = client.get(f"/view/{evil}").text
    assert "<script>window.__xss" not in html
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in html
    assert '<img src=x onerror="window.__xss' not in html
    assert "&lt;img src=x onerror=&quot;window.__xss = 2&quot;&gt;" in html
    assert 'href="javascript:' not in html  # markdown-it's link check: shown as text
    named = doc_id(runtime, EVIL_NAME)
    for page in (f"/view/{named}", "/sources", "/search?q=hostile+name"):
        body = client.get(page).text
        assert "<img src=x onerror" not in body, page
        assert "&lt;img src=x onerror=window.__xss=1&gt;" in body, page
    q = client.get("/search", params={"q": "<script>alert(1)</script> zebra"}).text
    assert "<script>alert(1)" not in q and "&lt;script&gt;alert(1)&lt;/script&gt;" in q


# -- nothing is written, nothing is ingested ------------------------------------------------


def _tree(root: Path) -> dict[str, float]:
    return {str(p): p.lstat().st_mtime for p in root.rglob("*")}


def test_requests_write_nothing_and_offer_no_ingest(
    client: Any, runtime: Any, fake_kb: ServeKb
) -> None:
    from starlette.routing import Route

    from kb.serve.api import routes
    from kb.serve.pages import page_routes

    before = _tree(fake_kb.src)
    for url in ("/", "/sources", "/search?q=bread", "/api/search?q=bees", "/api/documents"):
        assert client.get(url).status_code == 200
    r = client.post("/api/ask", json={"question": "How long does the loaf proof?"})
    assert r.status_code == 200
    for url in ("/api/ingest", "/api/sources", "/api/documents"):
        assert client.post(url, json={"path": "/etc"}).status_code in (404, 405)
    assert _tree(fake_kb.src) == before
    every = [*routes(runtime), *page_routes(runtime)]
    writers = [r.path for r in every if isinstance(r, Route) and "POST" in (r.methods or ())]
    assert writers == ["/api/ask"]  # the only POST, and it reads
