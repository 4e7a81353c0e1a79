"""``kb doctor --salvage``: copy every readable row of a damaged ``kb.sqlite`` into a new one.

Steps:

1. a fresh database (``kb.sqlite.salvage``) gets the current schema (all migrations);
2. every table of that schema except the FTS index and ``_migrations`` is read from the
   damaged file row by row in ``rowid`` order, with the columns both have. A read that
   fails (a damaged page) is retried past it, with the step doubling up to the table's
   largest rowid; each table reports rows saved and unreadable stretches;
3. rows that lost their parent are dropped (chunks without a document: their vectors
   are tombstoned; results without an eval run), and ``sqlite_sequence`` keeps ids
   above any id the damaged file used, so no id (and no stale vector) is reused;
4. when chunks were lost, every document's content hash is cleared, so the next
   ``kb ingest`` re-reads each file and replaces its chunks (eval runs are never
   re-created: what could not be read is gone unless a backup or export exists);
5. the damaged file (and its ``-wal``/``-shm``) is renamed ``kb.sqlite.damaged-<time>``
   and the new database takes its place. The FTS index is filled by the insert
   triggers as chunks are copied.

LanceDB is left alone: chunk ids are kept, so vectors stay valid; ``kb doctor
--repair`` removes vectors whose chunk was lost.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.store import migrations

SKIP = ("_migrations", "sqlite_sequence")
MAX_FAILURES = 64


@dataclass
class TableSalvage:
    saved: int = 0
    unreadable: int = 0  # failed reads (each a damaged stretch skipped)
    error: str | None = None  # the table could not be read at all


@dataclass
class SalvageReport:
    database: str
    damaged_copy: str
    tables: dict[str, TableSalvage] = field(default_factory=dict)
    documents_to_reload: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "damaged_copy": self.damaged_copy,
            "tables": {
                k: {"saved": v.saved, "unreadable_stretches": v.unreadable, "error": v.error}
                for k, v in self.tables.items()
            },
            "documents_to_reload": self.documents_to_reload,
        }

    def lines(self) -> list[str]:
        out = [f"salvaged {self.database}; the damaged file is kept as {self.damaged_copy}"]
        for name, t in self.tables.items():
            note = f", {t.unreadable} unreadable stretch(es) skipped" if t.unreadable else ""
            if t.error:
                note = f", unreadable: {t.error}"
            out.append(f"  {name}: {t.saved} rows saved{note}")
        if self.documents_to_reload:
            out.append(
                f"{self.documents_to_reload} documents will be re-read: run `kb ingest` on "
                "your folders, then `kb doctor --repair`"
            )
        return out


def _tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
    ).fetchall()
    return [
        str(n)
        for n, sql in rows
        if n not in SKIP
        and not str(n).startswith(("sqlite_", "chunks_fts"))
        and "VIRTUAL TABLE" not in str(sql or "").upper()
    ]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _read(
    old: sqlite3.Connection, table: str, cols: list[str], stats: TableSalvage
) -> Iterator[tuple[Any, ...]]:
    """Rows of ``table`` in rowid order, skipping what cannot be read."""
    try:
        top = old.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
    sql = f'SELECT rowid, {", ".join(cols)} FROM "{table}" WHERE rowid > ? ORDER BY rowid'
    last, step, failures = -(2**63), 1, 0
    while True:
        try:
            for row in old.execute(sql, (last,)):
                last, step = int(row[0]), 1
                yield tuple(row[1:])
            return
        except sqlite3.DatabaseError as e:
            stats.unreadable += 1
            failures += 1
            if top is None or failures > MAX_FAILURES:
                if stats.saved == 0 and stats.unreadable == 1:
                    stats.error = str(e)
                return
            last = max(last, 0) + step
            step *= 2
            if last >= top:
                return


def salvage(home: Path, db_name: str = "kb.sqlite") -> SalvageReport:
    """Salvage ``home/db_name`` (see the module docs); returns what was saved."""
    db = home / db_name
    stamp = time.strftime("%Y%m%d-%H%M%S")
    damaged = home / f"{db_name}.damaged-{stamp}"
    tmp = home / f"{db_name}.salvage"
    tmp.unlink(missing_ok=True)
    new = sqlite3.connect(tmp, isolation_level=None)
    report = SalvageReport(str(db), str(damaged))
    try:
        migrations.migrate(new, str(tmp))
        new.execute("PRAGMA foreign_keys = OFF")
        try:
            old = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            old_tables = set(_tables(old))
        except sqlite3.DatabaseError as e:
            old, old_tables = None, set()
            report.tables["(schema)"] = TableSalvage(error=str(e))
        new.execute("BEGIN")
        for table in _tables(new):
            stats = report.tables.setdefault(table, TableSalvage())
            if old is None or table not in old_tables:
                stats.error = stats.error or ("missing" if old is not None else "no schema")
                continue
            try:
                cols = [c for c in _columns(new, table) if c in set(_columns(old, table))]
            except sqlite3.DatabaseError as e:
                stats.error = str(e)
                continue
            insert = (
                f'INSERT OR IGNORE INTO "{table}" ({", ".join(cols)}) '
                f"VALUES ({', '.join('?' for _ in cols)})"
            )
            for row in _read(old, table, cols, stats):
                new.execute(insert, row)
                stats.saved += 1
        _tidy(new, old, report)
        new.execute("COMMIT")
        if old is not None:
            old.close()
    finally:
        new.close()
    for suffix in ("", "-wal", "-shm"):
        src = home / f"{db_name}{suffix}"
        if src.exists():
            os.replace(src, home / f"{damaged.name}{suffix}")
    os.replace(tmp, db)
    return report


def _tidy(new: sqlite3.Connection, old: sqlite3.Connection | None, report: SalvageReport) -> None:
    """Drop orphans, keep ids unique, and mark documents for re-reading (module docs)."""
    new.execute(
        "INSERT OR IGNORE INTO vector_tombstones (chunk_id) SELECT id FROM chunks "
        "WHERE document_id NOT IN (SELECT id FROM documents)"
    )
    new.execute("DELETE FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)")
    new.execute("DELETE FROM eval_query_results WHERE run_id NOT IN (SELECT id FROM eval_runs)")
    if old is not None:
        try:
            for name, seq in old.execute("SELECT name, seq FROM sqlite_sequence").fetchall():
                new.execute(
                    "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name)
                )
                new.execute(
                    "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS "
                    "(SELECT 1 FROM sqlite_sequence WHERE name = ?)",
                    (name, seq, name),
                )
        except sqlite3.DatabaseError:
            pass  # ids then continue above the highest id saved
    chunks = report.tables.get("chunks")
    if chunks is not None and (chunks.unreadable or chunks.error):
        cur = new.execute("UPDATE documents SET content_hash = NULL WHERE status = 'indexed'")
        report.documents_to_reload = cur.rowcount
