"""Scope filters: which documents a search may return chunks from.

Filters are resolved to a set of document ids *before* either retriever runs; both
legs search only inside that set, so a scoped query returns ``k`` hits whenever ``k``
matching chunks exist (no post-filtering of a global top-k).

Semantics (paths are the ``/``-separated document paths relative to the ingested
root, as ``kb search`` prints them):

- ``paths``: a hit's path must match at least one pattern (rules in :mod:`kb.globs`,
  shared with ingest's include/exclude).

  - A pattern without glob characters is a file or folder: ``notes`` and ``notes/``
    match ``notes/a.md`` and ``notes/sub/b.md`` (not ``notes-old/c.md``); ``notes/a.md``
    matches that file. A leading ``./`` and backslashes are normalised.
  - A pattern with ``*``, ``?`` or ``[...]`` is a glob: ``*`` and ``?`` stay inside one
    path segment, ``**`` matches any number of segments (including none). A glob that
    matches a folder matches everything under it, so ``wiki/*`` matches
    ``wiki/a.md`` and ``wiki/sub/b.md``; ``**/*.md`` matches every Markdown file at
    any depth; ``*.md`` only top-level ones.
- ``types``: the document type (md, txt, pdf, audio) must be one of them.
- ``tags``: the document's front-matter tags must include one of them (compared
  case-insensitively, a leading ``#`` ignored).

Different kinds combine with AND; values of one kind with OR. Only documents with
status ``indexed`` are candidates.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from kb.globs import path_matcher, path_matches
from kb.search.options import SearchOptions

__all__ = ["allowed_documents", "document_matches", "normalise_tag", "path_matches"]


def normalise_tag(tag: str) -> str:
    return tag.strip().lstrip("#").casefold()


@dataclass(frozen=True)
class Scope:
    """The filters of one :class:`SearchOptions`, compiled once."""

    types: frozenset[str]
    paths: tuple[Callable[[str], bool], ...]
    tags: frozenset[str]

    def matches(self, path: str, doc_type: str, tags: Iterable[str]) -> bool:
        if self.types and doc_type not in self.types:
            return False
        if self.paths and not any(m(path) for m in self.paths):
            return False
        return not self.tags or any(normalise_tag(t) in self.tags for t in tags)


@lru_cache(maxsize=64)
def compile_scope(opts: SearchOptions) -> Scope:
    return Scope(
        types=frozenset(opts.types),
        paths=tuple(path_matcher(p) for p in opts.paths),
        tags=frozenset(normalise_tag(t) for t in opts.tags),
    )


def document_matches(
    opts: SearchOptions, path: str, doc_type: str, tags: list[str] | tuple[str, ...]
) -> bool:
    """Whether one document is inside the scope of ``opts`` (True when unscoped)."""
    return compile_scope(opts).matches(path, doc_type, tags)


def allowed_documents(conn: sqlite3.Connection, opts: SearchOptions) -> set[int] | None:
    """Ids of the documents ``opts`` allows; ``None`` when the search is not scoped."""
    if not opts.scoped:
        return None
    scope = compile_scope(opts)
    sql = "SELECT id, path, doc_type, tags FROM documents WHERE status = 'indexed'"
    params: list[object] = []
    if opts.types:  # done by SQL; the other kinds need Python (globs, JSON tags)
        sql += f" AND doc_type IN ({','.join('?' * len(opts.types))})"
        params.extend(opts.types)
    out: set[int] = set()
    for doc_id, path, doc_type, tags_json in conn.execute(sql, params):
        tags: list[str] = []
        if scope.tags:
            try:
                tags = [str(t) for t in json.loads(tags_json or "[]")]
            except ValueError:
                tags = []
        if scope.matches(str(path), str(doc_type), tags):
            out.add(int(doc_id))
    return out
