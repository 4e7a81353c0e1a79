"""Plain data types shared by every layer (stdlib only).

Spans are all optional because each source type knows different ones:
Markdown and text know lines, PDF knows pages, audio knows seconds.
Line and page ranges are 1-based and inclusive; character offsets are
0-based, end-exclusive, into the document's extracted text; seconds are
floats, ``start <= end``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HEADING_SEP = " > "

DOC_TYPES = ("md", "txt", "pdf", "audio")


@dataclass(frozen=True)
class Span:
    """Where a piece of text sits in its source document."""

    line_start: int | None = None
    line_end: int | None = None
    page_start: int | None = None
    page_end: int | None = None
    seconds_start: float | None = None
    seconds_end: float | None = None


@dataclass(frozen=True)
class Section:
    """A structural unit a loader emits: a Markdown block under a heading, a PDF page,
    a transcript segment. ``char_start``/``char_end`` index the document text."""

    text: str
    heading_path: tuple[str, ...] = ()
    span: Span = Span()
    char_start: int = 0
    char_end: int = 0


@dataclass
class LoadedDocument:
    """What a loader returns for one file.

    ``warnings`` are reported to the user (a PDF page without a text layer),
    but do not fail the file. ``tags`` come from Markdown front matter.
    """

    path: str
    doc_type: str
    sections: list[Section]
    tags: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    """The document text the sections' ``char_start``/``char_end`` index; empty when the
    loader does not keep it (see :func:`ingest.chunkers.spans.document_text`)."""


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it is stored (no id yet)."""

    text: str
    heading_path: tuple[str, ...]
    span: Span
    char_start: int
    char_end: int
    token_count: int


@dataclass(frozen=True)
class ChunkerInfo:
    """Identifies what produced a chunk; stored on every chunk row."""

    name: str
    version: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Locator:
    """Everything needed to point a person at the exact place of a chunk."""

    path: str
    doc_type: str
    heading_path: tuple[str, ...] = ()
    span: Span = Span()
    abs_path: str | None = None  # the file on disk, when known

    def heading(self) -> str:
        return HEADING_SEP.join(self.heading_path)

    def render(self) -> str:
        """Human form, e.g. ``notes/a.md › Intro > Setup · lines 3–9`` (``line 7`` for a
        single line, ``p. 2`` / ``pp. 2–3``, audio as ``mm:ss–mm:ss``, see :func:`mmss`).

        A path or heading with control characters is quoted and escaped
        (:func:`kb.quoting.quote_name`); ``to_dict`` keeps the exact ``path``."""
        from kb.quoting import quote_name

        parts = [quote_name(self.path)]
        if self.heading_path:
            parts[0] += f" › {quote_name(self.heading())}"
        s = self.span
        if s.page_start is not None:
            end = s.page_end if s.page_end is not None else s.page_start
            parts.append(
                f"p. {s.page_start}" if end == s.page_start else f"pp. {s.page_start}–{end}"
            )
        if s.line_start is not None:
            end = s.line_end if s.line_end is not None else s.line_start
            parts.append(
                f"line {s.line_start}" if end == s.line_start else f"lines {s.line_start}–{end}"
            )
        if s.seconds_start is not None:
            parts.append(f"{mmss(s.seconds_start)}–{mmss(s.seconds_end or s.seconds_start)}")
        return " · ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        s = self.span
        return {
            "path": self.path,
            "type": self.doc_type,
            "heading": self.heading() or None,
            "page": [s.page_start, s.page_end] if s.page_start is not None else None,
            "lines": [s.line_start, s.line_end] if s.line_start is not None else None,
            "seconds": ([s.seconds_start, s.seconds_end] if s.seconds_start is not None else None),
            "display": self.render(),
            "abs_path": self.abs_path,
            "open": self.editor_link(),
        }

    def editor_link(self) -> str | None:
        """Where an editor or viewer opens the chunk: ``/abs/a.md:7`` (first line),
        ``/abs/p.pdf#page=2``, ``/abs/memo.wav#t=65`` (start second, as media URLs
        write it); the bare absolute path otherwise; None when the path is unknown."""
        if self.abs_path is None:
            return None
        s = self.span
        if s.line_start is not None:
            return f"{self.abs_path}:{s.line_start}"
        if s.page_start is not None:
            return f"{self.abs_path}#page={s.page_start}"
        if s.seconds_start is not None:
            return f"{self.abs_path}#t={int(s.seconds_start)}"
        return self.abs_path


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 chunk``, ``2 chunks``, ``0 chunks``; ``many`` for irregular plurals."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def mmss(seconds: float) -> str:
    """Format seconds as ``mm:ss`` (``h:mm:ss`` from one hour on); negatives clamp to 0."""
    total = max(0, int(seconds))
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


@dataclass
class Hit:
    """One ranked retrieval result.

    ``score`` is the fused score in hybrid mode, otherwise the retriever's own
    (cosine similarity for vectors, negated bm25 for keywords). ``ranks`` holds
    the 1-based rank each retriever gave the chunk (absent if it did not return it).
    """

    chunk_id: int
    text: str
    locator: Locator
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    text_hash: str = ""
    tags: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.locator.path

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "path": self.locator.path,
            "locator": self.locator.to_dict(),
            "score": round(self.score, 6),
            "ranks": self.ranks,
            "scores": {k: round(v, 6) for k, v in self.scores.items()},
            "text": self.text,
            "text_hash": self.text_hash,
        }
