"""Two SQLite reads every vector leg keys its caches on, in a module light enough for
``kb status`` (no numpy: :mod:`kb.search.vector_cache` re-exports them)."""

from __future__ import annotations

import sqlite3

from kb.store.embedded import live_chunking

__all__ = ["live_chunking", "sqlite_state"]


def sqlite_state(conn: sqlite3.Connection) -> tuple[int, int]:
    """Changes whenever any connection commits: ``(data_version, total_changes)``."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), int(conn.total_changes)
