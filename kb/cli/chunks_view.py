"""The text of one document cut into segments by a chunking's offsets, for ``kb chunks show``.

Boundaries are every chunk start and end and every evidence span start and end; a
segment is the text between two neighbouring boundaries, so the segments tile the
document: ``"".join(s.text for s in segments(...)) == text`` always. Each segment
knows the chunks covering it (none: a **gap**, text no chunk holds; two or more: an
**overlap**), the chunks starting and ending at its edges, and the golden evidence
(query ids) lying on it. Nothing here searches for chunk text: only offsets count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    text: str
    chunks: tuple[int, ...]  # 0-based indexes of the chunks covering it
    evidence: tuple[str, ...]  # query ids whose evidence span covers it
    opens: tuple[int, ...] = ()  # chunks starting at ``start``
    closes: tuple[int, ...] = ()  # chunks ending at ``end``

    @property
    def gap(self) -> bool:
        return not self.chunks

    @property
    def overlap(self) -> bool:
        return len(self.chunks) > 1


@dataclass(frozen=True)
class Chunking:
    """One column of the view: a label and the chunk character spans, in order."""

    label: str
    spans: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class EvidenceMark:
    query_id: str
    start: int
    end: int


def segments(
    text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[EvidenceMark] = ()
) -> list[Segment]:
    """Cut ``text`` at every boundary of ``spans`` and ``evidence`` (module docs).
    Spans are clipped to the text; empty ones are ignored."""
    n = len(text)
    clipped = [(max(0, s), min(n, e)) for s, e in spans]
    marks = [(max(0, m.start), min(n, m.end), m.query_id) for m in evidence]
    cuts = {0, n}
    for s, e in clipped:
        if s < e:
            cuts.update((s, e))
    for s, e, _ in marks:
        if s < e:
            cuts.update((s, e))
    bounds = sorted(cuts)
    out: list[Segment] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        covering = tuple(k for k, (s, e) in enumerate(clipped) if s <= a and b <= e and s < e)
        on = tuple(dict.fromkeys(q for s, e, q in marks if s <= a and b <= e and s < e))
        opens = tuple(k for k, (s, e) in enumerate(clipped) if s == a and s < e)
        closes = tuple(k for k, (s, e) in enumerate(clipped) if e == b and s < e)
        out.append(Segment(a, b, text[a:b], covering, on, opens, closes))
    return out


@dataclass(frozen=True)
class Summary:
    chunks: int
    overlap_chars: int
    gap_chars: int  # non-whitespace characters no chunk covers
    split_evidence: tuple[str, ...]  # query ids whose evidence no single chunk contains


def summarize(
    text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[EvidenceMark] = ()
) -> Summary:
    segs = segments(text, spans, ())
    overlap = sum(s.end - s.start for s in segs if s.overlap)
    gap = sum(1 for s in segs if s.gap for ch in s.text if not ch.isspace())
    split = tuple(
        m.query_id for m in evidence if not any(s <= m.start and m.end <= e for s, e in spans)
    )
    return Summary(len(spans), overlap, gap, split)
