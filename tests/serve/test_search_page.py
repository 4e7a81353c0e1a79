"""The web search page says "Ask would refuse" by kb ask's own rule (real SQLite, LanceDB
and the bundled embedder, default thresholds): it used the cosine rule alone, so a
question Ask answers from a task list or a named section was shown as one it refuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli.test_ask_cli import TASK_NOTES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    from starlette.testclient import TestClient

    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.rag.compose import make_pipeline
    from kb.search import Retriever
    from kb.serve.app import create_app
    from kb.serve.runtime import Runtime
    from kb.store import Store
    from tests.kb.test_rag_pipeline import ScriptedGenerator

    root = tmp_path_factory.mktemp("search-page")
    notes = {**TASK_NOTES, "people/tom.md": "# Tom Reilly\n\nPhone 07700 900789, mornings.\n"}
    for name, text in notes.items():
        (root / "notes" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "notes" / name).write_text(text, encoding="utf-8")
    settings = load_settings(root / "kb", user_file=root / "none.toml")
    store = Store.open(settings.home)
    ingest_paths(store, settings, [root / "notes"], embedder=real_embedder)
    retriever = Retriever(store, real_embedder, vector_cache=False)
    pipeline = make_pipeline(settings, retriever, lambda: ScriptedGenerator(["1"]))
    rt = Runtime(settings, store, retriever, pipeline)
    with TestClient(create_app(rt, "127.0.0.1", 8765), base_url="http://127.0.0.1:8765") as c:
        yield c
    rt.close()


def test_a_to_do_question_is_not_shown_as_refused(client: Any) -> None:
    page = client.get("/search", params={"q": "What is still on my to-do list?"}).text
    assert "garden.md" in page and "task items" in page
    assert "Ask would refuse" not in page  # the cosine rule alone said it would


def test_a_question_the_notes_do_not_touch_is_still_shown_as_refused(client: Any) -> None:
    page = client.get("/search", params={"q": "What temperature does the pizza oven reach?"}).text
    assert "Ask would refuse" in page


def test_a_hit_placed_by_a_title_link_says_so(client: Any) -> None:
    """The boiler note names "Tom Reilly", the title of another note: that note is placed
    3rd (kb.search.links) and the page says why, as `kb search` does."""
    page = client.get("/search", params={"q": "When is the next boiler service due?"}).text
    assert "tom.md" in page and "named by hit 1" in page
