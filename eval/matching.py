"""Does a retrieved chunk match a golden support? (never by chunk id)

Rules (golden format v1), all of which must hold for the support's given fields:

- **path**: the chunk's document path equals the support's path mapped into the KB
  (``ResolvedSupport.kb_path``; see :mod:`eval.resolve`: golden paths are relative to
  the golden ``corpus`` root, KB paths to the ingested root; when the KB was ingested
  from that very root, or from a folder above it, the mapping is exact).
- **heading**: both heading paths normalised (white space runs folded to one space,
  split into parts on ``>``, each part stripped, empty parts dropped); the chunk's
  parts start with the support's parts.
- **snippet**: :func:`fold` both (Unicode NFKC, case folded, white space runs folded to
  one space); the folded chunk text contains the folded snippet.
- **page / lines / seconds**: the chunk's span overlaps the given one (closed ranges;
  a chunk without that kind of span does not match).

Chunk boundaries. A chunker may cut a snippet in two; then no chunk contains it and the
strict rule above reports a miss that is the chunker's doing. Mode ``span`` (used by
``kb eval compare`` when the two runs were made by different chunkers, the
``fallback_doc_span`` setting) replaces the snippet and heading tests, for a support
whose snippet was located in the document (``ResolvedSupport.doc_span``, document
character offsets), by an overlap test: the chunk's character span ``[cs, ce)``
overlaps the snippet's span ``[ss, se)`` by at least half of the shorter of the two::

    overlap = min(ce, se) - max(cs, ss);   match  <=>  overlap >= 0.5 * min(se - ss, ce - cs)

So a chunk that contains the whole snippet always matches (as in strict mode), a chunk
holding the larger part of a cut snippet matches, and a chunk lying wholly inside a
long snippet matches. page/lines/seconds still apply. Supports whose snippet could not
be located fall back to the strict rule.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from eval.golden import Support
from kb.types import mmss

MODES = ("strict", "span")
_WS = re.compile(r"\s+")


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """NFKC, case folded, white space runs folded to one space, stripped."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def heading_parts(heading: str | None) -> tuple[str, ...]:
    """``"A >  B"`` -> ``("A", "B")``: parts split on ``>``, white space folded, empties dropped."""
    if not heading:
        return ()
    return tuple(p for p in (_WS.sub(" ", x).strip() for x in heading.split(">")) if p)


@dataclass(frozen=True)
class StoredHit:
    """A retrieved chunk as an eval row stores it: enough to re-match it later."""

    chunk_id: int
    path: str
    text: str
    heading: str = ""
    doc_type: str = ""
    lines: tuple[int, int] | None = None
    pages: tuple[int, int] | None = None
    seconds: tuple[float, float] | None = None
    chars: tuple[int, int] | None = None
    score: float = 0.0
    text_hash: str = ""
    chunker: str | None = None
    chunker_version: str | None = None
    tokens: tuple[int, int] | None = None  # token interval in the document (eval.token_space)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "chunk_id": self.chunk_id,
            "path": self.path,
            "heading": self.heading,
            "doc_type": self.doc_type,
            "lines": list(self.lines) if self.lines else None,
            "pages": list(self.pages) if self.pages else None,
            "seconds": list(self.seconds) if self.seconds else None,
            "chars": list(self.chars) if self.chars else None,
            "score": round(self.score, 6),
            "text_hash": self.text_hash,
            "chunker": self.chunker,
            "chunker_version": self.chunker_version,
            "text": self.text,
        }
        if self.tokens is not None:
            out["tokens"] = list(self.tokens)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StoredHit:
        def pair(key: str, conv: type) -> Any:
            v = d.get(key)
            return (conv(v[0]), conv(v[1])) if v else None

        return cls(
            chunk_id=int(d["chunk_id"]),
            path=str(d["path"]),
            text=str(d.get("text", "")),
            heading=str(d.get("heading") or ""),
            doc_type=str(d.get("doc_type") or ""),
            lines=pair("lines", int),
            pages=pair("pages", int),
            seconds=pair("seconds", float),
            chars=pair("chars", int),
            score=float(d.get("score", 0.0)),
            text_hash=str(d.get("text_hash") or ""),
            chunker=d.get("chunker"),
            chunker_version=d.get("chunker_version"),
            tokens=pair("tokens", int),
        )

    def locator_text(self) -> str:
        parts = [self.path + (f" › {self.heading}" if self.heading else "")]
        if self.pages:
            parts.append(
                f"p. {self.pages[0]}"
                if self.pages[0] == self.pages[1]
                else f"pp. {self.pages[0]}–{self.pages[1]}"
            )
        if self.lines:
            parts.append(
                f"line {self.lines[0]}"
                if self.lines[0] == self.lines[1]
                else f"lines {self.lines[0]}–{self.lines[1]}"
            )
        if self.seconds:
            parts.append(f"{mmss(self.seconds[0])}–{mmss(self.seconds[1])}")
        return " · ".join(parts)


