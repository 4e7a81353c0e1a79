"""Reading text files and mapping between lines and character offsets.

The *document text* of a Markdown or plain-text file is its UTF-8 content with a
leading byte-order mark removed and line endings normalised to ``\\n`` (``\\r\\n`` and
a lone ``\\r`` both count as one line break, as in Markdown parsers). Character
offsets index that text; line numbers are 1-based and count ``\\n`` only, so line
``n`` of the document text is line ``n`` of the file in any editor.
"""

from __future__ import annotations

import bisect
from pathlib import Path

from kb.errors import IngestError


def read_text(abs_path: Path, rel_path: str) -> str:
    """Return the document text of ``abs_path``.

    Raises :class:`IngestError` for an unreadable file, a file that is empty or holds
    only whitespace, and invalid UTF-8 (naming the 0-based byte offset of the first
    bad byte).
    """
    try:
        data = abs_path.read_bytes()
    except OSError as e:
        raise IngestError(rel_path, f"cannot read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise IngestError(
            rel_path, f"invalid UTF-8 at byte {e.start}; re-save the file as UTF-8"
        ) from None
    text = text.removeprefix("\ufeff")
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
