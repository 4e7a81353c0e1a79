"""The ``window`` chunker: fixed windows of ``size`` tokens, ``overlap`` tokens shared.

The document's tokens are the tokens of its sections, in order (so Markdown heading
lines and front matter, which are not section text, are not in any window). Window
``k`` starts at token ``k * (size - overlap)`` (strictly: each window starts
``size - overlap`` tokens after the previous one, or right after the previous window's
last token when that window had to shrink) and ends ``size`` tokens later; the last
window ends at the last token. Windows cross section boundaries; section boundaries
only shape the locator:

- heading path: the path of the section the window starts in;
- lines / pages / seconds: from the window's first character to its last, so a window
  over two PDF pages reads ``pp. 2–3``.

A window's text is its slice of each section it touches, joined by a blank line (audio:
a space); a window inside one section is a verbatim slice. ``token_count`` is the
counter on that text and is at most ``size``: should re-tokenising the joined text give
more tokens (a window cut inside a word can tokenise differently), the window drops
tokens from its end until it fits.

Each section is tokenised once: its token offsets place the windows, and the same
encoding's words count them (:mod:`ingest.chunkers.counting`), so a window's count costs
a tokenizer call only when it starts or ends inside a word.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from ingest.chunkers.counting import SliceCounter
from ingest.chunkers.parts import Part, count_parts, make_draft
from ingest.tokens import TokenCounter
from kb.types import ChunkDraft, ChunkerInfo, LoadedDocument

#: 2: PDF heading lines (ingest.loaders.pdf_headings) are in the heading path, not the
#: text; Markdown, text and audio chunk as in 1
VERSION = "2"


class WindowChunker:
    def __init__(self, size: int, overlap: int, counter: TokenCounter) -> None:
        self.size = size
        self.overlap = overlap
        self.counter = counter
        self.info = ChunkerInfo(
            name="window",
            version=VERSION,
            params={"size": size, "overlap": overlap, "tokenizer": counter.name},
        )

    def chunk(self, doc: LoadedDocument) -> list[ChunkDraft]:
        # each section's non-empty tokens; the document's token t is section k's token
        # t - base[k] for the k with base[k] <= t < base[k + 1]
        offs: list[list[tuple[int, int]]] = []
        slices: list[SliceCounter] = []
        for sec in doc.sections:
            offs.append([o for o in self.counter.offsets(sec.text) if o[1] > o[0]])
            slices.append(SliceCounter(sec.text, self.counter))
            slices[-1].warm()  # same text as offsets: tokenised once
        base = list(accumulate((len(o) for o in offs), initial=0))
        out: list[ChunkDraft] = []
        n = base[-1]
        i = 0
        while i < n:
            j = min(n, i + self.size)
            parts = _parts(offs, base, i, j)
            count = count_parts(doc, parts, slices)
            while j > i + 1 and count > self.size:
                j -= 1
                parts = _parts(offs, base, i, j)
                count = count_parts(doc, parts, slices)
            out.append(make_draft(doc, parts, count))
            if j >= n:
                break
            i = max(i + 1, j - self.overlap)
        return out


def _parts(offs: list[list[tuple[int, int]]], base: list[int], i: int, j: int) -> list[Part]:
    """The document's tokens ``i .. j-1`` as one part per section they fall in: from the
    first token's start to the last token's end (sections without tokens get no part)."""
    parts: list[Part] = []
    for sec in range(bisect_right(base, i) - 1, bisect_right(base, j - 1)):
        lo, hi = max(i, base[sec]) - base[sec], min(j, base[sec + 1]) - base[sec]
        if lo < hi:
            parts.append((sec, offs[sec][lo][0], offs[sec][hi - 1][1]))
    return parts