@dataclass(frozen=True)
class ResolvedSupport:
    """A support as resolved against one KB at run time (stored with the run).

    ``kb_path``: the support path as the KB stores it. ``exists``: an indexed document
    has that path. ``doc_span``: the snippet's ``[start, end)`` character offsets in
    the document text (``None``: no snippet, or not found); ``doc_tokens``: the same
    span as token indexes and ``chunk_tokens``: the token intervals of the chunks
    overlapping it (both set by :mod:`eval.token_space`; ``None`` otherwise). ``snippet_found``:
    ``"chunk"`` (inside one chunk), ``"span"`` (only across a chunk boundary),
    ``"missing"`` or ``None`` (no snippet). ``in_scope``: the document passes the
    run's path/type/tag filters (``None`` when the run was not scoped).
    """

    kb_path: str
    exists: bool = True
    doc_span: tuple[int, int] | None = None
    snippet_found: str | None = None
    in_scope: bool | None = None
    doc_tokens: tuple[int, int] | None = None
    chunk_tokens: tuple[tuple[int, int], ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kb_path": self.kb_path,
            "exists": self.exists,
            "doc_span": list(self.doc_span) if self.doc_span else None,
            "snippet_found": self.snippet_found,
            "in_scope": self.in_scope,
        }
        if self.doc_tokens is not None:
            out["doc_tokens"] = list(self.doc_tokens)
        if self.chunk_tokens is not None:
            out["chunk_tokens"] = [list(c) for c in self.chunk_tokens]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ResolvedSupport:
        span = d.get("doc_span")
        toks = d.get("doc_tokens")
        chunks = d.get("chunk_tokens")
        return cls(
            str(d["kb_path"]),
            bool(d.get("exists", True)),
            (int(span[0]), int(span[1])) if span else None,
            d.get("snippet_found"),
            d.get("in_scope"),
            (int(toks[0]), int(toks[1])) if toks else None,
            None if chunks is None else tuple((int(c[0]), int(c[1])) for c in chunks),
        )


def _overlap(a: tuple[float, float] | None, lo: float, hi: float) -> bool:
    """Closed-range overlap of the chunk span ``a`` with ``[lo, hi]``."""
    return a is not None and a[0] <= hi and lo <= a[1]


def span_overlap_ok(chunk: tuple[int, int], snippet: tuple[int, int]) -> bool:
    """The ``fallback_doc_span`` rule: overlap >= half of the shorter span."""
    cs, ce = chunk
    ss, se = snippet
    inter = min(ce, se) - max(cs, ss)
    if inter <= 0:
        return False
    return inter >= 0.5 * min(se - ss, ce - cs)


def matches(
    hit: StoredHit, support: Support, resolved: ResolvedSupport | None = None, mode: str = "strict"
) -> bool:
    """Whether ``hit`` matches ``support`` (see the module rules)."""
    path = resolved.kb_path if resolved is not None else support.path
    if hit.path != path:
        return False
    if support.page is not None and not _overlap(hit.pages, support.page, support.page):
        return False
    if support.lines is not None and not _overlap(hit.lines, *support.lines):
        return False
    if support.seconds is not None and not _overlap(hit.seconds, *support.seconds):
        return False
    if (
        mode == "span"
        and support.snippet is not None
        and resolved is not None
        and resolved.doc_span is not None
        and hit.chars is not None
    ):
        return span_overlap_ok(hit.chars, resolved.doc_span)
    if support.heading is not None:
        want = heading_parts(support.heading)
        have = heading_parts(hit.heading)
        if have[: len(want)] != want:
            return False
    return support.snippet is None or fold(support.snippet) in fold(hit.text)


def matched_supports(
    hit: StoredHit,
    supports: tuple[Support, ...],
    resolved: list[ResolvedSupport] | None,
    mode: str = "strict",
) -> list[int]:
    """Indexes of the supports ``hit`` matches, in support order."""
    out = []
    for i, s in enumerate(supports):
        r = resolved[i] if resolved is not None and i < len(resolved) else None
        if matches(hit, s, r, mode):
            out.append(i)
    return out
