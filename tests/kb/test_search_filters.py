"""Scope filters: path prefixes and globs, document types, tags, and option validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.errors import UsageError
from kb.search import SearchOptions
from kb.search.filters import allowed_documents, path_matches
from kb.store import Store
from kb.types import ChunkDraft, ChunkerInfo, Span


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        # plain patterns are a file or a folder, never a bare string prefix
        ("notes/a.md", "notes", True),
        ("notes/a.md", "notes/", True),
        ("notes/sub/b.md", "notes/", True),
        ("notes-old/a.md", "notes", False),
        ("notes/a.md", "notes/a.md", True),
        ("notes/a.md.bak", "notes/a.md", False),
        ("notes/a.md", "./notes", True),  # leading ./ is ignored
        ("notes/a.md", "notes\\", True),  # Windows separators
        ("anything.md", "", True),
        # globs: * and ? stay in a segment, ** spans segments, a matched folder covers its contents
        ("a.md", "**/*.md", True),
        ("x/y/a.md", "**/*.md", True),
        ("x/y/a.txt", "**/*.md", False),
        ("wiki/a.md", "wiki/*", True),
        ("wiki/sub/b.md", "wiki/*", True),
        ("wikipedia/a.md", "wiki/*", False),
        ("a.md", "*.md", True),
        ("x/a.md", "*.md", False),
        ("doc1.md", "doc?.md", True),
        ("doc10.md", "doc?.md", False),
        ("doc2.md", "doc[12].md", True),
        ("doc3.md", "doc[!12].md", True),
        ("doc3.md", "doc[12].md", False),
        ("x/audio/talk.wav", "**/audio/**", True),
    ],
)
def test_path_matches(path: str, pattern: str, expected: bool) -> None:
    assert path_matches(path, pattern) is expected


def test_unknown_type_is_a_usage_error_listing_valid_ones() -> None:
    with pytest.raises(UsageError) as e:
        SearchOptions(types=("docx",))
    assert "docx" in str(e.value) and "md, txt, pdf, audio" in str(e.value)
    assert SearchOptions(types=("PDF",)).types == ("pdf",)


def test_bad_mode_and_k() -> None:
    with pytest.raises(UsageError, match="--mode"):
        SearchOptions(mode="fuzzy")
    with pytest.raises(UsageError, match="-k"):
        SearchOptions(k=0)


def _doc(store: Store, path: str, doc_type: str, tags: list[str]) -> int:
    draft = ChunkDraft("text", (), Span(), 0, 4, 1)
    return store.save_document(
        root="/r",
        path=path,
        doc_type=doc_type,
        content_hash=path,
        size=1,
        mtime=0.0,
        chunks=[draft],
        chunker=ChunkerInfo("t", "1", {}),
        tags=tags,
    )


def test_allowed_documents_combines_kinds_with_and(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "kb")
    a = _doc(store, "notes/a.md", "md", ["Work", "todo"])
    b = _doc(store, "notes/b.txt", "txt", ["home"])
    c = _doc(store, "papers/c.pdf", "pdf", ["work"])
    d = _doc(store, "talks/d.wav", "audio", [])
    store.mark_failed(root="/r", path="notes/broken.md", doc_type="md", error="bad")

    def allowed(**kw: tuple[str, ...]) -> set[int] | None:
        return allowed_documents(store.conn, SearchOptions(**kw))  # type: ignore[arg-type]

    assert allowed() is None  # not scoped
    assert allowed(paths=("notes/",)) == {a, b}  # the failed document is never a candidate
    assert allowed(paths=("notes/", "talks/")) == {a, b, d}  # OR within a kind
    assert allowed(types=("pdf", "audio")) == {c, d}
    assert allowed(tags=("work",)) == {a, c}  # case-insensitive
    assert allowed(tags=("#todo",)) == {a}  # a leading # is ignored
    assert allowed(paths=("notes/",), tags=("work",)) == {a}  # AND across kinds
    assert allowed(paths=("**/*.pdf",), types=("md",)) == set()
    store.close()
