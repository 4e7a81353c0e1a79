"""Two SQLite reads every vector leg keys its caches on, in a module light enough for
``kb status`` (no numpy: :mod:`kb.search.vector_cache` re-exports them)."""

from __future__ import annotations

import sqlite3


def sqlite_state(conn: sqlite3.Connection) -> tuple[int, int]:
    """Changes whenever any connection commits: ``(data_version, total_changes)``."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), int(conn.total_changes)


def live_chunking(conn: sqlite3.Connection) -> int:
    """The live chunking's id (0 before the first ingest)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'live_chunking'").fetchone()
    return 0 if row is None else int(row[0])
