"""The keyword leg on a real SQLite FTS5 index: safe queries, stop words, pruning, scope."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.search.keyword import fts_query, keyword_search, query_terms, useful_terms
from kb.store import Store
from kb.types import ChunkDraft, ChunkerInfo, Span

CHUNKER = ChunkerInfo("test", "1", {})


def add_doc(store: Store, path: str, texts: list[str], heading: str = "H") -> list[int]:
    drafts = [
        ChunkDraft(t, (heading,), Span(line_start=i + 1, line_end=i + 1), 0, len(t), len(t))
        for i, t in enumerate(texts)
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
    )
    rows = store.conn.execute("SELECT id FROM chunks WHERE document_id = ? ORDER BY ord", (doc,))
    return [int(r[0]) for r in rows]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, dict[str, int]]]:
    store = Store.open(tmp_path_factory.mktemp("kw") / "kb")
    ids: dict[str, int] = {}
    texts = {
        "part": "The replacement gasket for the garden pump is part ZX-4417, ordered in May.",
        "apart": "The zx series pump has 4417 small parts and a long warranty.",
        "bread": "Sourdough bread needs a lively starter and a long, slow rise.",
        "running": "She was running the numbers for the quarterly tax return.",
        "quote": 'He said "AND(" is not a valid filter NEAR the end * of - the line.',
    }
    for name, text in texts.items():
        ids[name] = add_doc(store, f"notes/{name}.md", [text])[0]
    yield store, ids
    store.close()


def test_query_terms_drop_stopwords_punctuation_and_duplicates() -> None:
    assert query_terms("What is the part number of ZX-4417?") == ["part", "number", "ZX-4417?"]
    assert query_terms("the THE The") == ["the"]  # all stop words: kept (deduplicated)
    assert query_terms('* - " AND( ) ') == ["AND("]
    assert query_terms("   ") == []


def test_possessives_are_removed_so_the_bare_name_matches(
    corpus: tuple[Store, dict[str, int]],
) -> None:
    assert query_terms("BSkyB's box? Sky’s rival's") == ["BSkyB", "box?", "Sky", "rival"]
    assert query_terms("it's") == ["it"]  # then a stop word, kept: nothing else is left
    store, ids = corpus
    # "Sourdough's" quoted whole would be the phrase "sourdough s": no chunk has it
    found = keyword_search(store.conn, "Sourdough's starter", 5)
    assert [i for i, _ in found] == [ids["bread"]]


def test_fts_query_quotes_every_term() -> None:
    assert fts_query('say "hi" now') == '"say" OR """hi""" OR "now"'
    assert fts_query("*** ---") is None


def test_exact_token_phrase(corpus: tuple[Store, dict[str, int]]) -> None:
    store, ids = corpus
    got = keyword_search(store.conn, "ZX-4417", 10)
    # the tokens zx and 4417 must be adjacent: the chunk with them apart does not match
    assert [cid for cid, _ in got] == [ids["part"]]
    assert got[0][1] > 0  # -bm25, higher is better


def test_stemming_and_operators_are_plain_words(corpus: tuple[Store, dict[str, int]]) -> None:
    store, ids = corpus
    assert [c for c, _ in keyword_search(store.conn, "runs", 10)] == [ids["running"]]
    # FTS5 syntax in user text is searched as words, never parsed
    assert [c for c, _ in keyword_search(store.conn, "AND( NEAR", 10)] == [ids["quote"]]


def test_scope_and_limit(corpus: tuple[Store, dict[str, int]]) -> None:
    store, ids = corpus
    sql = "SELECT document_id FROM chunks WHERE id = ?"
    doc_of = {cid: int(store.conn.execute(sql, (cid,)).fetchone()[0]) for cid in ids.values()}
    everything = keyword_search(store.conn, "pump long", 10)
    assert {c for c, _ in everything} == {ids["part"], ids["apart"], ids["bread"]}
    scoped = keyword_search(store.conn, "pump long", 10, {doc_of[ids["bread"]]})
    assert [c for c, _ in scoped] == [ids["bread"]]
    assert keyword_search(store.conn, "pump long", 10, set()) == []
    assert len(keyword_search(store.conn, "pump long", 1)) == 1


def test_terms_in_half_the_chunks_are_pruned_exactly(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "kb")
    common = [f"common words everywhere number {i}" for i in range(10)]
    add_doc(store, "a.md", common)
    rare_id = add_doc(store, "b.md", ["common and a rare zebra"])[0]
    # "common" is in 11 of 11 chunks: FTS5 clamps its idf to 1e-6, so it is dropped
    assert useful_terms(store.conn, ["common", "zebra", "absent"]) == ["zebra"]
    assert useful_terms(store.conn, ["common"]) == ["common"]  # all common: kept
    with_common = keyword_search(store.conn, "common zebra", 5)
    only_rare = keyword_search(store.conn, "zebra", 5)
    assert [c for c, _ in with_common] == [rare_id] == [c for c, _ in only_rare]
    # a query of only common words still finds chunks
    assert len(keyword_search(store.conn, "common", 5)) == 5
    store.close()


def test_pruning_matches_full_bm25_ranking(tmp_path: Path) -> None:
    """Dropping a term in >= half the chunks keeps FTS5's own full-query order."""
    store = Store.open(tmp_path / "kb")
    texts = [f"alpha filler {'beta ' * (i % 3)}{'gamma' if i % 4 == 0 else ''}" for i in range(12)]
    add_doc(store, "a.md", texts)
    full = store.conn.execute(
        "SELECT rowid, bm25(chunks_fts) s FROM chunks_fts WHERE chunks_fts MATCH "
        '\'"alpha" OR "beta" OR "gamma"\' ORDER BY s, rowid'
    ).fetchall()
    ours = keyword_search(store.conn, "alpha beta gamma", 100)
    # alpha is in all 12 chunks (dropped); beta in 8 (kept: 8 >= 6 -> also dropped!);
    # gamma in 3: so only gamma is searched, and its 3 chunks keep their full-query order
    assert useful_terms(store.conn, ["alpha", "beta", "gamma"]) == ["gamma"]
    full_top = [int(r[0]) for r in full][: len(ours)]
    assert [c for c, _ in ours] == full_top
    for (cid, score), row in zip(ours, full, strict=False):
        assert cid == row[0] and score == pytest.approx(-row[1], abs=1e-4)
    store.close()


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_a_valid_fts_query(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(text, tokenize='porter unicode61')")
    conn.execute("INSERT INTO f VALUES ('some text to match against 42')")
    q = fts_query(text)
    if q is not None:
        conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (q,)).fetchall()


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("abc xyz\"*-()^:+{}NEARANDORNOT\\'\x00é€") + ["\ud800"]),
        max_size=40,
    )
)
def test_keyword_search_never_raises(corpus: tuple[Store, dict[str, int]], text: str) -> None:
    store, _ = corpus
    for cid, score in keyword_search(store.conn, text, 5):
        assert isinstance(cid, int) and score == score  # no NaN


