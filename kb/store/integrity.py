"""``kb doctor``'s first check: what SQLite itself sees in ``kb.sqlite``.

:func:`check_database` runs ``PRAGMA quick_check`` (``--deep``: ``PRAGMA
integrity_check``, which also compares every index with its table). ``quick_check``
reads every page of every table and index; on many damaged pages SQLite does not list
the problem but fails the pragma with ``database disk image is malformed``, which
counts as a finding too.

When the pragma finds damage, every table is read row by row (all columns, so overflow
pages too) to name the tables whose rows cannot be read; damage found only by the
pragma lies in an index or in free pages. The advice is ``kb doctor --salvage`` in
every case: it is the repair that works on damaged pages (``--repair`` rebuilds the
full-text index with an ``INSERT``, and SQLite refuses to write, drop or rebuild a
damaged b-tree). What salvage cannot bring back is named by :func:`loss_note`.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

#: how many of SQLite's problem lines a report keeps
MAX_PROBLEMS = 20

#: tables whose rows kb rebuilds from the others or from the files (salvage loses nothing
#: there that ``kb ingest`` does not bring back)
DERIVED_PREFIXES = ("chunks_fts",)
FROM_FILES = ("documents", "chunks", "chunking_docs", "sources", "sentence_vectors")


@dataclass
class DatabaseCheck:
    """``mode``: ``quick_check`` or ``integrity_check``. ``problems``: SQLite's lines
    (empty when ``ok``). ``damaged_tables``: tables whose rows could not all be read."""

    mode: str
    problems: list[str] = field(default_factory=list)
    damaged_tables: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.mode,
            "ok": self.ok,
            "problems": self.problems,
            "damaged_tables": self.damaged_tables,
        }


def check_database(conn: sqlite3.Connection, deep: bool = False) -> DatabaseCheck:
    """Run SQLite's own check on ``conn``'s main database (see the module docstring)."""
    mode = "integrity_check" if deep else "quick_check"
    out = DatabaseCheck(mode)
    try:
        rows = [str(r[0]) for r in conn.execute(f"PRAGMA {mode}({MAX_PROBLEMS})")]
    except sqlite3.DatabaseError as e:
        rows = [str(e)]
    if rows == ["ok"]:
        return out
    out.problems = [line.replace("*** in database main ***\n", "") for line in rows]
    out.damaged_tables = unreadable_tables(conn)
    return out


def unreadable_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables (FTS shadow tables included) with a row that cannot be read."""
    try:
        names = [
            str(n)
            for n, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
            if "VIRTUAL TABLE" not in str(sql or "").upper()
        ]
    except sqlite3.DatabaseError:
        return ["sqlite_master"]
    bad = []
    for name in names:
        quoted = '"' + name.replace('"', '""') + '"'
        try:
            for _ in conn.execute(f"SELECT * FROM {quoted}"):
                pass
        except sqlite3.DatabaseError:
            bad.append(name)
    return bad


def loss_note(damaged: list[str]) -> str:
    """What ``kb doctor --salvage`` cannot bring back, given the damaged tables."""
    lost = [
        t
        for t in damaged
        if not t.startswith(DERIVED_PREFIXES) and t not in FROM_FILES and t != "sqlite_master"
    ]
    if not damaged:
        return "the damage is in an index or free pages: no row is lost"
    if not lost:
        from_files = [t for t in damaged if t in FROM_FILES]
        if not from_files:
            return "only the full-text index is damaged: it is rebuilt, nothing is lost"
        return "documents on the damaged pages are read again by the next `kb ingest`"
    if any(t.startswith("eval") for t in lost):
        return (
            "eval runs on the damaged pages are lost unless you have `kb eval export` files; "
            "documents come back with `kb ingest`"
        )
    return f"rows of {', '.join(lost)} on the damaged pages are lost"


def finding_line(check: DatabaseCheck) -> str:
    """The doctor's one line for a damaged database, with the advice that works."""
    where = (
        f"; unreadable rows in {', '.join(check.damaged_tables)}" if check.damaged_tables else ""
    )
    first = check.problems[0].splitlines()[0] if check.problems else ""
    more = f" (+{len(check.problems) - 1} more)" if len(check.problems) > 1 else ""
    return (
        f"database: SQLite {check.mode} found damage ({first}{more}){where}; "
        f"`kb doctor --salvage` copies every readable row into a new database "
        f"({loss_note(check.damaged_tables)})"
    )
