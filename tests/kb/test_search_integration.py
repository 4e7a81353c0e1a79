"""Search on the real parts: SQLite + FTS5, LanceDB and the bundled all-MiniLM-L6-v2.

The store is written the way the ingest pipeline writes it: documents and chunks
through ``Store.save_document``, vectors through ``add_for_chunks`` (the cache) then
``mark_embedded`` and ``set_embedding_model``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from kb.config import load_settings
from kb.search import Retriever, SearchOptions
from kb.store import Store
from kb.store.embeddings import add_for_chunks
from kb.store.sqlite import EmbeddingModelInfo
from kb.types import ChunkDraft, ChunkerInfo, Span

pytestmark = pytest.mark.slow

DOCS: dict[str, tuple[str, list[str], str]] = {
    # path: (doc type, tags, text)
    "notes/bread.md": (
        "md",
        ["cooking"],
        "Sourdough bread needs a lively starter. Feed the starter twice a day and let the "
        "dough rest overnight before baking.",
    ),
    "notes/bike.md": (
        "md",
        ["diy"],
        "To fix a flat bicycle tyre, remove the wheel, find the puncture, patch the inner "
        "tube and pump it back up.",
    ),
    "notes/garden.md": (
        "md",
        ["diy", "home"],
        "Garden maintenance log: cleaned the pond filter, replaced the gasket with part "
        "ZX-4417, and trimmed the hedge.",
    ),
    "finance/tax.txt": (
        "txt",
        [],
        "The quarterly tax return is due at the end of the month; keep receipts for every "
        "business expense.",
    ),
    "notes/plants.md": (
        "md",
        ["garden"],
        "Tomato plants want full sun, deep watering twice a week and a stake to climb.",
    ),
    "history/zx.md": (
        "md",
        [],
        "The ZX Spectrum was a home computer released in 1982 with 48K of memory.",
    ),
    "inventory/parts.md": (
        "md",
        [],
        "Inventory: part number ZX-4471 is a washer, part ZX-4177 is a bolt, part number "
        "AB-4417 is a spring.",
    ),
}


@pytest.fixture(scope="module")
def kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: Any
) -> Iterator[tuple[Store, Retriever, dict[str, int]]]:
    store = Store.open(tmp_path_factory.mktemp("search-real") / "kb")
    ids: dict[str, int] = {}
    for path, (doc_type, tags, text) in DOCS.items():
        title = path.rsplit("/", 1)[-1].split(".")[0].title()
        draft = ChunkDraft(text, (title,), Span(line_start=1, line_end=3), 0, len(text), 30)
        doc = store.save_document(
            root="/notes",
            path=path,
            doc_type=doc_type,
            content_hash=path,
            size=len(text),
            mtime=0.0,
            chunks=[draft],
            chunker=ChunkerInfo("test", "1", {}),
            tags=tags,
        )
        row = store.conn.execute("SELECT id FROM chunks WHERE document_id = ?", (doc,))
        ids[path] = int(row.fetchone()[0])
    store.set_embedding_model(EmbeddingModelInfo(real_embedder.model_id, real_embedder.dim))
    for batch in store.iter_pending(64):
        chunk_ids = [i for i, _, _ in batch]
        add_for_chunks(store, chunk_ids, real_embedder.embed_batch([t for _, t, _ in batch]))
        store.mark_embedded(chunk_ids)
    yield store, Retriever(store, real_embedder), ids
    store.close()


def paths(result: Any) -> list[str]:
    return [h.path for h in result.hits]


def test_keyword_finds_the_exact_part_number_vectors_miss(kb: Any) -> None:
    _, r, _ = kb
    keyword = r.search("ZX-4417", SearchOptions(k=2, mode="keyword"))
    assert paths(keyword) == ["notes/garden.md"]  # only exact, adjacent zx + 4417
    vector = r.search("ZX-4417", SearchOptions(k=2, mode="vector", min_score=-1))
    # the embedding ranks the look-alike part numbers and the ZX Spectrum higher
    assert "notes/garden.md" not in paths(vector)
    assert len(vector.hits) == 2


def test_hybrid_fuses_both_legs(kb: Any) -> None:
    _, r, _ = kb
    res = r.search("ZX-4417", SearchOptions(k=3, mode="hybrid", min_score=-1))
    assert res.hits[0].path == "notes/garden.md"  # keyword rank 1 + a vector rank
    assert set(res.hits[0].ranks) == {"vector", "keyword"}
    assert any(set(h.ranks) == {"vector"} for h in res.hits[1:])  # vector-only hits too
    assert res.timings["embed"] > 0 and res.timings["keyword"] > 0


def test_semantic_question_without_shared_words(kb: Any) -> None:
    _, r, _ = kb
    res = r.search("how do I get my loaf to rise", SearchOptions(k=1, mode="vector"))
    assert paths(res) == ["notes/bread.md"]
    loc = res.hits[0].locator
    assert loc.heading_path == ("Bread",) and loc.span.line_start == 1
    assert loc.render() == "notes/bread.md › Bread · lines 1–3"


def test_scoped_search(kb: Any) -> None:
    _, r, _ = kb
    q = "part number"
    assert paths(r.search(q, SearchOptions(k=5, paths=("inventory/",), min_score=-1))) == [
        "inventory/parts.md"
    ]
    assert paths(r.search(q, SearchOptions(k=5, types=("txt",), min_score=-1))) == [
        "finance/tax.txt"
    ]
    diy = r.search(q, SearchOptions(k=5, tags=("DIY",), min_score=-1))
    assert sorted(paths(diy)) == ["notes/bike.md", "notes/garden.md"]
    globbed = r.search(q, SearchOptions(k=10, paths=("**/*.md",), min_score=-1))
    assert len(globbed.hits) == 6 and "finance/tax.txt" not in paths(globbed)


def test_default_min_score_refuses_unrelated_queries(kb: Any) -> None:
    _, r, _ = kb
    opts = SearchOptions.from_settings(load_settings().search)
    assert opts.min_score > 0
    # a made-up word: no keyword match and no chunk is similar enough; the hybrid
    # search still ranks the notes, the refusal decision says "nothing to answer from"
    res = r.search("Flurbogast", opts)
    assert res.hits and not res.has_evidence(opts.min_score)
    assert r.search("Flurbogast", replace(opts, mode="vector")).hits == []
    # a real question about a note passes
    res = r.search("when is the tax return due?", opts)
    assert paths(res)[0] == "finance/tax.txt" and res.has_evidence(opts.min_score)
