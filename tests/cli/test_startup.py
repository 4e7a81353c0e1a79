"""`kb --help` stays fast: no heavy library is imported (checked in a fresh subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

HEAVY = ["torch", "sentence_transformers", "lancedb", "llama_cpp", "faster_whisper"]


def test_help_imports_no_heavy_library() -> None:
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "try:\n"
        "    app(['--help'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    assert loaded == []


def test_every_command_help_imports_no_heavy_library() -> None:
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "import typer.main\n"
        "cmd = typer.main.get_command(app)\n"
        "names = list(cmd.commands)\n"
        "for n in names:\n"
        "    try:\n"
        "        app([n, '--help'], standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps({'names': names, 'heavy': heavy}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    assert {"ingest", "status", "doctor", "reindex", "config"} <= set(data["names"])
    assert data["heavy"] == []


NO_TORCH = ["torch", "transformers", "sentence_transformers"]
QUERY_PATH_FORBIDDEN = [*NO_TORCH, "lancedb"]


@pytest.mark.slow
def test_search_and_ask_retrieval_import_no_torch(tmp_path: Path) -> None:
    """After an ingest (which makes the ONNX export), a hybrid `kb search` and the
    retrieval of `kb ask` run in new processes without torch, transformers,
    sentence-transformers or lancedb."""
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    home = tmp_path / "kb"
    settings = load_settings(home)
    with Store.open(home) as store:
        ingest_paths(store, settings, [FIXTURES / "demo" / "notes"])
        assert store.count_chunks("embedded") > 3
    onnx = list((Path(os.environ["KB_MODEL_CACHE"]) / "onnx").glob("*/model.onnx"))
    assert onnx, "ingest made no ONNX export"
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "try:\n"
        "    app(sys.argv[1:], standalone_mode=False)\n"
        "finally:\n"
        f"    print(json.dumps([m for m in {QUERY_PATH_FORBIDDEN!r} if m in sys.modules]))\n"
    )
    search = ["search", "sourdough starter feeding", "--kb", str(home), "--json"]
    # a threshold nothing passes: retrieval runs, the answer model is never loaded
    ask = ["ask", "sourdough starter feeding", "--kb", str(home), "--min-score", "0.99"]
    # the first search after an ingest reads LanceDB once and writes the vector cache file
    for args, forbidden in ((search, NO_TORCH), (search, QUERY_PATH_FORBIDDEN), (ask, NO_TORCH)):
        proc = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, env=os.environ
        )
        lines = proc.stdout.strip().splitlines()
        assert proc.returncode == 0, proc.stderr
        assert [m for m in json.loads(lines[-1]) if m in forbidden] == [], args[0]
        if args[0] == "search":
            hits = json.loads("\n".join(lines[:-1]))["hits"]
            assert hits and hits[0]["path"].endswith("sourdough.md")


COLD_FORBIDDEN = [
    "torch",
    "sentence_transformers",
    "lancedb",
    "pyarrow",
    "onnxruntime",
    "llama_cpp",
    "faster_whisper",
]
#: what `kb status` and `kb sources` need not even import: numpy (the vector code's,
#: 0.2-0.4 s), pydantic (typer's coercion of options not given, kb.cli.coercion), faiss,
#: and kb's own LanceDB, model and progress-display modules
READ_ONLY_FORBIDDEN = [
    *COLD_FORBIDDEN,
    "numpy",
    "pydantic",
    "faiss",
    "kb.store.vectors",
    "kb.backends.embedder",
    "kb.backends.transcriber",
    "kb.backends.generator",
    "rich.progress",
]


@pytest.mark.slow
def test_status_sources_and_doctor_stay_cold(tmp_path: Path) -> None:
    """`kb status` and `kb sources` read SQLite only: after an ingest, each in a new
    process imports none of torch, sentence-transformers, lancedb, pyarrow, onnxruntime,
    llama_cpp, faster_whisper, numpy or pydantic (status's embedding cache count comes
    from the stamp the ingest left). `kb doctor` checks vectors (LanceDB) but loads no
    model: no torch; and with --no-devices no onnxruntime, llama_cpp or faster_whisper
    either."""
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    home = tmp_path / "kb"
    with Store.open(home) as store:
        ingest_paths(store, load_settings(home), [FIXTURES / "demo" / "notes"])
        embedded = store.count_chunks("embedded")
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "try:\n"
        "    app(sys.argv[1:], standalone_mode=False)\n"
        "finally:\n"
        f"    print(json.dumps([m for m in {READ_ONLY_FORBIDDEN!r} if m in sys.modules]))\n"
    )

    assert os.environ["KB_HOME"] == str(home)  # no --kb: an option given costs pydantic

    def run(*args: str) -> tuple[str, list[str]]:
        proc = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=os.environ,
        )
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.strip().splitlines()
        return "\n".join(lines[:-1]), json.loads(lines[-1])

    out, heavy = run("status")
    assert heavy == [] and f"embedding cache: {embedded} vectors" in out
    out, heavy = run("sources")
    assert heavy == [] and "notes" in out
    out, heavy = run("doctor", "--no-devices")
    models = ("torch", "sentence_transformers", "onnxruntime", "llama_cpp", "faster_whisper")
    models += ("faiss", "kb.backends.embedder", "kb.backends.transcriber", "rich.progress")
    assert [m for m in heavy if m in models] == []
    assert out.startswith("the KB is consistent") and "ok    model files onnx/" in out
    from kb.backends.devices import gpu_present

    if gpu_present():  # there torch is asked whether it sees the GPU
        return
    # the devices report asks llama.cpp about its build (so imports it), not torch
    out, heavy = run("doctor")
    assert [m for m in heavy if m in ("torch", "sentence_transformers")] == []
    assert "device embeddings: cpu" in out


@pytest.mark.slow
def test_doctor_opens_only_the_lancedb_table_it_reports_on(tmp_path: Path) -> None:
    """`kb doctor` reports on the embedding cache (missing and unused vectors), so it
    opens that LanceDB table; the keyword index beside it is checked from SQLite's
    record, never opened, and `kb status` / `kb sources` open no table at all."""
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store, keyword_index

    home = tmp_path / "kb"
    with Store.open(home) as store:
        ingest_paths(store, load_settings(home), [FIXTURES / "demo" / "notes"])
        assert keyword_index.build(store) is not None  # a second table in lancedb/
    code = (
        "import sys, json\n"
        "import lancedb.db as d\n"
        "opened = []\n"
        "for cls in (d.LanceDBConnection, d.AsyncConnection):\n"
        "    def rec(self, name, *a, _orig=cls.open_table, **k):\n"
        "        opened.append(name)\n"
        "        return _orig(self, name, *a, **k)\n"
        "    cls.open_table = rec\n"
        "from kb.cli import app\n"
        "try:\n"
        "    app(sys.argv[1:], standalone_mode=False)\n"
        "finally:\n"
        "    print(json.dumps(sorted(set(opened))))\n"
    )
    for args, tables in (
        (["doctor", "--no-devices"], ["embeddings"]),
        (["status"], []),
        (["sources"], []),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, env=os.environ
        )
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout.strip().splitlines()[-1]) == tables, args
