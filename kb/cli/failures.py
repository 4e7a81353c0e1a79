"""Map failures that escape a command as library exceptions to one-line kb errors.

The root error handler (:func:`kb.cli.main`) asks :func:`translate` before it falls
back to "internal error". Known cases:

- ``sqlite3`` errors found after opening (a corrupt page read by a query, a write to a
  read-only KB, ``SQLITE_FULL``) → :func:`kb.store.health.classify`, naming the
  database opened last;
- ``OSError(ENOSPC)`` (or a library error whose text says "No space left on device")
  while writing the vector index, the vector cache or a transcript → :class:`DiskFullError`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kb.errors import DiskFullError, KbError


def translate(e: BaseException) -> KbError | None:
    """The :class:`KbError` to show for ``e``, or ``None`` when it is not a known failure."""
    from kb.store import health

    if isinstance(e, sqlite3.Error):
        db = health.LAST_OPENED or Path("kb.sqlite")
        return health.classify(e, db.parent, db)
    if health.is_disk_full(e):
        where = getattr(e, "filename", None) or "the KB"
        home = health.LAST_OPENED.parent if health.LAST_OPENED else Path(".")
        return DiskFullError(health.disk_full_message(home, str(where)))
    return None
