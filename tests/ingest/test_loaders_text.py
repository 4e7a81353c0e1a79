"""Plain-text loader: one section per paragraph with exact line ranges."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.loaders import LoadContext, TextLoader
from kb.errors import IngestError
from kb.types import LoadedDocument

Check = Callable[[LoadedDocument, str], None]
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def test_demo_text_paragraphs(ctx: LoadContext, exact_sections: Check) -> None:
    path = DEMO / "notes" / "reading-list.txt"
    source = path.read_text(encoding="utf-8")
    doc = TextLoader().load(path, "notes/reading-list.txt", ctx)
    assert doc.doc_type == "txt" and doc.tags == [] and doc.warnings == []
    exact_sections(doc, source)
    # the title line heads the paragraphs instead of being one
    assert len(doc.sections) == len([p for p in source.split("\n\n") if p.strip()]) - 1
    assert doc.sections[0].text.startswith("The first book on the list")
    assert doc.sections[0].span.line_start == 3
    assert all(s.heading_path == ("Reading list for the winter",) for s in doc.sections)


@pytest.mark.parametrize(
    ("src", "title"),
    [
        ("Allergies and medication\n\nI am allergic to penicillin.\n", "Allergies and medication"),
        ("Trip notes\n==========\n\nBook the ferry.\n", "Trip notes"),
        ("Car\n---\n\nNew tyres in May.\n", "Car"),
        ("# Recipes\n\nChili: two onions.\n", "Recipes"),
        ("Weeknight chili (serves 4)\n\nBrown 500 g beef mince.\n", "Weeknight chili (serves 4)"),
        # not titles: a sentence, a lead-in, a list item, two lines, a long line, no letter
        ("Call the bank.\n\nAsk about the fee.\n", None),
        ("Shopping list:\n\nmilk\n", None),
        ("- milk\n\n- eggs\n", None),
        ("1. Preheat the oven\n\nBake.\n", None),
        ("First line\nsecond line\n\nMore.\n", None),
        (" ".join(["word"] * 13) + "\n\nMore.\n", None),
        ("2026-11-20\n\nCalled the plumber.\n", None),
        # facts worth quoting: a code, a URL, an e-mail, a colon
        ("Wifi password hunter2\n\nThe router is in the hall.\n", None),
        ("Policy HX-44821\n\nBring the card.\n", None),
        ("Door code 4821\n\nThe key is under the mat.\n", None),
        ("Car insurance £612\n\nRenews in May.\n", None),
        ("Japan trip 2027\n\nFly on 2 April.\n", "Japan trip 2027"),
        ("https://example.com/article\n\nRead later.\n", None),
        ("anna@example.com\n\nAnna's new address.\n", None),
        ("Wifi: Lighthouse\n\nThe router is in the hall.\n", None),
        # one-line paragraphs are a list, not a title and its body
        ("Buy milk\n\nCall mom\n\nPay rent\n", None),
        # a one-paragraph file is all body
        ("Just a title-like line\n", None),
    ],
)
def test_title_line(
    tmp_path: Path, ctx: LoadContext, exact_sections: Check, src: str, title: str | None
) -> None:
    path = tmp_path / "n.txt"
    path.write_text(src, encoding="utf-8")
    doc = TextLoader().load(path, "n.txt", ctx)
    exact_sections(doc, src)
    paragraphs = [p for p in src.split("\n\n") if p.strip()]
    if title is None:
        assert len(doc.sections) == len(paragraphs)
        assert all(s.heading_path == () for s in doc.sections)
    else:
        assert len(doc.sections) == len(paragraphs) - 1
        assert all(s.heading_path == (title,) for s in doc.sections)
        assert title not in doc.sections[0].text


def test_blank_lines_with_spaces_and_runs(
    tmp_path: Path, ctx: LoadContext, exact_sections: Check
) -> None:
    src = "\n\n  indented first\nsecond line  \n \t \n\n\nlast paragraph\n\n"
    path = tmp_path / "a.txt"
    path.write_text(src, encoding="utf-8")
    doc = TextLoader().load(path, "a.txt", ctx)
    exact_sections(doc, src)
    got = [(s.text, s.span.line_start, s.span.line_end) for s in doc.sections]
    assert got == [("  indented first\nsecond line  ", 3, 4), ("last paragraph", 8, 8)]


def test_single_line_without_newline(tmp_path: Path, ctx: LoadContext) -> None:
    path = tmp_path / "one.txt"
    path.write_text("just this", encoding="utf-8")
    doc = TextLoader().load(path, "one.txt", ctx)
    assert [(s.text, s.span.line_start, s.char_start, s.char_end) for s in doc.sections] == [
        ("just this", 1, 0, 9)
    ]


@pytest.mark.parametrize("data", [b"", b" \n\n \t\r\n"])
def test_empty(tmp_path: Path, ctx: LoadContext, data: bytes) -> None:
    path = tmp_path / "e.txt"
    path.write_bytes(data)
    with pytest.raises(IngestError) as e:
        TextLoader().load(path, "e.txt", ctx)
    assert str(e.value) == "e.txt: empty file"


def test_invalid_utf8(tmp_path: Path, ctx: LoadContext) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok line\n" + b"\xff\xfe rest\n")
    with pytest.raises(IngestError, match=r"invalid UTF-8 at byte 8; re-save the file as UTF-8"):
        TextLoader().load(path, "bad.txt", ctx)
