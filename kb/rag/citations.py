"""A strict, incremental citation parser for streamed answers.

Feed the answer in pieces of any size (a model token may end in the middle of
``[#1`` and the next one start with ``2]``); citations are reported as soon as
their closing ``]`` arrives, with offsets into the whole answer text.

What counts as a citation: exactly ``[#<digits>]`` in prose, e.g. ``[#3]``.
What does not: ``[3]``, ``[# 3]``, ``(#3)``, ``#3``, ``[#3 ]``, ``[#3,4]`` and
anything inside code:

- fenced code blocks: a line whose first non-space character (at most three
  spaces of indent) starts a run of three or more backticks or tildes opens a
  fence; a later line that starts with a run of the same character, at least as
  long, followed only by white space closes it. An unclosed fence runs to the end.
- inline code: a run of N backticks (not a fence) opens a code span that ends at
  the next run of exactly N backticks, or at a blank line. The parser is *strict*:
  an unclosed span (CommonMark would show its backticks literally) still hides
  the citations after it, so nothing that may be code is ever counted.

A citation number ``n`` is *valid* when ``1 <= n <= k`` (``k`` = the number of
context passages in the prompt); an invalid one is reported but never linked.

The parser reads one character at a time and keeps its whole state between
calls, so splitting the same text at any boundaries yields the same citations
as feeding it whole (a hypothesis property test holds it to that).
"""

from __future__ import annotations

from dataclasses import dataclass

_TEXT, _INLINE, _FENCE = 0, 1, 2
_MAX_DIGITS = 9  # longer digit runs are not citations (and never valid)


@dataclass(frozen=True)
class Citation:
    """One ``[#n]`` occurrence: ``start``/``end`` index the answer text (end-exclusive)."""

    n: int
    start: int
    end: int
    valid: bool


class CitationParser:
    """Incremental parser; ``feed`` returns the citations completed by that piece."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.citations: list[Citation] = []
        self._pos = 0
        self._mode = _TEXT
        self._code_len = 0  # inline: backtick count; fence: opening run length
        self._fence_char = ""
        self._fence_closing = False  # the current line may close the fence
        self._line_start = True  # only spaces (<= 3) seen on this line so far
        self._indent = 0
        self._line_blank = True  # only white space seen on this line so far
        self._run_char = ""  # pending run of backticks / tildes
        self._run_len = 0
        self._run_at_line_start = False
        self._cite = 0  # 0 none, 1 "[", 2 "[#", 3 "[#digits"
        self._cite_start = 0
        self._digits = ""

    def feed(self, piece: str) -> list[Citation]:
        found: list[Citation] = []
        for ch in piece:
            c = self._step(ch)
            if c is not None:
                found.append(c)
            self._pos += 1
        self.citations.extend(found)
        return found

    def finish(self) -> list[Citation]:
        """End of the answer: pending runs and half-written citations are dropped.

        Nothing can complete at the end, so this returns an empty list; it exists so
        callers can mark the end explicitly.
        """
        self._run_char, self._run_len, self._cite = "", 0, 0
        return []

    # -- one character --------------------------------------------------------------------
    def _step(self, ch: str) -> Citation | None:
        if self._run_char:
            if ch == self._run_char:
                self._run_len += 1
                return None
            self._resolve_run()
        if ch in "`~" and not (ch == "~" and self._mode == _INLINE):
            # a run may open/close code; it also breaks any citation in progress
            self._cite = 0
            self._run_char, self._run_len = ch, 1
            self._run_at_line_start = self._line_start
            self._line_start = False
            self._line_blank = False
            return None
        found = self._prose(ch) if self._mode == _TEXT else None
        self._track_line(ch)
        return found

    def _track_line(self, ch: str) -> None:
        if ch == "\n":
            if self._mode == _FENCE and self._fence_closing:
                self._mode = _TEXT
            elif self._mode == _INLINE and self._line_blank:
                self._mode = _TEXT  # a blank line ends the paragraph and the span
            self._fence_closing = False
            self._line_start, self._indent, self._line_blank = True, 0, True
            return
        if ch == " " and self._line_start and self._indent < 3:
            self._indent += 1
        else:
            self._line_start = False
        if not ch.isspace():
            self._line_blank = False
            self._fence_closing = False

    def _resolve_run(self) -> None:
        ch, n, at_start = self._run_char, self._run_len, self._run_at_line_start
        self._run_char, self._run_len = "", 0
        if self._mode == _TEXT:
            if at_start and n >= 3:
                self._mode, self._fence_char, self._code_len = _FENCE, ch, n
                self._fence_closing = False
            elif ch == "`":
                self._mode, self._code_len = _INLINE, n
        elif self._mode == _INLINE:
            if ch == "`" and n == self._code_len:
                self._mode = _TEXT
        elif at_start and ch == self._fence_char and n >= self._code_len:
            self._fence_closing = True

    def _prose(self, ch: str) -> Citation | None:
        if self._cite == 1:
            if ch == "#":
                self._cite = 2
                return None
            self._cite = 0
        elif self._cite == 2:
            if ch.isascii() and ch.isdigit():
                self._cite, self._digits = 3, ch
                return None
            self._cite = 0
        elif self._cite == 3:
            if ch.isascii() and ch.isdigit() and len(self._digits) < _MAX_DIGITS:
                self._digits += ch
                return None
            self._cite = 0
            if ch == "]" and len(self._digits) <= _MAX_DIGITS:
                n = int(self._digits)
                return Citation(n, self._cite_start, self._pos + 1, 1 <= n <= self.k)
        if ch == "[":
            self._cite, self._cite_start = 1, self._pos
        return None


def parse_citations(text: str, k: int) -> list[Citation]:
    """All citations in a complete answer."""
    p = CitationParser(k)
    out = p.feed(text)
    p.finish()
    return out
