"""The strict streaming citation parser: unit cases and hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.rag.citations import CitationParser, parse_citations
from kb.rag.record import is_refusal


def ns(text: str, k: int = 5) -> list[tuple[int, bool]]:
    return [(c.n, c.valid) for c in parse_citations(text, k)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paris is in France [#1].", [(1, True)]),
        ("A [#1][#2] and B [#3].", [(1, True), (2, True), (3, True)]),
        ("x[#12]y", [(12, False)]),  # glued to prose still counts; 12 > k
        ("[#01]", [(1, True)]),  # leading zeros: the number is 1
        ("[[#2]]", [(2, True)]),  # the inner bracket starts a fresh citation
        ("[#0] [#6]", [(0, False), (6, False)]),  # outside 1..k
        ("[#1", []),  # never closed
    ],
)
def test_counts_only_hash_digits_in_brackets(text: str, expected: list[tuple[int, bool]]) -> None:
    assert ns(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "see [1] and [2]",
        "see [# 1]",
        "see (#1) or #1 or # 1",
        "see [#1 ] and [#1,2] and [#x]",
        "see [#] and [#-1] and [#1.5]",
        "inline `[#1]` code",
        "double ``a ` [#1]`` code",
        "```\n[#1]\n```",
        "~~~python\nprint('[#1]')\n~~~",
        "   ```\n[#2]\n   ```",  # fences may be indented up to three spaces
        "unclosed `code [#1] stays code",  # strict: maybe-code never counts
        "```\nunclosed fence\n[#1]",
        "[#1234567890]",  # too many digits
        "[#١]",  # non-ASCII digits
    ],
)
def test_not_citations(text: str) -> None:
    assert ns(text) == []


def test_code_ends_and_prose_citations_count_again() -> None:
    text = "a `[#1]` b [#2]\n```\n[#3]\n```\nc [#4] ~~~ d [#5]"
    assert ns(text) == [(2, True), (4, True), (5, True)]


def test_inline_code_needs_same_length_run_to_close() -> None:
    assert ns("``a`[#1]``[#2]") == [(2, True)]


def test_inline_code_ends_at_blank_line() -> None:
    assert ns("`open\n\nnext paragraph [#3]") == [(3, True)]
    assert ns("`open\nsame paragraph [#3]") == []


def test_fence_closes_only_with_same_char_at_least_as_long_and_nothing_after() -> None:
    assert ns("````\n```\n[#1]\n````\n[#2]") == [(2, True)]  # ``` is too short to close ````
    assert ns("```\n~~~\n[#1]\n```\n[#2]") == [(2, True)]  # ~~~ cannot close ```
    assert ns("```\n```x [#1]\n```\n[#2]") == [(2, True)]  # text after the run: no close
    assert ns("x ```[#1]``` y [#2]") == [(2, True)]  # not at line start: inline code


def test_offsets_point_at_the_citation() -> None:
    text = "ab [#3] cd [#10]"
    cites = parse_citations(text, 10)
    assert [text[c.start : c.end] for c in cites] == ["[#3]", "[#10]"]
    assert all(c.valid for c in cites)


def test_split_mid_citation_is_reported_when_closed() -> None:
    p = CitationParser(20)
    assert p.feed("see [#1") == []
    got = p.feed("2] more")
    assert [(c.n, c.start, c.end) for c in got] == [(12, 4, 9)]
    assert p.feed("") == []
    assert p.finish() == []
    assert [c.n for c in p.citations] == [12]


def test_split_backtick_runs_across_pieces() -> None:
    p = CitationParser(5)
    for piece in ["``", "`\n", "[#1]\n``", "`\n[#2]"]:
        p.feed(piece)
    assert [(c.n, c.valid) for c in p.citations] == [(2, True)]


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("not in context", True),
        ("Not in context.", True),
        ("  NOT IN CONTEXT!\n", True),
        ('"Not  in\ncontext"', True),
        ("The answer is not in context.", False),
        ("not in context [#1]", False),
        ("", False),
    ],
)
def test_refusal_phrase_matching(text: str, refused: bool) -> None:
    assert is_refusal(text, "not in context") is refused


# -- properties --------------------------------------------------------------------------
ATOMS = st.sampled_from(
    [*"[]#()a.", "`", "```", "~~~", "1", "2", "9", "12", "0", "Paris", "[#", "[#1]", "[#3]"]
    + ["[#7]", "`x`", "\n", " ", "\n\n", "   "]
)
TEXTS = st.lists(ATOMS, max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    text=TEXTS,
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30),
    k=st.integers(min_value=1, max_value=8),
)
def test_any_split_gives_the_same_citations(text: str, cuts: list[int], k: int) -> None:
    whole = parse_citations(text, k)
    bounds = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    p = CitationParser(k)
    streamed = [c for piece in pieces for c in p.feed(piece)]
    p.finish()
    assert streamed == whole == p.citations


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, k=st.integers(min_value=1, max_value=8))
def test_every_citation_is_literal_and_validity_follows_k(text: str, k: int) -> None:
    for c in parse_citations(text, k):
        assert text[c.start : c.end] == f"[#{text[c.start + 2 : c.end - 1]}]"
        assert int(text[c.start + 2 : c.end - 1]) == c.n
        assert c.valid == (1 <= c.n <= k)


@settings(max_examples=200, deadline=None)
@given(prose=st.lists(st.sampled_from(["Paris", " ", "is", "[#2]", "(#1)", "[1]"]), max_size=20))
def test_citations_inside_fences_never_count(prose: list[str]) -> None:
    body = "".join(prose).replace("`", "")
    assert parse_citations(f"```\n{body}\n```\n", 5) == []
    assert parse_citations(f"`{body}`", 5) == []
