"""Chunk rows: how a document's chunks are written, and how a row is read back as a hit."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from kb.hashing import embed_text, text_sha256
from kb.store.stemming import document_words, record_form, stemmed_code, stems_of
from kb.types import HEADING_SEP, ChunkDraft, ChunkerInfo, Hit, Locator, Span


def chunk_hash(text: str) -> str:
    """A chunk text's identity: blake2b, 16 bytes, hex."""
    import hashlib

    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def insert_chunks(
    c: sqlite3.Connection,
    doc_id: int,
    chunking_id: int,
    content_hash: str | None,
    chunks: Sequence[ChunkDraft],
    chunker: ChunkerInfo,
) -> None:
    """Insert a document's chunks into one chunking and record which document version
    (``content_hash``) they were made from. A chunk whose embedded text some embedded
    chunk already has is ``embedded`` at once (same text, same vector). A chunk of a
    German or French document (``documents.lang``) gets its index form
    (:mod:`kb.store.stemming`: a German one's compounds split against the document's own
    words), which the keyword index holds instead of its text."""
    params = json.dumps(chunker.params, sort_keys=True)
    found = c.execute("SELECT lang FROM documents WHERE id = ?", (doc_id,)).fetchone()
    lang = None if found is None else found[0]
    words = document_words(((ch.text, HEADING_SEP.join(ch.heading_path)) for ch in chunks), lang)
    rows = []
    for i, ch in enumerate(chunks):
        heading = HEADING_SEP.join(ch.heading_path)
        stem_text, stem_heading = stems_of(ch.text, heading, lang, words)
        rows.append(
            (
                chunking_id,
                doc_id,
                i,
                ch.text,
                heading,
                ch.span.line_start,
                ch.span.line_end,
                ch.span.page_start,
                ch.span.page_end,
                ch.char_start,
                ch.char_end,
                ch.span.seconds_start,
                ch.span.seconds_end,
                ch.token_count,
                chunker.name,
                chunker.version,
                params,
                chunk_hash(ch.text),
                text_sha256(embed_text(heading, ch.text)),
                stem_text,
                stem_heading,
            )
        )
    c.executemany(
        "INSERT INTO chunks (chunking_id, document_id, ord, text, heading_path, line_start, "
        "line_end, page_start, page_end, char_start, char_end, seconds_start, seconds_end, "
        "token_count, chunker, chunker_version, chunker_params, content_hash, embed_sha256, "
        "stem_text, stem_heading, embedding_status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
        "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, CASE WHEN EXISTS "
        "(SELECT 1 FROM chunks WHERE embed_sha256 = ?19 AND embedding_status = 'embedded') "
        "THEN 'embedded' ELSE 'pending' END)",
        rows,
    )
    if chunks and stemmed_code(lang) is not None:
        record_form(c, replace=False)
    c.execute(
        "INSERT INTO chunking_docs (chunking_id, document_id, content_hash, error) "
        "VALUES (?, ?, ?, NULL) ON CONFLICT (chunking_id, document_id) DO UPDATE SET "
        "content_hash = excluded.content_hash, error = NULL",
        (chunking_id, doc_id, content_hash),
    )


def row_to_hit(r: sqlite3.Row) -> Hit:
    """Build a :class:`Hit` (score 0) from a chunks row joined with path/doc_type/tags."""
    heading = tuple(p for p in str(r["heading_path"]).split(HEADING_SEP) if p)
    span = Span(
        line_start=r["line_start"],
        line_end=r["line_end"],
        page_start=r["page_start"],
        page_end=r["page_end"],
        seconds_start=r["seconds_start"],
        seconds_end=r["seconds_end"],
    )
    return Hit(
        chunk_id=int(r["id"]),
        text=str(r["text"]),
        locator=Locator(
            path=r["path"],
            doc_type=r["doc_type"],
            heading_path=heading,
            span=span,
            abs_path=r["abs_path"] if "abs_path" in r.keys() else None,  # noqa: SIM118
        ),
        score=0.0,
        text_hash=str(r["content_hash"]),
        tags=list(json.loads(r["tags"] or "[]")),
    )
