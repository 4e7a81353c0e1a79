"""Resolve golden supports against one KB: path mapping, snippet location, scope.

Path mapping. Golden paths are relative to the golden ``corpus`` folder; the KB shows
each document as ``source-name/relative/path`` and records its absolute path. A
golden path is mapped to the document whose absolute path is ``corpus/PATH``
(label ``absolute``), whatever folders were ingested: the corpus itself, a folder
above it, or several of its subfolders. Without a ``corpus`` (a JSONL set) or when
no document lies under it (the corpus moved), PATH is taken as the KB's own display
path, or, in a one-source KB, relative to that source (label ``assumed``);
``kb eval check`` reports supports whose path is not in the KB.

Snippet location: the document text is rebuilt from its chunks' character spans
(``char_start``/``char_end``; overlapping windows are merged, gaps become a space), then
the folded snippet is searched in the folded text; the hit's character span is the
support's ``doc_span`` (see :mod:`eval.matching`, mode ``span``).
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from eval.golden import GoldenQuery, Support
from eval.matching import ResolvedSupport, StoredHit, fold

if TYPE_CHECKING:
    from kb.search.options import SearchOptions


@dataclass(frozen=True)
class DocInfo:
    id: int
    root: str
    path: str
    doc_type: str
    status: str
    tags: tuple[str, ...]


class Resolver:
    """Per-run cache of documents and their chunks, used to resolve supports."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        corpus_dir: Path | None = None,
        scope: SearchOptions | None = None,
        chunking_id: int | None = None,
    ) -> None:
        self.conn = conn
        self.chunking_id = chunking_id  # None: the live chunking
        self.scope = scope if scope is not None and scope.scoped else None
        self.prefix, self.root, self.mapping = self._mapping(corpus_dir)
        self._docs: dict[str, DocInfo | None] = {}
        self._chunks: dict[int, list[StoredHit]] = {}
        self._folded: dict[int, tuple[str, list[int]]] = {}

    def _mapping(self, corpus_dir: Path | None) -> tuple[str, str | None, str]:
        """``(prefix, root, label)``. Documents are found by absolute path first
        (:meth:`kb_path`); the prefix is the fallback: the only source's name in a
        one-source KB, else nothing."""
        self._by_abs: dict[str, str] = {}
        self._by_display: dict[str, str] = {}
        self.corpus = None if corpus_dir is None else Path(corpus_dir).resolve()
        try:
            sources = self.conn.execute("SELECT name, path FROM sources").fetchall()
        except sqlite3.OperationalError:  # a KB opened without migrating (before sources)
            return "", None, "assumed"
        prefix = f"{sources[0][0]}/" if len(sources) == 1 else ""
        root = str(sources[0][1]) if len(sources) == 1 else None
        if self.corpus is not None:
            base = self.corpus.as_posix().rstrip("/") + "/"
            for r in self.conn.execute(
                "SELECT abs_path, path FROM documents WHERE substr(abs_path, 1, ?) = ?",
                (len(base), base),
            ):
                self._by_abs[str(r[0])] = str(r[1])
                self._by_display[str(r[1])] = str(r[0])[len(base) :]
            if self._by_abs:
                return prefix, root, "absolute"
        return prefix, root, "assumed"

    def kb_path(self, golden_path: str) -> str:
        """The KB's display path for a golden path: the document at ``corpus/PATH``;
        else PATH itself when the KB has it; else the only source's name + PATH."""
        if self.corpus is not None:
            hit = self._by_abs.get((self.corpus / golden_path).as_posix())
            if hit is not None:
                return hit
        if not self.prefix or self._exists(golden_path):
            return golden_path
        return self.prefix + golden_path

    def _exists(self, kb_path: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM documents WHERE path = ?", (kb_path,))
        return row.fetchone() is not None

    def golden_path(self, kb_path: str) -> str:
        """Inverse mapping (used by ``kb eval record``)."""
        if kb_path in self._by_display:
            return self._by_display[kb_path]
        if self.prefix and kb_path.startswith(self.prefix):
            return kb_path[len(self.prefix) :]
        return kb_path

    def document(self, kb_path: str) -> DocInfo | None:
        if kb_path not in self._docs:
            sql = "SELECT id, root, path, doc_type, status, tags FROM documents WHERE path = ?"
            r = self.conn.execute(sql, (kb_path,)).fetchone()
            self._docs[kb_path] = (
                None
                if r is None
                else DocInfo(
                    int(r[0]),
                    str(r[1]),
                    str(r[2]),
                    str(r[3]),
                    str(r[4]),
                    tuple(str(t) for t in json.loads(r[5] or "[]")),
                )
            )
        return self._docs[kb_path]

    def chunks(self, doc_id: int) -> list[StoredHit]:
        """The document's chunks (of the resolver's chunking) as :class:`StoredHit`
        (score 0), in document order."""
        if doc_id not in self._chunks:
            table, params = "live_chunks", [doc_id]
            if self.chunking_id is not None:
                table, params = "chunks", [doc_id, self.chunking_id]
            rows = self.conn.execute(
                f"SELECT c.*, d.path AS d_path, d.doc_type AS d_type FROM {table} c "
                "JOIN documents d ON d.id = c.document_id WHERE c.document_id = ? "
                + ("AND c.chunking_id = ? " if self.chunking_id is not None else "")
                + "ORDER BY c.char_start, c.ord",
                params,
            ).fetchall()
            self._chunks[doc_id] = [hit_from_row(r) for r in rows]
        return self._chunks[doc_id]

    def resolve(self, support: Support) -> ResolvedSupport:
        kb_path = self.kb_path(support.path)
        doc = self.document(kb_path)
        exists = doc is not None and doc.status == "indexed"
        in_scope: bool | None = None
        if self.scope is not None:
            from kb.search.filters import document_matches

            in_scope = doc is not None and document_matches(
                self.scope, doc.path, doc.doc_type, list(doc.tags)
            )
        if support.snippet is None or doc is None or not exists:
            found = None if support.snippet is None else "missing"
            return ResolvedSupport(kb_path, exists, None, found, in_scope)
        want = fold(support.snippet)
        in_chunk = any(want in fold(c.text) for c in self.chunks(doc.id))
        span = self.locate(doc.id, support.snippet)
        found = "chunk" if in_chunk else ("span" if span is not None else "missing")
        return ResolvedSupport(kb_path, exists, span, found, in_scope)

    def resolve_query(self, q: GoldenQuery) -> list[ResolvedSupport]:
        return [self.resolve(s) for s in q.supports]

    def locate(self, doc_id: int, snippet: str) -> tuple[int, int] | None:
        """``[start, end)`` document offsets of ``snippet`` (folded), or ``None``."""
        if doc_id not in self._folded:
            self._folded[doc_id] = _folded_document(self.chunks(doc_id))
        text, pos = self._folded[doc_id]
        want = _fold_chars(snippet)
        if not want:
            return None
        i = text.find(want)
        if i < 0:
            return None
        return pos[i], pos[i + len(want) - 1] + 1


def hit_from_row(r: sqlite3.Row) -> StoredHit:
    """A chunks row joined with ``d_path``/``d_type`` -> :class:`StoredHit`."""

    def pair(a: str, b: str) -> tuple[int, int] | None:
        return None if r[a] is None else (int(r[a]), int(r[b] if r[b] is not None else r[a]))

    secs = None
    if r["seconds_start"] is not None:
        end = r["seconds_end"] if r["seconds_end"] is not None else r["seconds_start"]
        secs = (float(r["seconds_start"]), float(end))
    return StoredHit(
        chunk_id=int(r["id"]),
        path=str(r["d_path"]),
        text=str(r["text"]),
        heading=str(r["heading_path"] or ""),
        doc_type=str(r["d_type"]),
        lines=pair("line_start", "line_end"),
        pages=pair("page_start", "page_end"),
        seconds=secs,
        chars=pair("char_start", "char_end"),
        text_hash=str(r["content_hash"]),
        chunker=r["chunker"],
        chunker_version=r["chunker_version"],
    )


def stored_hits(conn: sqlite3.Connection, ids: list[int]) -> dict[int, StoredHit]:
    """Chunk rows for ``ids`` as :class:`StoredHit` (missing ids are left out)."""
    out: dict[int, StoredHit] = {}
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        marks = ",".join("?" * len(part))
        for r in conn.execute(
            "SELECT c.*, d.path AS d_path, d.doc_type AS d_type FROM chunks c JOIN documents d "
            f"ON d.id = c.document_id WHERE c.id IN ({marks})",
            part,
        ):
            out[int(r["id"])] = hit_from_row(r)
    return out


def _fold_chars(text: str) -> str:
    return _fold_with_positions([(ch, 0) for ch in text])[0]


def _fold_with_positions(chars: list[tuple[str, int]]) -> tuple[str, list[int]]:
    """Fold char by char (NFKC + casefold, white space runs -> one space, stripped),
    keeping for every output character the document offset it came from."""
    out: list[str] = []
    pos: list[int] = []
    for ch, p in chars:
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                pos.append(p)
            continue
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isspace():
                if out and out[-1] != " ":
                    out.append(" ")
                    pos.append(p)
            else:
                out.append(c)
                pos.append(p)
    if out and out[-1] == " ":
        out.pop()
        pos.pop()
    return "".join(out), pos


def _folded_document(chunks: list[StoredHit]) -> tuple[str, list[int]]:
    """Rebuild the document text from its chunks and fold it (see module docs).

    Each chunk's text is taken to start at its ``char_start`` (character ``i`` at
    ``char_start + i``). Where a chunk overlaps text already emitted (sliding windows),
    the overlap is found by aligning the chunk's head with the emitted tail, so a
    chunker that dropped or changed a few characters inside a window does not garble
    the boundary; without an alignment the character offsets decide. A gap between
    chunks becomes one space."""
    chars: list[tuple[str, int]] = []
    covered = 0
    for c in chunks:  # already in document order (char_start, ord)
        start = c.chars[0] if c.chars is not None else covered
        end = start + len(c.text)
        if start < covered and chars:
            skip = _aligned_overlap(chars, c.text)
            if skip is None:
                if end <= covered:
                    continue
                skip = covered - start
        else:
            skip = 0
            if chars and start > covered:
                chars.append((" ", covered))
        chars.extend((ch, start + skip + i) for i, ch in enumerate(c.text[skip:]))
        covered = max(covered, end, chars[-1][1] + 1 if chars else 0)
    return _fold_with_positions(chars)


def _aligned_overlap(
    chars: list[tuple[str, int]], text: str, window: int = 4000, least: int = 5
) -> int | None:
    """Length of the longest head of ``text`` (at least ``least`` characters, or all of a
    shorter text) that the emitted text ends with, or ``None``."""
    tail = "".join(ch for ch, _ in chars[-window:])
    for n in range(min(len(tail), len(text)), min(least, len(text)) - 1, -1):
        if n > 0 and tail.endswith(text[:n]):
            return n
    return None
