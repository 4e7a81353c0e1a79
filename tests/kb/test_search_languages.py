"""Search per language: the keyword index holds a German or French chunk by its words
stemmed in that language without its stop words (kb.store.stemming), and a query term
is searched in the forms of the languages the KB holds (kb.search.languages). Unit
tests of the forms, then real SQLite: a KB of a German, a French and an English note,
an old-schema KB migrated, and kb doctor's repair."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kb.search.exact_terms import stems
from kb.search.keyword import fts_query, keyword_search, query_terms
from kb.search.languages import ENGLISH, Searched, forms, kb_languages, searched
from kb.search.typos import corrections
from kb.store import Store, migrations
from kb.store.stemming import index_form, stems_of
from kb.types import ChunkDraft, ChunkerInfo, Span

CHUNKER = ChunkerInfo("test", "1", {})
DE_ONLY = Searched(raw=False, stemmed=("de",))
MIXED = Searched(raw=True, stemmed=("de", "fr"))


# -- index forms and query forms -------------------------------------------------------


def test_inflected_forms_share_an_index_form() -> None:
    assert index_form("Gebäude", "de") == index_form("Gebäuden", "de") == "gebaud"
    assert index_form("Jahrhunderts", "de") == index_form("Jahrhundert", "de")
    assert index_form("mangées", "fr") == index_form("manger", "fr")
    # without the German stemmer (FTS5's porter alone) they were different words
    assert stems("Gebäuden") != stems("Gebäude")
    assert stems("mangées") != stems("manger")


def test_index_form_drops_the_languages_stop_words_and_splits_like_unicode61() -> None:
    assert index_form("Die Universität und der Campus", "de") == "universitat campus"
    assert index_form("l'eau de la rivière", "fr") == "eau rivi"
    assert index_form("Teil ZX-4417 im Lager", "de") == "teil zx 4417 lag"
    assert index_form("die der und ist", "de") == ""
    # an English (or undetermined) chunk is indexed as written
    assert stems_of("Die Gebäude", "Kapitel", "en") == (None, None)
    assert stems_of("Die Gebäude", "Kapitel", None) == (None, None)
    assert stems_of("Die Gebäude", "Kapitel", "de") == ("gebaud", "kapitel")


def test_a_term_is_searched_in_each_language_the_kb_holds() -> None:
    assert forms("Gebäuden", DE_ONLY) == ['"gebaud"']
    # the French form (gebäuden) is porter's gebauden, as the raw one: searched once
    assert forms("Gebäuden", MIXED) == ['"Gebäuden"', '"gebaud"']
    # raw porter and the German stemmer agree on "jahrhundert": searched once
    assert forms("Jahrhunderts", Searched(raw=True, stemmed=("de",))) == ['"Jahrhunderts"']
    assert forms("mangées", Searched(raw=False, stemmed=("fr",))) == ['"mang"']


def test_stop_words_are_dropped_per_language() -> None:
    # a KB of German notes: the article is no term
    assert forms("die", DE_ONLY) == []
    # English notes beside them: "die" (the verb) is still searched as written
    assert forms("die", Searched(raw=True, stemmed=("de",))) == ['"die"']
    # unless the question is German, and the KB holds German
    assert forms("die", Searched(raw=True, stemmed=("de",), question="de")) == []
    question = "Wann wurde die Universität gegründet?"
    assert query_terms(question, Searched(True, ("de",), "de")) == ["Universität", "gegründet?"]
    assert query_terms("Why do plants die?", Searched(True, ("de",), "en")) == ["plants", "die?"]
    # a query of stop words only keeps them (The Who), in the forms they have
    assert query_terms("The Who") == ["The", "Who"]


def test_an_english_kb_searches_exactly_as_before() -> None:
    assert fts_query("What is the part number of ZX-4417?") == '"part" OR "number" OR "ZX-4417?"'
    assert fts_query("Wann wurde die Universität gegründet?") == (
        '"Wann" OR "wurde" OR "die" OR "Universität" OR "gegründet?"'
    )
    assert query_terms("the THE The", ENGLISH) == ["the"]


# -- real SQLite -----------------------------------------------------------------------

DE_TEXT = (
    "In den alten Gebäuden der Universität wurden im 18. Jahrhundert die ersten "
    "Vorlesungen gehalten. Das Ersatzteil ZX-4417 liegt im Keller."
)
FR_TEXT = "Les pommes ont été mangées par les enfants avant le dîner."
EN_TEXT = "Plants die without water; the buildings of the old campus were built in 1890."


def add_doc(store: Store, path: str, text: str, lang: str | None) -> int:
    draft = ChunkDraft(text, ("Notiz",), Span(line_start=1, line_end=1), 0, len(text), 9)
    doc = store.save_document(
        root="/r",
        path=path,
        doc_type="md",
        content_hash=path,
        size=1,
        mtime=0.0,
        chunks=[draft],
        chunker=CHUNKER,
        lang=lang,
    )
    row = store.conn.execute("SELECT id FROM chunks WHERE document_id = ?", (doc,)).fetchone()
    return int(row[0])


@pytest.fixture
def kb(tmp_path: Path) -> tuple[Store, dict[str, int]]:
    store = Store.open(tmp_path / "kb")
    ids = {
        "de": add_doc(store, "de.md", DE_TEXT, "de"),
        "fr": add_doc(store, "fr.md", FR_TEXT, "fr"),
        "en": add_doc(store, "en.md", EN_TEXT, "en"),
    }
    return store, ids


def found(store: Store, query: str) -> list[int]:
    return [cid for cid, _ in keyword_search(store.conn, query, 10)]


def test_a_german_question_finds_the_german_note_by_an_inflected_form(
    kb: tuple[Store, dict[str, int]],
) -> None:
    store, ids = kb
    assert kb_languages(store.conn) == (True, ("de", "fr"))
    assert searched(store.conn, "Wann wurde das Gebäude gebaut?").question == "de"
    assert found(store, "Gebäude") == [ids["de"]]  # the note writes "Gebäuden"
    assert found(store, "Jahrhunderts") == [ids["de"]]
    # the German article "die" is no term of a German question: the English note's
    # "die" does not match it
    assert found(store, "Wann hielt man die ersten Vorlesung?") == [ids["de"]]
    assert found(store, "manger") == [ids["fr"]]
    # the English verb still finds the English note, and no German chunk holds "die"
    assert found(store, "Why do plants die?") == [ids["en"]]
    assert found(store, "buildings") == [ids["en"]]
    # codes stay literal in a German note
    assert found(store, "ZX-4417") == [ids["de"]]


def test_the_index_holds_the_forms_and_hits_keep_their_text(
    kb: tuple[Store, dict[str, int]],
) -> None:
    store, ids = kb
    row = store.conn.execute(
        "SELECT text, heading_path FROM chunks_fts WHERE rowid = ?", (ids["de"],)
    ).fetchone()
    assert "gebaud" in row[0] and "Gebäuden" not in row[0] and row[1] == "notiz"
    assert store.hits_for([ids["de"]])[ids["de"]].text == DE_TEXT
    assert store.fts_integrity_ok()


def test_typo_corrections_name_a_word_the_german_note_writes(
    kb: tuple[Store, dict[str, int]],
) -> None:
    store, _ = kb
    # the word as the note writes it, not its stem (the index holds "universitat")
    assert corrections(store.conn, "chunks_fts", "Univresität") == ["Universität"]


def test_doctor_repair_restems_after_a_language_changes(
    kb: tuple[Store, dict[str, int]],
) -> None:
    store, ids = kb
    with store.tx() as c:  # the stems no longer agree with the document's language
        c.execute("UPDATE documents SET lang = 'de' WHERE path = 'en.md'")
    assert not store.fts_integrity_ok()
    store.rebuild_fts()
    assert store.fts_integrity_ok()
    assert (
        store.conn.execute("SELECT stem_text FROM chunks WHERE id = ?", (ids["en"],))
        .fetchone()[0]
        .startswith("plant")
    )


def _schema_7_kb(home: Path) -> None:
    """A KB as kb wrote it before migration 8: a German and an English document, each
    with a chunk indexed as written."""
    home.mkdir(parents=True)
    conn = sqlite3.connect(home / "kb.sqlite", isolation_level=None)
    migrations.applied(conn)
    for mid, name, fn in migrations.MIGRATIONS[:7]:
        fn(conn)
        conn.execute("INSERT INTO _migrations VALUES (?, ?, 0)", (mid, name))
    conn.execute(
        "INSERT INTO chunkings (id, spec, name, version, params, created_at) "
        "VALUES (1, 'test', 'test', '1', '{}', 0)"
    )
    conn.execute("INSERT INTO meta (key, value) VALUES ('live_chunking', '1')")
    for i, (text, lang) in enumerate([(DE_TEXT, "de"), (EN_TEXT, "en")], start=1):
        conn.execute(
            "INSERT INTO documents (id, root, path, doc_type, status, updated_at, abs_path, "
            "lang) VALUES (?, '/r', ?, 'md', 'indexed', 0, ?, ?)",
            (i, f"{lang}.md", f"/r/{lang}.md", lang),
        )
        conn.execute(
            "INSERT INTO chunks (id, chunking_id, document_id, ord, text, heading_path, "
            "token_count, chunker, chunker_version, chunker_params, content_hash) "
            "VALUES (?, 1, ?, 0, ?, 'Notiz', 9, 'test', '1', '{}', 'h')",
            (i, i, text),
        )
    assert (
        conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'gebaud'").fetchall()
        == []
    )  # indexed as written: the stem was not there
    conn.close()


def test_an_old_kb_is_migrated_and_keeps_finding_its_chunks(tmp_path: Path) -> None:
    home = tmp_path / "kb"
    _schema_7_kb(home)
    with Store.open(home) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST
        assert found(store, "Gebäude") == [1]
        assert found(store, "Vorlesungen Keller") == [1]
        assert found(store, "plants campus") == [2]
        assert found(store, "ZX-4417") == [1]
        assert store.fts_integrity_ok()
        # new chunks go through the triggers of the new index
        new = add_doc(store, "neu.md", "Mehrere Gebäude stehen leer.", "de")
        assert set(found(store, "Gebäuden")) == {1, new}
        store.delete_documents([2])
        assert found(store, "plants") == []
        assert store.fts_integrity_ok()
