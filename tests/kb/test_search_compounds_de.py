"""German compounds in the keyword index (kb.store.stemming, kb.search.languages): a
chunk is indexed under its compounds' parts as well, split against its document's own
words; a query's compound the KB never writes is searched by its parts. Real SQLite:
a KB of German notes, kb doctor's repair of forms an older kb wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.search.keyword import fts_query, keyword_search
from kb.search.languages import searched
from kb.store import Store
from kb.store.stemming import META_KEY, index_form, lexicon, restem
from kb.types import ChunkDraft, ChunkerInfo, Span

CHUNKER = ChunkerInfo("test", "1", {})
FOREST = (
    "Im Laubwald fallen im Herbst die Blätter.",
    "Der Wald ist alt, und das Laub bedeckt den Boden.",
)
SPORT = ("Das Portfolio des Senders umfasst Sport und Nachrichten.",)
OTHER = ("Der Mischwald steht am Hang.",)
#: chunks without those words, so that none of them is in half the KB's chunks (bm25
#: gives such a term no weight and the keyword leg leaves it out)
FILLER = ("Die Heizung wurde im Mai gewartet.", "Der Zug nach Berlin fährt um neun.")


def test_a_compound_is_indexed_under_its_parts_after_the_texts_own_words() -> None:
    words = lexicon(FOREST, "de")
    assert index_form(FOREST[0], "de", words) == "laubwald fall herb blatt laub wald"
    # without the document's words (a query's term): the word alone
    assert index_form("Laubwald", "de") == "laubwald"
    # a document that never writes the parts alone keeps its compound whole
    assert index_form(OTHER[0], "de", lexicon(OTHER, "de")) == "mischwald steht hang"
    assert index_form("la forêt de feuillus", "fr", lexicon(["forêt"], "fr")) == "forêt feuillus"


def add(store: Store, path: str, texts: tuple[str, ...]) -> list[int]:
    drafts = [
        ChunkDraft(t, ("Notiz",), Span(line_start=i, line_end=i), 0, len(t), 9)
        for i, t in enumerate(texts, 1)
    ]
    doc = store.save_document(
        root="/r",
        path=path,
        doc_type="md",
        content_hash=path,
        size=1,
        mtime=0.0,
        chunks=drafts,
        chunker=CHUNKER,
        lang="de",
    )
    rows = store.conn.execute("SELECT id FROM chunks WHERE document_id = ? ORDER BY ord", (doc,))
    return [int(r[0]) for r in rows]


@pytest.fixture
def kb(tmp_path: Path) -> tuple[Store, dict[str, list[int]]]:
    store = Store.open(tmp_path / "kb")
    ids = {"forest": add(store, "wald.md", FOREST), "sport": add(store, "sport.md", SPORT)}
    ids["other"] = add(store, "misch.md", OTHER)
    add(store, "filler.md", FILLER)
    return store, ids


def found(store: Store, query: str) -> set[int]:
    return {cid for cid, _ in keyword_search(store.conn, query, 10)}


def test_a_word_finds_the_chunk_that_writes_it_inside_a_compound(
    kb: tuple[Store, dict[str, list[int]]],
) -> None:
    store, ids = kb
    leaves, forest = ids["forest"]
    # "Laubwald" holds "Wald"; "Mischwald" is not split (its note never writes "Misch")
    assert found(store, "Wie alt ist der Wald?") == {leaves, forest}
    assert found(store, "Laub") == {leaves, forest}


def test_a_compound_the_kb_writes_is_searched_as_written(
    kb: tuple[Store, dict[str, list[int]]],
) -> None:
    store, ids = kb
    q = "Was fällt im Laubwald?"
    assert fts_query(q, searched(store.conn, q)) == '"fallt" OR "laubwald"'
    assert found(store, "Laubwald") == {ids["forest"][0]}


def test_a_compound_the_kb_never_writes_is_searched_by_its_parts(
    kb: tuple[Store, dict[str, list[int]]],
) -> None:
    store, ids = kb
    q = "Was gehört zum Sportportfolio?"
    s = searched(store.conn, q)
    assert s.parts_of("sportportfolio", "de") == ("sport", "portfolio")
    assert fts_query(q, s) == '"gehort" OR ("sportportfolio" OR "sport" OR "portfolio")'
    assert found(store, "Sportportfolio") == set(ids["sport"])
    # a compound whose parts the KB does not hold either stays one word
    assert searched(store.conn, "Wetterbericht").parts == ()


def test_doctor_repair_adds_the_parts_to_forms_an_older_kb_wrote(
    kb: tuple[Store, dict[str, list[int]]],
) -> None:
    store, ids = kb
    leaves = ids["forest"][0]
    fresh = dict(store.conn.execute("SELECT id, stem_text FROM chunks").fetchall())
    with store.tx() as c:  # the forms and record of kb before compounds (recipe 1)
        for cid, text in store.conn.execute("SELECT id, text FROM chunks").fetchall():
            c.execute("UPDATE chunks SET stem_text = ? WHERE id = ?", (index_form(text, "de"), cid))
        old = json.dumps({"recipe": 1, "pystemmer": "2.2.0.3"})
        c.execute("UPDATE meta SET value = ? WHERE key = ?", (old, META_KEY))
    assert found(store, "Wald") == {ids["forest"][1]}
    assert not store.fts_integrity_ok()
    store.rebuild_fts()
    assert store.fts_integrity_ok()
    assert dict(store.conn.execute("SELECT id, stem_text FROM chunks").fetchall()) == fresh
    assert leaves in found(store, "Wald")
    with store.tx() as c:  # restemming what is current changes nothing
        assert restem(c) == 0
