"""Headings inside a PDF page, told by their font size, and the page cut at them.

A PDF has no heading markup; its headings are lines set larger than the body text
("Error codes" in 14 pt over 11 pt text, a paper's "3 Results"). Without them a page
is one section: its first sentence reads "Error codes E21: the water does not drain.",
a chunk runs across two sections, and Sources can only say "p. 2". With them the page
is cut as a Markdown note is (:mod:`ingest.loaders.markdown`): each heading starts a
section whose heading path ends with it, and its line leaves the section's text (it is
in the path).

Rules (:func:`page_sections`):

- **Sizes per character.** The page's text runs ``(text, size)`` (from
  :func:`ingest.loaders.pdf.page_runs`, in reading order) are found one after another
  in the page's extracted text, each within :data:`RUN_SLACK` characters of where the
  previous one ended (extraction adds spaces and line breaks; a rotated run is not in
  the runs and is skipped over). A run that is not found gives its characters no size.
- **Body size**: the size most characters of the page are set in.
- **Heading line**: a line with a letter, at most :data:`MAX_HEADING_CHARS` characters,
  whose every visible character has a known size of at least :data:`HEADING_SIZE_RATIO`
  times the body size. Consecutive heading lines of one size are one heading (a
  heading over two lines); more than :data:`MAX_HEADING_LINES` of them are a passage
  set large (a lead paragraph, a pull quote) and stay text.
- **Levels** follow size: a heading closes the open headings set at its size or
  smaller, so "2 Methods" (16 pt) > "2.1 Data" (13 pt) nests, and "3 Results" (16 pt)
  replaces both. Open headings carry over to the next page.
- **Not headings**: a large line of :data:`SENTENCE_WORDS` words or more that ends
  like a sentence (a callout: "Warning: unplug it first."); a heading set smaller
  than a heading size of the current page (a page of 8 pt references makes a 10 pt
  line look large) is closed when a page of larger body text begins.
- **The title**: a heading whose text is the document's title (its ``/Title`` or the
  one page 1 shows) is not pushed; the title already heads every section. Heading
  lines that end the document with nothing after them are kept as text.
- Text before the first heading of a page belongs to the headings still open. Pieces
  with no visible text give no section. Without runs (reading them failed) or without
  a heading, the page is one section, as before; so is a page whose cut fails.
"""

from __future__ import annotations

from dataclasses import dataclass

#: a heading line's size is at least this multiple of the page's body size
HEADING_SIZE_RATIO = 1.15
#: a longer line is text, not a heading
MAX_HEADING_CHARS = 120
#: more consecutive large lines than this are a passage set large (a lead paragraph, a
#: pull quote), not a heading: they stay text
MAX_HEADING_LINES = 3
#: a large line of this many words or more that ends with ".", "!" or "?" is text
SENTENCE_WORDS = 4
#: how far past the previous run the next run's text may start in the extracted text
RUN_SLACK = 200


@dataclass(frozen=True)
class PagePiece:
    """A slice ``text[start:end]`` of the page text (white space trimmed) under
    ``headings`` (the open headings, outermost first, title excluded)."""

    start: int
    end: int
    headings: tuple[str, ...]


def char_sizes(text: str, runs: list[tuple[str, float]]) -> list[float | None]:
    """The font size of every character of ``text`` (``None`` where no run was found;
    module docstring)."""
    sizes: list[float | None] = [None] * len(text)
    cursor = 0
    for run, size in runs:
        piece = run.strip()
        if not piece:
            continue
        at = text.find(piece, cursor, cursor + RUN_SLACK + len(piece))
        if at < 0:
            continue
        sizes[at : at + len(piece)] = [round(size, 1)] * len(piece)
        cursor = at + len(piece)
    return sizes


def body_size(sizes: list[float | None], text: str) -> float | None:
    """The size most visible characters are set in, or ``None`` without sizes."""
    count: dict[float, int] = {}
    for c, s in zip(text, sizes, strict=True):
        if s is not None and not c.isspace():
            count[s] = count.get(s, 0) + 1
    return max(count, key=lambda s: count[s]) if count else None


