"""Sources first (issue 55), end to end on the demo notes with the bundled models: the
retrieved passages reach the person before the first answer token, on a terminal, in
``kb ask --json`` and over ``kb serve``'s event stream.

Each command is a real process (the real embedder, LanceDB, the GGUF model), read as it
writes, so what is asserted is the order a person sees, not the order of a list.
"""

from __future__ import annotations

import http.client
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow
QUESTION = "How long does the sourdough proof in the refrigerator?"
#: the target: the sources out within 0.3 s of the end of retrieval
SOURCES_AFTER_RETRIEVAL_S = 0.3


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Path:
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    home = tmp_path_factory.mktemp("sources-first") / "kb"
    settings = load_settings(home, user_file=home.parent / "none.toml")
    with Store.open(home) as store:
        ingest_paths(store, settings, [FIXTURES / "demo" / "notes"], embedder=real_embedder)
    return home


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "KB_HOME": str(home)}


def test_a_terminal_shows_the_retrieved_passages_before_the_answer(demo_kb: Path) -> None:
    """``kb ask`` with stdout on a pseudo-terminal, as a person runs it."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb", "ask", QUESTION],
        env=_env(demo_kb),
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    text = out.decode().replace("\r\n", "\n")
    assert text.startswith("Retrieved:\n  [#1] "), text
    retrieved, _, rest = text.partition("\n\n")
    lines = retrieved.splitlines()[1:]
    assert lines and all(line.startswith(f"  [#{i}] ") for i, line in enumerate(lines, 1))
    assert "sourdough.md" in retrieved
    # then the answer, then the cited Sources with their quotes
    answer = rest.split("\nSources:\n", 1)[0]
    assert "16 hours" in answer and "[#" in answer, text
    assert "\nSources:\n  [#" in rest


def test_json_sends_the_sources_event_before_any_token(demo_kb: Path) -> None:
    """``kb ask --json`` read line by line as it is written."""
    seen: list[tuple[float, dict[str, Any]]] = []
    with subprocess.Popen(
        [sys.executable, "-m", "kb", "ask", QUESTION, "--json"],
        env=_env(demo_kb),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append((time.perf_counter(), json.loads(line)))
    assert proc.returncode == 0
    kinds = [e["event"] for _, e in seen]
    assert kinds[0] == "sources" and "token" in kinds and kinds[-1] == "done", kinds
    sources = seen[0][1]
    first_token_at = next(t for t, e in seen if e["event"] == "token")
    assert seen[0][0] <= first_token_at
    # made right after the search, before the evidence check and the model
    assert sources["at_s"] - sources["retrieval_s"] <= SOURCES_AFTER_RETRIEVAL_S, sources
    answer = seen[-1][1]["answer"]
    assert sources["at_s"] <= answer["timings"]["first_token_s"]
    assert [s["chunk_id"] for s in sources["sources"]] == [
        c["chunk_id"] for c in answer["contexts"]
    ]
    assert {c["chunk_id"] for c in answer["citations"]} <= {
        s["chunk_id"] for s in sources["sources"]
    }


def _sse_events(base: str, question: str, accept: str) -> list[tuple[float, str, Any]]:
    """(arrival time, event name, data) of ``/api/ask``, read as the server sends."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=300)
    conn.request("GET", f"/api/ask?q={quote(question)}", headers={"accept": accept})
    r = conn.getresponse()
    assert r.status == 200
    events: list[tuple[float, str, Any]] = []
    name = None
    while True:
        line = r.readline()
        if not line:
            break
        s = line.decode().rstrip("\n")
        if s.startswith("event: "):
            name = s[len("event: ") :]
        elif s.startswith("data: ") and name is not None:
            events.append((time.perf_counter(), name, json.loads(s[len("data: ") :])))
            if name in ("done", "error"):
                break
    conn.close()
    return events


def test_serve_streams_the_sources_before_the_answer(demo_kb: Path, model_cache: Path) -> None:
    """A real ``kb serve`` (not preloaded: the first question loads the model), asked as
    the web page asks (EventSource) and as a plain HTTP client."""
    from tests.serve.live import kb_serve

    with kb_serve(demo_kb, env={"KB_MODEL_CACHE": str(model_cache)}) as base:
        for accept in ("text/event-stream", "*/*"):
            events = _sse_events(base, QUESTION, accept)
            names = [n for _, n, _ in events]
            assert names[0] == "sources" and names[-1] == "done", (accept, names)
            assert names.index("sources") < names.index("token")
            t_sources, _, sources = events[0]
            assert sources["sources"] and sources["sources"][0]["n"] == 1
            assert t_sources <= next(t for t, n, _ in events if n == "token")
            assert sources["at_s"] - sources["retrieval_s"] <= SOURCES_AFTER_RETRIEVAL_S
            assert "16 hours" in events[-1][2]["answer"]["text"]
