"""Numbered, named schema migrations.

Each migration is a function taking a connection; :func:`migrate` runs every
migration not yet recorded in ``_migrations``, each inside its own transaction
together with the row that records it. A database that records a migration id
this kb does not know was written by a newer kb and is refused.

Append new migrations at the end; never edit or reorder a released one.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from kb.errors import SchemaTooNewError


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Execute ``script`` statement by statement inside the caller's transaction.

    ``Connection.executescript`` would COMMIT first, breaking atomicity.
    """
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)


def m001_core(conn: sqlite3.Connection) -> None:
    """Documents, chunks, the FTS5 index, vector tombstones and key/value metadata."""
    _run_script(
        conn,
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE documents (
            id             INTEGER PRIMARY KEY AUTOINCREMENT,
            root           TEXT NOT NULL,      -- absolute path of the folder that was ingested
            path           TEXT NOT NULL,      -- '/'-separated, relative to root
            doc_type       TEXT NOT NULL,      -- md | txt | pdf | audio
            content_hash   TEXT,
            size           INTEGER,
            mtime          REAL,
            status         TEXT NOT NULL CHECK (status IN ('indexed', 'failed')),
            error          TEXT,
            tags           TEXT NOT NULL DEFAULT '[]',   -- JSON list
            warnings       TEXT NOT NULL DEFAULT '[]',   -- JSON list
            meta           TEXT NOT NULL DEFAULT '{}',   -- JSON object (duration, pages, ...)
            chunker        TEXT,
            chunker_version TEXT,
            chunker_params TEXT,
            updated_at     REAL NOT NULL,
            UNIQUE (root, path)
        );
        CREATE INDEX documents_hash ON documents (content_hash);
        CREATE TABLE chunks (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            document_id      INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            ord              INTEGER NOT NULL,
            text             TEXT NOT NULL,
            heading_path     TEXT NOT NULL DEFAULT '',
            line_start       INTEGER,
            line_end         INTEGER,
            page_start       INTEGER,
            page_end         INTEGER,
            char_start       INTEGER,
            char_end         INTEGER,
            seconds_start    REAL,
            seconds_end      REAL,
            token_count      INTEGER NOT NULL,
            chunker          TEXT NOT NULL,
            chunker_version  TEXT NOT NULL,
            chunker_params   TEXT NOT NULL,
            content_hash     TEXT NOT NULL,
            embedding_status TEXT NOT NULL DEFAULT 'pending'
                CHECK (embedding_status IN ('pending', 'embedded')),
            UNIQUE (document_id, ord)
        );
        CREATE INDEX chunks_status ON chunks (embedding_status);
        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, heading_path,
            content = 'chunks', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, new.text, new.heading_path);
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            VALUES ('delete', old.id, old.text, old.heading_path);
            INSERT INTO vector_tombstones (chunk_id) VALUES (old.id);
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF text, heading_path ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            VALUES ('delete', old.id, old.text, old.heading_path);
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, new.text, new.heading_path);
        END;
        -- chunk ids whose vectors must still be removed from LanceDB
        CREATE TABLE vector_tombstones (
            chunk_id INTEGER PRIMARY KEY ON CONFLICT IGNORE
        );
        """,
    )


def m002_eval(conn: sqlite3.Connection) -> None:
    """Eval runs and their per-query results, stored beside the index they measured."""
    _run_script(
        conn,
        """
        CREATE TABLE eval_runs (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            name          TEXT NOT NULL,
            created_at    REAL NOT NULL,
            finished_at   REAL,
            status        TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'complete', 'incomplete')),
            golden_path   TEXT NOT NULL,
            golden_hash   TEXT NOT NULL,
            config        TEXT NOT NULL DEFAULT '{}',   -- JSON snapshot
            options       TEXT NOT NULL DEFAULT '{}',   -- JSON: k, filters, answer on/off
            metrics       TEXT                          -- JSON cache; recomputable from rows
        );
        CREATE TABLE eval_query_results (
            run_id      INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
            query_id    TEXT NOT NULL,
            position    INTEGER NOT NULL,
            query       TEXT NOT NULL DEFAULT '{}',   -- JSON: the golden query as run
            hits        TEXT NOT NULL DEFAULT '[]',   -- JSON: ranked hits
            answer      TEXT,                         -- JSON: answer record, NULL with --no-answer
            timings     TEXT NOT NULL DEFAULT '{}',   -- JSON: seconds
            error       TEXT,
            PRIMARY KEY (run_id, query_id)
        );
        """,
    )


def m003_sources(conn: sqlite3.Connection) -> None:
    """Sources (the folders and files a user ingested) and documents keyed by absolute path.

    Each distinct old ``documents.root`` becomes a folder source named after the folder
    (``-2``, ``-3`` appended when that name is taken). Every document gets its source,
    its resolved absolute path (``root/path``) and the display path
    ``name/relative/path``. Where two old roots overlapped, the same file was stored
    twice: the most recently updated copy is kept and the others are deleted (their
    chunk ids become vector tombstones, removed from LanceDB by the next ingest or
    ``kb doctor --repair``).
    """
    import os

    _run_script(
        conn,
        """
        CREATE TABLE sources (
            id             INTEGER PRIMARY KEY AUTOINCREMENT,
            name           TEXT NOT NULL UNIQUE,   -- display name, first part of every path
            path           TEXT NOT NULL UNIQUE,   -- absolute, resolved folder or file
            kind           TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
            include        TEXT NOT NULL DEFAULT '[]',   -- JSON list of globs kept
            exclude        TEXT NOT NULL DEFAULT '[]',   -- JSON list of globs skipped
            created_at     REAL NOT NULL,
            last_ingest_at REAL
        );
        ALTER TABLE documents ADD COLUMN source_id INTEGER REFERENCES sources (id);
        ALTER TABLE documents ADD COLUMN abs_path TEXT;
        """,
    )
    now = time.time()
    taken: set[str] = set()
    roots = [str(r[0]) for r in conn.execute("SELECT DISTINCT root FROM documents ORDER BY root")]
    for root in roots:
        base = os.path.basename(root.rstrip("/")) or "root"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        cur = conn.execute(
            "INSERT INTO sources (name, path, kind, created_at, last_ingest_at) "
            "VALUES (?, ?, 'folder', ?, ?)",
            (name, root, now, now),
        )
        conn.execute(
            "UPDATE documents SET source_id = ?, abs_path = root || '/' || path, "
            "path = ? || '/' || path WHERE root = ?",
            (cur.lastrowid, name, root),
        )
    dupes = conn.execute(
        "SELECT id FROM documents d WHERE EXISTS (SELECT 1 FROM documents o WHERE "
        "o.abs_path = d.abs_path AND (o.updated_at > d.updated_at OR "
        "(o.updated_at = d.updated_at AND o.id > d.id)))"
    ).fetchall()
    for (doc_id,) in dupes:
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
        conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
    conn.execute("CREATE UNIQUE INDEX documents_abs_path ON documents (abs_path)")
    conn.execute("CREATE INDEX documents_source ON documents (source_id)")


def m004_eval_process(conn: sqlite3.Connection) -> None:
    """Which process runs an eval run (host name, pid), so a run whose process is gone
    shows as ``interrupted`` instead of ``running`` forever. ``created_at`` is the
    start time; a pid alive but started later belongs to another process."""
    _run_script(
        conn,
        """
        ALTER TABLE eval_runs ADD COLUMN host TEXT;
        ALTER TABLE eval_runs ADD COLUMN pid INTEGER;
        """,
    )


LIVE_ID_SQL = "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'live_chunking')"


def m005_chunkings(conn: sqlite3.Connection) -> None:
    """Named chunkings side by side, and a content-addressed embedding cache.

    - ``chunkings``: one row per chunker identity (name, version, params) with the spec
      it was asked for; ``meta.live_chunking`` names the one search uses.
    - ``chunking_docs``: which document version (content hash) each chunking's chunks
      of a document were made from (``error`` when that chunker failed on it).
    - ``chunks`` is rebuilt with ``chunking_id`` and ``embed_sha256`` (the SHA-256 of
      the text that is embedded: heading path, newline, text), unique per
      ``(chunking_id, document_id, ord)``; chunk ids are kept.
    - the FTS5 index covers the live chunking only: its content table is the view
      ``live_chunks``, and the triggers skip chunks of other chunkings.

    An existing KB gets one chunking, live, made from its recorded chunker; every chunk
    joins it. Its vectors (LanceDB rows by chunk id) are re-keyed by text hash the next
    time the vector table is opened for writing (:mod:`kb.store.vectors`): nothing is
    re-embedded.
    """
    import json

    from kb.hashing import embed_text, text_sha256

    _run_script(
        conn,
        """
        CREATE TABLE chunkings (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            spec       TEXT NOT NULL,                 -- as asked for: window:size=64
            name       TEXT NOT NULL,
            version    TEXT NOT NULL,
            params     TEXT NOT NULL,                 -- JSON, keys sorted
            created_at REAL NOT NULL,
            built_at   REAL,                          -- last time it was brought up to date
            UNIQUE (name, version, params)
        );
        CREATE TABLE chunking_docs (
            chunking_id  INTEGER NOT NULL REFERENCES chunkings (id) ON DELETE CASCADE,
            document_id  INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            content_hash TEXT,
            error        TEXT,
            PRIMARY KEY (chunking_id, document_id)
        );
        CREATE INDEX chunking_docs_doc ON chunking_docs (document_id);
        DROP TRIGGER chunks_ai;
        DROP TRIGGER chunks_ad;
        DROP TRIGGER chunks_au;
        DROP TABLE chunks_fts;
        CREATE TABLE chunks_new (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            chunking_id      INTEGER REFERENCES chunkings (id) ON DELETE CASCADE,
            document_id      INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            ord              INTEGER NOT NULL,
            text             TEXT NOT NULL,
            heading_path     TEXT NOT NULL DEFAULT '',
            line_start       INTEGER,
            line_end         INTEGER,
            page_start       INTEGER,
            page_end         INTEGER,
            char_start       INTEGER,
            char_end         INTEGER,
            seconds_start    REAL,
            seconds_end      REAL,
            token_count      INTEGER NOT NULL,
            chunker          TEXT NOT NULL,
            chunker_version  TEXT NOT NULL,
            chunker_params   TEXT NOT NULL,
            content_hash     TEXT NOT NULL,
            embed_sha256     TEXT NOT NULL DEFAULT '',
            embedding_status TEXT NOT NULL DEFAULT 'pending'
                CHECK (embedding_status IN ('pending', 'embedded')),
            UNIQUE (chunking_id, document_id, ord)
        );
        """,
    )
    cols = (
        "id, document_id, ord, text, heading_path, line_start, line_end, page_start, "
        "page_end, char_start, char_end, seconds_start, seconds_end, token_count, chunker, "
        "chunker_version, chunker_params, content_hash, embedding_status"
    )
    conn.execute(f"INSERT INTO chunks_new ({cols}) SELECT {cols} FROM chunks")
    seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").fetchone()
    conn.execute("DROP TABLE chunks")
    conn.execute("ALTER TABLE chunks_new RENAME TO chunks")
    if seq is not None:  # ids are never reused, even those of chunks deleted long ago
        conn.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'chunks'", seq)
    rows = conn.execute("SELECT id, heading_path, text FROM chunks").fetchall()
    conn.executemany(
        "UPDATE chunks SET embed_sha256 = ? WHERE id = ?",
        ((text_sha256(embed_text(str(h), str(t))), i) for i, h, t in rows),
    )
    ident = conn.execute(
        "SELECT chunker, chunker_version, chunker_params FROM chunks "
        "GROUP BY 1, 2, 3 ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    if ident is not None:
        rec = conn.execute("SELECT value FROM meta WHERE key = 'chunker'").fetchone()
        spec = str(ident[0])
        if rec is not None:
            spec = str(json.loads(rec[0]).get("spec") or spec)
        cur = conn.execute(
            "INSERT INTO chunkings (spec, name, version, params, created_at, built_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (spec, ident[0], ident[1], ident[2], time.time(), time.time()),
        )
        cid = int(cur.lastrowid or 0)
        conn.execute(
            "UPDATE chunks SET chunking_id = ? WHERE chunker = ? AND chunker_version = ? "
            "AND chunker_params = ?",
            (cid, *ident),
        )
        # chunks of another identity (an ingest cut short while changing chunker) go:
        # their documents are re-chunked by the next ingest
        conn.execute("DELETE FROM chunks WHERE chunking_id IS NULL")
        conn.execute(
            "INSERT INTO chunking_docs (chunking_id, document_id, content_hash) "
            "SELECT ?, d.id, d.content_hash FROM documents d WHERE d.status = 'indexed' "
            "AND d.chunker = ? AND d.chunker_version = ? AND d.chunker_params = ? "
            "AND EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)",
            (cid, *ident),
        )
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('live_chunking', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(cid),),
        )
    _run_script(
        conn,
        f"""
        CREATE INDEX chunks_status ON chunks (embedding_status);
        CREATE INDEX chunks_chunking ON chunks (chunking_id, document_id);
        CREATE INDEX chunks_embed ON chunks (embed_sha256);
        CREATE VIEW live_chunks AS
            SELECT * FROM chunks WHERE chunking_id = {LIVE_ID_SQL};
        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, heading_path,
            content = 'live_chunks', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks
        WHEN new.chunking_id = {LIVE_ID_SQL} BEGIN
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, new.text, new.heading_path);
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            SELECT 'delete', old.id, old.text, old.heading_path
            WHERE old.chunking_id = {LIVE_ID_SQL};
            INSERT INTO vector_tombstones (chunk_id) VALUES (old.id);
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF text, heading_path ON chunks
        WHEN new.chunking_id = {LIVE_ID_SQL} BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            VALUES ('delete', old.id, old.text, old.heading_path);
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, new.text, new.heading_path);
        END;
        INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
        """,
    )


def m006_sentence_vectors(conn: sqlite3.Connection) -> None:
    """Sentence vectors: each chunk text's sentences embedded on their own.

    Keyed like the embedding cache, by ``(model, sha)`` where ``sha`` is the chunk's
    ``embed_sha256``, so chunkings and re-ingests that share a chunk share its row.
    ``spans`` holds ``int32[n, 2]`` character offsets into the chunk's text (the
    :func:`kb.rag.sentences.split_sentences` spans), ``vectors`` ``float16[n, dim]``,
    both little-endian (:mod:`kb.store.sentences`). Nothing is filled here: the next
    ingest or ``kb reindex --sentences`` embeds them.
    """
    _run_script(
        conn,
        """
        CREATE TABLE sentence_vectors (
            model   TEXT NOT NULL,
            sha     TEXT NOT NULL,
            n       INTEGER NOT NULL,
            dim     INTEGER NOT NULL,
            spans   BLOB NOT NULL,
            vectors BLOB NOT NULL,
            PRIMARY KEY (model, sha)
        );
        """,
    )


def m007_document_lang(conn: sqlite3.Connection) -> None:
    """Each document's language: ``documents.lang``, a code of :data:`kb.lang.KNOWN`
    or ``"und"`` (undetermined), from the front matter's ``lang:`` or detected at
    ingest (:mod:`kb.lang.detect`). Old rows get ``NULL`` (not yet read) until their
    next ingest."""
    conn.execute("ALTER TABLE documents ADD COLUMN lang TEXT")


def m008_stemmed_fts(conn: sqlite3.Connection) -> None:
    """The keyword index stems each chunk in its document's language.

    ``chunks.stem_text`` and ``chunks.stem_heading`` hold the *index form* of a chunk
    of a German or French document (:mod:`kb.store.stemming`: its words stemmed by that
    language's Snowball stemmer, its stop words left out); ``NULL`` for English,
    undetermined and not yet detected documents, which are indexed as written, as
    before. ``chunks_fts`` is rebuilt over the new view ``live_chunks_fts``
    (``coalesce(stem_text, text)``, ``coalesce(stem_heading, heading_path)`` of the live
    chunks), its triggers index those, and ``documents_lang`` lets the search ask which
    languages the KB holds in a few index lookups. The index forms of existing chunks
    are computed here from ``documents.lang`` (every chunking's chunks).
    """
    from kb.store.stemming import restem

    _run_script(
        conn,
        """
        ALTER TABLE chunks ADD COLUMN stem_text TEXT;
        ALTER TABLE chunks ADD COLUMN stem_heading TEXT;
        CREATE INDEX documents_lang ON documents (lang);
        DROP TRIGGER chunks_ai;
        DROP TRIGGER chunks_ad;
        DROP TRIGGER chunks_au;
        DROP TABLE chunks_fts;
        """,
    )
    restem(conn)
    text = "coalesce({0}.stem_text, {0}.text)"
    heading = "coalesce({0}.stem_heading, {0}.heading_path)"
    _run_script(
        conn,
        f"""
        CREATE VIEW live_chunks_fts AS
            SELECT id, {text.format("chunks")} AS text, {heading.format("chunks")} AS heading_path
            FROM chunks WHERE chunking_id = {LIVE_ID_SQL};
        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            text, heading_path,
            content = 'live_chunks_fts', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_ai AFTER INSERT ON chunks
        WHEN new.chunking_id = {LIVE_ID_SQL} BEGIN
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, {text.format("new")}, {heading.format("new")});
        END;
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            SELECT 'delete', old.id, {text.format("old")}, {heading.format("old")}
            WHERE old.chunking_id = {LIVE_ID_SQL};
            INSERT INTO vector_tombstones (chunk_id) VALUES (old.id);
        END;
        CREATE TRIGGER chunks_au AFTER UPDATE OF text, heading_path, stem_text, stem_heading
        ON chunks WHEN new.chunking_id = {LIVE_ID_SQL} BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, text, heading_path)
            VALUES ('delete', old.id, {text.format("old")}, {heading.format("old")});
            INSERT INTO chunks_fts (rowid, text, heading_path)
            VALUES (new.id, {text.format("new")}, {heading.format("new")});
        END;
        INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
        """,
    )


Migration = Callable[[sqlite3.Connection], None]

MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "core", m001_core),
    (2, "eval", m002_eval),
    (3, "sources", m003_sources),
    (4, "eval_process", m004_eval_process),
    (5, "chunkings", m005_chunkings),
    (6, "sentence_vectors", m006_sentence_vectors),
    (7, "document_lang", m007_document_lang),
    (8, "stemmed_fts", m008_stemmed_fts),
]

LATEST = MIGRATIONS[-1][0]


def applied(conn: sqlite3.Connection) -> dict[int, str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        "id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    return {row[0]: row[1] for row in conn.execute("SELECT id, name FROM _migrations")}


def migrate(conn: sqlite3.Connection, db_label: str = "database") -> list[str]:
    """Bring ``conn`` up to :data:`LATEST`; returns the names applied.

    Raises :class:`SchemaTooNewError` when the database records migrations this
    kb does not know.
    """
    done = applied(conn)
    known = {mid for mid, _, _ in MIGRATIONS}
    unknown = sorted(set(done) - known)
    if unknown:
        raise SchemaTooNewError(
            f"{db_label}: schema version {max(unknown)} was written by a newer kb "
            f"(this kb knows up to {LATEST}); upgrade kb to open it"
        )
    ran: list[str] = []
    for mid, name, fn in MIGRATIONS:
        if mid in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            fn(conn)
            conn.execute(
                "INSERT INTO _migrations (id, name, applied_at) VALUES (?, ?, ?)",
                (mid, name, time.time()),
            )
            conn.execute(f"PRAGMA user_version = {mid}")
            conn.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk does): keep its error
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        ran.append(name)
    return ran