def test_a_word_stemmed_to_a_stop_word_is_found_by_its_spelling(tmp_path: Path) -> None:
    from kb.rag.docfreq import term_doc_freq
    from kb.search.exact_terms import collapsed, stems

    assert stems("Andes") == ("and",) and collapsed("Andes") and collapsed("Inês")
    assert not collapsed("running") and not collapsed("the") and not collapsed("its")
    assert not collapsed("others")  # "others" is "other": the stemmer is right
    assert collapsed("Wills") and collapsed("Dos") and collapsed("Ames")
    assert not collapsed("answer") and not collapsed("another")  # stems elsewhere / too long
    store = Store.open(tmp_path / "kb")
    filler = [
        f"Bread and butter and jam, shelf {i}, in the pantry and in the cellar." for i in range(12)
    ]
    add_doc(store, "pantry.md", filler)
    andes = add_doc(store, "geo.md", ["The Andes rose and a large basin formed in the west."])[0]
    fernandes = add_doc(store, "people.md", ["Ana Fernandes and Lines Dosanjh met in Lisbon."])[0]
    host = add_doc(store, "trip.md", ["The host is Inês, reachable on WhatsApp."], heading="Stay")[
        0
    ]
    # through the index, "andes" is "and": every chunk, weight ~0; by its spelling, one
    got = keyword_search(store.conn, "Andes", 5)
    assert [c for c, _ in got] == [andes] and got[0][1] > 1.0
    assert [c for c, _ in keyword_search(store.conn, "inês", 5)] == [host]
    # with other words: the spelled term adds its bm25 weight to theirs
    both = keyword_search(store.conn, "Andes basin", 5)
    assert both[0][0] == andes and both[0][1] > got[0][1]
    assert [c for c, _ in keyword_search(store.conn, "Fernandes Lisbon", 5)] == [fernandes]
    # a chunk found by its spelling only, beside a word of twelve others: first
    mixed = keyword_search(store.conn, "Andes pantry", 5)
    assert mixed[0][0] == andes and len(mixed) == 5
    # scoped: the same weight as unscoped (idf over the whole KB); other documents: none
    geo = store.conn.execute("SELECT document_id FROM chunks WHERE id = ?", (andes,)).fetchone()
    assert keyword_search(store.conn, "Andes", 5, document_ids=[geo[0]]) == got
    assert keyword_search(store.conn, "Andes", 5, document_ids=[geo[0] + 100]) == []
    assert keyword_search(store.conn, "Andes", 5, document_ids=[]) == []
    assert [c for c, _ in keyword_search(store.conn, "ANDES", 5)] == [andes]
    assert term_doc_freq(store.conn, "Andes") == (1, 15)
    assert term_doc_freq(store.conn, "and")[0] >= 14
    store.close()


