"""Soak: one real ``kb serve`` under 200 searches, 50 at a time, with 5 asks and one
1 MB question among them (issue 54).

The KB is the demo notes, ingested by a real ``kb ingest`` (the bundled embedder);
the server is a real ``python -m kb serve --preload`` process (SQLite, LanceDB, the
bundled embedder for hybrid search, the default answer path for the asks: ``quote``,
which copies cited sentences and needs no generated text). What is asserted:

- no error: every search is HTTP 200 with hits, every ask's event stream ends without
  an ``error`` event, and the 1 MB question gets its 413 with the one-line limit;
- the searches' p95 latency with the asks and the 1 MB question among them is within
  3x the p95 of the same 200 searches at the same concurrency alone (a slow ask or a
  long body does not stall searches; the searches themselves queue on the store's
  lock in both phases, so "alone" means "without the asks", not "one at a time");
- the server's resident memory (``VmRSS``) after the mixed phase is within 10% of
  its RSS after the searches alone (the warm state: models loaded, caches filled).

On this 2-core machine, shared, the test takes about 40-60 s; the timing numbers are
noisy, so the bound is the issue's 3x, not a tighter one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow

QUERIES = [
    "sourdough starter feeding",
    "cold proof in the refrigerator",
    "bread oven temperature",
    "honey harvest",
    "meeting decisions",
    "heron pilot start date",
    "flour and water ratio",
    "bulk fermentation time",
]
ASKS = [
    "How long does the sourdough proof in the refrigerator?",
    "What feeds the starter?",
    "When does the Heron pilot start?",
    "How hot is the oven for the loaf?",
    "What did the committee decide?",
]
SEARCHES = 200
AT_ONCE = 50


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "KB_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("KB_MODEL_CACHE", None)  # the machine's model cache: its ONNX export is reused
    return env


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    root = tmp_path_factory.mktemp("soak")
    shutil.copytree(FIXTURES / "demo" / "notes", root / "notes")
    home = root / "kb"
    r = subprocess.run(
        [sys.executable, "-m", "kb", "ingest", str(root / "notes"), "-q"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return home


def _search(base: str, q: str) -> float:
    url = f"{base}/api/search?" + urllib.parse.urlencode({"q": q, "k": 5})
    t = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        body = json.loads(r.read())
        assert r.status == 200
    took = time.perf_counter() - t
    assert body["hits"], q
    return took


def _post(base: str, path: str, data: dict[str, Any]) -> tuple[int, str]:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(data).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=180) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _ask(base: str, question: str) -> str:
    status, body = _post(base, "/api/ask", {"question": question})
    assert status == 200, body
    assert "event: error" not in body, body[:500]
    return body


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")  # pragma: no cover - not Linux


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def test_kb_serve_keeps_searching_under_load_with_asks_and_a_1mb_question(
    demo_kb: Path,
) -> None:
    from kb.limits import MAX_QUESTION_CHARS
    from tests.serve.live import kb_serve_process

    queries = [QUERIES[i % len(QUERIES)] for i in range(SEARCHES)]
    with kb_serve_process(demo_kb, "--preload", env=_env(demo_kb)) as (base, proc):
        for q in QUERIES:  # warm: every query once
            _search(base, q)
        _ask(base, ASKS[0])
        with ThreadPoolExecutor(AT_ONCE) as pool:
            alone = list(pool.map(lambda q: _search(base, q), queries))
        rss_warm = _rss_kib(proc.pid)

        big = "x" * 1_000_000
        with ThreadPoolExecutor(AT_ONCE + 6) as pool:
            asks = [pool.submit(_ask, base, a) for a in ASKS]
            huge = pool.submit(_post, base, "/api/ask", {"question": big})
            mixed = list(pool.map(lambda q: _search(base, q), queries))
            answers = [a.result() for a in asks]
            status, body = huge.result()
        rss_after = _rss_kib(proc.pid)
        assert proc.poll() is None, "kb serve died"

    assert status == 413, body[:300]
    assert json.loads(body) == {
        "error": f"the question is 1,000,000 characters, over the limit of "
        f"{MAX_QUESTION_CHARS:,}; shorten it"
    }
    assert len(answers) == 5 and all("event: " in a for a in answers)
    assert len(mixed) == SEARCHES
    assert p95(mixed) <= 3 * p95(alone), (
        f"search p95 with asks {p95(mixed):.3f}s vs alone {p95(alone):.3f}s"
    )
    assert rss_after <= 1.10 * rss_warm, f"RSS {rss_warm} KiB -> {rss_after} KiB"
    print(
        f"soak: search p95 alone {p95(alone) * 1000:.0f} ms, with asks "
        f"{p95(mixed) * 1000:.0f} ms; RSS {rss_warm / 1024:.0f} -> {rss_after / 1024:.0f} MiB"
    )
