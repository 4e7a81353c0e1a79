"""The one confined reader of source files: by document id or KB path, then by range.

The web viewer, the JSON API and the MCP server all read documents through here, so
there is one set of rules:

1. a document is named by its id or by its exact KB path (``source-name/rel/path``,
   as search hits show it); a name is refused *before* any lookup when it holds a NUL,
   a backslash, is absolute (``/etc/passwd``, ``C:``), has a ``..`` or ``.`` segment,
   or still holds percent-encoding of a dot, slash, backslash or NUL after the URL
   was decoded once (``%2e%2e%2f``: double-encoded traversal) -> :class:`Refused`;
2. only documents in the KB's ``documents`` table are served (anything else is
   :class:`Missing`); the KB path is never joined to a folder;
3. the file is resolved (symlinks followed) and must lie inside its source's resolved
   folder (or be the source's own file) and be a regular file, else :class:`Refused`
   (a symlink pointing out of the source is refused without opening it).

Ranges: Markdown and text by 1-based inclusive lines from the file itself; PDF pages
and audio seconds from the stored chunks (the extracted text and the transcript).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import KbError
from kb.types import HEADING_SEP

_ENCODED = re.compile(r"%(?:2e|2f|5c|00|25)", re.IGNORECASE)
#: text read from Markdown or text files at most (larger files are cut with a note)
MAX_TEXT_BYTES = 5_000_000


class Refused(KbError):
    """The name or file is not one the server may read (HTTP 403 / 400)."""

    status = 403


class Missing(KbError):
    """No such document in the KB, or its file is gone (HTTP 404)."""

    status = 404


@dataclass(frozen=True)
class Document:
    """A document row with the folder its source confines it to."""

    id: int
    path: str
    doc_type: str
    abs_path: str
    source_root: str
    source_kind: str
    status: str
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "type": self.doc_type,
            "status": self.status,
            "error": self.error,
            "meta": self.meta,
        }


def check_name(name: str) -> str:
    """``name`` when it may be looked up as a KB path; :class:`Refused` otherwise."""
    if not name or "\x00" in name or "\\" in name:
        raise Refused(f"document path {name!r}: empty, NUL or backslash; use the KB path")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        raise Refused(f"document path {name!r}: absolute paths are not served")
    if any(part in ("..", ".") for part in name.split("/")):
        raise Refused(f"document path {name!r}: '.' and '..' segments are not served")
    if _ENCODED.search(name):
        raise Refused(f"document path {name!r}: encoded separators are not served")
    return name


_COLUMNS = (
    "SELECT d.id, d.path, d.doc_type, d.abs_path, d.status, d.error, d.meta, "
    "s.path AS source_root, s.kind AS source_kind FROM documents d "
    "JOIN sources s ON s.id = d.source_id "
)


def _document(row: Any) -> Document:
    import json

    return Document(
        id=int(row["id"]),
        path=str(row["path"]),
        doc_type=str(row["doc_type"]),
        abs_path=str(row["abs_path"]),
        source_root=str(row["source_root"]),
        source_kind=str(row["source_kind"]),
        status=str(row["status"]),
        error=row["error"],
        meta=json.loads(row["meta"] or "{}"),
    )


def by_id(conn: Any, doc_id: int) -> Document:
    row = conn.execute(_COLUMNS + "WHERE d.id = ?", (int(doc_id),)).fetchone()
    if row is None:
        raise Missing(f"no document {doc_id} in the KB; see /api/documents")
    return _document(row)


def by_path(conn: Any, name: str) -> Document:
    row = conn.execute(_COLUMNS + "WHERE d.path = ?", (check_name(name),)).fetchone()
    if row is None:
        raise Missing(f"no document {name!r} in the KB; paths look like the hits of search")
    return _document(row)


def by_chunk(conn: Any, chunk_id: int) -> tuple[Document, Any]:
    """The document holding chunk ``chunk_id`` and the chunk row."""
    row = conn.execute("SELECT * FROM chunks WHERE id = ?", (int(chunk_id),)).fetchone()
    if row is None:
        raise Missing(f"no chunk {chunk_id} in the KB (re-indexed since?)")
    return by_id(conn, int(row["document_id"])), row


def confined_file(doc: Document) -> Path:
    """The document's file, resolved, after the confinement checks of rule 3."""
    root = Path(doc.source_root).resolve()
    try:
        real = Path(doc.abs_path).resolve(strict=True)
    except (OSError, RuntimeError):
        raise Missing(f"{doc.path}: the file is gone from {doc.source_root}") from None
    inside = real == root if doc.source_kind == "file" else real.is_relative_to(root)
    if not inside:
        raise Refused(f"{doc.path}: the file resolves outside its source folder; not served")
    try:
        mode = os.stat(real).st_mode
    except OSError:
        raise Missing(f"{doc.path}: the file cannot be read") from None
    if not stat.S_ISREG(mode):
        raise Refused(f"{doc.path}: not a regular file; not served")
    return real


