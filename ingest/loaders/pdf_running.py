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
- **Numbered or repeated**: a running line is *numbered* when its lines are one text
  but for a number that keeps one offset from the page's number ("Page 2 of 4" on page
  2, "- 13 -" on page 14: a page number); *repeated* when its lines are one text. A
  key whose lines differ otherwise ("Clause 4.1 …", "Clause 9.3 …", or "Day 3 -
  06.03.2024 - 24 km" whose date and distance change with the day) is text, not
  running.
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


Measured = tuple[list[float | None], list[tuple[int, int, str]]]


def _measure(text: str, runs: Sequence[tuple[str, float]]) -> Measured:
    """A page's font size per character (from ``runs``; ``None`` where unknown) and its
    edge lines with their keys, less those set larger than its body text (without
    sizes no line is large)."""
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
    return sizes, out


Page = tuple[int, str, Sequence[tuple[str, float]]]


def _masked(line: str, number: int) -> dict[int, set[str]]:
    """For each offset ``o`` that one of ``line``'s numbers has from the page's
    ``number``, the line (white space folded) with one such number written ``#``, one
    text per place it stands: "Page 4 of 4" on page 4 gives ``{0: {"Page # of 4",
    "Page 4 of #"}}``."""
    folded = " ".join(line.split())
    out: dict[int, set[str]] = {}
    for m in _DIGITS.finditer(folded):
        o = int(m.group()) - number
        out.setdefault(o, set()).add(folded[: m.start()] + "#" + folded[m.end() :])
    return out


def running_keys(
    pages: Sequence[Page], measured: dict[str, Measured] | None = None
) -> dict[str, bool]:
    """The keys of the running lines of ``pages`` (``(number, text, runs)`` of each
    page, in order; module docstring), each with whether it is *numbered*: the same
    text on every page once the number that follows the page's is masked ("Page # of
    4"), so a line whose other numbers change too ("Day 3 - 06.03.2024 - 24 km") is
    text, not a page number. ``measured``: :func:`_measure` of page texts already made."""
    texts = [p for p in pages if p[1].strip()]
    need = max(MIN_PAGES, math.ceil(MIN_SHARE * len(texts)))
    if len(texts) < need:
        return {}
    count: dict[str, int] = {}
    shown: dict[str, set[str]] = {}
    masked: dict[str, list[dict[int, set[str]]]] = {}
    for number, text, runs in texts:
        m = measured.get(text) if measured is not None else None
        edges = (m or _measure(text, runs))[1]
        for key in {k for _, _, k in edges}:
            count[key] = count.get(key, 0) + 1
        for a, b, k in edges:
            shown.setdefault(k, set()).add(" ".join(text[a:b].split()))
            masked.setdefault(k, []).append(_masked(text[a:b], number))
    out: dict[str, bool] = {}
    for k, n in count.items():
        if n < need:
            continue
        if len(shown[k]) == 1:
            out[k] = False  # repeated
        elif _one_text_but_the_page(masked[k]):
            out[k] = True  # numbered
    return out


def _one_text_but_the_page(lines: Sequence[dict[int, set[str]]]) -> bool:
    """Some offset is in every line's :func:`_masked`, with one text they all share."""
    common = set(lines[0]).intersection(*lines[1:]) if lines else set()
    return any(set.intersection(*(m[o] for m in lines)) for o in common)


class RunningLines:
    """Cuts a document's running lines from its pages, taken in order: a numbered one
    ("Page 2 of 4") everywhere, a repeated one ("Tenancy Agreement - Flat 3, 12 Elm
    Road") everywhere but its first page, so what it says is kept once (a lease's
    address may be in its header only)."""

    def __init__(self, pages: Sequence[Page]) -> None:
        # each page's sizes and edges, measured once, by its text
        self._measured = {text: _measure(text, runs) for _, text, runs in pages if text.strip()}
        self.keys = running_keys(pages, self._measured)
        self._seen: set[str] = set()

    def strip(
        self, text: str, runs: Sequence[tuple[str, float]]
    ) -> tuple[str, list[tuple[str, float]]]:
        """``text`` without its running edge lines (white space at both ends trimmed),
        and runs for it: the font sizes read on the whole page, regrouped over the text
        that is left, so a cut page number "2" cannot be matched to a "2" further down
        and push the headings after it out of reach. ``text`` and ``runs`` themselves
        when there is nothing to cut."""
        if not self.keys:
            return text, list(runs)
        sizes, edges = self._measured.get(text) or _measure(text, runs)
        cut = []
        for a, b, key in edges:
            if key not in self.keys:
                continue
            if not self.keys[key] and key not in self._seen:
                self._seen.add(key)  # a repeated line's first showing stays
                continue
            cut.append((a, b))
        if not cut:
            return text, list(runs)
        kept_text: list[str] = []
        kept_sizes: list[float | None] = []
        at = 0
        for a, b in [*cut, (len(text) + 1, len(text) + 1)]:
            kept_text.append(text[at:a])
            kept_sizes.extend(sizes[at:a])
            at = b + 1  # the line's newline goes with it
        joined = "".join(kept_text)
        lead = len(joined) - len(joined.lstrip())
        out = joined.strip()
        return out, _regroup(out, kept_sizes[lead : lead + len(out)])


def _regroup(text: str, sizes: Sequence[float | None]) -> list[tuple[str, float]]:
    """Runs ``(text, size)`` over ``text``: each longest stretch of characters that
    share one known size (white space with no size splits them)."""
    runs: list[tuple[str, float]] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or sizes[i] != sizes[start]:
            size = sizes[start]
            if size is not None and text[start:i].strip():
                runs.append((text[start:i], size))
            start = i
    return runs
