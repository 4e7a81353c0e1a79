"""Chunk-to-support matching: every rule by hand, and the document-span fallback."""

from __future__ import annotations

import pytest

from eval.matching import (
    ResolvedSupport,
    fold,
    heading_parts,
    matched_supports,
    matches,
    span_overlap_ok,
)
from tests.eval.builders import hit, sup


def test_fold_and_heading_parts() -> None:
    assert fold("  A  Region\n in\tFRANCE ") == "a region in france"
    assert fold("ﬁne") == "fine"  # NFKC: the ligature becomes two letters
    assert heading_parts("Normans  >  Etymology ") == ("Normans", "Etymology")
    assert heading_parts("A >> B") == ("A", "B")
    assert heading_parts(None) == () and heading_parts("") == ()


def test_path_must_be_equal() -> None:
    h = hit("wiki/Normans.md", "text")
    assert matches(h, sup("wiki/Normans.md"))
    assert not matches(h, sup("wiki/normans.md"))  # paths are case-sensitive
    assert not matches(h, sup("Normans.md"))
    # a resolved support compares against its KB path (prefix mapping)
    assert matches(hit("corpus/wiki/a.md"), sup("wiki/a.md"), ResolvedSupport("corpus/wiki/a.md"))


@pytest.mark.parametrize(
    ("chunk_heading", "support_heading", "ok"),
    [
        ("Normans > Etymology", "Normans > Etymology", True),  # equal
        ("Normans > Etymology > Origin", "Normans > Etymology", True),  # deeper chunk
        ("Normans  >Etymology", "Normans > Etymology", True),  # white space normalised
        ("Normans", "Normans > Etymology", False),  # chunk is shallower
        ("Normans > Etymology2", "Normans > Etymology", False),  # part by part, not chars
        ("normans > etymology", "Normans > Etymology", False),  # case kept
        ("", "Normans", False),
    ],
)
def test_heading_prefix(chunk_heading: str, support_heading: str, ok: bool) -> None:
    assert matches(hit("a.md", "t", chunk_heading), sup("a.md", heading=support_heading)) is ok


def test_snippet_is_folded() -> None:
    h = hit("a.md", "Normandy is a region\nin   FRANCE, by the sea.")
    assert matches(h, sup("a.md", snippet="a Region in France"))
    assert not matches(h, sup("a.md", snippet="a region of France"))


def test_spans_overlap() -> None:
    pdf = hit("p.pdf", "t", pages=(2, 3))
    assert matches(pdf, sup("p.pdf", page=3)) and matches(pdf, sup("p.pdf", page=2))
    assert not matches(pdf, sup("p.pdf", page=4))
    assert not matches(hit("p.pdf", "t"), sup("p.pdf", page=1))  # chunk has no pages
    md = hit("a.md", "t", lines=(10, 20))
    assert matches(md, sup("a.md", lines=(20, 25)))  # touching at line 20 overlaps
    assert not matches(md, sup("a.md", lines=(21, 25)))
    wav = hit("a.wav", "t", seconds=(30.0, 60.0))
    assert matches(wav, sup("a.wav", seconds=(12.0, 30.5)))
    assert not matches(wav, sup("a.wav", seconds=(0.0, 29.9)))


def test_all_given_fields_must_hold() -> None:
    h = hit("a.md", "the answer is here", "A > B", lines=(5, 9))
    assert matches(h, sup("a.md", heading="A", snippet="answer", lines=(1, 5)))
    assert not matches(h, sup("a.md", heading="A", snippet="answer", lines=(1, 4)))
    assert not matches(h, sup("a.md", heading="C", snippet="answer"))


def test_matched_supports_lists_indexes() -> None:
    h = hit("a.md", "alpha beta")
    s = (sup("a.md", snippet="alpha"), sup("b.md"), sup("a.md", snippet="beta"))
    assert matched_supports(h, s, None) == [0, 2]


@pytest.mark.parametrize(
    ("chunk", "snippet", "ok"),
    [
        ((0, 100), (10, 30), True),  # chunk contains the snippet: overlap 20 >= 0.5 * 20
        ((0, 100), (90, 110), True),  # half of the snippet (10 of 20) in the chunk
        ((0, 100), (95, 115), False),  # 5 of 20 chars: the next chunk holds the larger part
        ((100, 200), (95, 115), True),  # ... and it matches (15 >= 10)
        ((40, 60), (0, 300), True),  # a short chunk inside a long snippet: 20 >= 0.5 * 20
        ((0, 50), (50, 60), False),  # touching is not overlapping
    ],
)
def test_span_overlap_rule(chunk: tuple[int, int], snippet: tuple[int, int], ok: bool) -> None:
    assert span_overlap_ok(chunk, snippet) is ok


def test_span_mode_matches_a_cut_snippet() -> None:
    s = sup("a.md", heading="Doc > Part", snippet="quick brown fox jumps")
    # the chunker cut the snippet after "quick brown": neither chunk contains it
    first = hit("a.md", "the quick brown", "Doc > Part", chars=(0, 15))
    second = hit("a.md", "fox jumps over", "Doc > Part", chars=(16, 30))
    located = ResolvedSupport("a.md", doc_span=(4, 25))  # "quick brown fox jumps"
    assert not matches(first, s, located, "strict") and not matches(second, s, located, "strict")
    # span mode: first shares 11 chars, >= 0.5 * min(21, 15) = 7.5 -> match;
    # second shares 9 chars, >= 0.5 * min(21, 14) = 7 -> match (most of it is evidence)
    assert matches(first, s, located, "span")
    assert matches(second, s, located, "span")
    # a long chunk holding only the tail: 9 < 0.5 * min(21, 84) = 10.5 -> no match
    long_tail = hit("a.md", "fox jumps over " + "x" * 69, "Doc > Part", chars=(16, 100))
    assert not matches(long_tail, s, located, "span")
    # without a located span the strict rule still applies
    assert not matches(first, s, ResolvedSupport("a.md"), "span")
