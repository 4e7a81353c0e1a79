"""Scope filters: which documents a search may return chunks from.

Filters are resolved to a set of document ids *before* either retriever runs; both
legs search only inside that set, so a scoped query returns ``k`` hits whenever ``k``
matching chunks exist (no post-filtering of a global top-k).

Semantics (paths are the ``/``-separated document paths relative to the ingested
root, as ``kb search`` prints them):

- ``paths``: a hit's path must match at least one pattern.

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
import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from kb.search.options import SearchOptions

_GLOB_CHARS = re.compile(r"[*?\[]")


def normalise_pattern(pattern: str) -> str:
    p = pattern.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def normalise_tag(tag: str) -> str:
    return tag.strip().lstrip("#").casefold()


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob into a regex anchored at both ends (see module docs)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")  # zero or more whole segments
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern.startswith("[!", i) else i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    # a glob that matches a folder also matches everything under it
    return re.compile("".join(out) + "(?:/.*)?", re.DOTALL)


def _path_matcher(pattern: str) -> Callable[[str], bool]:
    p = normalise_pattern(pattern)
    if p in ("", "/"):
        return lambda path: True
    if not _GLOB_CHARS.search(p):
        folder = p.rstrip("/")
        prefix = folder + "/"
        return lambda path: path == folder or path.startswith(prefix)
    try:
        rx = _glob_regex(p)
    except re.error:  # a malformed character class: treat the pattern literally
        return lambda path: path == p
    return lambda path: rx.fullmatch(path) is not None


def path_matches(path: str, pattern: str) -> bool:
    """Whether document ``path`` is selected by ``pattern`` (see the module docs)."""
    return _path_matcher(pattern)(path)


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
        paths=tuple(_path_matcher(p) for p in opts.paths),
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
