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
"""

from __future__ import annotations

from ingest.chunkers.parts import Part, chunk_text, make_draft
from ingest.tokens import TokenCounter
from kb.types import ChunkDraft, ChunkerInfo, LoadedDocument

VERSION = "1"


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
        tokens: list[Part] = []
        for i, sec in enumerate(doc.sections):
            tokens.extend((i, s, e) for s, e in self.counter.offsets(sec.text) if e > s)
        out: list[ChunkDraft] = []
        n = len(tokens)
        i = 0
        while i < n:
            j = min(n, i + self.size)
            parts = _parts(tokens[i:j])
            while j > i + 1 and self.counter.count(chunk_text(doc, parts)) > self.size:
                j -= 1
                parts = _parts(tokens[i:j])
            out.append(make_draft(doc, parts, self.counter))
            if j >= n:
                break
            i = max(i + 1, j - self.overlap)
        return out


def _parts(tokens: list[Part]) -> list[Part]:
    """Collapse a run of tokens into one part per section: first token start to last end."""
    parts: list[Part] = []
    for sec, s, e in tokens:
        if parts and parts[-1][0] == sec:
            parts[-1] = (sec, parts[-1][1], e)
        else:
            parts.append((sec, s, e))
    return parts
