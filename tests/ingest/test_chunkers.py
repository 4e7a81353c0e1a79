"""Chunkers: unit tests, hypothesis properties (regex tokens) and the real tokenizer."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from ingest.chunkers import CHUNKERS, make_chunker
from ingest.chunkers.counting import SliceCounter
from ingest.chunkers.parts import chunk_text, count_parts, joiner, slice_counters
from ingest.loaders import LoadContext, MarkdownLoader, PdfLoader, TextLoader, loader_for
from ingest.tokens import (
    HFTokenizer,
    RegexTokenizer,
    TokenCounter,
    Words,
    _is_additive,
    default_counter,
    word_spans,
)
from kb.backends.bundled import embedding_model_dir
from kb.config import Settings
from kb.errors import ConfigError, UsageError
from kb.types import ChunkDraft, LoadedDocument, Section, Span

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
REGEX = RegexTokenizer()


def configured(
    max_tokens: int = 200,
    min_tokens: int = 40,
    size: int = 128,
    overlap: int = 32,
    segment_seconds: float = 30.0,
) -> Settings:
    s = Settings()
    return replace(
        s,
        chunkers=replace(
            s.chunkers,
            structure=replace(s.chunkers.structure, max_tokens=max_tokens, min_tokens=min_tokens),
            window=replace(s.chunkers.window, size=size, overlap=overlap),
        ),
        whisper=replace(s.whisper, segment_seconds=segment_seconds),
    )


def check_invariants(
    doc: LoadedDocument, chunks: list[ChunkDraft], limit: int, source: str | None
) -> None:
    """Properties every chunker must keep (see the module docstrings of the chunkers)."""
    sep = joiner(doc)
    starts = [c.char_start for c in chunks]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)  # in order
    for c in chunks:
        assert 0 < c.token_count <= limit
        touched = [
            s for s in doc.sections if s.char_start < c.char_end and c.char_start < s.char_end
        ]
        assert touched, c
        pieces = [
            s.text[
                max(c.char_start, s.char_start) - s.char_start : min(c.char_end, s.char_end)
                - s.char_start
            ]
            for s in touched
        ]
        assert c.text == sep.join(pieces)  # source text only, nothing injected
        assert c.heading_path == touched[0].heading_path
        if len(touched) == 1 and source is not None:
            assert source[c.char_start : c.char_end] == c.text
        first, last = touched[0], touched[-1]
        if first.span.line_start is not None:
            assert c.span.line_start is not None and c.span.line_end is not None
            assert first.span.line_start <= c.span.line_start <= c.span.line_end
            assert c.span.line_end <= (last.span.line_end or 0)
            if source is not None:
                assert c.span.line_start == source.count("\n", 0, c.char_start) + 1
                assert c.span.line_end == source.count("\n", 0, c.char_end - 1) + 1
        if first.span.page_start is not None:
            assert (c.span.page_start, c.span.page_end) == (
                first.span.page_start,
                last.span.page_end,
            )
        if first.span.seconds_start is not None:
            assert (c.span.seconds_start, c.span.seconds_end) == (
                first.span.seconds_start,
                last.span.seconds_end,
            )
    for s in doc.sections:  # coverage: every non-space character is in some chunk
        for k, ch in enumerate(s.text):
            if not ch.isspace():
                pos = s.char_start + k
                assert any(c.char_start <= pos < c.char_end for c in chunks), (s, k)


# ---------------------------------------------------------------- generated documents

WORD = st.text(alphabet="abcdeféßxyz0123", min_size=1, max_size=8)
TOKEN = st.one_of(WORD, WORD, WORD, st.sampled_from([".", ",", "!", "?", "-", "--", ";", "...."]))
LINE = st.lists(TOKEN, min_size=1, max_size=25).map(" ".join)
PARA = st.lists(LINE, min_size=1, max_size=4).map("\n".join)
BODY = st.lists(PARA, min_size=1, max_size=4).map("\n\n".join)
HEADINGS = [(), ("A",), ("A", "B"), ("C",)]


@st.composite
def documents(draw: st.DrawFn) -> tuple[LoadedDocument, str]:
    """A document and its source text, laid out the way the loaders lay them out."""
    doc_type = draw(st.sampled_from(["md", "txt", "pdf", "audio"]))
    bodies = draw(st.lists(BODY, min_size=1, max_size=6))
    sections: list[Section] = []
    src = ""
    if doc_type in ("md", "txt"):
        for body in bodies:
            path = draw(st.sampled_from(HEADINGS)) if doc_type == "md" else ()
            if doc_type == "md" and draw(st.booleans()):
                src += f"{'#' * max(1, len(path))} {path[-1] if path else 'H'}\n\n"
            elif src:
                src += "\n" * draw(st.integers(1, 2))
            line = src.count("\n") + 1
            cs = len(src)
            src += body + "\n"
            span = Span(line_start=line, line_end=line + body.count("\n"))
            sections.append(Section(body, path, span, cs, cs + len(body)))
    elif doc_type == "pdf":
        page = 0
        for body in bodies:
            page += draw(st.integers(0 if page else 1, 2))  # sections of one page too
            cs = len(src) + (2 if src else 0)
            src = f"{src}\n\n{body}" if src else body
            sections.append(
                Section(body, (), Span(page_start=page, page_end=page), cs, cs + len(body))
            )
    else:
        t = 0.0
        for body in bodies:
            text = " ".join(body.split())
            dur = draw(st.floats(0.0, 12.0))
            cs = len(src) + (1 if src else 0)
            src = f"{src} {text}" if src else text
            span = Span(seconds_start=t, seconds_end=round(t + dur, 3))
            sections.append(Section(text, (), span, cs, cs + len(text)))
            t = round(t + dur, 3)
    return LoadedDocument(path="g", doc_type=doc_type, sections=sections), src


@hsettings(max_examples=80, deadline=None)
@given(documents(), st.integers(8, 60), st.integers(0, 30))
def test_structure_properties(
    doc_src: tuple[LoadedDocument, str], max_tokens: int, min_tokens: int
) -> None:
    doc, src = doc_src
    min_tokens = min(min_tokens, max_tokens)
    chunker = make_chunker(
        "structure", configured(max_tokens, min_tokens, segment_seconds=20.0), REGEX
    )
    chunks = chunker.chunk(doc)
    check_invariants(doc, chunks, max_tokens, src)
    for c in chunks:
        assert c.token_count == REGEX.count(c.text)
        touched = [
            s for s in doc.sections if s.char_start < c.char_end and c.char_start < s.char_end
        ]
        assert len({s.heading_path for s in touched}) == 1  # never across headings
        if doc.doc_type == "pdf":
            assert len({s.span.page_start for s in touched}) == 1  # never across pages
        if doc.doc_type == "audio" and len(touched) > 1:
            assert (c.span.seconds_end or 0) - (c.span.seconds_start or 0) <= 20.0


@hsettings(max_examples=80, deadline=None)
@given(documents(), st.integers(8, 60), st.floats(0.0, 0.9))
def test_window_properties(doc_src: tuple[LoadedDocument, str], size: int, frac: float) -> None:
    doc, src = doc_src
    overlap = int(size * frac)
    chunks = make_chunker("window", configured(size=size, overlap=overlap), REGEX).chunk(doc)
    check_invariants(doc, chunks, size, src)
    assert all(c.token_count == REGEX.count(c.text) for c in chunks)
    total = sum(REGEX.count(s.text) for s in doc.sections)
    if total <= size:
        assert len(chunks) == 1
    else:  # regex tokens are additive: every window but the last is full
        assert all(c.token_count == size for c in chunks[:-1])


# ---------------------------------------------------------------- unit tests


def test_structure_on_demo_note(ctx: LoadContext) -> None:
    path = DEMO / "notes" / "sourdough.md"
    source = path.read_text(encoding="utf-8")
    doc = MarkdownLoader().load(path, "sourdough.md", ctx)
    chunks = make_chunker("structure", configured(), REGEX).chunk(doc)
    check_invariants(doc, chunks, 200, source)
    # each section is small enough to be one chunk, and no two headings are merged
    assert [c.heading_path for c in chunks] == [s.heading_path for s in doc.sections]
    assert all("#" not in c.text for c in chunks)  # headings are not injected


def test_long_section_splits_at_paragraphs_then_sentences() -> None:
    para = " ".join(f"w{i}" for i in range(30)) + "."  # 31 regex tokens
    text = "\n\n".join([para] * 5)
    doc = LoadedDocument("x.txt", "txt", [Section(text, (), Span(1, 9), 0, len(text))])
    chunks = make_chunker("structure", configured(70, 0), REGEX).chunk(doc)
    assert [c.token_count for c in chunks] == [62, 62, 31]  # two paragraphs per chunk
    assert [(c.span.line_start, c.span.line_end) for c in chunks] == [(1, 3), (5, 7), (9, 9)]
    sentences = " ".join(["One two three four five six seven eight nine."] * 6)  # 10 tokens each
    doc = LoadedDocument("y.txt", "txt", [Section(sentences, (), Span(1, 1), 0, len(sentences))])
    chunks = make_chunker("structure", configured(25, 0), REGEX).chunk(doc)
    # two sentences per chunk, cut at sentence ends (each chunk after the first repeats
    # the sentence before its cut: 10 tokens, at most half of 25)
    assert [c.token_count for c in chunks] == [20] * 5
    assert all(c.text.startswith("One") and c.text.endswith("nine.") for c in chunks)


def test_a_cut_inside_a_paragraph_repeats_the_last_sentence() -> None:
    sentences = [f"S{k} " + " ".join(f"w{i}" for i in range(8)) + "." for k in range(8)]
    para = " ".join(sentences)  # eight sentences of 10 regex tokens, one paragraph
    doc = LoadedDocument("s.txt", "txt", [Section(para, (), Span(1, 1), 0, len(para))])
    chunks = make_chunker("structure", configured(40, 0), REGEX).chunk(doc)
    check_invariants(doc, chunks, 40, para)
    firsts = [c.text.split()[0] for c in chunks]
    assert firsts == ["S0", "S3", "S6"]  # S3 and S6 are carried over the cut
    assert [c.token_count for c in chunks] == [40, 40, 20]
    for a, b in zip(sentences, sentences[1:], strict=False):  # every pair whole somewhere
        assert any(f"{a} {b}" in c.text for c in chunks), (a, b)


def test_no_sentence_is_carried_over_a_paragraph_break_or_when_long() -> None:
    sent = "One two three four five six seven eight nine."  # 10 regex tokens
    text = " ".join([sent] * 3) + "\n\n" + " ".join([sent] * 3)
    doc = LoadedDocument("p.txt", "txt", [Section(text, (), Span(1, 3), 0, len(text))])
    chunks = make_chunker("structure", configured(40, 0), REGEX).chunk(doc)
    assert [c.token_count for c in chunks] == [30, 30]  # a paragraph each, nothing repeated
    assert "".join(c.text for c in chunks) == text.replace("\n\n", "")
    # a sentence over half the limit is not repeated: 6 of 10 tokens, limit 19
    long = " ".join([sent] * 6)
    doc = LoadedDocument("l.txt", "txt", [Section(long, (), Span(1, 1), 0, len(long))])
    chunks = make_chunker("structure", configured(19, 0), REGEX).chunk(doc)
    assert [c.token_count for c in chunks] == [10] * 6
    # up to half is: limit 20, each chunk after the first repeats the sentence before it
    chunks = make_chunker("structure", configured(20, 0), REGEX).chunk(doc)
    assert [c.token_count for c in chunks] == [20] * 5


def test_the_sentence_carried_is_whole_when_a_colon_cut_it() -> None:
    # the splitter cuts a long line at colons too; the repeat goes back to the sentence
    first = "A1 w w w w w w w w. A2 w w w w w w w w."  # 20 regex tokens
    named = 'The city is named (English: "Capital City").'  # cut after the colon
    after = "B1 w w w w w w w w w w w w w w w."
    line = f"{first} {named} {after}"
    doc = LoadedDocument("c.txt", "txt", [Section(line, (), Span(1, 1), 0, len(line))])
    chunks = make_chunker("structure", configured(45, 0), REGEX).chunk(doc)
    check_invariants(doc, chunks, 45, line)
    assert len(chunks) == 2 and chunks[1].text == f"{named} {after}"
    assert not any(c.text.startswith('"Capital') for c in chunks)


def test_the_walk_back_to_a_sentence_start_stops_at_a_line_break() -> None:
    # a line without a stop (a label) before a long line: the long line's first
    # sentence starts at the line break, and is the one repeated over the cut
    label = "Label line here " + " ".join(["w"] * 20)  # S0 fits after it, S1 does not
    body = " ".join(f"S{k} w w w w w w w w." for k in range(6))
    text = f"{label}\n{body}"
    doc = LoadedDocument("l.txt", "txt", [Section(text, (), Span(1, 2), 0, len(text))])
    chunks = make_chunker("structure", configured(40, 0), REGEX).chunk(doc)
    check_invariants(doc, chunks, 40, text)
    firsts = [c.text.split()[0] for c in chunks]
    assert firsts[:2] == ["Label", "S0"], firsts  # S0 repeated: S0 S1 whole in one chunk
    assert "S1" not in chunks[0].text


def test_a_small_last_piece_merges_without_repeating_the_carried_sentence() -> None:
    sentences = [f"S{k} " + " ".join(f"w{i}" for i in range(8)) + "." for k in range(5)]
    para = " ".join(sentences)  # 50 tokens: [S0..S3], then S3 carried with S4
    doc = LoadedDocument("m.txt", "txt", [Section(para, (), Span(1, 1), 0, len(para))])
    split = make_chunker("structure", configured(40, 0), REGEX).chunk(doc)
    assert [c.text.split()[0] for c in split] == ["S0", "S3"]
    merged = make_chunker("structure", configured(60, 25), REGEX).chunk(doc)
    assert [c.text for c in merged] == [para]  # within the limit: no cut, nothing repeated
    src = f"{para}\n\nTail."
    tail = Section("Tail.", (), Span(3, 3), len(para) + 2, len(src))
    doc = LoadedDocument("m.txt", "txt", [Section(para, (), Span(1, 1), 0, len(para)), tail])
    chunks = make_chunker("structure", configured(40, 25), REGEX).chunk(doc)
    check_invariants(doc, chunks, 40, src)
    assert chunks[-1].text == f"{sentences[3]} {sentences[4]}\n\nTail."
    assert sum(c.text.count("S3 ") for c in chunks) == 2  # carried once, never doubled


def test_hard_split_as_last_resort() -> None:
    text = "a" + "-" * 50  # 51 tokens and no whitespace to split at
    doc = LoadedDocument("z.txt", "txt", [Section(text, (), Span(1, 1), 0, len(text))])
    chunks = make_chunker("structure", configured(20, 0), REGEX).chunk(doc)
    assert [c.token_count for c in chunks] == [20, 20, 11]
    assert "".join(c.text for c in chunks) == text


def test_small_paragraphs_merge_but_not_across_headings(tmp_path: Path, ctx: LoadContext) -> None:
    txt = tmp_path / "t.txt"
    body = "Intro.\n\nshort one.\n\nshort two.\n\n" + "long " * 195 + "\n\nend."
    txt.write_text(body, encoding="utf-8")
    doc = TextLoader().load(txt, "t.txt", ctx)
    chunks = make_chunker("structure", configured(200, 10), REGEX).chunk(doc)
    # tiny paragraphs merge; the 195-token one would push the chunk over 200 tokens
    assert [c.token_count for c in chunks] == [8, 197]
    assert chunks[0].text == "Intro.\n\nshort one.\n\nshort two."
    assert (chunks[0].span.line_start, chunks[0].span.line_end) == (1, 5)
    assert chunks[1].text.endswith("long\n\nend.")  # "end." merged backwards
    md = tmp_path / "m.md"
    md.write_text("# T\n\n## A\n\ntiny a\n\n## B\n\ntiny b\n", encoding="utf-8")
    doc = MarkdownLoader().load(md, "m.md", ctx)
    chunks = make_chunker("structure", configured(200, 50), REGEX).chunk(doc)
    assert [(c.text, c.heading_path) for c in chunks] == [
        ("tiny a", ("T", "A")),
        ("tiny b", ("T", "B")),
    ]


def test_pdf_pages_never_merge(ctx: LoadContext) -> None:
    doc = PdfLoader().load(DEMO / "papers" / "urban-beekeeping.pdf", "b.pdf", ctx)
    chunks = make_chunker("structure", configured(1000, 1000), REGEX).chunk(doc)
    assert [(c.span.page_start, c.span.page_end) for c in chunks] == [(1, 1), (2, 2), (3, 3)]
    windows = make_chunker("window", configured(size=100, overlap=20), REGEX).chunk(doc)
    crossing = [c for c in windows if c.span.page_start != c.span.page_end]
    assert crossing and all(c.span.page_end == (c.span.page_start or 0) + 1 for c in crossing)


def test_audio_groups_by_seconds_and_tokens() -> None:
    secs, src = [], ""
    for i in range(10):  # ten 4-second segments of 5 tokens each
        text = f"segment number {i} is here"
        cs = len(src) + (1 if src else 0)
        src = f"{src} {text}" if src else text
        secs.append(
            Section(
                text, (), Span(seconds_start=4.0 * i, seconds_end=4.0 * i + 4), cs, cs + len(text)
            )
        )
    doc = LoadedDocument("a.wav", "audio", secs)
    chunks = make_chunker("structure", configured(200, 0, segment_seconds=12.0), REGEX).chunk(doc)
    assert [(c.span.seconds_start, c.span.seconds_end) for c in chunks] == [
        (0.0, 12.0),
        (12.0, 24.0),
        (24.0, 36.0),
        (36.0, 40.0),
    ]
    assert (
        chunks[0].text
        == "segment number 0 is here segment number 1 is here segment number 2 is here"
    )
    assert src[chunks[1].char_start : chunks[1].char_end] == chunks[1].text
    by_tokens = make_chunker("structure", configured(10, 0, segment_seconds=100.0), REGEX).chunk(
        doc
    )
    assert [c.token_count for c in by_tokens] == [10] * 5


def test_window_heading_path_is_where_it_starts(tmp_path: Path, ctx: LoadContext) -> None:
    md = tmp_path / "w.md"
    md.write_text(
        "# One\n\n" + "alpha " * 10 + "\n\n## Two\n\n" + "beta " * 10 + "\n", encoding="utf-8"
    )
    doc = MarkdownLoader().load(md, "w.md", ctx)
    chunks = make_chunker("window", configured(size=8, overlap=2), REGEX).chunk(doc)
    # 20 tokens, windows of 8 starting every 6 tokens: 0-7, 6-13, 12-19
    assert [c.heading_path for c in chunks] == [("One",), ("One",), ("One", "Two")]
    assert (chunks[1].span.line_start, chunks[1].span.line_end) == (3, 7)  # crosses the heading
    assert "Two" not in chunks[1].text and "#" not in chunks[1].text


def test_registry_and_bad_settings() -> None:
    assert set(CHUNKERS) == {"structure", "window"}
    with pytest.raises(
        UsageError, match="unknown chunker 'semantic'; valid chunkers: structure, window"
    ):
        make_chunker("semantic", Settings(), REGEX)
    with pytest.raises(ConfigError, match="chunkers.window.overlap"):
        make_chunker("window", configured(size=16, overlap=16), REGEX)
    with pytest.raises(ConfigError, match="chunkers.structure.min_tokens"):
        make_chunker("structure", configured(max_tokens=50, min_tokens=60), REGEX)
    info = make_chunker("window", configured(size=16, overlap=4), REGEX).info
    assert (info.name, info.version, info.params) == (
        "window",
        "2",
        {"size": 16, "overlap": 4, "tokenizer": "regex"},
    )


def test_real_tokenizer_on_a_squad_article(ctx: LoadContext, squad: Path) -> None:
    """Default chunker settings with the bundled embedder's tokenizer: every chunk fits
    the limit and the model's 256-token window, counted by the same tokenizer."""
    path = squad / "corpus" / "wiki" / "Black_Death.md"
    doc = MarkdownLoader().load(path, path.name, ctx)
    counter = default_counter()
    for name, limit in (("structure", 200), ("window", 128)):
        chunker = make_chunker(name, Settings())
        assert chunker.info.params["tokenizer"] == "bundled:all-MiniLM-L6-v2"
        chunks = chunker.chunk(doc)
        assert len(chunks) > len(doc.sections) // 2
        assert all(
            0 < c.token_count <= limit and c.token_count == counter.count(c.text) for c in chunks
        )
        if name == "structure":  # inside one section: a verbatim slice of the file
            source = path.read_text(encoding="utf-8")
            assert all(source[c.char_start : c.char_end] == c.text for c in chunks)


