"""Unique run names, ``interrupted`` runs and ``--resume`` on a real SQLite store.

The retriever is the scripted fake of ``test_run_store``; the process checks use real
processes (this one, and a child that has exited).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval.golden import load_golden
from eval.run import RunOptions, config_changes, resume_eval, run_eval
from eval.store import EvalStore
from kb.errors import UsageError
from kb.store import Store
from kb.types import ChunkDraft, ChunkerInfo, Span
from tests.eval.test_run_store import GOLDEN, SCRIPT, FakeRetriever, make_store

NO_ANSWER = RunOptions(k=3, answers=False)


@pytest.fixture
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The store and golden set of ``test_run_store`` (one document, five queries)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    g = tmp_path / "g.yaml"
    g.write_text(GOLDEN)
    store = make_store(tmp_path / "kb", corpus)
    yield store, load_golden(g)
    store.close()


def _no_latency(metrics: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in metrics.items() if not k.startswith("latency_")}


def test_run_names_are_unique_unless_replaced(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, SCRIPT)
    first = run_eval(store, ret, None, golden, RunOptions(k=3, answers=False, name="nightly"))
    with pytest.raises(UsageError, match=r"'nightly' already exists .*'nightly-2'.*--replace"):
        run_eval(store, ret, None, golden, RunOptions(k=3, answers=False, name="nightly"))
    again = run_eval(
        store, ret, None, golden, RunOptions(k=3, answers=False, name="nightly", replace=True)
    )
    runs = EvalStore(store).list_runs()
    assert [r.id for r in runs if r.name == "nightly"] == [again.run_id] != [first.run_id]
    assert EvalStore(store).results(first.run_id) == []  # the replaced run's rows are gone


def test_a_run_whose_process_is_gone_reads_interrupted(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    es = EvalStore(store)
    run_id = es.create_run("live", "g.yaml", "h", {}, {})
    assert es.get_run(run_id).status == "running"  # type: ignore[union-attr]  # this process
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # exited and reaped: its pid is free
    here, now = socket.gethostname(), time.time()
    for host, pid, created, expect in (
        (here, child.pid, now, "interrupted"),  # an exited child's pid
        ("elsewhere.invalid", child.pid, now, "running"),  # another host: kb cannot tell
        (here, os.getpid(), 0.0, "interrupted"),  # our pid, but we started after 1970: reused
        (here, os.getpid(), now, "running"),
    ):
        with store.tx() as c:
            c.execute(
                "UPDATE eval_runs SET host = ?, pid = ?, created_at = ? WHERE id = ?",
                (host, pid, created, run_id),
            )
        row = es.get_run(run_id)
        assert row is not None and row.status == expect and row.stored_status == "running"
        assert row.to_dict()["status"] == expect


def test_resume_runs_only_the_missing_queries_and_matches_a_full_run(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    full = run_eval(store, FakeRetriever(store, SCRIPT), None, golden, NO_ANSWER)
    stop = FakeRetriever(store, {**SCRIPT, "nothing?": KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        run_eval(store, stop, None, golden, RunOptions(k=3, answers=False, name="cut"))
    es = EvalStore(store)
    row = es.find_run("cut")
    assert row.status == "incomplete" and row.n_results == 3
    ret = FakeRetriever(store, SCRIPT)
    out = resume_eval(store, ret, None, golden, row)
    assert ret.calls == 2  # q4 and q5 only
    assert out.status == "complete" and es.find_run("cut").n_results == 5
    assert _no_latency(out.metrics["overall"]["metrics"]) == _no_latency(
        full.metrics["overall"]["metrics"]
    )
    with pytest.raises(UsageError, match="is complete; nothing to resume"):
        resume_eval(store, ret, None, golden, es.find_run("cut"))


def test_resume_refuses_a_changed_kb_golden_set_or_live_run(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    stop = FakeRetriever(store, {**SCRIPT, "beta?": KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        run_eval(store, stop, None, golden, RunOptions(k=3, answers=False, name="cut"))
    es = EvalStore(store)
    row = es.find_run("cut")
    edited = tmp_path / "g2.yaml"
    edited.write_text(golden.path.read_text().replace("capital?", "capital city?"))
    with pytest.raises(UsageError, match="golden set changed"):
        resume_eval(store, FakeRetriever(store, SCRIPT), None, load_golden(edited), row)
    store.save_document(
        root=str(golden.corpus_dir),
        path="notes/new.md",
        doc_type="md",
        content_hash="h2",
        size=1,
        mtime=1.0,
        chunks=[ChunkDraft("New text.", (), Span(line_start=1, line_end=1), 0, 9, 2)],
        chunker=ChunkerInfo("structure", "1", {"max_tokens": 10}),
    )
    with pytest.raises(UsageError, match=r"KB or configuration changed .*index\."):
        resume_eval(store, FakeRetriever(store, SCRIPT), None, golden, row)
    run_id = es.create_run("busy", str(golden.path), golden.sha256, {}, {"answers": False})
    with pytest.raises(UsageError, match="still running"):
        resume_eval(store, FakeRetriever(store, SCRIPT), None, golden, es.get_run(run_id))  # type: ignore[arg-type]


def test_config_changes_ignore_what_a_run_notes() -> None:
    old = {"llm": {"model": "a", "model_hash": "x"}, "index": {"n": 1}}
    assert config_changes(old, {"llm": {"model": "a"}, "index": {"n": 1}}) == []
    assert config_changes(old, {"llm": {"model": "b"}, "index": {"n": 2}}) == [
        "index.n",
        "llm.model",
    ]


def test_store_open_reads_a_fresh_schema(tmp_path: Path) -> None:
    with Store.open(tmp_path / "kb") as store:
        cols = {r[1] for r in store.conn.execute("PRAGMA table_info(eval_runs)")}
    assert {"host", "pid"} <= cols


def test_config_changes_ignore_where_the_model_runs() -> None:
    """A run started with the model on the CPU (``n_gpu_layers = 0``, the default before
    it became -1) resumes on a machine or version that offloads it."""
    old = {"llm": {"model": "a", "n_gpu_layers": 0, "threads": 0}}
    assert config_changes(old, {"llm": {"model": "a", "n_gpu_layers": -1, "threads": 8}}) == []
    assert config_changes(old, {"llm": {"model": "b", "n_gpu_layers": -1}}) == ["llm.model"]
