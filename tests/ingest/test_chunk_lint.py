"""Lint of a whole chunking (ingest.chunkers.lint): totals over documents, by hand, and
on the real loader, chunkers and bundled tokenizer."""

from __future__ import annotations

from ingest.chunkers import make_chunker
from ingest.chunkers.lint import LintReport, lint_chunking, read_limit
from ingest.chunkers.spans import drafts_from_spans
from ingest.loaders import LoadContext, MarkdownLoader
from ingest.tokens import RegexTokenizer
from kb.config import Settings
from kb.types import LoadedDocument, Section, Span
from tests.conftest import FIXTURES

REGEX = RegexTokenizer()


def test_totals_by_hand() -> None:
    # "aaaa bbbb" (section A, chars 0-9) and "cccc" (section A > B, chars 11-15)
    secs = [
        Section("aaaa bbbb", ("A",), Span(1, 1), 0, 9),
        Section("cccc", ("A", "B"), Span(3, 3), 11, 15),
    ]
    doc = LoadedDocument("t.md", "md", secs, text="aaaa bbbb\n\ncccc")
    # doc 1: chunk "aaaa bb" (2 tokens) and "bb\n\ncccc" (2 tokens, crosses the heading)
    one = drafts_from_spans(doc, doc.text, [(0, 7), (5, 15)], REGEX)
    # doc 2: only "aaaa" (1 token): "bbbb" and "cccc" uncovered (8 of 12 content chars)
    two = drafts_from_spans(doc, doc.text, [(0, 4)], REGEX)
    rep = lint_chunking([(doc, one), (doc, two)], read_limit=1, min_tokens=2)
    # too long (> 1 token): both chunks of doc 1; short (< 2): the chunk of doc 2
    assert rep.counts == {"too_long": 2, "crosses_heading": 1, "short": 1, "broken_fence": 0}
    assert (rep.documents, rep.chunks, rep.flagged) == (2, 3, 3)
    # content 12 + 12; uncovered 0 + 8 -> coverage 16 / 24
    assert (rep.content, rep.uncovered) == (24, 8)
    assert abs(rep.coverage - 16 / 24) < 1e-12
    assert rep.to_dict()["crosses_heading"] == 1
    assert LintReport(254).coverage == 1.0  # nothing checked: nothing uncovered


def test_window_lints_what_structure_avoids_on_the_real_tokenizer() -> None:
    settings = Settings()
    doc = MarkdownLoader().load(
        FIXTURES / "chunkers" / "repeated.md",
        "repeated.md",
        LoadContext(settings, lambda: None),  # type: ignore[arg-type]
    )
    limit = read_limit("bundled")
    assert limit == 254  # all-MiniLM-L6-v2 reads 256 word pieces with [CLS] and [SEP]
    structure = make_chunker("structure", settings).chunk(doc)
    window = make_chunker("window:size=16,overlap=4", settings).chunk(doc)
    s = lint_chunking([(doc, structure)], limit)
    w = lint_chunking([(doc, window)], limit)
    assert s.counts["crosses_heading"] == 0  # structure follows headings
    assert w.counts["short"] == w.chunks  # 16-token windows are all under 32 tokens
    assert s.coverage == 1.0 and w.coverage == 1.0
