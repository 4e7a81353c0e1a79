"""Plain-text loader: one section per paragraph.

Paragraphs are runs of non-blank lines separated by blank (whitespace-only) lines.
Each section's text is the verbatim source of its lines, ``span`` holds its 1-based
inclusive line range, and ``text == document_text[char_start:char_end]`` (see
:mod:`ingest.loaders.textio` for the document text). Heading paths are empty.
"""

from __future__ import annotations

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


class TextLoader:
    doc_type = "txt"

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument:
        text = read_text(abs_path, rel_path, max_bytes_of(ctx.settings.ingest.max_file_mb))
        return LoadedDocument(
            path=rel_path, doc_type=self.doc_type, sections=paragraphs(LineIndex(text)), text=text
        )
