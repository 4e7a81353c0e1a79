"""`kb eval` end to end on the real stack: the demo corpus ingested with the real
pipeline, the bundled embedder, the bundled GGUF for answers and the judge.

In-process commands (typer's CliRunner) reuse the session's embedder; exit codes are
also checked through real subprocesses of ``python -m kb`` (keyword mode, so no model
loads there).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb.errors import KbError
from tests.eval.conftest import DEMO, GOLDEN, build_kb

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:unsafe cast from")]


def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
    """Run ``kb ARGS`` in process; a KbError gives its exit code, as ``kb.cli.main`` does."""
    from kb.cli import app

    r = CliRunner().invoke(app, list(args), input=input)
    if isinstance(r.exception, KbError):
        return r.exception.exit_code, r.stdout, r.stderr + f"kb: error: {r.exception}"
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


def kb_proc(*args: str) -> subprocess.CompletedProcess[str]:
    # a progress line at every 10% step, so the test can stop the run part-way
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KB_PROGRESS_INTERVAL": "0"}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="session")
def window_kb_master(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: object, model_cache: Path
) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_MODEL_CACHE", str(model_cache))
        return build_kb(tmp_path_factory.mktemp("demo-kb-window"), real_embedder, "window")


def test_run_show_list_export(demo_kb: Path, tmp_path: Path, use_session_embedder: None) -> None:
    code, out, err = invoke(
        "eval", "run", str(GOLDEN), "--kb", str(demo_kb), "--no-answer", "--name", "base", "--json"
    )
    assert code == 0, err
    rep = json.loads(out)
    m = rep["metrics"]["overall"]["metrics"]
    assert rep["run"]["status"] == "complete" and rep["run"]["queries"] == 20
    # retrieval on the small demo corpus finds nearly every support (matching by anchors)
    assert m["hit@5"] >= 0.8 and m["error_rate"] == 0.0
    assert rep["metrics"]["overall"]["n"]["hit@5"] == 17  # 3 unanswerable queries left out
    assert "answer_correct" not in m
    assert rep["warnings"] == []  # the golden set matches the KB: no drift
    cfg = rep["run"]["config"]
    assert cfg["index"]["chunkers"][0]["name"] == "structure"
    assert cfg["index"]["embedding"]["model_id"] == "bundled:all-MiniLM-L6-v2"
    assert len(cfg["index"]["corpus_fingerprint"]) == 64 and cfg["path_mapping"] == "absolute"
    assert set(rep["metrics"]["by"]) >= {"category", "difficulty", "tag", "answerable"}

    code, out, _ = invoke("eval", "list", "--kb", str(demo_kb), "--json")
    assert code == 0 and [r["name"] for r in json.loads(out)] == ["base"]
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    code, out, _ = invoke(
        "eval",
        "show",
        "base",
        "--kb",
        str(demo_kb),
        "--recompute",
        "--json",
        "--md",
        str(md),
        "--html",
        str(html),
    )
    assert code == 0 and json.loads(out)["metrics"]["overall"] == rep["metrics"]["overall"]
    assert "| hit@5 |" in md.read_text() and "<svg" in html.read_text()
    code, out, _ = invoke("eval", "show", "base", "--kb", str(demo_kb))
    assert code == 0 and "hit@5" in out and "By category" in out

    prefix = tmp_path / "base"
    code, _, _ = invoke(
        "eval", "export", "base", "--kb", str(demo_kb), "--format", "trec", "--out", str(prefix)
    )
    assert code == 0
    from ranx import Qrels, Run, evaluate

    theirs = evaluate(
        Qrels.from_file(f"{prefix}.qrels", kind="trec"),
        Run.from_file(f"{prefix}.run", kind="trec"),
        ["ndcg@10", "mrr@10"],
        make_comparable=True,
    )
    assert theirs["ndcg@10"] == pytest.approx(m["ndcg@10"], abs=1e-4)
    assert theirs["mrr@10"] == pytest.approx(m["mrr@10"], abs=1e-4)
    # both files or neither: a folder where the qrels would go leaves the run file as it was
    bad = tmp_path / "half"
    Path(f"{bad}.qrels").mkdir()
    code, _, err_out = invoke(
        "eval", "export", "base", "--kb", str(demo_kb), "--format", "trec", "--out", str(bad)
    )
    assert code == 2 and "half.qrels is a folder" in err_out, err_out
    assert not Path(f"{bad}.run").exists()
    code, out, _ = invoke("eval", "export", "base", "--kb", str(demo_kb), "--format", "jsonl")
    traces = [json.loads(x) for x in out.splitlines()]
    assert len(traces) == 20 and all(t["retrieved"] for t in traces if t["answerable"])
    # an off-topic question may clear no hit past search.min_score: an empty result
    empty = [t["id"] for t in traces if not t["retrieved"]]
    assert m["empty_result_rate"] == round(len(empty) / 20, 4)
    assert traces[0]["id"] == "demo-001" and "chunk_id" in traces[0]["retrieved"][0]


def test_check_reports_drift(demo_kb: Path, tmp_path: Path) -> None:
    code, out, _ = invoke("eval", "check", str(GOLDEN), "--kb", str(demo_kb))
    assert code == 0 and "0 drifted" in out
    text = GOLDEN.read_text().replace("corpus: ../demo/", f"corpus: {DEMO}")
    text = text.replace(
        "The scanners run firmware version 3.2", "The scanners run firmware version 9.9"
    )
    text = text.replace(
        "path: notes/homelab.md\n        heading: Home Lab Notes > Backups",
        "path: notes/gone.md\n        heading: Home Lab Notes > Backups",
    )
    drifted = tmp_path / "drifted.yaml"
    drifted.write_text(text)
    code, out, _ = invoke("eval", "check", str(drifted), "--kb", str(demo_kb))
    assert code == 1
    assert re.search(r"drift: query 'demo-002': supports\[0\] .*snippet not found", out)
    assert re.search(r"drift: query 'demo-005': supports\[0\] notes/gone.md: document is not", out)
    assert "2 drifted" in out


def test_gate_exit_codes(demo_kb: Path) -> None:
    base = [
        "eval",
        "run",
        str(GOLDEN),
        "--kb",
        str(demo_kb),
        "--no-answer",
        "--mode",
        "keyword",
        "--limit",
        "5",
    ]
    r = kb_proc(*base, "--gate", "hit@10>=0.2", "--gate", "error_rate<=0")
    assert r.returncode == 0, r.stderr
    r = kb_proc(*base, "--gate", "hit@5>=1.01", "--gate", "error_rate<=0")
    assert r.returncode == 1 and "gate failed: hit@5 >= 1.01" in r.stderr
    assert "error_rate" not in r.stderr.split("gate failed:")[-1]  # only the failing gate
    r = kb_proc(*base, "--gate", "hitz@5>=0.5")
    assert r.returncode == 2 and "hitz@5" in r.stderr and "Traceback" not in r.stderr
    r = kb_proc(*base, "--gate", "judge_correctness>=3")
    assert r.returncode == 2 and "cannot gate" in r.stderr
    bad = demo_kb / "bad.yaml"
    bad.write_text("schema_version: 9\nqueries: []\n")
    r = kb_proc("eval", "run", str(bad), "--kb", str(demo_kb), "--no-answer")
    assert r.returncode == 2 and "schema_version 9 is newer" in r.stderr


def test_compare_same_kb_and_across_chunkers(
    demo_kb: Path, window_kb_master: Path, tmp_path: Path, use_session_embedder: None
) -> None:
    import shutil

    window = tmp_path / "window-kb"
    shutil.copytree(window_kb_master, window)
    args = [str(GOLDEN), "--no-answer"]
    code, _, err = invoke("eval", "run", *args, "--kb", str(demo_kb), "--name", "A")
    assert code == 0, err
    # B is scoped to notes/: the PDF and audio supports fall outside -> regressions
    assert (
        invoke("eval", "run", *args, "--kb", str(demo_kb), "--name", "B", "--path", "notes/")[0]
        == 0
    )
    code, out, _ = invoke(
        "eval", "compare", "A", "B", "--kb", str(demo_kb), "--json", "--permutations", "500"
    )
    assert code == 0
    c = json.loads(out)
    assert c["chunker_version_match"] == "exact"
    regressed = {r["query_id"] for r in c["regressions"]}
    assert {"demo-010", "demo-011", "demo-012", "demo-013"} <= regressed
    hit5 = next(x for x in c["metrics"] if x["metric"] == "hit@5")
    assert hit5["delta"] < 0 and hit5["ci95"][0] <= hit5["delta"] <= hit5["ci95"][1]
    code, _, err = invoke(
        "eval",
        "compare",
        "A",
        "B",
        "--kb",
        str(demo_kb),
        "--fail-on-regression",
        "--permutations",
        "200",
    )
    assert code == 1 and "regression(s): demo-010" in err

    assert invoke("eval", "run", *args, "--kb", str(window), "--name", "W")[0] == 0
    html, md = tmp_path / "c.html", tmp_path / "c.md"
    code, out, _ = invoke(
        "eval",
        "compare",
        "A",
        "W",
        "--kb",
        str(demo_kb),
        "--kb-b",
        str(window),
        "--json",
        "--html",
        str(html),
        "--md",
        str(md),
        "--permutations",
        "500",
    )
    assert code == 0
    c = json.loads(out)
    assert c["chunker_version_match"] == "fallback_doc_span" and c["match_mode"] == "span"
    assert c["b"]["chunkers"][0].startswith("window")
    page = html.read_text()
    assert page.count("<svg") == 2 and "<script" not in page and " src=" not in page
    assert "<link" not in page and "fallback_doc_span" in md.read_text()
    assert "matching: **doc_span**" in md.read_text()
    # one number per metric: `show A --matching doc_span` prints compare's column A
    code, out, _ = invoke(
        "eval", "show", "A", "--kb", str(demo_kb), "--matching", "doc_span", "--json"
    )
    assert code == 0
    shown = json.loads(out)
    assert shown["matching"] == "doc_span" and shown["metrics"]["matching"] == "doc_span"
    for row in c["metrics"]:
        assert shown["metrics"]["overall"]["metrics"][row["metric"]] == row["a"], row["metric"]
    # the default stays the run's own exact matching (and the cache is not overwritten)
    code, out, _ = invoke("eval", "show", "A", "--kb", str(demo_kb), "--json")
    assert json.loads(out)["matching"] == "exact"
    code, out, _ = invoke("eval", "show", "A", "--kb", str(demo_kb), "--matching", "doc_span")
    assert code == 0 and out.count("matching: doc_span") >= 3
    code, _, err = invoke("eval", "show", "A", "--kb", str(demo_kb), "--matching", "fuzzy")
    assert code == 2 and "expected exact or doc_span" in err
    code, _, err = invoke(
        "eval",
        "compare",
        "A",
        "W",
        "--kb",
        str(demo_kb),
        "--kb-b",
        str(window),
        "--strict-chunker-version",
    )
    assert code == 2 and "different chunkers" in err


def test_run_with_answers_and_judge(demo_kb: Path, use_session_embedder: None) -> None:
    from kb.backends.bundled import gguf_path

    code, out, err = invoke(
        "eval",
        "run",
        str(GOLDEN),
        "--kb",
        str(demo_kb),
        "--limit",
        "2",
        "--judge",
        str(gguf_path()),
        "--json",
    )
    assert code == 0, err
    rep = json.loads(out)
    m = rep["metrics"]["overall"]["metrics"]
    # two answerable queries were answered: answer metrics have a denominator now
    assert rep["metrics"]["overall"]["n"]["over_refusal_rate"] == 2
    assert m["latency_total_p50"] is not None and m["latency_total_p50"] > 0
    assert rep["run"]["config"]["llm"]["model_hash"]
    assert "judge" in rep["metrics"]  # reported apart
    code, out, _ = invoke(
        "eval", "export", rep["run"]["name"], "--kb", str(demo_kb), "--format", "jsonl"
    )
    t = json.loads(out.splitlines()[0])
    assert t["answer"]["contexts"] and isinstance(t["answer"]["text"], str)
    # the drill-down of a real answered query, in the terminal and the offline HTML
    name, qid = rep["run"]["name"], t["id"]
    code, out, _ = invoke("eval", "show", name, "--kb", str(demo_kb), "--query", qid)
    assert code == 0 and f"query {qid}" in out and "retrieved (top" in out
    assert t["question"] in " ".join(out.split())
    page = demo_kb / "r.html"
    code, out, _ = invoke(
        "eval", "show", name, "--kb", str(demo_kb), "--html", str(page), "--query", qid, "--json"
    )
    assert code == 0 and json.loads(out)["queries"][0]["query"]["id"] == qid
    html = page.read_text()
    assert "<script" not in html and 'class="drill"' in html and "Answer checks" in html
    code, _, err = invoke("eval", "show", name, "--kb", str(demo_kb), "--query", "nope")
    assert code == 2 and "'nope' is not in this run" in err
    j = t["answer"]["judge"]
    if j is not None:  # a refusal is not judged
        assert j["prompt_version"] == "judge-v1" and len(j["model_hash"]) == 64
        assert j["groundedness"] is None or 0 <= j["groundedness"] <= 5


def test_record_then_check(demo_kb: Path, tmp_path: Path, use_session_embedder: None) -> None:
    golden = tmp_path / "recorded.yaml"
    script = "Which UDP port does WireGuard listen on?\n1\n51820\nWho is the mayor of Leeds?\nu\n\n"
    code, out, err = invoke(
        "eval", "record", str(golden), "--kb", str(demo_kb), "-k", "3", input=script
    )
    assert code == 0, err
    from eval.golden import load_golden

    g = load_golden(golden)
    assert [q.answerable for q in g.queries] == [True, False]
    assert g.corpus_dir == DEMO.resolve()
    # the recorded anchors match the KB they were taken from
    code, out, _ = invoke("eval", "check", str(golden), "--kb", str(demo_kb))
    assert code == 0 and "0 drifted" in out


def test_ctrl_c_keeps_finished_queries(demo_kb: Path) -> None:
    """A real `kb eval run` with answers, interrupted after its first finished query."""
    import signal
    import sqlite3
    import time

    # a progress line at every 10% step, so the test can stop the run part-way
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KB_PROGRESS_INTERVAL": "0"}
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kb",
            "eval",
            "run",
            str(GOLDEN),
            "--kb",
            str(demo_kb),
            "--limit",
            "10",
            "--mode",
            "keyword",
            "--name",
            "stopped",
        ],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert p.stderr is not None
    deadline = time.time() + 240
    while time.time() < deadline:
        line = p.stderr.readline()
        if line.startswith("eval: ") or not line:
            break
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "kept as incomplete" in err and "Traceback" not in err
    with sqlite3.connect(demo_kb / "kb.sqlite") as c:
        status, n = c.execute(
            "SELECT status, (SELECT count(*) FROM eval_query_results q WHERE q.run_id = r.id) "
            "FROM eval_runs r WHERE name = 'stopped'"
        ).fetchone()
    assert status == "incomplete" and 1 <= n < 10