REAL_WORD = st.one_of(
    WORD,
    st.text(alphabet="unbelievablyZXQ-4417éü😀", min_size=8, max_size=40),  # many word pieces
)
REAL_BODY = st.lists(
    st.lists(
        st.lists(REAL_WORD, min_size=1, max_size=30).map(" ".join), min_size=1, max_size=3
    ).map("\n".join),
    min_size=1,
    max_size=3,
).map("\n\n".join)


@hsettings(max_examples=40, deadline=None)
@given(
    st.lists(REAL_BODY, min_size=1, max_size=3),
    st.integers(8, 40),
    st.sampled_from(["structure", "window"]),
)
def test_real_tokenizer_limits_hold(bodies: list[str], limit: int, name: str) -> None:
    """Word-piece counts are not additive when a split falls inside a word; limits hold anyway."""
    src, sections = "", []
    for body in bodies:
        cs = len(src) + (2 if src else 0)
        src = f"{src}\n\n{body}" if src else body
        line = src.count("\n", 0, cs) + 1
        sections.append(Section(body, (), Span(line, line + body.count("\n")), cs, cs + len(body)))
    doc = LoadedDocument("r.txt", "txt", sections)
    chunker = make_chunker(
        name, configured(limit, 0, size=limit, overlap=limit // 4), default_counter()
    )
    chunks = chunker.chunk(doc)
    check_invariants(doc, chunks, limit, src)
    assert all(c.token_count == default_counter().count(c.text) for c in chunks)


# ---------------------------------------------------------------- counting by index
# The chunkers tokenise each section once and count slices from its words
# (ingest.chunkers.counting); these tests pin that this is exactly the same as counting
# every slice afresh, and that the tokenizer is called about once per section.


class ExactOnly:
    """A counter without ``words``: every slice is counted with ``count`` (the reference)."""

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.name = inner.name

    def count(self, text: str) -> int:
        return self.inner.count(text)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return self.inner.offsets(text)


def rows(chunks: list[ChunkDraft]) -> list[tuple[object, ...]]:
    return [
        (c.text, c.heading_path, c.span, c.char_start, c.char_end, c.token_count) for c in chunks
    ]


# pieces that stress word-piece tokenisation: split words, accents (composed and not),
# characters the BERT normalizer drops (controls, zero-width) or spaces out (CJK),
# non-ASCII spaces Python strips but the tokenizer keeps, special-token text, a word over
# the 100-character word limit
FRAGMENTS = [
    "un", "believ", "ably", "the", "cat", "4417", "é", "e\u0301", "\u0301", "ß", "İ", "ﬁ",
    "中", "文", "😀", "[CLS]", "[MASK]", "'s", ".", ",", "-", "(", ")", "\x1c", "\x00",
    "\u200b", "\xa0", "\u2028", "\x85", " ", " ", " ", "\n", "\n\n", "\t", "\r\n", "z" * 101,
]  # fmt: skip
ODD_TEXT = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60).map("".join)


