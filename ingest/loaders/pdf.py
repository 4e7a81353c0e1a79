"""PDF loader (pypdf): sections by page and by the headings each page shows.

- Each page with text gives sections with ``page_start == page_end == n`` (1-based)
  from the page's ``extract_text()`` (NUL characters removed, outer whitespace
  stripped): one per heading the page shows, told by font size
  (:mod:`ingest.loaders.pdf_headings`: a heading line's text moves into the heading
  path, and open headings carry over to the next page), else the whole page. The
  document text is the page texts joined by a blank line (``"\\n\\n"``);
  ``char_start``/``char_end`` index it (a heading line lies between two sections).
- A page without extractable text is not dropped silently: it adds the warning
  ``page N has no text layer (scanned?); it is not searchable``. If no page has text
  the file fails (:class:`IngestError`), as do encrypted PDFs that the empty password
  cannot open and files pypdf cannot parse.
- pypdf reports recoverable damage through the ``pypdf`` logger; while a file is
  loaded that logger is raised to ERROR so the noise stays off the terminal (no other
  logger is touched).
- Running headers and footers (a title line, "Page 2 of 4", repeated at the top or
  bottom of most pages) are cut from each page's text first, a repeated line kept on
  the first page that shows it (:mod:`ingest.loaders.pdf_running`); a page of nothing
  else gives no section.
- The document's title (:func:`pdf_title`: the PDF's ``/Title``, unless it is a
  placeholder such as ``untitled`` or ``Microsoft Word - draft.docx``) heads every page's
  section, as a Markdown note's ``# Title`` heads its sections: hits and Sources show
  ``paper.pdf › <title> · p. 3``, the title is embedded with each chunk, and the
  evidence check counts its words, so a paper saved as ``2301.01234.pdf`` is still
  found and answered by its title's words. It is also kept in ``meta["title"]``.
  Without a usable ``/Title`` (reportlab's and many converters' ``untitled``, a Word
  placeholder), the title is the one page 1 shows (:func:`visual_title`): its first
  lines set clearly larger than its body text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from ingest.fileio import max_bytes_of, open_checked
from ingest.loaders.base import LoadContext
from ingest.loaders.pdf_headings import PageCut, PagePiece, fold, open_path, page_sections
from ingest.loaders.pdf_running import RunningLines
from ingest.loaders.textio import require_nonempty
from kb.errors import IngestError
from kb.progress import step
from kb.quoting import quote_name
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
_PLACEHOLDER_TITLES = frozenset(
    ["untitled", "no title", "title", "document", "unknown", "none", "anonymous", "unspecified"]
)
_TOOL_PREFIXES = ("microsoft word - ", "microsoft powerpoint - ", "microsoft excel - ")
_FILE_SUFFIXES = (".doc", ".docx", ".pdf", ".tex", ".dvi", ".odt", ".rtf", ".ppt", ".pptx")
MAX_TITLE_CHARS = 200


def pdf_title(reader: Any) -> str | None:
    """The PDF's ``/Title`` (:func:`clean_title`), or ``None`` when it is missing,
    unreadable or a placeholder."""
    try:
        meta = reader.metadata
        raw = meta.title if meta is not None else None
    except Exception:  # noqa: BLE001 - a damaged info dictionary only loses the title
        return None
    return clean_title(raw) if isinstance(raw, str) else None


def clean_title(raw: str) -> str | None:
    """``raw`` with white space folded, or ``None`` when it is empty, longer than
    :data:`MAX_TITLE_CHARS`, without a letter, or a placeholder (``untitled``,
    ``Microsoft Word - x.docx``, a bare file name like ``draft3.tex``)."""
    title = " ".join(raw.replace("\x00", "").split())
    low = title.lower().strip("()[]<>{}\"' ")  # reportlab writes "(anonymous)"
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


#: a title line's font size is at least this multiple of the page's body text size
TITLE_SIZE_RATIO = 1.25
#: the title must start within this many text runs of the top of page 1
TITLE_WITHIN_RUNS = 6


def visual_title(runs: list[tuple[str, float]]) -> str | None:
    """The title page 1 shows, from its text runs ``(text, font size)`` in reading
    order (:func:`page_runs`), or ``None``.

    The body size is the size that the most characters of the page are set in; the
    title is the first run set at the page's largest size when that size is at least
    :data:`TITLE_SIZE_RATIO` times the body size and the run is among the first
    :data:`TITLE_WITHIN_RUNS` runs, joined with the runs right after it at the same size
    (a title over two lines). Edge cases: a page of one size has no title; a result
    without a letter, over :data:`MAX_TITLE_CHARS` or a placeholder is ``None``.
    """
    sized = [(" ".join(t.split()), round(size, 1)) for t, size in runs]
    sized = [(t, size) for t, size in sized if t and size > 0]
    if len(sized) < 2:
        return None
    chars: dict[float, int] = {}
    for t, size in sized:
        chars[size] = chars.get(size, 0) + len(t)
    body = max(chars, key=lambda size: chars[size])
    top = max(size for _, size in sized)
    if top < TITLE_SIZE_RATIO * body:
        return None
    first = next(i for i, (_, size) in enumerate(sized) if size == top)
    if first >= TITLE_WITHIN_RUNS:
        return None
    parts: list[str] = []
    for t, size in sized[first:]:
        if abs(size - top) > 0.05:
            break
        parts.append(t)
    return clean_title(" ".join(parts))


def page_runs(page: Any) -> tuple[str, list[tuple[str, float]]]:
    """``page.extract_text()`` and the page's upright text runs with their rendered
    font size (the font size times the vertical scale of the text and current
    matrices). Rotated runs (an arXiv stamp up the margin) are left out. If reading the
    runs fails, the plain ``extract_text()`` is returned with no runs (no title)."""
    runs: list[tuple[str, float]] = []

    def visit(text: str, cm: Any, tm: Any, _font: Any, size: Any) -> None:
        if not text.strip() or not size:
            return
        if abs(tm[1]) > 1e-3 or abs(tm[2]) > 1e-3 or abs(cm[1]) > 1e-3 or abs(cm[2]) > 1e-3:
            return  # rotated or skewed: not a title line
        points = abs(float(size))
        runs.append((text, points * abs(float(tm[3]) * float(cm[3])) or points))

    try:
        text = page.extract_text(visitor_text=visit) or ""
    except Exception:  # noqa: BLE001 - the title is optional: never lose the page for it
        return page.extract_text() or "", []
    return text, runs


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
            open_headings: list[tuple[float, str]] = []
            titles = {fold(title)} if title else set()
            tail: tuple[int, int, str, tuple[str, ...]] | None = None  # offsets, text, path
            last_span = Span()
            pages: list[tuple[int, str, list[tuple[str, float]]]] = []
            with step(f"reading {quote_name(rel_path)}", n_pages, "pages") as reading:
                for number in range(1, n_pages + 1):
                    reading.reach(number - 1)  # pages read so far (kb.progress)
                    try:
                        raw, runs = page_runs(reader.pages[number - 1])
                        if number == 1:
                            shown = visual_title(runs)
                            titles |= {fold(shown)} if shown else set()
                            if title is None:
                                title = shown
                                heading = (title,) if title else ()
                    except Exception as e:  # one damaged page must not sink the file
                        warnings.append(f"page {number}: text extraction failed ({_reason(e)})")
                        continue
                    text = raw.replace("\x00", "").strip()
                    if not text:
                        warnings.append(
                            f"page {number} has no text layer (scanned?); it is not searchable"
                        )
                        continue
                    pages.append((number, text, runs))
                reading.reach(n_pages)
            running = RunningLines(pages)
            for number, page_text, runs in pages:
                text, runs = running.strip(page_text, runs)
                if not text:  # nothing but a running header and footer
                    continue
                if offset:
                    offset += len(PAGE_SEP)
                span = Span(page_start=number, page_end=number)
                try:
                    cut = page_sections(text, runs, open_headings, titles)
                except Exception:  # noqa: BLE001 - headings are optional: keep the page whole
                    cut = PageCut([PagePiece(0, len(text), open_path(open_headings))])
                for piece in cut.pieces:
                    sections.append(
                        Section(
                            text[piece.start : piece.end],
                            heading + piece.headings,
                            span,
                            offset + piece.start,
                            offset + piece.end,
                        )
                    )
                tail = None
                if cut.tail is not None:
                    a, b, path = cut.tail
                    tail = (offset + a, offset + b, text[a:b], heading + path)
                last_span = span
                offset += len(text)
            if tail is not None:  # headings that end the document head nothing: keep them
                a, b, tail_text, path = tail
                sections.append(Section(tail_text, path, last_span, a, b))
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
