"""The ``structure`` chunker: chunks follow the document's own structure.

Rules, in order:

1. **Markdown, text, PDF.** Each section (a block under a heading, a paragraph, a
   PDF page's text under one heading) is chunked on its own, so a chunk never crosses a
   heading or a page. A section
   over ``max_tokens`` is split at paragraph breaks, then line breaks, then sentence
   ends, then whitespace, and only as a last resort between tokens; the pieces are then
   packed greedily back together while the packed text stays within ``max_tokens``. A
   chunk that starts inside a line (a paragraph too long for one chunk) repeats the
   previous chunk's last sentence, whole, when it is at most half of ``max_tokens``:
   a passage that runs across the cut is whole in one chunk
   (:func:`ingest.chunkers.parts.carried`). On squad-dev 3 of 294 golden snippets ran
   across such a cut, so no chunk held them; with a third of ``max_tokens`` (version 4)
   1 of the fresh set's 234 still did (a 120-character window around "18 July 2000" at
   the end of a 70-token sentence). Half costs 6 more chunks of squad-dev's 1,287.
2. **Merging small chunks.** A chunk under ``min_tokens`` is merged with its
   neighbour when both have the *same heading path* and the result stays within
   ``max_tokens`` (consecutive plain-text paragraphs, say). Chunks are never merged
   across different heading paths (a short Markdown section stays its own chunk: its
   heading is part of its locator and is searchable through the heading column), never
   across PDF pages (a PDF page's sections under one heading, split by a title line or a
   margin stamp, do merge), and never for audio (rule 3 groups it).
3. **Audio.** Consecutive transcript segments are grouped while the group stays within
   ``max_tokens`` and spans at most ``whisper.segment_seconds`` (a group always takes at
   least one segment; a segment over ``max_tokens`` is split as in rule 1 and keeps the
   segment's seconds).

Every chunk's ``token_count`` (the configured counter on the chunk's text) is at most
``max_tokens``. Chunk text is source text only: parts of one section are a verbatim
slice; parts of several sections (rules 2 and 3) are joined by a blank line (audio: a
space). Spans run from the chunk's first character to its last.

Counting: each section is tokenised once and every count above is read off that
tokenisation (:mod:`ingest.chunkers.counting`), exactly equal to counting the text anew.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.chunkers.counting import SliceCounter
from ingest.chunkers.parts import (
    Part,
    count_parts,
    make_draft,
    pack,
    slice_counters,
    split_to_limit,
)
from ingest.tokens import TokenCounter
from kb.types import ChunkDraft, ChunkerInfo, LoadedDocument

#: 2: a PDF page is cut at the headings it shows (ingest.loaders.pdf_headings), and a
#: page's small sections under one heading merge; Markdown, text and audio chunk as in 1.
#: 3: a chunk that starts between two sentences of a line repeats the one before the cut
#: (its last piece, which a colon or semicolon could leave a fragment).
#: 4: the sentence repeated is the whole sentence before the cut.
#: 5: a sentence of up to half ``max_tokens`` is repeated (was a third): a long
#: sentence before the cut ("... hearing on 18 July 2000.") and the start of the next
#: were whole in no chunk.
VERSION = "5"


@dataclass
class _Candidate:
    parts: list[Part]
    count: int


class StructureChunker:
    def __init__(
        self,
        max_tokens: int,
        min_tokens: int,
        segment_seconds: float,
        counter: TokenCounter,
    ) -> None:
        self.max_tokens = max_tokens
        self.min_tokens = min_tokens
        self.segment_seconds = segment_seconds
        self.counter = counter
        self.info = ChunkerInfo(
            name="structure",
            version=VERSION,
            params={
                "max_tokens": max_tokens,
                "min_tokens": min_tokens,
                "segment_seconds": segment_seconds,
                "tokenizer": counter.name,
            },
        )

    def chunk(self, doc: LoadedDocument) -> list[ChunkDraft]:
        slices = slice_counters(doc, self.counter)
        if doc.doc_type == "audio":
            candidates = self._audio(doc, slices)
        else:
            candidates = self._merge_small(doc, slices, self._per_section(doc, slices))
        return [make_draft(doc, c.parts, c.count) for c in candidates]

    def _split_section(self, i: int, counts: SliceCounter) -> list[_Candidate]:
        """Section ``i`` split and packed under ``max_tokens``, one candidate per group."""
        pieces = split_to_limit(counts, 0, len(counts.text), self.max_tokens)
        groups = pack(counts, pieces, self.max_tokens, carry=True)
        return [
            _Candidate([(i, g[0][0], g[-1][1])], counts.count(g[0][0], g[-1][1])) for g in groups
        ]

    def _per_section(self, doc: LoadedDocument, slices: list[SliceCounter]) -> list[_Candidate]:
        out: list[_Candidate] = []
        for i, counts in enumerate(slices):
            out.extend(self._split_section(i, counts))
        return out

    def _merge_small(
        self, doc: LoadedDocument, slices: list[SliceCounter], cands: list[_Candidate]
    ) -> list[_Candidate]:
        out: list[_Candidate] = []
        for cand in cands:
            prev = out[-1] if out else None
            if (
                prev is not None
                and min(prev.count, cand.count) < self.min_tokens
                and _heading(doc, prev) == _heading(doc, cand)
                and _same_page(doc, prev, cand)
            ):
                parts = _joined(prev.parts, cand.parts)
                count = count_parts(doc, parts, slices)
                if count <= self.max_tokens:
                    out[-1] = _Candidate(parts, count)
                    continue
            out.append(cand)
        return out

    def _audio(self, doc: LoadedDocument, slices: list[SliceCounter]) -> list[_Candidate]:
        out: list[_Candidate] = []
        group: list[Part] = []
        group_start = 0.0
        for i, sec in enumerate(doc.sections):
            start = sec.span.seconds_start or 0.0
            end = sec.span.seconds_end if sec.span.seconds_end is not None else start
            part: Part = (i, 0, len(sec.text))
            if group:
                count = count_parts(doc, [*group, part], slices)
                if count <= self.max_tokens and end - group_start <= self.segment_seconds:
                    group.append(part)
                    continue
                out.append(_Candidate(group, count_parts(doc, group, slices)))
                group = []
            if slices[i].count(0, len(sec.text)) > self.max_tokens:
                out.extend(self._split_section(i, slices[i]))
                continue
            group, group_start = [part], start
        if group:
            out.append(_Candidate(group, count_parts(doc, group, slices)))
        return out


def _joined(a: list[Part], b: list[Part]) -> list[Part]:
    """``a + b``, with ``a``'s last and ``b``'s first part made one when they are of one
    section and overlap (a carried sentence, :func:`ingest.chunkers.parts.pack`), so
    merged text never holds it twice."""
    (i, s, e), (k, s2, e2) = a[-1], b[0]
    if i == k and s2 < e:
        return [*a[:-1], (i, s, max(e, e2)), *b[1:]]
    return a + b


def _heading(doc: LoadedDocument, cand: _Candidate) -> tuple[str, ...]:
    return doc.sections[cand.parts[0][0]].heading_path


def _same_page(doc: LoadedDocument, prev: _Candidate, cand: _Candidate) -> bool:
    """``prev`` ends on the page ``cand`` starts on (always outside PDFs: no pages)."""
    end = doc.sections[prev.parts[-1][0]].span.page_end
    return end == doc.sections[cand.parts[0][0]].span.page_start