def read_lines(doc: Document, first: int | None = None, last: int | None = None) -> list[str]:
    """Lines ``first..last`` (1-based, inclusive; ``None``: from the start / to the end)
    of a Markdown or text document, decoded as UTF-8 (bad bytes replaced)."""
    if doc.doc_type not in ("md", "txt"):
        raise Refused(f"{doc.path}: lines are for md and txt documents; use segments")
    path = confined_file(doc)
    with open(path, "rb") as fh:
        data = fh.read(MAX_TEXT_BYTES)
    lines = data.decode("utf-8", errors="replace").splitlines()
    a = max(1, first or 1)
    b = len(lines) if last is None else min(last, len(lines))
    return lines[a - 1 : b]


@dataclass(frozen=True)
class Segment:
    """One stored chunk of a document with its place (pages, seconds or lines)."""

    chunk_id: int
    text: str
    heading: str
    lines: tuple[int, int] | None
    pages: tuple[int, int] | None
    seconds: tuple[float, float] | None
    #: ``text`` less what the segment before it holds already: a chunk that starts
    #: inside a line repeats the sentence before the cut (:mod:`ingest.chunkers.structure`),
    #: which a page of the whole document shows once
    fresh: str = ""

    @property
    def shown(self) -> str:
        """What a view of the whole document shows of this segment (:attr:`fresh`)."""
        return self.fresh or self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "text": self.text,
            "heading": self.heading or None,
            "lines": list(self.lines) if self.lines else None,
            "page": list(self.pages) if self.pages else None,
            "seconds": list(self.seconds) if self.seconds else None,
        }


def segments(conn: Any, doc: Document) -> list[Segment]:
    """The document's chunks of the live chunking in order (the PDF text by page, the
    audio transcript); chunkings kept beside it (an older chunker version, another
    chunker) are not shown. Each segment's :attr:`Segment.fresh` is its text without
    the characters the one before it holds too."""
    out = []
    prev_end: int | None = None
    for r in conn.execute(
        "SELECT * FROM live_chunks WHERE document_id = ? ORDER BY ord", (doc.id,)
    ).fetchall():
        ls, ps, ss = r["line_start"], r["page_start"], r["seconds_start"]
        text, start, end = str(r["text"]), r["char_start"], r["char_end"]
        fresh = ""
        if prev_end is not None and start is not None and start < prev_end:
            fresh = text[prev_end - int(start) :].lstrip()
        prev_end = int(end) if end is not None else None
        out.append(
            Segment(
                int(r["id"]),
                text,
                str(r["heading_path"] or ""),
                (int(ls), int(r["line_end"] or ls)) if ls is not None else None,
                (int(ps), int(r["page_end"] or ps)) if ps is not None else None,
                (float(ss), float(r["seconds_end"] or ss)) if ss is not None else None,
                fresh,
            )
        )
    return out


def joined_text(segs: list[Segment], title: str | None = None) -> str:
    """The segments' text joined by blank lines, each heading a PDF page shows written
    where its section starts (a PDF heading is in the chunks' heading path, not in their
    text): "Seasonal care" over the text it heads. The document's ``title``, the first
    part of every path when it has one, is not repeated."""
    out: list[str] = []
    prev: list[str] = []
    for s in segs:
        path = [p for p in s.heading.split(HEADING_SEP) if p] if s.pages else []
        if title and path[:1] == [title]:
            path = path[1:]
        same = 0
        while same < min(len(path), len(prev)) and path[same] == prev[same]:
            same += 1
        out.extend(path[same:])
        out.append(s.shown)
        prev = path
    return "\n\n".join(out)


def overlaps(
    seg: Segment, pages: tuple[int, int] | None, seconds: tuple[float, float] | None
) -> bool:
    """Whether a segment meets the page range or the seconds range asked for."""
    if pages is not None:
        return seg.pages is not None and seg.pages[0] <= pages[1] and pages[0] <= seg.pages[1]
    if seconds is not None:
        return (
            seg.seconds is not None
            and seg.seconds[0] <= seconds[1]
            and seconds[0] <= seg.seconds[1]
        )
    return True
