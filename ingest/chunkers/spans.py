"""The span contract: character spans over a document's text become chunk drafts.

A plug-in chunker returns ``(start, end)`` spans (0-based, end-exclusive) into the
document text (:func:`document_text`); kb slices the text itself and derives every
locator from the offsets, so a plug-in never invents text and never needs kb's types.

Validation (:func:`validate_spans`), for a text of ``n`` characters and spans
``(s_0, e_0), (s_1, e_1), …``:

- at least one span and at most ``max_spans`` of them;
- inside the text and non-empty: ``0 <= s_k < e_k <= n``;
- ordered: ``s_{k-1} < s_k`` and ``e_{k-1} <= e_k`` (overlap is allowed, a span
  repeated or nested in the previous one is not);
- not only whitespace: ``text[s_k:e_k].strip() != ""``.

Locators (:func:`drafts_from_spans`), for a span ``[s, e)``: the sections it
overlaps are those with ``char_start < e`` and ``char_end > s``. The *anchor* is the
first of them; a span in a gap between sections (a Markdown heading line, front
matter) is anchored to the next section (the heading line belongs to it), or to the
last section when it lies after all of them.

- heading path: the anchor's;
- lines: ``line(p) = sec.line_start + (newlines in text[sec.char_start:p])`` counted
  from the anchor for ``p = s`` and from the last overlapping section for
  ``p = e - 1`` (negative when ``p`` precedes the section: a heading line);
- pages and seconds: from the anchor's start to the last overlapping section's end.

``token_count`` is the counter's count of the sliced text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ingest.tokens import TokenCounter
from kb.types import ChunkDraft, LoadedDocument, Section, Span

MAX_SPANS = 10_000  # per document: more than any sane chunking of one file


class SpanError(ValueError):
    """Spans break the contract; ``str(e)`` says which span and how."""


def document_text(doc: LoadedDocument) -> str:
    """The text the sections' offsets index: ``doc.text`` when the loader kept it, else
    rebuilt from the sections, each gap filled with the document's joiner (a blank line,
    a space for audio), which is exactly how the PDF and audio loaders build it."""
    if doc.text:
        return doc.text
    sep = " " if doc.doc_type == "audio" else "\n\n"
    out: list[str] = []
    pos = 0
    for sec in doc.sections:
        gap = sec.char_start - pos
        if gap > 0:
            out.append((sep * gap)[:gap])
        out.append(sec.text)
        pos = sec.char_start + len(sec.text)
    return "".join(out)


def validate_spans(text: str, spans: Sequence[tuple[int, int]], max_spans: int = MAX_SPANS) -> None:
    """Raise :class:`SpanError` naming the first span that breaks the rules above."""
    n = len(text)
    if not spans:
        raise SpanError("returned no spans")
    if len(spans) > max_spans:
        # the child stops reading at max_spans + 1, so the true count is not known
        raise SpanError(f"returned more than {max_spans:,} spans, the limit per file")
    prev: tuple[int, int] | None = None
    for k, (s, e) in enumerate(spans):
        if not 0 <= s < e <= n:
            what = "is empty" if s == e else "is backwards" if e < s else "lies outside"
            raise SpanError(f"span {k} ({s}, {e}) {what} the text of {n} characters")
        if prev is not None and not (prev[0] < s and prev[1] <= e):
            raise SpanError(f"span {k} ({s}, {e}) is out of order after span {k - 1} {prev}")
        if not text[s:e].strip():
            raise SpanError(f"span {k} ({s}, {e}) holds only whitespace")
        prev = (s, e)


def drafts_from_spans(
    doc: LoadedDocument, text: str, spans: Sequence[tuple[int, int]], counter: TokenCounter
) -> list[ChunkDraft]:
    """One :class:`ChunkDraft` per span (validated already), text sliced from ``text``
    and locators from the sections (see the module docstring)."""
    secs = doc.sections
    starts = [sec.char_start for sec in secs]
    ends = [sec.char_end for sec in secs]
    out: list[ChunkDraft] = []
    for s, e in spans:
        first = bisect_right(ends, s)  # first section ending after s
        last = bisect_left(starts, e) - 1  # last section starting before e
        if first < len(secs):
            anchor = secs[first]
            tail = secs[last] if last >= first else anchor
        else:
            anchor = tail = secs[-1]
        piece = text[s:e]
        span = Span(
            line_start=_line(text, anchor, s),
            line_end=_line(text, tail, max(e - 1, s)),
            page_start=anchor.span.page_start,
            page_end=tail.span.page_end,
            seconds_start=anchor.span.seconds_start,
            seconds_end=tail.span.seconds_end,
        )
        out.append(
            ChunkDraft(
                text=piece,
                heading_path=anchor.heading_path,
                span=span,
                char_start=s,
                char_end=e,
                token_count=counter.count(piece),
            )
        )
    return out


def _line(text: str, sec: Section, p: int) -> int | None:
    base = sec.span.line_start
    if base is None:
        return None
    if p >= sec.char_start:
        return base + text.count("\n", sec.char_start, p)
    return base - text.count("\n", p, sec.char_start)
