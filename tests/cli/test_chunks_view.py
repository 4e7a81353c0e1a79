"""`kb chunks show`'s segments: built from offsets alone, they tile the document."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kb.cli.chunks_render import html_page, terminal_text, to_json
from kb.cli.chunks_view import Chunking, EvidenceMark, segments, summarize

TEXT = "# T\n\nAlpha beta. Gamma delta.\n\nEpsilon zeta eta."


@st.composite
def doc_and_spans(draw):  # type: ignore[no-untyped-def]
    text = draw(st.text(min_size=1, max_size=80))
    n = len(text)
    raw = draw(st.lists(st.tuples(st.integers(-3, n + 3), st.integers(-3, n + 3)), max_size=8))
    ev = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=3))
    marks = [EvidenceMark(f"q{i}", a, b) for i, (a, b) in enumerate(ev)]
    return text, raw, marks


@given(doc_and_spans())
def test_segments_tile_the_text_for_any_offsets(case) -> None:  # type: ignore[no-untyped-def]
    text, spans, marks = case
    segs = segments(text, spans, marks)
    assert "".join(s.text for s in segs) == text
    assert all(a.end == b.start for a, b in zip(segs, segs[1:], strict=False))


def test_gaps_overlaps_and_evidence() -> None:
    # chunk 0 = "Alpha beta." (5..16), chunk 1 = "beta. Gamma delta." (11..29): overlap
    # 11..16; "# T\n\n" (0..5) and the last paragraph (31..48) are gaps
    spans = [(5, 16), (11, 29)]
    ev = [EvidenceMark("q1", 17, 22)]  # "Gamma", inside chunk 1 only
    segs = segments(TEXT, spans, ev)
    assert [(s.text, s.chunks) for s in segs if s.overlap] == [("beta.", (0, 1))]
    assert [s.text.strip() for s in segs if s.gap and s.text.strip()] == [
        "# T",
        "Epsilon zeta eta.",
    ]
    assert [s.text for s in segs if s.evidence] == ["Gamma"]
    s = summarize(TEXT, spans, ev)
    # overlap: 5 characters ("beta."); gap: "#T" (2) + "Epsilonzetaeta." (15) = 17
    assert (s.chunks, s.overlap_chars, s.gap_chars, s.split_evidence) == (2, 5, 17, ())
    # evidence "delta.\n\nEpsilon" (23..38) runs past chunk 1: split
    assert summarize(TEXT, spans, [EvidenceMark("q2", 23, 38)]).split_evidence == ("q2",)


def test_renderings_keep_the_text_and_add_only_markers() -> None:
    col = Chunking("A", ((5, 16), (11, 29)))
    ev = [EvidenceMark("q1", 17, 22)]
    plain = terminal_text(TEXT, col, ev).plain
    assert re.sub(r"⟦\d+|\d+⟧|‹E\d+|E\d+›", "", plain) == TEXT
    assert "⟦1Alpha ⟦2beta.1⟧ ‹E1GammaE1› delta.2⟧" in plain
    page = html_page("notes/t.md", TEXT, [col, Chunking("B", ((0, 48),))], ev)
    assert page.count("<pre>") == 2 and 'class="ov"' in page and "gap" in page
    data = to_json("notes/t.md", TEXT, [col], ev)
    segs = data["columns"][0]["segments"]
    assert "".join(TEXT[s["start"] : s["end"]] for s in segs) == TEXT
