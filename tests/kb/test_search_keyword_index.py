"""The derived keyword index (LanceDB native full-text) on a real SQLite + LanceDB KB.

With ``keyword_threshold`` forced low, the keyword leg queries the LanceDB index; its
top hits must agree with FTS5's on the same words (a rare code word, a stemmed word, a
possessive, accents), a scoped search must still return ``k`` hits, and an index that
no longer matches the live chunks must never be searched (FTS5 answers, with a notice).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb.cli import app
from kb.search import Retriever, SearchOptions
from kb.search.keyword_lance import (
    STALE_NOTICE,
    describe,
    describe_line,
    keyword_index_state,
    lance_query,
    tokens,
)
from kb.store import Store, keyword_index
from kb.store.keyword_index import fold
from tests.kb.test_search_retriever import BowEmbedder, add_doc, embed_pending

FILLER = [
    "the committee met on tuesday to discuss the annual budget and staffing",
    "rainfall in the northern valley was heavier than in previous years",
    "the library extended its opening hours during the examination period",
    "a new bridge connects the two halves of the old market town",
    "volunteers planted trees along the river bank in early spring",
]


def _corpus() -> list[tuple[str, list[str], str, list[str]]]:
    docs = []
    for d in range(8):
        texts = [f"{FILLER[(d + i) % 5]} section {d} part {i}" for i in range(12)]
        docs.append((f"d{d}.md", texts, "txt" if d < 2 else "md", ["red"] if d == 5 else []))
    docs[3][1][4] = "Error code ZX-4417 means the boot loader failed its checksum"
    docs[6][1][2] = "the zx spectrum sold 4417 units in its first week"
    docs[2][1][7] = "The runners were running through the park at dawn"
    docs[4][1][1] = "Les Misérables opened at the Palace Theatre"
    docs[7][1][9] = "BSkyB's bid for the league rights was accepted"
    return docs


@pytest.fixture
def kb(kb_home: Path) -> tuple[Store, BowEmbedder]:
    store = Store.open(kb_home)
    emb = BowEmbedder()
    for path, texts, typ, tags in _corpus():
        add_doc(store, path, texts, doc_type=typ, tags=tags)
    embed_pending(store, emb)
    yield store, emb  # type: ignore[misc]
    store.close()


def _hits(store: Store, emb: BowEmbedder, q: str, threshold: int, **kw: object) -> list[int]:
    r = Retriever(store, emb, keyword_threshold=threshold, notify=lambda m: None)
    opts = SearchOptions(k=kw.pop("k", 5), mode=kw.pop("mode", "keyword"), min_score=-1, **kw)  # type: ignore[arg-type]
    return [h.chunk_id for h in r.search(q, opts).hits]


def _text_of(store: Store, chunk_id: int) -> str:
    return str(
        store.conn.execute("SELECT text FROM chunks WHERE id = ?", (chunk_id,)).fetchone()[0]
    )


# -- query building (no index needed) -------------------------------------------------
def test_tokens_split_like_the_simple_tokenizer() -> None:
    assert tokens("ZX-4417") == ["ZX", "4417"]
    assert tokens("foo_bar") == ["foo", "bar"]
    assert tokens("Misérables") == ["Miserables"]
    assert fold("café") == "cafe" and fold("plain") == "plain"


def test_query_is_built_from_objects_never_parsed() -> None:
    from lancedb.query import BooleanQuery, MatchQuery, PhraseQuery

    q = lance_query('what is "the" AND OR NEAR( * - runners')
    assert isinstance(q, MatchQuery) and q.query == "NEAR runners"  # and, or: stop words
    q = lance_query("error ZX-4417")
    assert isinstance(q, BooleanQuery)
    assert [type(p).__name__ for _, p in q.queries] == ["MatchQuery", "PhraseQuery"]
    assert isinstance(q.queries[1][1], PhraseQuery) and q.queries[1][1].query == "ZX 4417"
    assert lance_query("* - ?") is None
    only_stop = lance_query("The Who")
    assert isinstance(only_stop, MatchQuery) and only_stop.query == "The Who"


# -- on a real index -------------------------------------------------------------------
def test_used_only_past_the_threshold_when_current(kb: tuple[Store, BowEmbedder]) -> None:
    store, emb = kb
    assert keyword_index_state(store, 0) == "fts5"
    assert keyword_index_state(store, 10) == "stale"  # past the threshold, not built
    assert keyword_index_state(store, 10_000) == "fts5"
    rec = keyword_index.build(store)
    assert rec is not None and rec["rows"] == 96
    assert keyword_index_state(store, 10) == "index"
    assert Retriever(store, emb, keyword_threshold=10).uses_keyword_index()
    assert not Retriever(store, emb).uses_keyword_index()  # the default never uses it
    line = describe_line(describe(store, 10))
    assert line.startswith("keyword search: LanceDB full-text index (96 chunks, built ")
    assert describe_line(describe(store, 0)) == "keyword search: SQLite FTS5 (96 chunks)"


@pytest.mark.parametrize(
    "query",
    [
        "ZX-4417",  # a rare code: the phrase, not the chunk with "zx" and "4417" apart
        "what does the error code ZX-4417 mean?",
        "who was running",  # stemmed: runners / running
        "BSkyB's bid",  # possessive
        "Les Miserables",  # accents folded
        "annual budget committee",
    ],
)
def test_top_hits_match_fts5(kb: tuple[Store, BowEmbedder], query: str) -> None:
    store, emb = kb
    fts5 = _hits(store, emb, query, 0)
    keyword_index.build(store)
    lance = _hits(store, emb, query, 10)
    assert lance[0] == fts5[0]
    assert set(lance[:3]) & set(fts5[:3])


def test_rare_code_and_stem_find_the_right_chunk(kb: tuple[Store, BowEmbedder]) -> None:
    store, emb = kb
    keyword_index.build(store)
    top = _hits(store, emb, "ZX-4417", 10)
    assert "ZX-4417" in _text_of(store, top[0])
    assert all("ZX-4417" in _text_of(store, c) for c in top)  # the phrase only
    assert "running" in _text_of(store, _hits(store, emb, "run", 10)[0])
    assert "Misérables" in _text_of(store, _hits(store, emb, "misérables", 10)[0])
    assert _hits(store, emb, 'NEAR( "AND* -', 10) == []  # no syntax error


def test_hybrid_uses_the_index_and_keeps_the_code_word_first(
    kb: tuple[Store, BowEmbedder],
) -> None:
    store, emb = kb
    keyword_index.build(store)
    top = _hits(store, emb, "ZX-4417", 10, mode="hybrid")
    assert "ZX-4417" in _text_of(store, top[0])


@pytest.mark.parametrize("wide", [False, True])
def test_hybrid_keyword_leg_on_a_thread_gives_the_same_hits(
    kb: tuple[Store, BowEmbedder], wide: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index leg overlaps the vector leg on a worker thread (a wide scope too,
    whose document count it reads from SQLite there); the hits equal the one-thread
    order."""
    import threading

    from kb.search import keyword_lance
    from kb.search import retriever as retriever_mod

    store, emb = kb
    keyword_index.build(store)
    if wide:
        monkeypatch.setattr(keyword_lance, "PREFILTER_DOCS", 0)
    threads: list[str] = []
    real = keyword_lance.search

    def spy(*a: object, **k: object) -> list[tuple[int, float]]:
        threads.append(threading.current_thread().name)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(retriever_mod, "index_keyword_search", spy)
    scope = {"tags": ("red",)} if wide else {}
    queries = ["ZX-4417", "rainfall valley section part", "running"]
    got = [_hits(store, emb, q, 10, k=10, mode="hybrid", **scope) for q in queries]
    assert len(threads) == 3 and all(n.startswith("kb-keyword") for n in threads)
    monkeypatch.setattr(retriever_mod.Retriever, "_index_leg_threadable", lambda self: False)
    threads.clear()
    want = [_hits(store, emb, q, 10, k=10, mode="hybrid", **scope) for q in queries]
    assert got == want and all(len(g) == 10 for g in got)
    assert len(threads) == 3 and not any(n.startswith("kb-keyword") for n in threads)


@pytest.mark.parametrize("prefilter", [True, False])
@pytest.mark.parametrize("scope", [{"tags": ("red",)}, {"types": ("txt",)}, {"paths": ("d4.md",)}])
def test_scoped_search_returns_k_hits_in_scope(
    kb: tuple[Store, BowEmbedder],
    scope: dict[str, tuple[str, ...]],
    prefilter: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Narrow scopes prefilter the index, wide ones (forced here) over-fetch and keep
    the in-scope rows: both return ``k`` hits, all in scope, in the same order."""
    from kb.search import keyword_lance

    store, emb = kb
    keyword_index.build(store)
    query = "rainfall valley section part"
    monkeypatch.setattr(keyword_lance, "PREFILTER_DOCS", 1000)
    want = _hits(store, emb, query, 10, k=10, **scope)
    if not prefilter:
        monkeypatch.setattr(keyword_lance, "PREFILTER_DOCS", 0)
        monkeypatch.setattr(keyword_lance, "MAX_FETCH", 16)
    got = _hits(store, emb, query, 10, k=10, **scope)
    assert len(got) == 10 and got == want
    from kb.search.filters import allowed_documents

    allowed = allowed_documents(store.conn, SearchOptions(**scope))  # type: ignore[arg-type]
    docs = {
        int(r[0])
        for r in store.conn.execute(
            f"SELECT document_id FROM chunks WHERE id IN ({','.join(map(str, got))})"
        )
    }
    assert allowed is not None and docs <= allowed


def test_stale_index_falls_back_to_fts5_with_a_notice(kb: tuple[Store, BowEmbedder]) -> None:
    store, emb = kb
    keyword_index.build(store)
    add_doc(store, "late.md", ["a late note about quokkas"])
    notes: list[str] = []
    r = Retriever(store, emb, keyword_threshold=10, notify=notes.append)
    hits = r.search("quokkas", SearchOptions(k=3, mode="keyword")).hits
    assert [_text_of(store, h.chunk_id) for h in hits] == ["a late note about quokkas"]
    assert notes == [STALE_NOTICE] and not r.uses_keyword_index()
    r.search("quokkas", SearchOptions(k=3, mode="keyword"))
    assert notes == [STALE_NOTICE]  # once per database state
    assert "out of date" in describe_line(describe(store, 10))


def test_maintain_builds_then_applies_changes(kb: tuple[Store, BowEmbedder]) -> None:
    store, emb = kb
    assert keyword_index.maintain(store, 0) is None
    assert keyword_index.maintain(store, 1000) is None and keyword_index.recorded(store) is None
    assert keyword_index.maintain(store, 10) == "built the keyword index (96 chunks)"
    assert keyword_index.maintain(store, 10) is None  # current
    add_doc(store, "late.md", ["a late note about quokkas", "and wombats"])
    doc = store.conn.execute("SELECT document_id FROM chunks ORDER BY id LIMIT 1").fetchone()[0]
    store.delete_documents([int(doc)])
    note = keyword_index.maintain(store, 10)
    assert note == "keyword index: 2 chunks added, 12 removed"
    assert keyword_index_state(store, 10) == "index"
    top = _hits(store, emb, "quokkas", 10)
    assert [_text_of(store, c) for c in top] == ["a late note about quokkas"]


def test_cli_reindex_keyword_and_status(kb: tuple[Store, BowEmbedder]) -> None:
    store, _ = kb
    store.close()
    Path(os.environ["KB_CONFIG"]).write_text(
        "[search]\nkeyword_index_threshold = 10\n", encoding="utf-8"
    )
    runner = CliRunner()
    r = runner.invoke(app, ["status"])
    assert r.exit_code == 0, r.output
    assert "the index is not built: `kb reindex --keyword`" in r.output
    r = runner.invoke(app, ["reindex", "--keyword"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("built the keyword index over 96 chunks in ")
    r = runner.invoke(app, ["status"])
    assert "keyword search: LanceDB full-text index (96 chunks" in r.output
    r = runner.invoke(app, ["search", "ZX-4417", "--mode", "keyword", "--json"])
    assert r.exit_code == 0, r.output
    assert "ZX-4417" in r.output


def test_doctor_notes_and_repairs_a_stale_keyword_index(kb: tuple[Store, BowEmbedder]) -> None:
    from kb.store.doctor import check, repair

    store, emb = kb
    assert not check(store).keyword_index_stale  # none built: nothing to say
    keyword_index.build(store)
    add_doc(store, "late.md", ["a late note about quokkas"])
    embed_pending(store, emb)
    report = check(store)
    assert report.keyword_index_stale and report.clean  # a note, not a fault
    repair(store, report)
    assert report.repaired == ["rebuilt the keyword index"]
    assert keyword_index.is_current(store)


def test_the_index_searches_the_spellings_fts5_lists(kb: tuple[Store, BowEmbedder]) -> None:
    """This index's words are not listed; FTS5's are (it is kept current too): a word
    the notes write hyphenated and a typo in a short query are found through the index
    as through FTS5, and the correction is reported."""
    store, emb = kb
    mail = add_doc(store, "mail.md", ["Send the invoice by e-mail to the landlord."])[0]
    trip = add_doc(store, "trip.md", ["Renew the passport before the trip."])[0]
    embed_pending(store, emb)
    keyword_index.build(store)
    assert _hits(store, emb, "email", 10)[:1] == [mail]
    r = Retriever(store, emb, keyword_threshold=10, notify=lambda m: None)
    assert r.uses_keyword_index()
    for mode in ("keyword", "hybrid"):
        res = r.search("pasport", SearchOptions(k=5, mode=mode, min_score=-1))
        assert res.hits[0].chunk_id == trip and res.corrections == {"pasport": ["passport"]}


def test_the_index_searches_a_hyphenated_word_joined(kb: tuple[Store, BowEmbedder]) -> None:
    store, emb = kb
    plain = add_doc(store, "plain.md", ["My email address changed in May."])[0]
    embed_pending(store, emb)
    keyword_index.build(store)
    assert _hits(store, emb, "e-mail", 10)[:1] == [plain]
