"""Sources: the folders and files a user ingested, and which source owns a file.

A source has a resolved absolute ``path`` and a short display ``name``, unique in the
KB (default: the folder's or file's own name, then ``name-2``, ``name-3``...). Every
document belongs to exactly one source, the *deepest* source whose path contains it
(so overlapping sources never duplicate a document), and is shown as
``name/relative/path`` (a file source's only document is shown as ``name``).

Removing a source deletes its documents in the store's crash-safe order: chunk rows
first (their ids become vector tombstones in the same transaction), vectors after
(:func:`ingest.embedding.apply_tombstones` or ``kb doctor --repair``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import UsageError
from kb.safe_open import source_refusal
from kb.store.sqlite import Store


@dataclass(frozen=True)
class Source:
    id: int
    name: str
    path: str
    kind: str  # folder | file
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    last_ingest_at: float | None = None
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def contains(self, abs_path: str) -> bool:
        """True when ``abs_path`` is this source's file, or inside its folder."""
        if abs_path == self.path:
            return True
        return self.kind == "folder" and abs_path.startswith(self.path.rstrip("/") + "/")

    def relative(self, abs_path: str) -> str:
        """``abs_path`` relative to the source ('' for the source itself), '/'-separated."""
        if abs_path == self.path:
            return ""
        return abs_path[len(self.path.rstrip("/")) + 1 :]

    def display(self, abs_path: str) -> str:
        """``name/relative/path`` (``name`` for the source's own file)."""
        rel = self.relative(abs_path)
        return f"{self.name}/{rel}" if rel else self.name

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "kind": self.kind,
            "include": list(self.include),
            "exclude": list(self.exclude),
            "last_ingest_at": self.last_ingest_at,
            **self.stats,
        }


def abs_key(path: Path | str) -> str:
    """The identity of a file or folder: its resolved absolute path, '/'-separated."""
    return Path(os.path.abspath(path)).resolve().as_posix()


def list_sources(store: Store, with_stats: bool = False) -> list[Source]:
    """Every source, by name; ``with_stats`` adds document counts and failures."""
    stats: dict[int, dict[str, Any]] = {}
    if with_stats:
        for r in store.conn.execute(
            "SELECT source_id, count(*), sum(status = 'failed') FROM documents GROUP BY 1"
        ):
            stats[int(r[0] or 0)] = {"documents": int(r[1]), "failed": int(r[2] or 0)}
        for r in store.conn.execute(
            "SELECT d.source_id, count(*) FROM chunks c JOIN documents d "
            "ON d.id = c.document_id GROUP BY 1"
        ):
            stats.setdefault(int(r[0] or 0), {})["chunks"] = int(r[1])
    out = []
    for r in store.conn.execute("SELECT * FROM sources ORDER BY name"):
        s = stats.get(int(r["id"]), {})
        out.append(
            Source(
                int(r["id"]),
                str(r["name"]),
                str(r["path"]),
                str(r["kind"]),
                tuple(json.loads(r["include"] or "[]")),
                tuple(json.loads(r["exclude"] or "[]")),
                r["last_ingest_at"],
                {
                    "documents": s.get("documents", 0),
                    "failed": s.get("failed", 0),
                    "chunks": s.get("chunks", 0),
                }
                if with_stats
                else {},
            )
        )
    return out


def find_source(store: Store, name: str) -> Source:
    """The source called ``name``; UsageError naming the known ones otherwise."""
    sources = list_sources(store)
    for s in sources:
        if s.name == name:
            return s
    known = ", ".join(s.name for s in sources) or "none yet"
    raise UsageError(f"no source named {name!r} (known: {known}); see `kb sources`")


def owner(sources: list[Source], abs_path: str) -> Source | None:
    """The deepest source containing ``abs_path``, or None."""
    best: Source | None = None
    for s in sources:
        if s.contains(abs_path) and (best is None or len(s.path) > len(best.path)):
            best = s
    return best


def unique_name(store: Store, wanted: str, is_file: bool) -> str:
    """``wanted``, or ``wanted-2``, ``wanted-3``... (before the suffix for a file)."""
    taken = {str(r[0]) for r in store.conn.execute("SELECT name FROM sources")}
    stem, ext = os.path.splitext(wanted) if is_file else (wanted, "")
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}{ext}"
    return name