def test_a_common_word_stemmed_to_a_stop_word_weighs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kb.search import exact_terms

    store = Store.open(tmp_path / "kb")
    ones = add_doc(store, "a.md", [f"Chapter {i}: one step, then one more." for i in range(3)])
    race = add_doc(store, "b.md", ["Formula One drivers race in Monaco."])[0]
    add_doc(store, "c.md", [f"Money is done and gone, phone {i}." for i in range(6)])
    # in 4 of 10 chunks, as a word ("money", "done", "phone" hold it, not as a word)
    assert {c for c, _ in keyword_search(store.conn, "one", 10)} == {*ones, race}
    # held by more chunks than MAX_CANDIDATES: not read, no weight ("one" -> "on")
    monkeypatch.setattr(exact_terms, "MAX_CANDIDATES", 3)
    assert exact_terms.exact_matches(store.conn, "chunks_fts", "one") is None
    assert keyword_search(store.conn, "one", 10) == []
    assert [c for c, _ in keyword_search(store.conn, "Formula One", 10)] == [race]
    monkeypatch.setattr(exact_terms, "MAX_CANDIDATES", 20_000)
    # in half the chunks or more: common, as FTS5 clamps such a word's idf
    add_doc(store, "d.md", [f"One more line, {i}." for i in range(2)])
    assert exact_terms.exact_matches(store.conn, "chunks_fts", "one") is None
    store.close()


def test_a_word_no_chunk_holds_is_searched_by_its_nearest_spellings(tmp_path: Path) -> None:
    """`kb search pasport`: no chunk holds the word, so the index's words one typo away
    are searched instead and reported, as the KB writes them."""
    with Store.open(tmp_path / "kb") as store:
        todo = add_doc(store, "todo.txt", ["renew passport before june"])[0]
        dentist = add_doc(store, "contacts.md", ["Dentist: Dr. Anand Krishnamurthy"])[0]
        add_doc(store, "other.md", ["The garden pump needs a new gasket."])
        air = add_doc(store, "air.md", ["The atmosphere of Mars is thin; its atmospheric dust"])[0]
        fixed: dict[str, list[str]] = {}
        assert [c for c, _ in keyword_search(store.conn, "pasport", 5, corrected=fixed)] == [todo]
        assert fixed == {"pasport": ["passport"]}
        # a question mark is no part of the word; the word the KB writes is searched,
        # the form nearest the one typed (a stem would be stemmed again and miss)
        fixed = {}
        assert [c for c, _ in keyword_search(store.conn, "atmosphre?", 5, corrected=fixed)] == [air]
        assert fixed == {"atmosphre?": ["atmosphere"]}
        fixed = {}
        hits = keyword_search(store.conn, "krishnamurti dentist", 5, corrected=fixed)
        assert hits[0][0] == dentist and fixed == {"krishnamurti": ["Krishnamurthy"]}
        # words the KB holds, short words, codes and numbers are searched as typed
        # and a word whose stem is near a stem the KB holds, but not the word itself:
        # "diabetes" is no typo of "diameter" (stems diabet / diamet)
        add_doc(store, "wheel.md", ["The wheel diameter is 26 inches."])
        for text in ("passport", "pasprt", "gaszot", "pump", "ZX-4418", "12345", "diabetes"):
            fixed = {}
            keyword_search(store.conn, text, 5, corrected=fixed)
            assert fixed == {}, text
        assert keyword_search(store.conn, "gaszot", 5) == []  # two edits from "gasket"
        # a longer question keeps its words: its others and the vector leg carry it
        fixed = {}
        keyword_search(
            store.conn, "how long does a pasport renewal take in Ireland", 5, corrected=fixed
        )
        assert fixed == {}


