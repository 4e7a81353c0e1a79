"""A small real KB for the serve tests: the demo notes and PDF plus hostile files.

Built once per module with the real ingest pipeline, real SQLite and LanceDB. The fast
tests use a bag-of-words embedder and a scripted generator (no model load); the
browser and MCP tests run a real ``kb serve`` / ``kb mcp`` on the bundled models.

The source folder ``src/`` holds:
- ``notes/`` (the demo notes) and ``papers/urban-beekeeping.pdf``;
- ``notes/evil.md``: a ``<script>`` and an ``onerror=`` attribute in its text;
- ``notes/<img src=x onerror=window.__xss=1>.md``: a hostile file name;
- ``notes/link.md``: a document that, after ingest, is replaced by a symlink to
  ``secret.txt`` outside the source (the server must refuse to follow it).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES

EVIL_NOTE = """# Evil note

This note has a <script>window.__xss = 1</script> tag and an
<img src=x onerror="window.__xss = 2"> image, and a [link](javascript:window.__xss=3).

The zebra passphrase is kumquat-7.
"""
EVIL_NAME = "<img src=x onerror=window.__xss=1>.md"
SECRET = "top secret: do not serve\n"


@dataclass
class ServeKb:
    home: Path
    src: Path
    secret: Path


def build_kb(root: Path, embedder: Any) -> ServeKb:
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    src = root / "src"
    shutil.copytree(FIXTURES / "demo" / "notes", src / "notes")
    (src / "papers").mkdir()
    shutil.copy(FIXTURES / "demo" / "papers" / "urban-beekeeping.pdf", src / "papers")
    (src / "notes" / "evil.md").write_text(EVIL_NOTE, encoding="utf-8")
    (src / "notes" / EVIL_NAME).write_text("# Name\n\nA note with a hostile name.\n", "utf-8")
    (src / "notes" / "link.md").write_text("# Link\n\nSoon a symlink.\n", encoding="utf-8")
    secret = root / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    home = root / "kb"
    settings = load_settings(home, user_file=root / "none.toml")
    with Store.open(home) as store:
        ingest_paths(store, settings, [src], embedder=embedder)
    link = src / "notes" / "link.md"
    link.unlink()
    link.symlink_to(secret)
    return ServeKb(home, src, secret)


@pytest.fixture(scope="module")
def fake_kb(tmp_path_factory: pytest.TempPathFactory) -> ServeKb:
    from tests.kb.test_search_retriever import BowEmbedder

    return build_kb(tmp_path_factory.mktemp("serve"), BowEmbedder())


@pytest.fixture
def runtime(fake_kb: ServeKb) -> Iterator[Any]:
    """A Runtime over the fake KB: bag-of-words embedder, scripted generator citing [#1]."""
    from kb.config import load_settings, override
    from kb.rag.compose import make_pipeline
    from kb.search import Retriever
    from kb.serve.runtime import Runtime
    from kb.store import Store
    from tests.kb.test_rag_pipeline import ScriptedGenerator
    from tests.kb.test_search_retriever import BowEmbedder

    settings = override(
        load_settings(fake_kb.home, user_file=fake_kb.home.parent / "none.toml"),
        **{
            "answer.mode": "generate",
            "answer.min_answerable": 0.0,
            "answer.require_key_terms": False,
            "search.min_score": -1.0,
        },
    )
    store = Store.open(fake_kb.home, create=False)
    retriever = Retriever(store, BowEmbedder(), vector_cache=False)
    gen = ScriptedGenerator(["The loaf ", "proofs overnight ", "[#1]."])
    rt = Runtime(settings, store, retriever, make_pipeline(settings, retriever, lambda: gen))
    yield rt
    rt.close()


@pytest.fixture
def client(runtime: Any) -> Iterator[Any]:
    from starlette.testclient import TestClient

    from kb.serve.app import create_app

    app = create_app(runtime, "127.0.0.1", 8765)
    with TestClient(app, base_url="http://127.0.0.1:8765") as c:
        yield c


def doc_id(rt: Any, suffix: str) -> int:
    row = rt.store.conn.execute(
        "SELECT id FROM documents WHERE path LIKE ?", (f"%{suffix}",)
    ).fetchone()
    assert row is not None, suffix
    return int(row[0])