@hsettings(max_examples=150, deadline=None)
@given(ODD_TEXT, st.lists(st.integers(0, 10_000), min_size=2, max_size=12))
def test_slice_counts_are_exact(text: str, cuts: list[int]) -> None:
    counter = default_counter()
    counts = SliceCounter(text, counter)
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    for a in points:
        for b in points:
            if a <= b:
                assert counts.count(a, b) == counter.count(text[a:b]), (text, a, b)
    words = word_spans(counter, text)
    assert words is not None and sum(words.tokens) == counter.count(text)


@hsettings(max_examples=100, deadline=None)
@given(ODD_TEXT, ODD_TEXT, st.sampled_from([" ", "\n\n"]))
def test_counts_add_across_the_joiners(x: str, y: str, join: str) -> None:
    counter = default_counter()
    assert counter.count(x + join + y) == counter.count(x) + counter.count(y)
    doc = LoadedDocument(
        "j.txt", "txt", [Section(x, (), Span(), 0, 0), Section(y, (), Span(), 0, 0)]
    )
    parts = [(0, 0, len(x)), (1, 0, len(y))]
    slices = slice_counters(doc, counter)
    assert count_parts(doc, parts, slices) == counter.count(chunk_text(doc, parts))


@hsettings(max_examples=100, deadline=None)
@given(ODD_TEXT)
def test_offsets_fast_path_matches_the_clamped_offsets(text: str) -> None:
    counter = default_counter()
    assert isinstance(counter, HFTokenizer)
    expected, last = [], 0
    for s, e in counter._tok.encode(text, add_special_tokens=False).offsets:
        s = max(s, last)
        e = max(e, s)
        expected.append((s, e))
        last = e
    assert counter.offsets(text) == expected
    assert len(expected) == counter.count(text)


