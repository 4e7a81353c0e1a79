"""Inline #tags in Markdown are document tags; tag-only lines are no text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loaders import LoadContext, MarkdownLoader
from ingest.loaders.markdown import INLINE_TAG, is_tag_line


def load(tmp_path: Path, ctx: LoadContext, content: str):
    path = tmp_path / "n.md"
    path.write_text(content, encoding="utf-8", newline="")
    return MarkdownLoader().load(path, "n.md", ctx)


def test_inline_tags_join_front_matter_tags(tmp_path: Path, ctx: LoadContext) -> None:
    src = (
        "---\ntags: [work]\n---\n"
        "# Heading #nottag\n\n"
        "Called the plumber about the boiler #home #Küche, see issue #42.\n"
        "The docs are at https://example.org/page#section and `#code` here.\n\n"
        "```\n#fenced\n```\n\n"
        "    #indented code\n\n"
        "Use C# and &#39; and #work again, #project-heron too.\n"
    )
    doc = load(tmp_path, ctx, src)
    assert doc.tags == ["work", "home", "Küche", "project-heron"]


def test_tag_only_lines_are_no_text(tmp_path: Path, ctx: LoadContext) -> None:
    src = "#journal #health\n\n# Day\n\nSlept badly, took a walk.\n\n#sleep\n\n# Tags\n\n#a #b\n"
    doc = load(tmp_path, ctx, src)
    assert doc.tags == ["journal", "health", "sleep", "a", "b"]
    texts = [s.text for s in doc.sections]
    assert texts == ["Slept badly, took a walk."]
    for s in doc.sections:
        assert src[s.char_start : s.char_end] == s.text


@pytest.mark.parametrize(
    ("line", "tag_line"),
    [
        ("#a #b", True),
        ("  #work, #home  ", True),
        ("#2026", False),
        ("# Title", False),
        ("#a text", False),
        ("", False),
    ],
)
def test_is_tag_line(line: str, tag_line: bool) -> None:
    assert is_tag_line(line) is tag_line


def test_tag_pattern_edges() -> None:
    assert [m.group(1) for m in INLINE_TAG.finditer("(#a) x#b #c- #d/e #1x")] == ["a", "c", "d/e"]