def test_a_corrected_query_replaces_whole_words_only() -> None:
    from kb.search.candidates import Candidates, meaning_found
    from kb.search.typos import corrected_query

    fixes = {"dentst": ["Dentist"], "pasport?": ["passport"]}
    assert corrected_query("Who is my dentst?", fixes) == "Who is my Dentist?"
    assert corrected_query("PASPORT? or dentsts", fixes) == "passport? or dentsts"
    assert corrected_query("Who is my dentst?", {}) == "Who is my dentst?"
    assert not meaning_found(Candidates(10, best_cosine=0.3))
    assert meaning_found(Candidates(10, best_cosine=0.45))
    assert not meaning_found(Candidates(10))  # keyword mode: no cosine


def test_a_word_written_with_or_without_a_hyphen_is_found_both_ways(tmp_path: Path) -> None:
    """FTS5 cuts at a hyphen: *e-mail* is the tokens ``e`` ``mail``. The query's
    *email* also searches the KB's *e-mail* (and *E-Mails*), its *e-mail* the KB's
    *email*; a split of a word into two adjacent words the KB writes apart is not one
    (*therapist* / "the rapist", *into* / "in to")."""
    from kb.search.compounds import hyphenated, joined

    with Store.open(tmp_path / "kb") as store:
        hyphen = add_doc(store, "a.md", ["Send the invoice by e-mail to Anna."])[0]
        plural = add_doc(store, "b.md", ["Old E-Mails are archived yearly."])[0]
        plain = add_doc(store, "c.md", ["My email address changed in May."])[0]
        add_doc(store, "d.md", ["He saw the rapist in court; log in to the server."])
        add_doc(store, "e.md", ["The data-base-line of the chart."])
        hits = {c for c, _ in keyword_search(store.conn, "email", 10)}
        assert hits == {hyphen, plural, plain}
        assert {c for c, _ in keyword_search(store.conn, "e-mail", 10)} == {hyphen, plural, plain}
        assert hyphenated(store.conn, "chunks_fts", "email") == ["e-mail"]
        assert hyphenated(store.conn, "chunks_fts", "therapist") == []
        assert hyphenated(store.conn, "chunks_fts", "into") == []
        # a part must start a word: "data-base-line" holds no word "a-base"
        assert hyphenated(store.conn, "chunks_fts", "abase") == []
        assert hyphenated(store.conn, "chunks_fts", "baseline") == ["base-line"]
        assert keyword_search(store.conn, "therapist", 10) == []
        # its variant found, a word is no typo: "preorder" is not corrected to "reorder"
        pre = add_doc(store, "f.md", ["The pre-order opens on Monday."])[0]
        add_doc(store, "g.md", ["Reorder the list by date."])
        fixed: dict[str, list[str]] = {}
        assert [c for c, _ in keyword_search(store.conn, "preorder", 10, corrected=fixed)] == [pre]
        assert fixed == {}
        # a code typed without its hyphen: split where letters meet digits
        code = add_doc(store, "h.md", ["Service contract ref KC-88213, every six months."])[0]
        assert [c for c, _ in keyword_search(store.conn, "KC88213", 10)] == [code]
        assert [c for c, _ in keyword_search(store.conn, "kc-88213", 10)] == [code]
    assert joined("e-mail") == "email"
    assert joined('"ZX-4417,"') == "ZX4417"
    assert joined("email") is None and joined("-") is None and joined("a--b") is None


def test_an_excerpt_marks_a_word_written_with_or_without_a_hyphen() -> None:
    from kb.search.excerpt import spans

    shown = "Send the invoice by e-mail; my email changed."
    marked = [shown[a:b] for a, b in spans(shown, "email")]
    assert marked == ["e-mail", "email"]
    assert [shown[a:b] for a, b in spans(shown, "e-mail")] == ["e-mail", "email"]
    code = "ref KC-88213, not KC88213X"
    assert [code[a:b] for a, b in spans(code, "KC88213")] == ["KC-88213"]


def test_a_day_of_a_month_also_searches_its_iso_form() -> None:
    """ "What did I do on 9 November?" over a journal's "## 2026-11-09", which writes
    neither "9" nor "November": the query also searches the phrase "11 09"."""
    from kb.search.keyword import date_terms, query_terms

    assert date_terms("What did I do on 9 November?") == ["11-09"]
    assert date_terms("the 9th of November and Nov 10") == ["11-09", "11-10"]
    assert date_terms("Sept 3") == ["09-03"]
    assert query_terms("What did I do on 9 November?")[-1] == "11-09"
    # no date: a month alone, a small-letter "may", a day past 31, an unknown month
    for text in ("What happened in November?", "may 9 be", "32 March", "9 Brumaire"):
        assert date_terms(text) == [], text
