"""`kb search` through the real CLI on the demo notes and papers, ingested for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb.cli import app
from kb.config import load_settings
from kb.errors import StoreError, UsageError
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory: pytest.TempPathFactory, real_embedder) -> Path:  # type: ignore[no-untyped-def]
    """fixtures/demo's notes and papers folders (two sources), ingested with the real
    pipeline and embedder."""
    from ingest.pipeline import ingest_paths
    from kb.store import Store

    home = tmp_path_factory.mktemp("search-cli") / "kb"
    settings = load_settings(home, user_file=home.parent / "none.toml")
    demo = FIXTURES / "demo"
    with Store.open(home) as store:  # two sources: paths read notes/... and papers/...
        ingest_paths(store, settings, [demo / "notes", demo / "papers"], embedder=real_embedder)
        assert store.count_chunks("embedded") > 5
    return home


@pytest.fixture
def shared_embedder(monkeypatch: pytest.MonkeyPatch, real_embedder) -> None:  # type: ignore[no-untyped-def]
    """Reuse the session's embedder instead of loading a new one per command."""
    import kb.backends.embedder as emb

    monkeypatch.setattr(emb, "make_embedder", lambda *a, **k: real_embedder)


def search_json(home: Path, *args: str) -> dict:  # type: ignore[type-arg]
    r = runner.invoke(app, ["search", *args, "--kb", str(home), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_json_output(demo_kb: Path, shared_embedder: None) -> None:
    out = search_json(demo_kb, "How long does the bulk fermentation take?", "-k", "3")
    assert out["query"] == "How long does the bulk fermentation take?"
    assert out["mode"] == "hybrid" and out["k"] == 3
    assert set(out["timings"]) == {"embed", "vector", "keyword", "fuse", "rerank", "total"}
    assert 1 <= len(out["hits"]) <= 3
    top = out["hits"][0]
    assert top["path"] == "notes/sourdough.md"
    assert top["locator"]["type"] == "md" and top["locator"]["lines"][0] >= 1
    assert "ferment" in top["text"].lower()
    assert top["scores"]["score"] == top["score"] and top["scores"]["vector"] >= 0.25
    scores = [h["score"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_filters_and_modes(demo_kb: Path, shared_embedder: None) -> None:
    pdf = search_json(demo_kb, "results", "--type", "pdf", "--min-score", "-1", "-k", "10")
    assert pdf["hits"] and {h["locator"]["type"] for h in pdf["hits"]} == {"pdf"}
    assert all(h["locator"]["page"] for h in pdf["hits"])
    heron = search_json(demo_kb, "scanners", "--tag", "project-heron", "--mode", "keyword")
    assert heron["mode"] == "keyword" and heron["hits"]
    assert {h["path"] for h in heron["hits"]} <= {
        "notes/project-heron.md",
        "notes/meeting-2024-03-12.md",
    }
    scoped = search_json(demo_kb, "notes", "--path", "notes/*.txt", "--min-score", "-1")
    assert {h["path"] for h in scoped["hits"]} == {"notes/reading-list.txt"}


def test_human_output(demo_kb: Path, shared_embedder: None) -> None:
    r = runner.invoke(app, ["search", "sourdough starter", "-k", "2", "--kb", str(demo_kb)])
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert " 1. notes/sourdough.md › " in out and " 2. " in out and " 3. " not in out
    assert "lines " in out and "score " in out and "cosine " in out
    assert "2 hits · hybrid" in out


def test_a_hit_near_nothing_the_query_says_is_marked_weak(
    demo_kb: Path, shared_embedder: None
) -> None:
    """One chunk holds "autolyse"; the vector leg brings the rest, far in meaning. They
    are shown (no threshold removes a hybrid hit) but marked, the match is not."""
    out = search_json(demo_kb, "autolyse", "-k", "6")
    assert len(out["hits"]) > 1 and "keyword" in out["hits"][0]["scores"]
    r = runner.invoke(app, ["search", "autolyse", "-k", "6", "--kb", str(demo_kb)])
    assert r.exit_code == 0, r.output
    blocks = r.stdout.split("\n\n")
    marks = ["weak: no word of the query" in " ".join(b.split()) for b in blocks if "score " in b]
    weak = [
        "keyword" not in h["scores"]
        and h["scores"]["vector"] < 0.25
        and h["scores"].get("sentence", 0.0) < 0.45
        for h in out["hits"]
    ]
    assert marks == weak and marks[0] is False and any(marks)


def test_no_hits_is_not_an_error(demo_kb: Path, shared_embedder: None) -> None:
    r = runner.invoke(app, ["search", "Flurbogast", "--kb", str(demo_kb), "--mode", "keyword"])
    assert r.exit_code == 0 and "No hits for 'Flurbogast'" in r.stdout
    out = search_json(demo_kb, "Flurbogast", "--mode", "keyword")
    assert out["hits"] == []


def test_hybrid_shows_hits_below_the_refusal_threshold_and_says_so(
    demo_kb: Path, shared_embedder: None
) -> None:
    out = search_json(demo_kb, "Flurbogast")
    assert out["hits"] and out["best_cosine"] < 0.25  # nothing close in meaning
    r = runner.invoke(app, ["search", "Flurbogast", "--kb", str(demo_kb)])
    assert r.exit_code == 0, r.output
    flat = " ".join(r.stdout.split())  # rich wraps long lines
    assert "no chunk reaches cosine 0.25" in flat and "kb ask would refuse" in flat
    assert "no sentence 0.45" in flat  # nor one sentence, by the margin
    # no chunk holds the word: the hits are not called word matches
    assert "none of these hits was found by your words" in flat and "match your" not in flat
    r = runner.invoke(app, ["search", "Flurbogast", "--kb", str(demo_kb), "--mode", "vector"])
    assert "No hits for 'Flurbogast'" in r.stdout and "cosine >= 0.25" in r.stdout


def test_the_note_below_the_threshold_says_which_hits_hold_a_word() -> None:
    from kb.search import SearchResult
    from kb.types import Hit, Locator, Span

    def hit(n: int, *legs: str) -> Hit:
        loc = Locator(f"n{n}.md", "md", (), Span(line_start=1, line_end=1))
        return Hit(chunk_id=n, text="x", locator=loc, score=1.0, scores=dict.fromkeys(legs, 0.1))

    def said(*hits: Hit) -> str:
        return SearchResult("q", list(hits)).found_by()

    assert said(hit(1, "vector", "keyword"), hit(2, "keyword")) == "these hits match your words"
    assert said(hit(1, "vector"), hit(2, "vector")).startswith("none of these hits")
    assert said(hit(1, "keyword"), hit(2, "vector")).startswith("1 of these hits were found")


def test_keyword_mode_loads_no_model(demo_kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.backends.embedder as emb

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("keyword mode must not load the embedding model")

    monkeypatch.setattr(emb, "make_embedder", boom)
    out = search_json(demo_kb, "VLAN", "--mode", "keyword")
    assert out["hits"][0]["path"] == "notes/homelab.md"


def test_usage_errors(demo_kb: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["search", "x", "--type", "docx", "--kb", str(demo_kb)])
    assert isinstance(r.exception, UsageError) and r.exception.exit_code == 2
    assert "md, txt, pdf, audio" in str(r.exception)
    r = runner.invoke(app, ["search", "   ", "--kb", str(tmp_path / "nowhere")])
    assert isinstance(r.exception, UsageError) and "empty query" in str(r.exception)
    r = runner.invoke(app, ["search", "x", "--kb", str(tmp_path / "nowhere")])
    assert isinstance(r.exception, StoreError) and "kb ingest" in str(r.exception)


def test_real_process_is_light_in_keyword_mode(demo_kb: Path) -> None:
    """`python -m kb search --mode keyword`: exit 0 without importing torch or lancedb."""
    code = (
        "import sys\n"
        "from kb.cli import main\n"
        f"sys.argv = ['kb', 'search', 'VLAN', '--mode', 'keyword', '--kb', {str(demo_kb)!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    rc = e.code\n"
        "heavy = [m for m in ('torch', 'lancedb', 'sentence_transformers') if m in sys.modules]\n"
        "print('RESULT', rc, heavy)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "KB_HOME": str(demo_kb)},
    )
    assert "RESULT 0 []" in r.stdout, r.stdout + r.stderr
    assert "homelab.md" in r.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "kb", "search", "x", "--type", "docx", "--kb", str(demo_kb)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("kb: error: --type 'docx'")
    assert len(bad.stderr.strip().splitlines()) == 1
