"""``kb serve`` / ``kb mcp`` on the command line: help, bad options, an empty KB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.clirun import kb


def test_serve_help_documents_host_port_and_token(capsys: pytest.CaptureFixture[str]) -> None:
    r = kb(capsys, "serve", "--help")
    assert r.code == 0
    for word in ("--host", "--port", "--token", "KB_SERVE_TOKEN", "--allow-host", "127.0.0.1"):
        assert word in r.out, word
    m = kb(capsys, "mcp", "--help")
    assert m.code == 0 and "KB_HOME" in m.out and "read_document" in m.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--port", "0"), "--port 0"),
        (("--port", "70000"), "--port 70000"),
        (("--token", "short"), "--token"),
    ],
)
def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], args: Any, needle: str) -> None:
    r = kb(capsys, "serve", *args)
    assert r.code == 2
    assert needle in r.err and len(r.err.strip().splitlines()) == 1


def test_empty_kb_exits_4_and_creates_nothing(
    capsys: pytest.CaptureFixture[str], kb_home: Path
) -> None:
    for cmd in ("serve", "mcp"):
        r = kb(capsys, cmd)
        assert r.code == 4, r.err
        assert "kb ingest" in r.err
    assert not kb_home.exists()


def test_non_loopback_bind_generates_a_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kb_home: Path
) -> None:
    """Binding 0.0.0.0 without --token prints a generated token and passes it to the app."""
    import uvicorn

    from kb.serve import runtime

    seen: dict[str, Any] = {}

    class FakeRuntime:
        @classmethod
        def open(cls, settings: Any) -> Any:
            return cls()

        def close(self) -> None:
            seen["closed"] = True

    monkeypatch.setattr(runtime, "Runtime", FakeRuntime)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    r = kb(capsys, "serve", "--host", "0.0.0.0", "--port", "9100")
    assert r.code == 0, r.err
    token = seen["app"].token
    assert token and len(token) >= 24 and token in r.err
    assert seen["host"] == "0.0.0.0" and seen["port"] == 9100 and seen["closed"]
    assert seen["app"].hosts is None  # any Host: the token guards the server
    r = kb(capsys, "serve", "--port", "9101")
    assert seen["app"].token is None and "127.0.0.1:9101" in r.err
