"""PDF loader (pypdf): one section per page.

- Each page with text becomes a section with ``page_start == page_end == n`` (1-based)
  and the page's ``extract_text()`` (NUL characters removed, outer whitespace
  stripped). The document text is the page texts joined by a blank line
  (``"\\n\\n"``); ``char_start``/``char_end`` index it.
- A page without extractable text is not dropped silently: it adds the warning
  ``page N has no text layer (scanned?); it is not searchable``. If no page has text
  the file fails (:class:`IngestError`), as do encrypted PDFs that the empty password
  cannot open and files pypdf cannot parse.
- pypdf reports recoverable damage through the ``pypdf`` logger; while a file is
  loaded that logger is raised to ERROR so the noise stays off the terminal (no other
  logger is touched).
- The document's title (:func:`pdf_title`: the PDF's ``/Title``, unless it is a
  placeholder such as ``untitled`` or ``Microsoft Word - draft.docx``) heads every page's
  section, as a Markdown note's ``# Title`` heads its sections: hits and Sources show
  ``paper.pdf › <title> · p. 3``, the title is embedded with each chunk, and the
  evidence check counts its words, so a paper saved as ``2301.01234.pdf`` is still
  found and answered by its title's words. It is also kept in ``meta["title"]``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from ingest.fileio import max_bytes_of, open_checked
from ingest.loaders.base import LoadContext
from ingest.loaders.textio import require_nonempty
from kb.errors import IngestError
from kb.types import LoadedDocument, Section, Span

PAGE_SEP = "\n\n"
ENCRYPTED = "encrypted PDF; decrypt it first (e.g. qpdf --decrypt in.pdf out.pdf)"


@contextmanager
def quiet_pypdf() -> Iterator[None]:
    """Raise the ``pypdf`` logger to ERROR for the duration of the block."""
    logger = logging.getLogger("pypdf")
    old = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(old)


def _open(source: BinaryIO, rel_path: str) -> Any:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    try:
        reader = PdfReader(source)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except (DependencyError, FileNotDecryptedError, NotImplementedError):
                raise IngestError(rel_path, ENCRYPTED) from None
            if not ok:
                raise IngestError(rel_path, ENCRYPTED)
        _ = len(reader.pages)
    except IngestError:
        raise
    except Exception as e:  # pypdf raises many types on damaged files
        raise IngestError(rel_path, f"not a readable PDF: {_reason(e)}") from None
    return reader


#: ``/Title`` values that name no document: authoring tools' placeholders
_PLACEHOLDER_TITLES = frozenset(["untitled", "no title", "title", "document", "unknown", "none"])
_TOOL_PREFIXES = ("microsoft word - ", "microsoft powerpoint - ", "microsoft excel - ")
_FILE_SUFFIXES = (".doc", ".docx", ".pdf", ".tex", ".dvi", ".odt", ".rtf", ".ppt", ".pptx")
MAX_TITLE_CHARS = 200


def pdf_title(reader: Any) -> str | None:
    """The PDF's ``/Title`` with white space folded, or ``None`` when it is missing,
    unreadable, longer than :data:`MAX_TITLE_CHARS`, without a letter, or a placeholder
    (``untitled``, ``Microsoft Word - x.docx``, a bare file name like ``draft3.tex``)."""
    try:
        meta = reader.metadata
        raw = meta.title if meta is not None else None
    except Exception:  # noqa: BLE001 - a damaged info dictionary only loses the title
        return None
    if not isinstance(raw, str):
        return None
    title = " ".join(raw.replace("\x00", "").split())
    low = title.lower()
    if (
        not title
        or len(title) > MAX_TITLE_CHARS
        or not any(c.isalpha() for c in title)
        or low in _PLACEHOLDER_TITLES
        or low.startswith(_TOOL_PREFIXES)
        or low.endswith(_FILE_SUFFIXES)
    ):
        return None
    return title


def _reason(e: Exception) -> str:
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg[:200]


class PdfLoader:
    doc_type = "pdf"

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument:
        require_nonempty(abs_path, rel_path)
        max_bytes = max_bytes_of(ctx.settings.ingest.max_file_mb)
        with open_checked(abs_path, rel_path, max_bytes) as source, quiet_pypdf():
            reader = _open(source, rel_path)
            title = pdf_title(reader)
            heading = (title,) if title else ()
            warnings: list[str] = []
            sections: list[Section] = []
            offset = 0
            n_pages = len(reader.pages)
            for number in range(1, n_pages + 1):
                try:
                    raw = reader.pages[number - 1].extract_text() or ""
                except Exception as e:  # one damaged page must not sink the file
                    warnings.append(f"page {number}: text extraction failed ({_reason(e)})")
                    continue
                text = raw.replace("\x00", "").strip()
                if not text:
                    warnings.append(
                        f"page {number} has no text layer (scanned?); it is not searchable"
                    )
                    continue
                if sections:
                    offset += len(PAGE_SEP)
                span = Span(page_start=number, page_end=number)
                sections.append(Section(text, heading, span, offset, offset + len(text)))
                offset += len(text)
        if not sections:
            if n_pages == 0:
                raise IngestError(rel_path, "the PDF has no pages")
            raise IngestError(
                rel_path,
                f"none of its {n_pages} pages has a text layer (scanned?); "
                "run OCR first (e.g. ocrmypdf)",
            )
        return LoadedDocument(
            path=rel_path,
            doc_type=self.doc_type,
            sections=sections,
            warnings=warnings,
            meta={"pages": n_pages, **({"title": title} if title else {})},
        )
