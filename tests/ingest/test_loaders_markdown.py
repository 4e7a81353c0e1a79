"""Markdown loader: front matter, heading paths, exact line ranges, bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.loaders import LoadContext, MarkdownLoader, loader_for
from kb.errors import IngestError
from kb.types import LoadedDocument

Check = Callable[[LoadedDocument, str], None]
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def load(tmp_path: Path, ctx: LoadContext, content: str | bytes, name: str = "n.md"):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return MarkdownLoader().load(path, name, ctx)


def test_demo_note_sections_tags_and_lines(ctx: LoadContext, exact_sections: Check) -> None:
    path = DEMO / "notes" / "project-heron.md"
    source = path.read_text(encoding="utf-8")
    doc = MarkdownLoader().load(path, "notes/project-heron.md", ctx)
    assert doc.doc_type == "md" and doc.path == "notes/project-heron.md"
    assert doc.tags == ["work", "project-heron"]
    assert doc.meta["front_matter"]["owner"] == "Dana Whitfield"
    exact_sections(doc, source)
    paths = [s.heading_path for s in doc.sections]
    assert paths[0] == ("Project Heron",)
    assert ("Project Heron", "Architecture", "Error codes") in paths
    assert ("Project Heron", "Rollout plan") in paths  # the ### level was popped
    codes = next(s for s in doc.sections if s.heading_path[-1] == "Error codes")
    assert "ZX-4417" in codes.text
    lines = source.split("\n")
    heading_line = lines.index("### Error codes") + 1
    assert codes.span.line_start == heading_line + 2  # one blank line after the heading


@pytest.mark.parametrize("name", sorted(p.name for p in (DEMO / "notes").glob("*.md")))
def test_every_demo_note_is_exact(name: str, ctx: LoadContext, exact_sections: Check) -> None:
    path = DEMO / "notes" / name
    doc = MarkdownLoader().load(path, name, ctx)
    exact_sections(doc, path.read_text(encoding="utf-8"))
    assert doc.tags and doc.warnings == []
    assert all(s.heading_path for s in doc.sections)  # every demo note starts with "# Title"


def test_squad_wiki_article(ctx: LoadContext, exact_sections: Check, squad: Path) -> None:
    path = squad / "corpus" / "wiki" / "Black_Death.md"
    doc = MarkdownLoader().load(path, path.name, ctx)
    exact_sections(doc, path.read_text(encoding="utf-8"))
    assert len(doc.sections) >= 2


def test_heading_nesting_levels_and_setext(
    tmp_path: Path, ctx: LoadContext, exact_sections: Check
) -> None:
    src = (
        "Intro before any heading.\n"  # 1
        "\n"
        "# A\n"  # 3
        "text a\n"  # 4
        "### B\n"  # 5  (level skipped)
        "text b\n"  # 6
        "## C\n"  # 7
        "text c\n"  # 8
        "\n"
        "Setext D\n"  # 10
        "--------\n"  # 11
        "text d\n"  # 12
        "- # in a list\n"  # 13 not structure
        "> # quoted\n"  # 14 not structure
        "\n"
        "Top E\n"  # 16
        "=====\n"  # 17
        "text e\n"  # 18
    )
    doc = load(tmp_path, ctx, src)
    exact_sections(doc, src)
    got = [(s.heading_path, s.span.line_start, s.span.line_end) for s in doc.sections]
    assert got == [
        ((), 1, 1),
        (("A",), 4, 4),
        (("A", "B"), 6, 6),
        (("A", "C"), 8, 8),
        (("A", "Setext D"), 12, 14),
        (("Top E",), 18, 18),
    ]


def test_heading_text_is_plain(tmp_path: Path, ctx: LoadContext) -> None:
    doc = load(tmp_path, ctx, "# Use `kb` **now** [docs](http://x)\nbody\n")
    assert doc.sections[0].heading_path == ("Use kb now docs",)


def test_front_matter_lines_count_and_comma_tags(
    tmp_path: Path, ctx: LoadContext, exact_sections: Check
) -> None:
    src = '---\ntags: "alpha, #beta, alpha"\ndate: 2024-03-12\n---\nFirst line of text.\n'
    doc = load(tmp_path, ctx, src)
    exact_sections(doc, src)
    assert doc.tags == ["alpha", "beta"]
    assert doc.meta["front_matter"]["date"] == "2024-03-12"  # made JSON-safe
    assert doc.sections[0].span.line_start == 5
    assert doc.sections[0].heading_path == ()


def test_bad_yaml_front_matter_names_the_line(tmp_path: Path, ctx: LoadContext) -> None:
    src = "---\ntitle: ok\ntags: [a, b\nother: 1\n---\n# T\nbody\n"
    with pytest.raises(IngestError) as e:
        load(tmp_path, ctx, src, "bad.md")
    assert e.value.path == "bad.md"
    assert "invalid YAML front matter at line" in e.value.reason
    line = int(e.value.reason.split("at line ")[1].split(":")[0])
    assert 3 <= line <= 5  # the unclosed list opened on file line 3


def test_front_matter_must_be_a_mapping(tmp_path: Path, ctx: LoadContext) -> None:
    with pytest.raises(IngestError, match="must be a YAML mapping"):
        load(tmp_path, ctx, "---\n- a\n- b\n---\nbody\n")


def test_unclosed_front_matter_is_text_with_a_warning(tmp_path: Path, ctx: LoadContext) -> None:
    doc = load(tmp_path, ctx, "---\ntags: [a]\n\nSome text.\n")
    assert doc.tags == []
    assert any("never closed" in w for w in doc.warnings)
    assert "Some text." in doc.sections[-1].text


def test_crlf_and_bom(tmp_path: Path, ctx: LoadContext) -> None:
    src = "\ufeff---\r\ntags: [x]\r\n---\r\n# T\r\n\r\nline one\r\nline two\r\n"
    doc = load(tmp_path, ctx, src.encode("utf-8"))
    assert doc.tags == ["x"]
    assert doc.sections[0].text == "line one\nline two"
    assert (doc.sections[0].span.line_start, doc.sections[0].span.line_end) == (6, 7)


def test_headings_only_file(tmp_path: Path, ctx: LoadContext) -> None:
    doc = load(tmp_path, ctx, "# Title\n## Sub\n")
    assert [(s.text, s.heading_path, s.span.line_start) for s in doc.sections] == [
        ("# Title", (), 1),
        ("## Sub", ("Title",), 2),
    ]


@pytest.mark.parametrize("content", ["", "   \n\n\t\n"])
def test_empty_file(tmp_path: Path, ctx: LoadContext, content: str) -> None:
    with pytest.raises(IngestError, match="empty file"):
        load(tmp_path, ctx, content)


def test_front_matter_only(tmp_path: Path, ctx: LoadContext) -> None:
    with pytest.raises(IngestError, match="nothing to index"):
        load(tmp_path, ctx, "---\ntags: [a]\n---\n\n")


def test_invalid_utf8_names_the_byte(tmp_path: Path, ctx: LoadContext) -> None:
    with pytest.raises(IngestError) as e:
        load(tmp_path, ctx, b"# Title\ncaf\xe9\n", "latin1.md")
    assert str(e.value) == "latin1.md: invalid UTF-8 at byte 11; re-save the file as UTF-8"


def test_loader_for_extensions() -> None:
    assert loader_for(Path("a/NOTES.MD")).doc_type == "md"  # type: ignore[union-attr]
    assert loader_for("x.markdown").doc_type == "md"  # type: ignore[union-attr]
    assert loader_for("x.Txt").doc_type == "txt"  # type: ignore[union-attr]
    assert loader_for("x.PDF").doc_type == "pdf"  # type: ignore[union-attr]
    for ext in (".wav", ".mp3", ".m4a", ".flac", ".OGG"):
        assert loader_for("x" + ext).doc_type == "audio"  # type: ignore[union-attr]
    assert loader_for("x.docx") is None and loader_for("Makefile") is None
