"""Opening ``kb.sqlite`` on any disk, and naming what went wrong when it fails.

- **Writable?** :func:`writable` asks ``access(2)`` about the KB folder (SQLite creates
  ``kb.sqlite-wal``, ``-shm`` and journals beside the database) and about the file.
  ``access`` answers ``EROFS`` on a read-only mount even for root.
- **Read-only opening** (:func:`connect_readonly`): the database is opened with a
  ``file:…?mode=ro`` URI. A WAL database can be read that way only when its ``-shm``
  and ``-wal`` files exist or can be created (SQLite ≥ 3.22, "Read-Only Databases" in
  the WAL documentation). After a clean close both are gone and a read-only folder
  cannot create them, so the first read fails with ``SQLITE_CANTOPEN``; kb then opens
  with ``immutable=1``, which is exact when no ``-wal`` file holds uncheckpointed
  pages. When such a ``-wal`` exists kb says so instead of silently reading old data.
- **Classifying errors** (:func:`classify`): ``SQLITE_NOTADB`` and ``SQLITE_CORRUPT``
  mean the file is damaged (:class:`DamagedStoreError`, with what can be rebuilt);
  ``SQLITE_READONLY`` a read-only KB; ``SQLITE_FULL`` a full disk; ``SQLITE_CANTOPEN``
  and anything else a database that cannot be opened, which says nothing about the
  file's health, so no message ever tells the user to move it away.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kb.errors import (
    DamagedStoreError,
    DiskFullError,
    IntegrityStoreError,
    ReadOnlyStoreError,
    StoreError,
)

DAMAGED_CODES = ("SQLITE_NOTADB", "SQLITE_CORRUPT")

LAST_OPENED: Path | None = None
"""The database :meth:`kb.store.Store.open` opened last, to name it in errors that
surface later (a corrupt page is often found only by the query that reads it)."""


def writable(home: Path, db: Path) -> bool:
    """True when kb may write the KB folder ``home`` and its database file ``db``."""
    if not os.access(home, os.W_OK | os.X_OK):
        return False
    return not db.exists() or os.access(db, os.W_OK)


def read_only_message(home: Path, command: str = "this command") -> str:
    return f"KB folder {home} is read-only; {command} needs write access"


def disk_full_message(home: Path, what: str) -> str:
    return (
        f"the disk holding {home} is full (writing {what}); nothing stored is lost: "
        "free space and re-run kb ingest"
    )


def damaged_message(db: Path, detail: str) -> str:
    return (
        f"{db}: the KB database is damaged ({detail}); `kb doctor --salvage` copies every "
        "readable row into a new database and keeps the damaged file; documents and chunks "
        "then come back with `kb ingest`, eval runs only from a backup or `kb eval export` files"
    )


def _name(e: BaseException) -> str:
    return str(getattr(e, "sqlite_errorname", "") or "")


def is_damage(e: BaseException) -> bool:
    name = _name(e)
    if name:
        return name.startswith(DAMAGED_CODES)
    text = str(e)
    return "file is not a database" in text or "malformed" in text


def is_disk_full(e: BaseException) -> bool:
    if isinstance(e, OSError) and e.errno == errno.ENOSPC:
        return True
    if _name(e) == "SQLITE_FULL":
        return True
    text = str(e)
    return "No space left on device" in text or "os error 28" in text or "disk is full" in text


@contextmanager
def disk_full_guard(home: Path, what: str) -> Iterator[None]:
    """Turn a full-disk failure inside the block (``ENOSPC`` from Python or from LanceDB's
    Rust layer, ``SQLITE_FULL``) into one :class:`DiskFullError` line naming ``what``."""
    try:
        yield
    except DiskFullError:
        raise
    except Exception as e:
        if is_disk_full(e):
            raise DiskFullError(disk_full_message(home, what)) from None
        raise


def classify(e: sqlite3.Error, home: Path, db: Path, operation: str | None = None) -> StoreError:
    """The :class:`StoreError` (one line) a user should see for ``e`` on ``db``.

    ``operation`` is set for an error after the database was opened (``kb ingest``): an
    unknown cause is then "unexpected ... during OPERATION", never "cannot open". A
    constraint error is :class:`IntegrityStoreError` either way."""
    name = _name(e)
    if isinstance(e, sqlite3.IntegrityError):
        during = f" during {operation}" if operation else ""
        return IntegrityStoreError(
            f"{db}: a write{during} was refused by the database ({e}); that write stored "
            "nothing and the database is not damaged: re-run the command (another kb "
            "process may have written the same row at the same moment); if it repeats, "
            "re-run with KB_DEBUG=1 and report the traceback"
        )
    if is_damage(e):
        return DamagedStoreError(damaged_message(db, str(e)))
    if name.startswith("SQLITE_READONLY") or "readonly database" in str(e):
        return ReadOnlyStoreError(read_only_message(home))
    if is_disk_full(e):
        return DiskFullError(disk_full_message(home, db.name))
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED"):
        return StoreError(f"{db}: the KB database stayed locked by another kb process; try again")
    if not home.is_dir():
        return StoreError(f"{home}: the KB folder is missing (is its disk mounted?)")
    if not os.access(db, os.R_OK):
        return StoreError(f"{db}: cannot read the KB database (permission denied); fix its owner")
    if operation:
        return StoreError(
            f"{db}: unexpected database error during {operation} ({e}); the file itself is "
            "not known to be damaged: re-run with KB_DEBUG=1 to see the traceback, or run "
            "`kb doctor`"
        )
    return StoreError(
        f"{db}: cannot open the KB database ({e}); the file itself is not known to be damaged: "
        "check the folder's permissions and free space, or run `kb doctor`"
    )


def connect_readonly(db: Path, timeout: float = 30) -> sqlite3.Connection:
    """Open ``db`` read-only (see the module docstring for the WAL rule)."""
    uri = db.resolve().as_uri()
    conn = sqlite3.connect(
        f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False, timeout=timeout
    )
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as e:
        conn.close()
        if _name(e) != "SQLITE_CANTOPEN" and "unable to open" not in str(e):
            raise
    wal = db.with_name(db.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"{db}: the KB folder is read-only and {wal.name} holds changes not yet written "
            "into the database; open the KB once with write access (any kb command does), "
            "or copy the folder to a writable place"
        )
    conn = sqlite3.connect(
        f"{uri}?mode=ro&immutable=1",
        uri=True,
        isolation_level=None,
        check_same_thread=False,
        timeout=timeout,
    )
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn
