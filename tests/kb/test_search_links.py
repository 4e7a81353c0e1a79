"""Title links (kb.search.links): which documents a text names by title, and where
their chunks are placed. Real SQLite for the titles; fakes for the ranking."""

from __future__ import annotations

from pathlib import Path

from kb.search.fusion import Fused
from kb.search.links import (
    LINK,
    MAX_SHARED,
    POSITION,
    TitleIndex,
    linked,
    load_titles,
    title_keys,
    titles_state,
    words,
)
from kb.store import Store
from kb.types import ChunkDraft, ChunkerInfo, Span


def test_a_title_is_matched_by_its_words_and_by_its_part_before_a_comma() -> None:
    assert title_keys("Concord, California") == {"Concord California", "Concord"}
    assert title_keys("Mercury (planet)") == {"Mercury planet", "Mercury"}
    assert title_keys("2011–12 VCU Rams men's basketball team") == {
        "2011 12 VCU Rams men's basketball team"
    }
    # a title that starts in lower case, or one short word, is no name
    assert title_keys("notes") == set() and title_keys("UK") == set()
    assert words("Rua dos Remédios, 42") == ["Rua", "dos", "Remédios", "42"]


def test_a_text_names_a_document_by_its_title_case_as_written() -> None:
    index = TitleIndex.of([(1, "Slade"), (2, "For Against"), (3, "Concord, California")])
    text = '"All Join Hands" is a song by the British rock band Slade, released in 1984.'
    assert index.named(text) == [1]
    assert index.named("a slade of turf") == []  # case as written: no name
    assert index.named("Are Local H and For Against both from the United States?") == [2]
    assert index.named("for against the wind") == []
    assert index.named("It serves Concord, Clayton and Pleasant Hill.") == [3]
    # in the order of first mention
    assert index.named("So Concord has more people than the band Slade sold records.") == [3, 1]


def test_a_one_word_title_is_no_name_at_the_start_of_a_sentence() -> None:
    index = TitleIndex.of([(1, "Work"), (2, "Slade")])
    assert index.named("I left Work early.") == [1]
    for text in ("Work starts at 9.", "Done. Work is hard.", "- Work: call Tom", '"Work" ends'):
        assert index.named(text) == [], text
    assert index.named('The song "Slade" is a B-side.') == [2]
    assert TitleIndex.of([(3, "For Against")]).named("For Against is a band.") == [3]


def test_a_title_many_documents_share_names_none() -> None:
    shared = [(i, "Meeting notes") for i in range(MAX_SHARED + 1)]
    index = TitleIndex.of([*shared, (99, "Priya Shah")])
    assert index.named("Meeting notes with Priya Shah") == [99]
    assert TitleIndex.of(shared[:MAX_SHARED]).named("Meeting notes") == list(range(MAX_SHARED))


def test_the_longest_title_at_a_place_comes_first() -> None:
    index = TitleIndex.of([(1, "New York"), (2, "New York City")])
    assert index.named("She moved to New York City in 1990.") == [2, 1]


def _fused(*ids: int) -> list[Fused]:
    return [Fused(i, 1.0 - i / 100) for i in ids]


def test_a_named_documents_chunk_is_placed_third() -> None:
    fused = _fused(1, 2, 3, 4, 5)
    doc_of = {1: 10, 2: 20, 3: 30, 4: 40, 5: 50}
    # ranked lower: its best-ranked chunk moves up to rank 3, keeping its legs' ranks
    fused[4].ranks = {"vector": 7}
    out = linked(fused, [(50, 1)], doc_of, lambda d: None, 2)
    assert [f.id for f in out] == [1, 2, 5, 3, 4]
    assert out[2].ranks == {"vector": 7, LINK: 1} and out[2].fused == 0.95
    assert out[2].score == out[1].score  # scores fall with the rank
    # not ranked: its closest chunk is inserted; one the closest cannot give is skipped
    out = linked(_fused(1, 2, 3), [(60, 0), (70, 0)], {1: 10, 2: 20, 3: 30}, {60: 6}.get, 2)
    assert [f.id for f in out] == [1, 2, 6, 3] and out[2].ranks == {LINK: 0}


def test_a_document_in_the_first_two_hits_is_not_placed_again() -> None:
    fused = _fused(1, 2, 3, 4)
    doc_of = {1: 10, 2: 20, 3: 30, 4: 40}
    assert [f.id for f in linked(fused, [(20, 0)], doc_of, lambda d: 99, 2)] == [1, 2, 3, 4]
    # the limit counts placed documents, in the order named
    out = linked(fused, [(40, 0), (30, 1), (60, 1)], doc_of, lambda d: 6, 2)
    assert [f.id for f in out] == [1, 2, 4, 3]
    assert [f.id for f in linked(fused, [(60, 0)], doc_of, lambda d: 6, 0)] == [1, 2, 3, 4]
    # a list shorter than the position gets it at its end
    assert [f.id for f in linked(_fused(1), [(60, 0)], {1: 10}, lambda d: 6, 2)] == [1, 6]
    assert POSITION == 3


def _doc(store: Store, path: str, heading: tuple[str, ...]) -> None:
    draft = ChunkDraft("Plumber, mornings only.", heading, Span(line_start=3, line_end=3), 0, 1, 5)
    store.save_document(
        root="/r",
        path=path,
        doc_type="md",
        content_hash=path,
        size=1,
        mtime=0.0,
        chunks=[draft],
        chunker=ChunkerInfo("t", "1", {}),
    )


def test_titles_are_read_from_the_store_and_follow_its_documents(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "kb")
    try:
        _doc(store, "tom.md", ("Tom Baxter", "Rates"))
        _doc(store, "plain.txt", ())
        state = titles_state(store.conn, None)
        assert load_titles(store.conn, None).keys == {"Tom Baxter": frozenset({1})}
        # a write that touches no document (an eval run's rows) leaves the state
        with store.conn:
            store.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('x', 'y')")
        assert titles_state(store.conn, None) == state
        _doc(store, "ann.md", ("Ann Lee",))
        assert titles_state(store.conn, None) != state
        assert sorted(load_titles(store.conn, None).keys) == ["Ann Lee", "Tom Baxter"]
    finally:
        store.close()


def test_a_negative_links_setting_is_a_one_line_error() -> None:
    import pytest

    from kb.errors import UsageError
    from kb.search.options import SearchOptions

    with pytest.raises(UsageError, match=r"\[search\] links -1: must be 0 or more"):
        SearchOptions(links=-1)
    assert SearchOptions(links=0).links == 0
