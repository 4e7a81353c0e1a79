"""Running headers and footers: lines a PDF repeats at the top or bottom of its pages.

A contract, a manual or a report prints its title line ("Tenancy Agreement - Flat 3,
12 Elm Road") and a page number ("Page 2 of 4") on every page. Extracted with the
text, they became chunks of their own (four of a four-page lease's fourteen chunks
held nothing else) or glued onto the first sentence of a page, where a search for
the title's words found them and the evidence check counted them. They are cut from
each page's text before it is split into sections (:class:`RunningLines`).

Rules:

- **Edge lines**: the first and last :data:`EDGE_LINES` non-blank lines of a page's
  extracted text (extraction puts a header and a footer there, in either order).
- **Key**: the line folded: lower case, white space folded, each run of digits as
  ``#`` ("Page 2 of 4" and "Page 3 of 4" are one key, ``page # of #``; so are "- 7 -"
  and "- 8 -"). A line without a letter or digit has no key.
- **Running**: a key found among the edge lines of at least :data:`MIN_PAGES` pages
  and of at least :data:`MIN_SHARE` of the pages with text.
- **Numbered or repeated**: a running line is *numbered* when its lines differ and one
  of their numbers keeps one offset from the page's number ("Page 2 of 4" on page 2,
  "- 13 -" on page 14: a page number); *repeated* when its lines are one text. A key
  whose lines differ otherwise ("Clause 4.1 …", "Clause 9.3 …" opening pages) is
  text, not running.
- **Cut**: a numbered running line on every page; a repeated one on every page but the
  first that shows it, so what it says is kept once (a lease's address may be in its
  header only, and a page's boilerplate line is still found once).
- **Never running**: a line set larger than its page's body text (by
  :data:`ingest.loaders.pdf_headings.HEADING_SIZE_RATIO`): a heading such as
  "Chapter 3" that opens page after page stays, and becomes a heading.

Edge cases: a document of fewer than :data:`MIN_PAGES` pages with text keeps every
line; only edge lines are cut, so the same words inside a page's text stay; on a short
page every line is an edge line; a page with nothing but running lines is left without
text (the loader skips it without the "no text layer" warning).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ingest.loaders.pdf_headings import HEADING_SIZE_RATIO, body_size, char_sizes

#: how many non-blank lines at each end of a page can be a header or footer
EDGE_LINES = 3
#: a running line repeats on at least this many pages ...
MIN_PAGES = 3
#: ... and on at least this share of the pages with text
MIN_SHARE = 0.5

_DIGITS = re.compile(r"\d+")


def line_key(line: str) -> str:
    """``line`` folded for comparison across pages (module docstring); "" when it has no
    letter or digit."""
    if not any(c.isalnum() for c in line):
        return ""
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _edge_lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the first and last :data:`EDGE_LINES` non-blank lines."""
    lines: list[tuple[int, int]] = []
    at = 0
    for line in text.split("\n"):
        if line.strip():
            lines.append((at, at + len(line)))
        at += len(line) + 1
    if len(lines) <= 2 * EDGE_LINES:
        return lines
    return lines[:EDGE_LINES] + lines[-EDGE_LINES:]


def _small_edges(text: str, runs: Sequence[tuple[str, float]]) -> list[tuple[int, int, str]]:
    """The edge lines of a page with their keys, less those set larger than its body
    text (sizes from ``runs``; without sizes no line is large)."""
    sizes: list[float | None] = char_sizes(text, list(runs)) if runs else [None] * len(text)
    body = body_size(sizes, text)
    out = []
    for a, b in _edge_lines(text):
        known = [s for c, s in zip(text[a:b], sizes[a:b], strict=True) if s and not c.isspace()]
        if body is not None and known and min(known) >= HEADING_SIZE_RATIO * body:
            continue
        key = line_key(text[a:b])
        if key:
            out.append((a, b, key))
    return out


Page = tuple[int, str, Sequence[tuple[str, float]]]


def running_keys(pages: Sequence[Page]) -> dict[str, bool]:
    """The keys of the running lines of ``pages`` (``(number, text, runs)`` of each
    page, in order; module docstring), each with whether it is *numbered*."""
    texts = [p for p in pages if p[1].strip()]
    need = max(MIN_PAGES, math.ceil(MIN_SHARE * len(texts)))
    if len(texts) < need:
        return {}
    count: dict[str, int] = {}
    shown: dict[str, set[str]] = {}
    offsets: dict[str, set[int] | None] = {}
    for number, text, runs in texts:
        edges = _small_edges(text, runs)
        for key in {k for _, _, k in edges}:
            count[key] = count.get(key, 0) + 1
        for a, b, k in edges:
            shown.setdefault(k, set()).add(" ".join(text[a:b].split()))
            here = {int(d) - number for d in _DIGITS.findall(text[a:b])}
            seen = offsets.get(k)
            offsets[k] = here if k not in offsets else (None if seen is None else seen & here)
    out: dict[str, bool] = {}
    for k, n in count.items():
        if n < need:
            continue
        if len(shown[k]) == 1:
            out[k] = False  # repeated
        elif offsets.get(k):
            out[k] = True  # numbered: one of its numbers moves with the page's
    return out


class RunningLines:
    """Cuts a document's running lines from its pages, taken in order: a numbered one
    ("Page 2 of 4") everywhere, a repeated one ("Tenancy Agreement - Flat 3, 12 Elm
    Road") everywhere but its first page, so what it says is kept once (a lease's
    address may be in its header only)."""

    def __init__(self, pages: Sequence[Page]) -> None:
        self.keys = running_keys(pages)
        self._seen: set[str] = set()

    def strip(self, text: str, runs: Sequence[tuple[str, float]]) -> str:
        """``text`` without its running edge lines (white space at both ends trimmed);
        ``text`` itself when there is nothing to cut."""
        if not self.keys:
            return text
        cut = []
        for a, b, key in _small_edges(text, runs):
            if key not in self.keys:
                continue
            if not self.keys[key] and key not in self._seen:
                self._seen.add(key)  # a repeated line's first showing stays
                continue
            cut.append((a, b))
        if not cut:
            return text
        parts, at = [], 0
        for a, b in cut:
            parts.append(text[at:a])
            at = b + 1  # the line's newline goes with it
        parts.append(text[at:])
        return "".join(parts).strip()