def add_source(
    store: Store,
    path: Path | str,
    name: str | None = None,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> Source:
    """Record a new source at ``path``: a folder or a regular file, or a symlink to one
    (a FIFO, socket, device or a link to one is a :class:`UsageError` and nothing is
    recorded). ``name`` must be unused. A source recorded at the same path by a
    concurrent ``kb ingest`` in the meantime is returned as it is (``INSERT OR IGNORE``
    on the unique path): two ingests of one new folder both just work."""
    refusal = source_refusal(path)
    if refusal is not None:
        raise UsageError(refusal)
    key = abs_key(path)
    p = Path(key)
    is_file = not p.is_dir()
    if name is not None:
        _check_name(store, name)
    for _attempt in range(20):
        existing = _at_path(store, key)
        if existing is not None:
            return existing
        final = name or unique_name(store, p.name or "root", is_file)
        try:
            with store.tx() as c:
                c.execute(
                    "INSERT INTO sources (name, path, kind, include, exclude, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        final,
                        key,
                        "file" if is_file else "folder",
                        json.dumps(list(include)),
                        json.dumps(list(exclude)),
                        time.time(),
                    ),
                )
        except sqlite3.IntegrityError:
            # another kb process recorded this path (returned above on the next turn)
            # or took this name for another path (a new name is picked): a race, not a fault
            if name is not None and _at_path(store, key) is None:
                _check_name(store, name)  # the name the user gave was just taken
            continue
        return find_source(store, final)
    raise UsageError(
        f"{path}: could not record the source; other kb processes keep adding "
        "sources: re-run `kb ingest` when they are done"
    )


def _at_path(store: Store, key: str) -> Source | None:
    row = store.conn.execute("SELECT name FROM sources WHERE path = ?", (key,)).fetchone()
    return None if row is None else find_source(store, str(row[0]))


def _check_name(store: Store, name: str) -> None:
    if not name or "/" in name or name in (".", ".."):
        raise UsageError(f"--name {name!r}: a source name is one path part, without '/'")
    if store.conn.execute("SELECT 1 FROM sources WHERE name = ?", (name,)).fetchone():
        raise UsageError(f"--name {name!r}: a source has that name already; pick another")


def touch_sources(store: Store, ids: set[int]) -> None:
    """Record that these sources were just ingested."""
    now = time.time()
    with store.tx() as c:
        c.executemany("UPDATE sources SET last_ingest_at = ? WHERE id = ?", ((now, i) for i in ids))


def remove_source(store: Store, source: Source) -> int:
    """Delete the source and its documents (chunks → tombstones); returns documents removed."""
    ids = [
        int(r[0])
        for r in store.conn.execute("SELECT id FROM documents WHERE source_id = ?", (source.id,))
    ]
    with store.tx() as c:
        c.executemany("DELETE FROM chunks WHERE document_id = ?", ((i,) for i in ids))
        c.executemany("DELETE FROM documents WHERE id = ?", ((i,) for i in ids))
        c.execute("DELETE FROM sources WHERE id = ?", (source.id,))
    return len(ids)


def move_source(store: Store, source: Source, new_path: Path | str) -> Source:
    """Point ``source`` at ``new_path`` (a renamed or moved folder or file).

    Documents keep their ids, chunks and vectors; only their absolute paths change.
    The caller re-scans the source afterwards: files whose content hash is unchanged
    cost nothing, changed ones are re-indexed.
    """
    refusal = source_refusal(new_path)
    if refusal is not None:
        raise UsageError(refusal)
    key = abs_key(new_path)
    p = Path(key)
    if p.is_dir() != (source.kind == "folder"):
        raise UsageError(
            f"{new_path}: source {source.name!r} is a {source.kind}; give a {source.kind}"
        )
    other = store.conn.execute(
        "SELECT name FROM sources WHERE path = ? AND id != ?", (key, source.id)
    ).fetchone()
    if other is not None:
        raise UsageError(f"{new_path}: already the source {other[0]!r}")
    old = source.path.rstrip("/")
    with store.tx() as c:
        c.execute("UPDATE sources SET path = ? WHERE id = ?", (key, source.id))
        c.execute(
            "UPDATE documents SET root = ?, abs_path = ? || substr(abs_path, ?) "
            "WHERE source_id = ?",
            (key, key, len(old) + 1, source.id),
        )
    return find_source(store, source.name)
