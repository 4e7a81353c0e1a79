"""Reading text files and mapping between lines and character offsets.

The *document text* of a Markdown or plain-text file is its content decoded as UTF-8,
or as UTF-16/UTF-32 when a byte-order mark at the start says so (the mark itself is
removed), with line endings normalised to ``\\n`` (``\\r\\n`` and
a lone ``\\r`` both count as one line break, as in Markdown parsers). Character
offsets index that text; line numbers are 1-based and count ``\\n`` only, so line
``n`` of the document text is line ``n`` of the file in any editor.
"""

from __future__ import annotations

import bisect
import codecs
from pathlib import Path

from ingest.fileio import read_bytes
from kb.errors import IngestError

# Longest mark first: the UTF-32-LE mark starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


def decode_text(data: bytes, rel_path: str) -> str:
    """Decode file bytes: a byte-order mark selects UTF-8/16/32, anything else is UTF-8.

    The mark is not part of the result. Raises :class:`IngestError` for bytes invalid in
    the chosen encoding (naming the 0-based byte offset of the first bad byte, counted in
    the file) and for text holding a NUL character (``binary content``): NUL never occurs
    in text, and storing it would put it inside words and on the terminal.
    """
    encoding, label, skip = "utf-8", "UTF-8", 0
    for bom, enc, name in _BOMS:
        if data.startswith(bom):
            encoding, label, skip = enc, name, len(bom)
            break
    try:
        text = data[skip:].decode(encoding)
    except UnicodeDecodeError as e:
        raise IngestError(
            rel_path, f"invalid {label} at byte {e.start + skip}; re-save the file as UTF-8"
        ) from None
    nul = text.find("\x00")
    if nul != -1:
        raise IngestError(
            rel_path,
            f"binary content (NUL character at text offset {nul}); not a text file",
        )
    return text


def read_text(abs_path: Path, rel_path: str, max_bytes: int | None = None) -> str:
    """Return the document text of ``abs_path`` (read with :func:`ingest.fileio.read_bytes`).

    Raises :class:`IngestError` for an unreadable or non-regular file, one over
    ``max_bytes``, a file that is empty or holds only whitespace, and the decoding
    problems of :func:`decode_text`.
    """
    text = decode_text(read_bytes(abs_path, rel_path, max_bytes), rel_path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise IngestError(rel_path, "empty file")
    return text


def require_nonempty(abs_path: Path, rel_path: str) -> None:
    """Raise ``IngestError("empty file")`` for a 0-byte (or unreadable) binary file."""
    try:
        size = abs_path.stat().st_size
    except OSError as e:
        raise IngestError(rel_path, f"cannot read: {e.strerror or e}") from None
    if size == 0:
        raise IngestError(rel_path, "empty file")


class LineIndex:
    """Maps character offsets of a text to 1-based line numbers and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        pos = text.find("\n")
        while pos != -1:
            self.starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    @property
    def n_lines(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    def line_start(self, line: int) -> int:
        """Offset of the first character of 1-based ``line``."""
        return self.starts[line - 1]

    def line_end(self, line: int) -> int:
        """Offset just past the last character of ``line`` (its ``\\n`` excluded)."""
        if line < len(self.starts):
            return self.starts[line] - 1
        return len(self.text)


def trimmed_block(index: LineIndex, first: int, last: int) -> tuple[int, int, int, int] | None:
    """Lines ``first..last`` without the blank lines at either end.

    Returns ``(line_start, line_end, char_start, char_end)`` where the character range
    runs from the start of the first non-blank line to the end of the last one (leading
    indentation and trailing spaces kept: the text is verbatim), or ``None`` when every
    line is blank.
    """
    text = index.text
    while first <= last and not text[index.line_start(first) : index.line_end(first)].strip():
        first += 1
    while last >= first and not text[index.line_start(last) : index.line_end(last)].strip():
        last -= 1
    if first > last:
        return None
    return first, last, index.line_start(first), index.line_end(last)
