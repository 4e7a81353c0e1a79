"""What a chunking of one document looks like: coverage, overlap, sizes and lint.

All measures come from the drafts' character offsets into the document text
(:func:`~ingest.chunkers.spans.document_text`), never from searching for chunk text,
so repeated paragraphs are placed where the chunker put them.

- **content**: the non-whitespace characters inside the loader's sections (Markdown
  heading lines and front matter are not content; they live in the heading path).
- ``coverage = covered content / content`` (1.0 when the document has no content);
  ``uncovered`` is the number of content characters no chunk covers.
- ``overlap = characters in ≥ 2 chunks / characters in ≥ 1 chunk`` (0.0 when no chunk).
- tokens per chunk: ``mean`` and ``p95`` (nearest rank: the ``⌈0.95·n⌉``-th smallest);
  both 0 for no chunks. Counts are the drafts' ``token_count`` (the embedder's tokenizer,
  special tokens excluded).

Lint (each a list of 0-based chunk indexes):

- ``too_long``: more tokens than the embedder reads (``read_limit``; all-MiniLM-L6-v2
  reads 256 word pieces including ``[CLS]`` and ``[SEP]``, so 254 of the chunk's own,
  and silently drops the rest);
- ``crosses_heading``: overlaps sections with different heading paths;
- ``short``: fewer than ``min_tokens`` (32) tokens;
- ``broken_fence``: an odd number of code-fence lines (```` ``` ```` or ``~~~``), so a
  fence opens or closes outside the chunk.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from ingest.chunkers.spans import document_text
from kb.types import ChunkDraft, LoadedDocument

SHORT_TOKENS = 32
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)


@dataclass
class ChunkingCheck:
    """The measures of one document's chunking (see the module docstring)."""

    path: str
    chunks: int
    coverage: float
    uncovered: int
    overlap: float
    mean_tokens: float
    p95_tokens: int
    lint: dict[str, list[int]] = field(default_factory=dict)
    first_uncovered_line: int | None = None
    content: int = 0  # non-whitespace characters in sections (coverage's denominator)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "chunks": self.chunks,
            "coverage": round(self.coverage, 6),
            "uncovered_chars": self.uncovered,
            "first_uncovered_line": self.first_uncovered_line,
            "overlap": round(self.overlap, 6),
            "mean_tokens": round(self.mean_tokens, 3),
            "p95_tokens": self.p95_tokens,
            "lint": self.lint,
        }


def check_chunking(
    doc: LoadedDocument,
    drafts: Sequence[ChunkDraft],
    read_limit: int,
    min_tokens: int = SHORT_TOKENS,
) -> ChunkingCheck:
    """Measure ``drafts`` (one document's chunks, in order) against ``doc``."""
    text = document_text(doc)
    depth = [0] * (len(text) + 1)  # difference array: chunks covering each character
    for d in drafts:
        depth[d.char_start] += 1
        depth[d.char_end] -= 1
    cover = list(accumulate(depth))[: len(text)]
    content = 0
    missed = 0
    first_missed: int | None = None
    for sec in doc.sections:
        for p in range(sec.char_start, sec.char_end):
            if not text[p].isspace():
                content += 1
                if cover[p] == 0:
                    missed += 1
                    if first_missed is None:
                        first_missed = p
    in_one = sum(1 for c in cover if c >= 1)
    in_two = sum(1 for c in cover if c >= 2)
    tokens = sorted(d.token_count for d in drafts)
    p95 = tokens[math.ceil(0.95 * len(tokens)) - 1] if tokens else 0
    lint = {
        "too_long": [k for k, d in enumerate(drafts) if d.token_count > read_limit],
        "crosses_heading": [k for k, d in enumerate(drafts) if _crosses_heading(doc, d)],
        "short": [k for k, d in enumerate(drafts) if d.token_count < min_tokens],
        "broken_fence": [k for k, d in enumerate(drafts) if len(_FENCE.findall(d.text)) % 2],
    }
    return ChunkingCheck(
        path=doc.path,
        chunks=len(drafts),
        coverage=(content - missed) / content if content else 1.0,
        uncovered=missed,
        overlap=in_two / in_one if in_one else 0.0,
        mean_tokens=sum(tokens) / len(tokens) if tokens else 0.0,
        p95_tokens=p95,
        lint=lint,
        first_uncovered_line=_line_at(doc, text, first_missed),
        content=content,
    )


def _crosses_heading(doc: LoadedDocument, d: ChunkDraft) -> bool:
    starts = [s.char_start for s in doc.sections]
    ends = [s.char_end for s in doc.sections]
    first = bisect_right(ends, d.char_start)
    last = bisect_left(starts, d.char_end)
    return len({s.heading_path for s in doc.sections[first:last]}) > 1


def _line_at(doc: LoadedDocument, text: str, p: int | None) -> int | None:
    if p is None:
        return None
    for sec in doc.sections:
        if sec.char_start <= p < sec.char_end and sec.span.line_start is not None:
            return sec.span.line_start + text.count("\n", sec.char_start, p)
    return None
