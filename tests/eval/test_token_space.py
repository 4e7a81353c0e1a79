"""Character spans -> token intervals (eval.token_space), by hand with the regex tokenizer
(every word and punctuation mark one token)."""

from __future__ import annotations

import sqlite3

from eval.matching import ResolvedSupport
from eval.token_space import TokenSpace, rebuild_text
from ingest.tokens import RegexTokenizer

TEXT = "Alpha beta. Gamma delta."  # tokens: Alpha(0) beta(6) .(10) Gamma(12) delta(18) .(23)


def conn_with(chunks: list[tuple[int, int, str]]) -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE documents (id INTEGER PRIMARY KEY, path TEXT)")
    c.execute(
        "CREATE TABLE chunks (document_id INT, ord INT, char_start INT, char_end INT, text TEXT)"
    )
    c.execute("CREATE VIEW live_chunks AS SELECT * FROM chunks")  # one chunking, live
    c.execute("INSERT INTO documents VALUES (1, 'd')")
    c.executemany(
        "INSERT INTO chunks VALUES (1, ?, ?, ?, ?)",
        [(i, s, e, t) for i, (s, e, t) in enumerate(chunks)],
    )
    return c


def test_rebuild_text_places_exact_slices_and_joined_pieces() -> None:
    # exact slices overlap consistently; 9..12 is a gap (spaces)
    assert rebuild_text([(0, 5, "Hello"), (3, 9, "lo you"), (12, 14, "ok")]) == "Hello you   ok"
    # a window joined across a 5-character heading: head at the start, tail at the end
    assert rebuild_text([(0, 15, "ab\n\nxy\n\ncd")]) == "ab\n\nxy\n\n     cd"
    # an exact chunk wins over a joined one where both place a character
    assert rebuild_text([(0, 9, "ab\n\ncd"), (4, 9, "HH cd")]) == "ab\n\nHH cd"
    assert rebuild_text([]) == ""


def test_spans_map_to_tokens_by_their_first_character() -> None:
    space = TokenSpace(conn_with([(0, 11, TEXT[:11]), (12, 24, TEXT[12:])]), RegexTokenizer())
    assert space.starts("d") == [0, 6, 10, 12, 18, 23]
    assert space.interval("d", (0, 11)) == (0, 3)  # Alpha beta .
    # "eta. Gamm": "." (10) and "Gamma" (12) start inside it, "beta" (6) does not
    assert space.interval("d", (7, 17)) == (2, 4)
    assert space.interval("d", (12, 24)) == (3, 6)
    assert space.interval("d", (1, 3)) == (1, 1)  # inside one token: empty
    assert space.interval("nope", (0, 3)) is None
    assert space.chunks("d") == [(0, 3), (3, 6)]
    # evidence "beta. Gamma" (6..17) lies across both chunks
    r = space.annotate_support(ResolvedSupport("d", True, (6, 17), "span"))
    assert (r.doc_tokens, r.chunk_tokens) == ((1, 4), ((0, 3), (3, 6)))
    # another chunking of the same text: one chunk, same token starts
    one = space.with_chunking({"d": [(0, 24)]})
    assert one.chunks("d") == [(0, 6)] and one._starts is space._starts
    # an unlocated support is left as it is
    assert space.annotate_support(ResolvedSupport("d")) == ResolvedSupport("d")


def test_given_texts_win_over_stored_chunks() -> None:
    space = TokenSpace(conn_with([(0, 5, "Alpha")]), RegexTokenizer(), texts={"d": TEXT})
    assert space.text("d") == TEXT and space.chunks("d") == [(0, 1)]
