"""The LanceDB keyword leg reads row ids and scores only and maps the row ids to chunk
and document ids through a map per table version (:func:`kb.search.keyword_lance._map_rows`):
the same hits as reading the columns, also after rows are added and removed on an open
table (an update can give an old row id to another row: the map is read again for the
new version), on a real LanceDB index."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.search import keyword_lance
from kb.search.keyword_lance import lance_query
from kb.store import Store, keyword_index
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending


@pytest.fixture
def kb(kb_home: Path) -> Store:
    store = Store.open(kb_home)
    for d in range(8):
        texts = [f"w{d}x{i} alpha{i % 5} beta{(i * 3 + d) % 7} common" for i in range(30)]
        add_doc(store, f"d{d}.md", texts)
    embed_pending(store, BowEmbedder())
    keyword_index.build(store)
    yield store  # type: ignore[misc]
    store.close()


def _columns(t: object, q: object, limit: int) -> list[tuple[int, int, float]]:
    """What the query returned before the row-id map: the columns themselves. (Limits
    cover every match: which of several equal scores a limit cuts is arbitrary.)"""
    arrow = t.search(q, query_type="fts").select(["chunk_id", "document_id", "_score"])  # type: ignore[attr-defined]
    arrow = arrow.limit(limit).to_arrow()
    cols = [arrow.column(c).to_pylist() for c in ("chunk_id", "document_id", "_score")]
    return sorted(zip(*cols, strict=True))


def _mapped(t: object, q: object, limit: int) -> list[tuple[int, int, float]]:
    arrow = keyword_lance._query(t, q, limit, None)
    cols = [arrow.column(c).to_pylist() for c in ("chunk_id", "document_id", "_score")]
    return sorted(zip(*cols, strict=True))


@pytest.mark.parametrize("text", ["alpha3 common", "w2x7", "beta4 alpha1", "nothing-here"])
def test_row_ids_map_to_the_columns(kb: Store, text: str) -> None:
    t = keyword_index.table(kb)
    q = lance_query(text)
    assert _mapped(t, q, 1000) == _columns(t, q, 1000)


def test_the_map_is_read_again_for_a_new_version(kb: Store) -> None:
    t = keyword_index.table(kb)
    q = lance_query("zebra common")
    before = _mapped(t, q, 1000)  # reads the map of this version
    first = keyword_lance._ROWS[id(t)][1]
    new = add_doc(kb, "late.md", ["zebra quagga common"] * 3)
    embed_pending(kb, BowEmbedder())
    gone = kb.conn.execute("SELECT id FROM documents WHERE path LIKE '%d0.md'").fetchone()[0]
    kb.delete_documents([int(gone)])
    assert keyword_index.maintain(kb, 1) is not None
    t.checkout_latest()
    after = _mapped(t, q, 1000)
    assert keyword_lance._ROWS[id(t)][1] == t.version != first
    assert after == _columns(t, q, 1000) and after != before
    assert set(new) <= {c for c, _, _ in after}
    assert not any(d == int(gone) for _, d, _ in after)


def test_an_unmappable_row_falls_back_to_the_columns(
    kb: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = keyword_index.table(kb)
    q = lance_query("alpha3 common")
    monkeypatch.setattr(keyword_lance, "_map_rows", lambda t, version, rowids: None)
    assert _mapped(t, q, 1000) == _columns(t, q, 1000)
