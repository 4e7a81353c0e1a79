"""The span contract without a child process: specs, validation, drafts from spans,
item conversion, and the check's measures (hand-worked numbers)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pytest

from ingest.chunkers import make_chunker
from ingest.chunkers.check import check_chunking
from ingest.chunkers.spans import SpanError, document_text, drafts_from_spans, validate_spans
from ingest.chunkers.spec import ChunkerSpec, parse_spec
from ingest.chunkers.worker import PluginFailure, collect_spans, load_callable
from ingest.loaders import LoadContext, MarkdownLoader
from ingest.tokens import RegexTokenizer
from kb.config import Settings
from kb.errors import UsageError
from kb.types import LoadedDocument, Section, Span
from tests.conftest import FIXTURES

REPEATED = FIXTURES / "chunkers" / "repeated.md"
PARA = FIXTURES / "chunkers" / "para.py"
REGEX = RegexTokenizer()


def load_repeated() -> LoadedDocument:
    return MarkdownLoader().load(REPEATED, "repeated.md", LoadContext(Settings(), lambda: None))  # type: ignore[arg-type, return-value]


def para_spans(text: str) -> list[tuple[int, int]]:
    spec = importlib.util.spec_from_file_location("para_fixture", PARA)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.chunk(text))


def test_parse_spec() -> None:
    assert parse_spec("window") == ChunkerSpec("window")
    assert parse_spec("window:size=64,overlap=16") == ChunkerSpec(
        "window", {"size": 64, "overlap": 16}
    )
    assert parse_spec("x:a=1.5,b=true,c=hello") == ChunkerSpec(
        "x", {"a": 1.5, "b": True, "c": "hello"}
    )
    assert parse_spec("C:/me/p.py#chunk:n=2") == ChunkerSpec(
        "C:/me/p.py#chunk", {"n": 2}, "C:/me/p.py", "chunk"
    )
    for bad in ("", ":a=1", "window:size", "window:1x=2", "p.txt#chunk", "p.py#not-a-name"):
        with pytest.raises(UsageError, match="chunker spec"):
            parse_spec(bad)


def test_builtin_params_override_settings_and_are_checked() -> None:
    info = make_chunker("window:size=64,overlap=8", Settings(), REGEX).info
    assert info.params == {"size": 64, "overlap": 8, "tokenizer": "regex"}
    default = make_chunker("structure", Settings(), REGEX).info
    assert default.params["max_tokens"] == 200  # no params: the settings as they are
    with pytest.raises(UsageError, match="unknown param 'width'; valid: overlap, size"):
        make_chunker("window:width=3", Settings(), REGEX)
    with pytest.raises(UsageError, match="size='big' is not int"):
        make_chunker("window:size=big", Settings(), REGEX)
    with pytest.raises(UsageError, match="unknown chunker 'nope'"):
        make_chunker("nope", Settings(), REGEX)
    with pytest.raises(UsageError, match="no such file"):
        make_chunker("/nonexistent/x.py#chunk", Settings(), REGEX)


@pytest.mark.parametrize(
    ("spans", "problem"),
    [
        ([], "returned no spans"),
        ([(0, 3), (3, 11)], r"span 1 \(3, 11\) lies outside the text of 10 characters"),
        ([(2, 2)], r"span 0 \(2, 2\) is empty"),
        ([(5, 2)], r"span 0 \(5, 2\) is backwards"),
        ([(4, 8), (0, 3)], r"span 1 \(0, 3\) is out of order after span 0 \(4, 8\)"),
        ([(0, 8), (2, 5)], r"span 1 \(2, 5\) is out of order"),  # nested
        ([(0, 4), (0, 4)], r"span 1 \(0, 4\) is out of order"),  # repeated
        ([(0, 4), (4, 6)], r"span 1 \(4, 6\) holds only whitespace"),
        ([(k, k + 1) for k in range(4)], "returned more than 3 spans, the limit per file"),
    ],
)
def test_validate_spans_rejects(spans: list[tuple[int, int]], problem: str) -> None:
    with pytest.raises(SpanError, match=problem):
        validate_spans("abcd  efgh", spans, max_spans=3)


def test_validate_spans_accepts_overlap_and_gaps() -> None:
    validate_spans("abcd  efgh", [(0, 4), (2, 8), (7, 10)])


def test_document_text_is_kept_or_rebuilt() -> None:
    doc = load_repeated()
    assert doc.text == REPEATED.read_text(encoding="utf-8")
    assert all(document_text(doc)[s.char_start : s.char_end] == s.text for s in doc.sections)
    pages = [Section("one", (), Span(page_start=1, page_end=1), 0, 3)]
    pages.append(Section("two", (), Span(page_start=2, page_end=2), 5, 8))
    assert document_text(LoadedDocument("p.pdf", "pdf", pages)) == "one\n\ntwo"
    segs = [Section("hi", (), Span(seconds_start=0, seconds_end=1), 0, 2)]
    segs.append(Section("there", (), Span(seconds_start=1, seconds_end=2), 3, 8))
    assert document_text(LoadedDocument("a.wav", "audio", segs)) == "hi there"


def test_repeated_paragraphs_are_placed_by_offset() -> None:
    doc = load_repeated()
    text = document_text(doc)
    drafts = drafts_from_spans(doc, text, para_spans(text), REGEX)
    repeat = "Repeat me: the same paragraph appears under two headings."
    firsts = [d for d in drafts if d.text == repeat]
    # the same text twice: a string search would put both at the first occurrence
    assert [(d.span.line_start, d.span.line_end) for d in firsts] == [(6, 6), (12, 12)]
    assert [d.heading_path for d in firsts] == [("Alpha",), ("Alpha", "Beta")]
    assert [d.char_start for d in firsts] == [text.index(repeat), text.rindex(repeat)]
    # the front matter (lines 1-3) and a heading line sit in gaps: anchored to the next section
    assert drafts[0].text.startswith("---") and drafts[0].span.line_start == 1
    assert drafts[0].span.line_end == 4 and drafts[0].heading_path == ("Alpha",)
    heading = next(d for d in drafts if d.text == "## Beta")
    assert (heading.span.line_start, heading.span.line_end) == (10, 10)
    assert heading.heading_path == ("Alpha", "Beta")
    fence = drafts[-1]
    assert fence.text.startswith("```python") and fence.span.line_end == 16
    assert all(d.token_count == REGEX.count(d.text) for d in drafts)


def test_locators_across_pages_and_seconds() -> None:
    pages = [
        Section("one two", (), Span(page_start=1, page_end=1), 0, 7),
        Section("three", (), Span(page_start=2, page_end=2), 9, 14),
    ]
    doc = LoadedDocument("p.pdf", "pdf", pages)
    text = document_text(doc)
    a, b = drafts_from_spans(doc, text, [(0, 3), (4, 14)], REGEX)
    assert (a.span.page_start, a.span.page_end, a.text) == (1, 1, "one")
    assert (b.span.page_start, b.span.page_end, b.text) == (1, 2, "two\n\nthree")
    assert b.span.line_start is None and b.token_count == 2


@dataclass
class Chonk:
    start_index: int
    end_index: int


def test_collect_spans_converts_items() -> None:
    assert collect_spans([(0, 2), [3, 4], Chonk(5, 9)], 10) == [(0, 2), (3, 4), (5, 9)]
    assert len(collect_spans(iter(lambda: (0, 1), None), 5)) == 6  # stops past the cap
    with pytest.raises(PluginFailure, match="returned str, not an iterable"):
        collect_spans("abc", 10)
    with pytest.raises(PluginFailure, match="item 1 is int, not a"):
        collect_spans([(0, 1), 7], 10)
    with pytest.raises(PluginFailure, match=r"item 0 \(0, 1.5\) is not a pair of integers"):
        collect_spans([(0, 1.5)], 10)
    with pytest.raises(PluginFailure, match="not a pair of integers"):
        collect_spans([(True, 2)], 10)


def test_load_callable_from_file(tmp_path: Path) -> None:
    assert list(load_callable(("file", str(PARA), "chunk"))("a\n\nb")) == [(0, 1), (3, 4)]
    with pytest.raises(PluginFailure, match="defines no 'other'"):
        load_callable(("file", str(PARA), "other"))
    with pytest.raises(PluginFailure, match="no installed chunker 'absent-xyz'"):
        load_callable(("entry_point", "absent-xyz"))


def test_check_measures_by_hand() -> None:
    # "aaaa bbbb" in section 0 (chars 0-9), "cccc" in section 1 (chars 11-15), headings differ
    secs = [
        Section("aaaa bbbb", ("A",), Span(1, 1), 0, 9),
        Section("cccc", ("A", "B"), Span(3, 3), 11, 15),
    ]
    doc = LoadedDocument("t.md", "md", secs, text="aaaa bbbb\n\ncccc")
    text = doc.text
    # chunk 0 = "aaaa bb" (0-7); chunk 1 = "bb\n\ncccc" (5-15) crosses the heading
    drafts = drafts_from_spans(doc, text, [(0, 7), (5, 15)], REGEX)
    r = check_chunking(doc, drafts, read_limit=2, min_tokens=2)
    # content: 8 + 4 = 12 non-space chars, all covered; chars 5-6 are in both chunks:
    # overlap = 2 chars in two chunks / 15 chars in at least one
    assert (r.chunks, r.coverage, r.uncovered) == (2, 1.0, 0)
    assert r.overlap == pytest.approx(2 / 15)
    # tokens: "aaaa bb" = 2, "bb\n\ncccc" = 2  → mean 2, p95 = 2
    assert (r.mean_tokens, r.p95_tokens) == (2.0, 2)
    assert r.lint == {"too_long": [], "crosses_heading": [1], "short": [], "broken_fence": []}
    # only the first chunk: "bb" (7-9) and "cccc" are uncovered → 6 of 12; first at line 1
    r2 = check_chunking(doc, drafts[:1], read_limit=1, min_tokens=3)
    assert (r2.coverage, r2.uncovered, r2.first_uncovered_line) == (0.5, 6, 1)
    assert r2.lint["too_long"] == [0] and r2.lint["short"] == [0]


def test_check_flags_broken_fences_on_the_fixture() -> None:
    doc = load_repeated()
    text = doc.text
    spans = para_spans(text)
    fence_at = text.index("```python")
    cut = [s for s in spans if s[0] < fence_at] + [(fence_at, text.index("print") + 5)]
    drafts = drafts_from_spans(doc, text, cut, REGEX)
    r = check_chunking(doc, drafts, read_limit=254)
    assert r.lint["broken_fence"] == [len(cut) - 1]
    assert r.uncovered > 0 and r.first_uncovered_line == 15
    whole = check_chunking(doc, drafts_from_spans(doc, text, spans, REGEX), read_limit=254)
    assert whole.lint["broken_fence"] == [] and whole.coverage == 1.0