ODD_BODY = st.lists(
    st.lists(ODD_TEXT, min_size=1, max_size=3).map("\n".join), min_size=1, max_size=3
).map("\n\n".join)


@hsettings(max_examples=60, deadline=None)
@given(
    st.lists(ODD_BODY, min_size=1, max_size=3),
    st.integers(8, 40),
    st.sampled_from(["structure", "window"]),
    st.sampled_from(["txt", "audio"]),
)
def test_indexed_counting_gives_the_exact_chunks(
    bodies: list[str], limit: int, name: str, doc_type: str
) -> None:
    """Same chunks (texts, spans, counts) as counting every slice with ``count``."""
    sections, cs = [], 0
    for k, body in enumerate(bodies):
        text = body.strip() or "x"  # loaders keep only non-blank sections
        span = (
            Span(seconds_start=k * 5.0, seconds_end=k * 5.0 + 5) if doc_type == "audio" else Span()
        )
        sections.append(Section(text, (), span, cs, cs + len(text)))
        cs += len(text) + 2
    doc = LoadedDocument("o.txt", doc_type, sections)
    settings = configured(limit, limit // 3, size=limit, overlap=limit // 4, segment_seconds=12.0)
    fast = make_chunker(name, settings, default_counter()).chunk(doc)
    exact = make_chunker(name, settings, ExactOnly(default_counter())).chunk(doc)
    assert rows(fast) == rows(exact)
    assert all(c.token_count <= limit for c in fast)  # 0 for a lone accent


def test_indexed_counting_gives_the_exact_chunks_on_real_files(
    ctx: LoadContext, squad: Path
) -> None:
    files = [
        DEMO / "notes" / "sourdough.md",
        DEMO / "notes" / "reading-list.txt",
        DEMO / "papers" / "urban-beekeeping.pdf",
        squad / "corpus" / "wiki" / "Black_Death.md",
    ]
    for path in files:
        loader = loader_for(path)
        assert loader is not None
        doc = loader.load(path, path.name, ctx)
        for settings in (Settings(), configured(24, 8, size=20, overlap=5)):
            for name in ("structure", "window"):
                fast = make_chunker(name, settings, default_counter()).chunk(doc)
                exact = make_chunker(name, settings, ExactOnly(default_counter())).chunk(doc)
                assert rows(fast) == rows(exact), (path, name)


class CountingTokenizer:
    """Wraps a ``tokenizers.Tokenizer`` and counts ``encode`` calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def encode(self, text: str, add_special_tokens: bool = True) -> Any:
        self.calls += 1
        return self.inner.encode(text, add_special_tokens=add_special_tokens)


def test_each_section_is_tokenised_about_once(ctx: LoadContext, squad: Path) -> None:
    """The point of counting by index: encode calls scale with sections, not with the
    many counts that splitting, packing and window shrinking ask for."""
    path = squad / "corpus" / "wiki" / "Black_Death.md"
    doc = MarkdownLoader().load(path, path.name, ctx)
    for name in ("structure", "window"):
        counter = HFTokenizer(embedding_model_dir() / "tokenizer.json", "bundled:test")
        spy = CountingTokenizer(counter._tok)
        counter._tok = spy
        chunks = make_chunker(name, Settings(), counter).chunk(doc)
        assert len(chunks) > len(doc.sections)  # sections do get split
        if name == "structure":  # cuts fall between words: one encode per section
            assert spy.calls <= len(doc.sections)
        else:  # plus an exact count for a window that starts or ends inside a word
            assert spy.calls <= len(doc.sections) + len(chunks) // 2


def test_additive_tokenizers_only(tmp_path: Path) -> None:
    config = json.loads((embedding_model_dir() / "tokenizer.json").read_text(encoding="utf-8"))
    assert _is_additive(config)
    seq = {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}]}
    assert _is_additive({**config, "normalizer": seq})
    for bad in (
        {"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True}},
        {"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}},
        {"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}]}},
        {"added_tokens": [{"content": "<mask>", "lstrip": True, "rstrip": False}]},
        {"added_tokens": [{"content": "a b", "lstrip": False, "rstrip": False}]},
    ):
        assert not _is_additive({**config, **bad}), bad
    # a real non-additive tokenizer: no words, so every slice is counted exactly
    meta = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({**config, "pre_tokenizer": meta}), encoding="utf-8")
    counter = HFTokenizer(path, "meta")
    assert counter.words("some text") is None
    texts = ["A sentence that goes on. " * 30, "Short one.", "Another short one.", "Ok."]
    sections, cs = [], 0
    for k, text in enumerate(texts):  # small sections merge: counts of joined parts
        sections.append(
            Section(text, (), Span(seconds_start=k, seconds_end=k + 1), cs, cs + len(text))
        )
        cs += len(text) + 1
    for doc_type in ("txt", "audio"):
        doc = LoadedDocument("m.txt", doc_type, sections)
        for name in ("structure", "window"):
            chunker = make_chunker(name, configured(30, 25, size=30, overlap=5), counter)
            chunks = chunker.chunk(doc)
            tail = joiner(doc).join(texts[2:])  # small sections merged
            assert any(c.text.endswith(tail) for c in chunks)
            assert chunks and all(0 < c.token_count == counter.count(c.text) <= 30 for c in chunks)


def test_malformed_words_fall_back_to_exact_counts() -> None:
    class Overlapping(RegexTokenizer):
        def words(self, text: str) -> Words | None:
            return Words([0, 0], [len(text), len(text)], [1, 1])  # nonsense: overlapping

    text = "one two three four"
    counts = SliceCounter(text, Overlapping())
    assert [counts.count(0, 3), counts.count(4, 13), counts.count(0, len(text))] == [1, 2, 4]