def heading_lines(text: str, runs: list[tuple[str, float]]) -> list[tuple[int, int, float]]:
    """``(start, end, size)`` of each heading of ``text`` (module docstring)."""
    sizes = char_sizes(text, runs)
    body = body_size(sizes, text)
    return [] if body is None else _headings(text, sizes, body)


def _headings(text: str, sizes: list[float | None], body: float) -> list[tuple[int, int, float]]:
    """Heading lines of ``text`` at ``body`` size, consecutive lines of one size joined
    into one, unless there are more than :data:`MAX_HEADING_LINES` of them."""
    out: list[tuple[int, int, float, int]] = []  # start, end, size, lines
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        visible = [sizes[i] for i in range(start, end) if not text[i].isspace()]
        stripped = line.strip()
        if (
            not stripped
            or len(stripped) > MAX_HEADING_CHARS
            or not any(c.isalpha() for c in stripped)
            or _is_sentence(stripped)
            or any(s is None or s < HEADING_SIZE_RATIO * body for s in visible)
        ):
            continue
        size = max(s for s in visible if s is not None)
        if out and out[-1][2] == size and text[out[-1][1] : start].strip() == "":
            out[-1] = (out[-1][0], end, size, out[-1][3] + 1)
        else:
            out.append((start, end, size, 1))
    return [(a, b, size) for a, b, size, n in out if n <= MAX_HEADING_LINES]


def _is_sentence(line: str) -> bool:
    """A line of at least :data:`SENTENCE_WORDS` words that ends like a sentence
    ("Note: see the appendix for the data.") is text set large, not a heading
    ("5. Credits." is a heading)."""
    return line.endswith((".", "!", "?")) and len(line.split()) >= SENTENCE_WORDS


def open_path(open_headings: list[tuple[float, str]]) -> tuple[str, ...]:
    """The texts of the open headings ``(size, text)``, outermost first."""
    return tuple(t for _, t in open_headings)


def fold(text: str) -> str:
    """``text`` with white space folded and case removed, to compare headings."""
    return " ".join(text.split()).casefold()


@dataclass
class PageCut:
    """:func:`page_sections`' outcome. ``tail``: the span of the heading lines that end
    the page with no text after them, and the headings open before them; the loader
    keeps them as text when the page is the document's last (they head nothing)."""

    pieces: list[PagePiece]
    tail: tuple[int, int, tuple[str, ...]] | None = None


def page_sections(
    text: str,
    runs: list[tuple[str, float]],
    open_headings: list[tuple[float, str]],
    titles: set[str],
) -> PageCut:
    """The pieces of one page (module docstring). ``open_headings`` (``(size, text)``,
    outermost first) are the headings still open from earlier pages; it is updated in
    place for the next page. ``titles``: the document's title(s), :func:`fold`-ed."""
    sizes = char_sizes(text, runs)
    body = body_size(sizes, text)
    if body is not None:  # a heading set smaller than a heading here is body text here
        while open_headings and open_headings[-1][0] < HEADING_SIZE_RATIO * body:
            open_headings.pop()
    cut = PageCut([])
    pos = 0

    def emit(end: int) -> bool:
        piece = text[pos:end]
        s = pos + (len(piece) - len(piece.lstrip()))
        e = pos + len(piece.rstrip())
        if e > s:
            cut.pieces.append(PagePiece(s, e, open_path(open_headings)))
        return e > s

    heads = [] if body is None else _headings(text, sizes, body)
    for start, end, size in heads:
        if emit(start) or cut.tail is None:
            cut.tail = (start, end, open_path(open_headings))
        else:
            cut.tail = (cut.tail[0], end, cut.tail[2])
        pos = end
        heading = " ".join(text[start:end].split())
        if fold(heading) in titles:
            continue
        while open_headings and open_headings[-1][0] <= size:
            open_headings.pop()
        open_headings.append((size, heading))
    if emit(len(text)):
        cut.tail = None
    return cut
