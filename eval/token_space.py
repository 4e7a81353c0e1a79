"""Documents as token sequences: character spans -> token intervals for the chunk metrics.

Tokens are those of the embedder's tokenizer (``tokenizer.offsets(text)``; the CLI hands
in :func:`ingest.tokens.counter_for`, the bundled all-MiniLM-L6-v2 ``tokenizer.json``
read with the ``tokenizers`` library, no torch). Each document is tokenised once.

Document text: the caller's (``texts``, e.g. the loader's text a sweep chunked), else
rebuilt from the KB's stored chunks (:func:`rebuild_text`: chunks sliced from the
document text are placed at their ``char_start``, so overlapping windows agree;
characters no stored chunk shows are left as spaces, which hold no token). Offsets stay
those of the document, so spans from any chunking of it map onto the same tokens.

Mapping: token ``t`` starts at character ``s_t``; a character span ``[a, b)`` is the
token interval ``[i, j)`` with ``i = #{t : s_t < a}`` and ``j = #{t : s_t < b}``
(tokens whose first character lies in the span). A span inside one token is empty.

Chunking: ``chunking`` (document path -> chunk character spans) when given, else the
stored chunks; :meth:`TokenSpace.annotate_support` records the chunks overlapping each
evidence span, which is what Precision_Ω and the split count read.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from eval.matching import ResolvedSupport, StoredHit


class Tokenizer(Protocol):
    """The part of :class:`ingest.tokens.TokenCounter` used here."""

    name: str

    def offsets(self, text: str) -> list[tuple[int, int]]: ...


class TokenSpace:
    """Per-document token starts and chunk intervals (cached; see the module docs)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        tokenizer: Tokenizer,
        texts: Mapping[str, str] | None = None,
        chunking: Mapping[str, Sequence[tuple[int, int]]] | None = None,
        *,
        chunking_id: int | None = None,
    ) -> None:
        """``chunking``: chunk spans per path to score instead of the stored ones;
        ``chunking_id``: the stored chunking to read (``None``: the live one)."""
        self.conn = conn
        self.chunking_id = chunking_id
        self.tokenizer = tokenizer
        self.texts = texts or {}
        self.chunking = chunking
        self._starts: dict[str, list[int] | None] = {}
        self._chunks: dict[str, list[tuple[int, int]]] = {}

    def with_chunking(self, chunking: Mapping[str, Sequence[tuple[int, int]]] | None) -> TokenSpace:
        """The same documents (token starts shared, not recomputed) under ``chunking``."""
        other = TokenSpace(
            self.conn, self.tokenizer, self.texts, chunking, chunking_id=self.chunking_id
        )
        other._starts = self._starts
        return other

    def stored_chunks(self, path: str) -> list[tuple[int, int, str]]:
        """``(char_start, char_end, text)`` of the document's stored chunks, in order."""
        table = "live_chunks" if self.chunking_id is None else "chunks"
        params: tuple[object, ...] = (
            (path,) if self.chunking_id is None else (path, self.chunking_id)
        )
        rows = self.conn.execute(
            f"SELECT c.char_start, c.char_end, c.text FROM {table} c JOIN documents d "
            "ON d.id = c.document_id WHERE d.path = ? AND c.char_start IS NOT NULL "
            + ("AND c.chunking_id = ? " if self.chunking_id is not None else "")
            + "ORDER BY c.char_start, c.ord",
            params,
        ).fetchall()
        return [(int(r[0]), int(r[1] if r[1] is not None else r[0]), str(r[2])) for r in rows]

    def text(self, path: str) -> str | None:
        """The document's text (given, or rebuilt from stored chunks; ``None``: unknown)."""
        if path in self.texts:
            return self.texts[path]
        rows = self.stored_chunks(path)
        if not rows:
            return None
        return rebuild_text(rows)

    def starts(self, path: str) -> list[int] | None:
        if path not in self._starts:
            text = self.text(path)
            self._starts[path] = (
                None if text is None else [s for s, _ in self.tokenizer.offsets(text)]
            )
        return self._starts[path]

    def interval(self, path: str, chars: tuple[int, int] | None) -> tuple[int, int] | None:
        """The token interval of characters ``[a, b)`` of ``path`` (module docs)."""
        starts = self.starts(path)
        if starts is None or chars is None:
            return None
        return bisect_left(starts, chars[0]), bisect_left(starts, chars[1])

    def chunks(self, path: str) -> list[tuple[int, int]]:
        """Token intervals of the chunking's chunks of ``path``, in order."""
        if path not in self._chunks:
            if self.chunking is not None:
                spans = list(self.chunking.get(path, ()))
            else:
                spans = [(s, e) for s, e, _ in self.stored_chunks(path)]
            out = [self.interval(path, s) for s in spans]
            self._chunks[path] = [t for t in out if t is not None]
        return self._chunks[path]

    def annotate_support(self, res: ResolvedSupport) -> ResolvedSupport:
        """``res`` with ``doc_tokens`` and the overlapping ``chunk_tokens`` set (unchanged
        when its snippet was not located)."""
        toks = self.interval(res.kb_path, res.doc_span)
        if toks is None:
            return res
        s, e = toks
        over = tuple(c for c in self.chunks(res.kb_path) if max(c[0], s) < min(c[1], e))
        return replace(res, doc_tokens=toks, chunk_tokens=over)

    def annotate_hit(self, hit: StoredHit) -> StoredHit:
        """``hit`` with its chunk's token interval (unchanged without a char span)."""
        toks = self.interval(hit.path, hit.chars)
        return hit if toks is None else replace(hit, tokens=toks)


def rebuild_text(rows: Sequence[tuple[int, int, str]], joiner: str = "\n\n") -> str:
    """The document text as far as stored chunks show it; unknown characters are spaces.

    A chunk whose text is as long as its span is an exact slice and is placed whole. A
    chunk that joined several sections (a window across a Markdown heading: the heading
    line is in its span but not in its text, the pieces joined by ``joiner``) is shorter;
    its text up to the first ``joiner`` is placed at its start and its text after the
    last ``joiner`` so that it ends at its end (both are exact slices); the pieces
    between follow the first one (exact when the heading lies at the last join,
    otherwise shifted by the heading's length, so their tokens are still counted). A
    joined chunk only fills characters no exact chunk placed.

    Example: ``[(0, 5, "Hello"), (3, 9, "lo you"), (12, 14, "ok")]`` ->
    ``"Hello you   ok"``; ``[(0, 15, "ab\n\nxy\n\ncd")]`` (a 5-character heading
    before ``cd``) -> ``"ab\n\nxy\n\n   cd"``.
    """
    if not rows:
        return ""
    size = max(max(e, s + len(t)) for s, e, t in rows)
    chars = [" "] * size
    known = [False] * size

    def put(start: int, text: str, only_unknown: bool) -> None:
        for i, ch in enumerate(text):
            p = start + i
            if not (only_unknown and known[p]):
                chars[p], known[p] = ch, True

    exact = [(s, t) for s, e, t in rows if len(t) == e - s]
    for start, text in exact:
        put(start, text, False)
    for start, end, text in rows:
        if len(text) == end - start:
            continue
        head = text.partition(joiner)[0]
        put(start, head, True)
        if joiner in text:
            tail = text.rpartition(joiner)[2]
            put(end - len(tail), tail, True)
            middle = text[len(head) : len(text) - len(tail)]  # joiners included
            room = max(0, (end - len(tail)) - (start + len(head)))
            put(start + len(head), middle[:room], True)
    return "".join(chars)
