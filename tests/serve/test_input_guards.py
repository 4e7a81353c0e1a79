"""kb serve and kb mcp with hostile input: the question length limit (HTTP 413, JSON-RPC
-32602), control characters in a URL path (400, never a redirect off the site), and
malformed MCP lines (JSON-RPC -32700 / -32600, the server keeps answering)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.limits import MAX_QUESTION_CHARS

LONG = "x" * (MAX_QUESTION_CHARS + 1)


@pytest.mark.slow
def test_the_api_answers_413_for_a_long_query_or_question(client: Any) -> None:
    r = client.get("/api/search", params={"q": LONG})
    assert r.status_code == 413
    assert r.json() == {
        "error": "the query is 4,001 characters, over the limit of 4,000; shorten it"
    }
    r = client.post("/api/ask", json={"question": LONG})
    assert r.status_code == 413 and "the question is 4,001 characters" in r.json()["error"]
    assert client.get("/api/search", params={"q": "bread"}).status_code == 200


def _guard(path: str, query: bytes = b"token=T0k3n") -> list[dict[str, Any]]:
    import anyio

    from kb.serve.security import Guard

    sent: list[dict[str, Any]] = []
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": [(b"host", b"127.0.0.1:8765")],
    }
    anyio.run(Guard(app, None, "T0k3n"), scope, receive, send)
    assert not reached
    return sent


@pytest.mark.parametrize("path", ["\t/evil.com", "/\t/evil.com", "/a\r\nSet-Cookie: x=1", "/\x00"])
def test_a_control_character_in_the_path_is_400_never_a_redirect(path: str) -> None:
    """``GET /%09/evil.com?token=T`` redirected to ``//evil.com`` (browsers drop the
    tab); ``%0d%0a`` reached the Location header and h11 raised."""
    sent = _guard(path)
    assert sent[0]["status"] == 400
    assert b"control character" in sent[1]["body"]


def test_the_token_redirect_re_encodes_the_path() -> None:
    from kb.serve.security import local_location

    sent = _guard("/search/a b\\c", b"token=T0k3n&q=x")
    assert sent[0]["status"] == 303
    assert dict(sent[0]["headers"])[b"location"] == b"/search/a%20b%5Cc?q=x"
    assert local_location("//evil.com/x") == "/evil.com/x"
    assert local_location("/\\evil.com") == "/%5Cevil.com"


@pytest.mark.parametrize(
    ("line", "code", "id_"),
    [
        ("not json", -32700, None),
        ('{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700, None),
        ("[1, 2]", -32600, None),
        ('{"id": 7, "method": "ping"}', -32600, 7),
    ],
)
def test_mcp_answers_a_malformed_line_with_a_json_rpc_error(line: str, code: int, id_: Any) -> None:
    from kb.serve.mcp_stdio import refusal

    answer = refusal(line)
    assert answer is not None
    obj = json.loads(answer)
    assert obj["jsonrpc"] == "2.0" and obj["id"] == id_ and obj["error"]["code"] == code


def test_mcp_refuses_a_long_question_before_any_tool_runs() -> None:
    from kb.serve.mcp_stdio import refusal

    call = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "ask", "arguments": {"question": LONG}},
    }
    obj = json.loads(refusal(json.dumps(call)) or "{}")
    assert obj == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {
            "code": -32602,
            "message": "the question is 4,001 characters, over the limit of 4,000; shorten it",
        },
    }
    call["params"] = {"name": "search", "arguments": {"query": "short"}}
    assert refusal(json.dumps(call)) is None
    assert refusal('{"jsonrpc": "2.0", "id": 1, "method": "ping"}') is None


@pytest.mark.slow
def test_kb_mcp_process_answers_parse_errors_and_keeps_serving(kb_home: Path) -> None:
    """A real ``python -m kb mcp``: a bad line gets -32700, a long question -32602, and
    ping still answers after both."""
    import os
    import subprocess
    import sys

    from kb.store import Store
    from tests.kb.test_store_health import add_doc

    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
    ask = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "ask", "arguments": {"question": LONG}},
    }
    lines = [
        "this is not json",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps(ask),
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    ]
    env = {**os.environ, "KB_HOME": str(kb_home), "HF_HUB_OFFLINE": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "kb", "mcp"],
        input="\n".join(lines) + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    by_id = {o.get("id"): o for o in out}
    assert by_id[None]["error"]["code"] == -32700
    assert by_id[4]["error"]["code"] == -32602
    assert by_id[9]["result"] == {}


@pytest.mark.slow
def test_the_search_page_and_the_eval_api_refuse_over_long_input(client: Any) -> None:
    """The search page and the eval API had no bound (only /api/search and /api/ask)."""
    r = client.get("/search", params={"q": LONG})
    assert r.status_code == 413
    assert "the query is 4,001 characters, over the limit of 4,000; shorten it" in r.text
    name = "r" * 201
    r = client.get(f"/api/eval/runs/{name}")
    assert r.status_code == 413
    assert r.json() == {
        "error": "the run id or name in the path is 201 characters, over the limit of 200; "
        "shorten it"
    }
    r = client.get("/api/eval/compare", params={"a": name, "b": "1"})
    assert r.status_code == 413
    assert r.json()["error"].startswith("the parameter a (a run id or name) is 201 characters")
    assert client.get("/search", params={"q": "bread"}).status_code == 200
