"""kb serve's speed with the server warm: search round trip and an ask's first token.

Starts a real ``kb serve`` on the KB (default: the squad-dev KB, /work/kbs/squad-base),
with ``[search] vector_cache = false`` so the KB is only read, and measures:

- **search round trip over HTTP**: ``GET /api/search?q=...`` on a kept-alive
  connection, the golden set's questions, after a warm-up; p50 and p95 in ms, beside
  the same searches in-process (``Retriever.search``: the bare library call) and the
  ratio. Target: HTTP p50 <= 50 ms.
- **ask first token**: ``POST /api/ask`` (server-sent events); the time from sending
  the request to reading the first ``event: token`` minus the pipeline's own
  ``first_token_s`` (from the ``done`` event: measured inside the server from the start
  of ``AskPipeline.ask``). That difference is what HTTP, SSE framing and the thread
  hand-off add. Target: <= 0.3 s.

Usage::

    python bench/serve.py [--kb DIR] [--golden FILE] [--searches 200] [--asks 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.serve.live import kb_serve  # noqa: E402


def questions(golden: Path, n: int) -> list[str]:
    import yaml

    data = yaml.safe_load(golden.read_text(encoding="utf-8"))
    qs = [str(q["question"]) for q in data["queries"]]
    return [qs[i % len(qs)] for i in range(n)]


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs) * 1000.0, q))


def http_searches(base: str, qs: list[str]) -> list[float]:
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    out = []
    for q in qs:
        t = time.perf_counter()
        conn.request("GET", "/api/search?" + urllib.parse.urlencode({"q": q, "k": 10}))
        r = conn.getresponse()
        body = r.read()
        out.append(time.perf_counter() - t)
        assert r.status == 200, body[:200]
    conn.close()
    return out


def library_searches(home: Path, qs: list[str]) -> list[float]:
    from kb.config import load_settings, override
    from kb.rag.compose import make_retriever
    from kb.search.options import SearchOptions
    from kb.store import Store

    settings = override(load_settings(home), **{"search.vector_cache": False})
    with Store.open(home, create=False) as store:
        retriever = make_retriever(settings, store)
        opts = SearchOptions.from_settings(settings.search, k=10)
        for q in qs[:5]:
            retriever.search(q, opts)
        out = []
        for q in qs:
            t = time.perf_counter()
            retriever.search(q, opts)
            out.append(time.perf_counter() - t)
    return out


def ask_once(base: str, question: str) -> tuple[float | None, dict[str, Any]]:
    """(seconds to the first token event, the done event's answer record)."""
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
    t = time.perf_counter()
    conn.request(
        "POST", "/api/ask", json.dumps({"question": question}), {"content-type": "application/json"}
    )
    r = conn.getresponse()
    first: float | None = None
    event = ""
    answer: dict[str, Any] = {}
    while True:
        line = r.readline()
        if not line:
            break
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            event = text[7:]
            if event == "token" and first is None:
                first = time.perf_counter() - t
        elif text.startswith("data: ") and event == "done":
            answer = json.loads(text[6:])["answer"]
    conn.close()
    return first, answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, default=Path("/work/kbs/squad-base"))
    ap.add_argument(
        "--golden", type=Path, default=Path("/work/shared/datasets/squad-dev/golden.yaml")
    )
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--asks", type=int, default=5)
    args = ap.parse_args()
    qs = questions(args.golden, args.searches)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text("[search]\nvector_cache = false\n", encoding="utf-8")
        print(f"kb serve on {args.kb} ({len(qs)} searches, {args.asks} asks)")
        with kb_serve(args.kb, "--preload", env={"KB_CONFIG": str(config)}) as base:
            http_searches(base, qs[:10])  # warm-up: vector matrix, embedder
            rt = http_searches(base, qs)
            deltas, firsts, pipes = [], [], []
            for q in questions(args.golden, args.asks + 1)[1:]:
                first, answer = ask_once(base, q)
                pipe = (answer.get("timings") or {}).get("first_token_s")
                if first is None or pipe is None:
                    print(f"  ask refused or no token: {q[:60]!r}")
                    continue
                firsts.append(first)
                pipes.append(pipe)
                deltas.append(first - pipe)
        lib = library_searches(args.kb, qs)
    print(
        f"search over HTTP   p50 {pct(rt, 50):6.1f} ms  p95 {pct(rt, 95):6.1f} ms  "
        f"(target p50 <= 50 ms)"
    )
    print(f"search in-process  p50 {pct(lib, 50):6.1f} ms  p95 {pct(lib, 95):6.1f} ms")
    print(f"ratio HTTP / in-process p50: {pct(rt, 50) / pct(lib, 50):.2f}")
    if deltas:
        print(
            f"ask first token: HTTP {statistics.median(firsts):.3f} s, pipeline "
            f"{statistics.median(pipes):.3f} s, delta median {statistics.median(deltas):.3f} s "
            f"max {max(deltas):.3f} s over {len(deltas)} answers (target <= 0.3 s)"
        )
    else:
        print("ask first token: every question was refused; no token to time")


if __name__ == "__main__":
    main()
