"""Plain-text loader: one section per paragraph, under the file's title line if it has one.

Paragraphs are runs of non-blank lines separated by blank (whitespace-only) lines.
Each section's text is the verbatim source of its lines, ``span`` holds its 1-based
inclusive line range, and ``text == document_text[char_start:char_end]`` (see
:mod:`ingest.loaders.textio` for the document text).

A plain-text note often starts with a title line ("Allergies and medication", then a
blank line). That line is the file's title (:func:`title_of`): it becomes the heading
path of every later section and is not a section of its own, as a Markdown ``#``
heading is not chunk text. So hits say ``allergies.txt › Allergies and medication``,
the title counts for its sentences as a heading does (the evidence check and the
keyword index read heading paths), and quote mode never answers with the bare title.
Without a title line, heading paths are empty.
"""

from __future__ import annotations

import re
from pathlib import Path

from ingest.fileio import max_bytes_of
from ingest.loaders.base import LoadContext
from ingest.loaders.textio import LineIndex, read_text
from kb.types import LoadedDocument, Section, Span


def paragraphs(index: LineIndex) -> list[Section]:
    """Sections for every blank-line separated paragraph of ``index.text``."""
    text = index.text
    out: list[Section] = []
    start: int | None = None
    for line in range(1, index.n_lines + 2):
        blank = (
            line > index.n_lines or not text[index.line_start(line) : index.line_end(line)].strip()
        )
        if not blank and start is None:
            start = line
        elif blank and start is not None:
            cs, ce = index.line_start(start), index.line_end(line - 1)
            out.append(Section(text[cs:ce], (), Span(start, line - 1), cs, ce))
            start = None
    return out


#: longest title line, in characters and in words
TITLE_MAX_CHARS = 80
TITLE_MAX_WORDS = 12
#: a Setext underline ("=====" or "-----") under a title line
_UNDERLINE = re.compile(r"^[ \t]*(?:={3,}|-{3,})[ \t]*$")
#: a line that starts like a list item ("- milk", "* x", "1. step", "2) step")
_ITEM = re.compile(r"^[ \t]*(?:[-*+•][ \t]|\d{1,3}[.)][ \t])")


#: what a title never holds: a URL or an e-mail address, a colon ("Wifi: Lighthouse" is
#: a fact, not a title); values (codes, numbers, amounts) are :func:`_has_code`'s
_NOT_TITLE = re.compile(r"://|www\.|@|:")
_CURRENCY = re.compile(r"[£$€¥₹]\s*\d|\d\s*[£$€¥₹]")
_YEAR = re.compile(r"(?:19|20)\d\d")


def _has_code(line: str) -> bool:
    """A value a note states rather than a title: a word that mixes letters and digits
    ("hunter2", "HX-44821", "10am"), a number of 3+ digits that is not a year ("Door
    code 4821", "PIN 0427"), or an amount with a currency sign ("£612"). A small number
    or a year is fine: "Weeknight chili (serves 4)", "Japan trip 2027"."""
    for w in line.split():
        if any(c.isalpha() for c in w) and any(c.isdigit() for c in w):
            return True
    if _CURRENCY.search(line):
        return True
    return any(not _YEAR.fullmatch(n) for n in re.findall(r"\d{3,}", line))


def title_of(first: Section, more: bool) -> str | None:
    """The title in the first paragraph ``first``, or ``None``: one line (or one line
    over a ``===``/``---`` underline; a leading ``#`` mark is dropped) of 1 to
    :data:`TITLE_MAX_WORDS` words and at most :data:`TITLE_MAX_CHARS` characters, with a
    letter, not a list item, not ending like a sentence or a lead-in
    (``. ! ? ; ,``), and without a URL, an e-mail address, a colon, a code, a number of
    3+ digits that is not a year or an amount (:data:`_NOT_TITLE`, :func:`_has_code`:
    such a line is a fact worth quoting); only when ``more`` paragraphs follow (a
    one-paragraph file is all body). Text a title would hide is
    kept as a section: it is searchable either way, but only a section is quoted."""
    if not more:
        return None
    lines = first.text.split("\n")
    if len(lines) == 2 and _UNDERLINE.match(lines[1]):
        lines = lines[:1]
    if len(lines) != 1:
        return None
    line = re.sub(r"^#{1,6}[ \t]+", "", lines[0].strip())
    if not line or len(line) > TITLE_MAX_CHARS or len(line.split()) > TITLE_MAX_WORDS:
        return None
    if line[-1] in ".!?;," or _ITEM.match(line) or not any(c.isalpha() for c in line):
        return None
    if _NOT_TITLE.search(line) or _has_code(line):
        return None
    return line


def titled(sections: list[Section]) -> list[Section]:
    """``sections`` with the first one taken as the title (:func:`title_of`) when it is
    one: the rest carry it as their heading path. A file of one-line paragraphs
    ("Buy milk", "Call mom", "Pay rent") is a list, not a title and a body: when the
    second paragraph would pass as a title too, there is none."""
    if not sections:
        return sections
    title = title_of(sections[0], more=len(sections) > 1)
    if title is None or title_of(sections[1], more=True) is not None:
        return sections
    return [Section(s.text, (title,), s.span, s.char_start, s.char_end) for s in sections[1:]]


class TextLoader:
    doc_type = "txt"

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument:
        text = read_text(abs_path, rel_path, max_bytes_of(ctx.settings.ingest.max_file_mb))
        return LoadedDocument(
            path=rel_path,
            doc_type=self.doc_type,
            sections=titled(paragraphs(LineIndex(text))),
            text=text,
        )
