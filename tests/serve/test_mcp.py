"""``kb mcp``: a real MCP client session over stdio (the official SDK's stdio_client)
against ``python -m kb mcp`` on a real KB with the bundled embedding model."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mcp_kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Path:
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    root = tmp_path_factory.mktemp("mcp")
    home = root / "kb"
    settings = load_settings(home, user_file=root / "none.toml")
    with Store.open(home) as store:
        ingest_paths(
            store,
            settings,
            [FIXTURES / "demo" / "notes", FIXTURES / "demo" / "papers"],
            embedder=real_embedder,
        )
    return home


def _data(result: Any) -> dict[str, Any]:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        return dict(result.structuredContent)
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def test_stdio_session_lists_tools_searches_and_reads(mcp_kb: Path, model_cache: Path) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = mcp_kb.parent / "empty.toml"
    config.write_text("", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kb", "mcp"],
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "KB_HOME": str(mcp_kb),
            "KB_CONFIG": str(config),
            "KB_MODEL_CACHE": str(model_cache),
            "HF_HUB_OFFLINE": "1",
        },
    )
    out: dict[str, Any] = {}

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            init = await s.initialize()
            out["server"] = init.serverInfo.name
            tools = await s.list_tools()
            out["tools"] = {t.name: t.description for t in tools.tools}
            out["search"] = _data(
                await s.call_tool("search", {"query": "sourdough refrigerator proof", "k": 3})
            )
            out["pdf"] = _data(
                await s.call_tool("search", {"query": "honey harvest", "type": ["pdf"], "k": 2})
            )
            out["read"] = _data(
                await s.call_tool("read_document", {"path": "notes/sourdough.md", "lines": "37-40"})
            )
            out["page"] = _data(
                await s.call_tool(
                    "read_document", {"path": "papers/urban-beekeeping.pdf", "page": "3"}
                )
            )
            out["sources"] = _data(await s.call_tool("list_sources", {}))
            bad = await s.call_tool("read_document", {"path": "../../etc/passwd"})
            out["bad"] = (bad.isError, bad.content[0].text)
            out["ask"] = _data(
                await s.call_tool("ask", {"question": "What is the airspeed of a swallow?"})
            )

    anyio.run(session)
    assert out["server"] == "kb"
    assert set(out["tools"]) == {"search", "ask", "read_document", "list_sources"}
    assert all("Returns" in d for d in out["tools"].values())
    hits = out["search"]["hits"]
    assert hits[0]["path"] == "notes/sourdough.md" and "refrigerator" in hits[0]["text"]
    assert {h["page"][0] for h in out["pdf"]["hits"]} <= {1, 2, 3}
    assert all(h["path"].endswith(".pdf") for h in out["pdf"]["hits"])
    assert out["read"]["lines"] == [37, 40] and "refrigerator" in out["read"]["text"]
    assert "Harvesting honey" in out["page"]["text"]
    assert {s["name"] for s in out["sources"]["sources"]} == {"notes", "papers"}
    assert out["bad"][0] is True and "not served" in out["bad"][1]
    assert out["ask"]["refused"] is True and out["ask"]["citations"] == []


def test_an_answer_summary_names_the_closest_passage_of_a_no_hits_refusal() -> None:
    from kb.rag.record import AnswerRecord
    from kb.serve.mcp_server import answer_summary

    loc = {"display": "work/standup.md › Standup 24 Nov · lines 3–8"}
    near = {"path": "work/standup.md", "locator": loc, "cosine": 0.206, "sentence": 0.447}
    refused = AnswerRecord(question="q", refused=True, refusal_reason="no_hits", nearest=near)
    assert answer_summary(refused)["closest"] == loc["display"]
    assert answer_summary(AnswerRecord(question="q"))["closest"] is None
