"""Chunk metrics on the real stack: the demo KB (real pipeline, real SQLite and
LanceDB), the bundled tokenizer, `kb eval run` / `show` / `compare` end to end."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.eval.conftest import GOLDEN
from tests.eval.test_cli_eval import invoke

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:unsafe cast from")]

CHUNK = {
    "token_recall@5",
    "token_precision@5",
    "token_iou@5",
    "budget_recall@512",
    "precision_omega",
    "evidence_split_rate",
    "evidence_resolved_rate",
}


def test_eval_run_show_compare_report_chunk_metrics(
    demo_kb: Path, tmp_path: Path, use_session_embedder: None
) -> None:
    args = ("--kb", str(demo_kb), "--no-answer", "--json")
    code, out, err = invoke("eval", "run", str(GOLDEN), *args, "--name", "a")
    assert code == 0, err
    rep = json.loads(out)
    m, n = rep["metrics"]["overall"]["metrics"], rep["metrics"]["overall"]["n"]
    assert set(m) >= CHUNK
    for name in CHUNK:
        assert n[name] > 0 and 0.0 <= m[name] <= 1.0, name
    # the structure chunker keeps the demo's snippets whole more often than not
    assert m["evidence_resolved_rate"] > 0.5 and m["evidence_split_rate"] < 0.5
    # the recall of evidence tokens cannot exceed what the whole chunks could give
    assert m["token_precision@5"] <= m["precision_omega"] + 1e-9
    code, out, _ = invoke("eval", "show", "a", "--kb", str(demo_kb))
    assert code == 0 and "chunk level" in out and "precision_omega" in out
    assert "evidence split across chunks:" in out
    md = tmp_path / "r.md"
    code, _, _ = invoke("eval", "show", "a", "--kb", str(demo_kb), "--md", str(md))
    assert code == 0 and "token_iou@5" in md.read_text(encoding="utf-8")

    code, out, err = invoke("eval", "run", str(GOLDEN), *args, "--name", "b", "--mode", "keyword")
    assert code == 0, err
    code, out, _ = invoke("eval", "compare", "a", "b", "--kb", str(demo_kb), "--json")
    assert code == 0
    c = json.loads(out)
    rows = {r["metric"]: r for r in c["metrics"]}
    assert set(rows) >= CHUNK and rows["precision_omega"]["delta"] == 0.0  # same chunking
    means = [r for name, r in rows.items() if not name.startswith("latency")]
    assert all(r["mdd"] is not None for r in means if r["n"] >= 2)
    assert any(r["mdd"] > 0 for r in means if r["mdd"] is not None)  # hybrid vs keyword
    assert any("< 200" in note for note in c["notes"])  # 20 queries: warned
    code, out, _ = invoke("eval", "compare", "a", "b", "--kb", str(demo_kb))
    assert code == 0 and "MDD" in out


def test_chunk_metrics_api_is_fast_and_needs_no_embedder(demo_kb: Path) -> None:
    from eval.chunk_metrics import chunk_metrics, evaluate_chunking, locate_evidence
    from eval.golden import load_golden
    from eval.token_space import TokenSpace
    from ingest.tokens import counter_for
    from kb.store import Store

    with Store.open(demo_kb) as store:
        ev = locate_evidence(store.conn, load_golden(GOLDEN))
        space = TokenSpace(store.conn, counter_for("bundled"))
        stored = chunk_metrics(ev, space)
        # one chunk per document: Ω falls, nothing is split
        whole = {
            str(r[0]): [(0, int(r[1]))]
            for r in store.conn.execute(
                "SELECT d.path, max(c.char_end) FROM chunks c JOIN documents d "
                "ON d.id = c.document_id GROUP BY d.path"
            )
        }
        t0 = time.perf_counter()
        big = chunk_metrics(ev, space.with_chunking(whole))
        assert time.perf_counter() - t0 < 5  # generous; bench/chunk_metrics.py measures
    s, b = stored.summary(), big.summary()
    assert s["supports"] == b["supports"] and s["evidence_spans"] == b["evidence_spans"]
    assert b["precision_omega"] < s["precision_omega"]
    assert b["split_spans"] == 0 and b["evidence_split_rate"] == 0.0
    assert big.to_dict()["tokenizer"] == "bundled:all-MiniLM-L6-v2"
    # retrieving each query's evidence documents whole recalls every evidence token
    retrieved = {
        qid: [(p, whole[p][0]) for p in dict.fromkeys(r.kb_path for r in res) if p in whole]
        for qid, res in ev.resolved.items()
    }
    got = chunk_metrics(ev, space.with_chunking(whole), retrieved, k=5).summary()
    assert got["token_recall@5"] == 1.0 and got["budget_recall@512"] is not None
    assert 0 < got["token_precision@5"] <= got["precision_omega"]
    with Store.open(demo_kb) as store:  # the one-call form agrees with the two-step one
        one = evaluate_chunking(store.conn, load_golden(GOLDEN), counter_for("bundled"), whole)
    assert one.summary() == b


def test_chunks_show_stored_beside_window_with_golden(demo_kb: Path, tmp_path: Path) -> None:
    from kb.store import Store

    with Store.open(demo_kb) as store:
        path, abs_path = store.conn.execute(
            "SELECT path, abs_path FROM documents WHERE doc_type = 'md' ORDER BY path LIMIT 1"
        ).fetchone()
    page = tmp_path / "c.html"
    args = ("chunks", "show", path, "--kb", str(demo_kb), "--golden", str(GOLDEN))
    code, out, err = invoke(*args, "--vs", "window:size=32,overlap=8", "--json")
    assert code == 0, err
    data = json.loads(out)
    text = Path(abs_path).read_text(encoding="utf-8")
    a, b = data["columns"]
    assert a["label"].startswith("stored: structure") and b["label"].startswith("window")
    for col in (a, b):  # the rendered segments reproduce the document text exactly
        assert "".join(text[s["start"] : s["end"]] for s in col["segments"]) == text
    assert b["overlap_chars"] > 0 and a["overlap_chars"] == 0  # windows overlap by 8 tokens
    code, out, err = invoke(*args, "--html", str(page))
    assert code == 0 and "⟦1" in out and page.read_text(encoding="utf-8").count("<pre>") == 1
    code, _, err = invoke("chunks", "show", "nope.md", "--kb", str(demo_kb))
    assert code == 2 and "no such indexed document" in err
