"""The error tree every kb component raises.

Users see ``str(error)`` as one line on stderr and the process exits with
``error.exit_code``; a traceback is shown only when ``KB_DEBUG=1``.

::

    KbError                      exit 1   base class; never raised bare
    ├── ConfigError              exit 2   bad configuration file, key or value
    ├── UsageError               exit 2   bad command-line input (empty question, bad filter)
    ├── StoreError               exit 1   the KB folder or its SQLite/LanceDB files
    │   ├── SchemaTooNewError    exit 1   database written by a newer kb
    │   ├── ReadOnlyStoreError   exit 1   a writing command on a read-only KB folder
    │   ├── DamagedStoreError    exit 1   kb.sqlite is corrupt (`kb doctor --salvage`)
    │   ├── DiskFullError        exit 1   the disk filled while writing; nothing stored is lost
    │   ├── IntegrityStoreError  exit 1   a write broke a rule of the database (UNIQUE, CHECK,
    │   │                                 foreign key): that write stored nothing, the file is fine
    │   └── EmbeddingMismatchError exit 1 configured embedder is not the one that built the store
    ├── IngestError              exit 1   one file could not be loaded (recorded; ingest goes on)
    ├── ModelError               exit 3   a model file is missing, unreadable or of the wrong format
    ├── EmptyStoreError          exit 4   the KB has no chunks to search
    ├── ContextOverflowError     exit 5   the question alone does not fit the context window
    │   └── QuestionTooLongError exit 5   a question or query over kb.limits' 4,000 characters
    │                                     (HTTP 413 in kb serve, JSON-RPC -32602 in kb mcp)
    ├── GoldenError              exit 2   invalid golden set (names file, line, query id, field)
    └── GateFailedError          exit 1   an eval gate or regression check failed

Exit code 130 is used when the user interrupts with Ctrl-C.
"""

from __future__ import annotations


class KbError(Exception):
    """Base class; ``str(e)`` is a complete one-line message for the user."""

    exit_code: int = 1


class ConfigError(KbError):
    exit_code = 2


class UsageError(KbError):
    exit_code = 2


class StoreError(KbError):
    exit_code = 1


class SchemaTooNewError(StoreError):
    pass


class EmbeddingMismatchError(StoreError):
    pass


class ReadOnlyStoreError(StoreError):
    """The KB folder (or ``kb.sqlite``) is not writable and the command writes."""


class DamagedStoreError(StoreError):
    """``kb.sqlite`` is corrupt (not merely unopenable): its header or pages are damaged."""


class DiskFullError(StoreError):
    """SQLITE_FULL or ENOSPC while writing; transactions keep what was stored."""


class IntegrityStoreError(StoreError):
    """A write was refused by a constraint (``sqlite3.IntegrityError``): its transaction
    was rolled back, the database is intact. Never reported as "cannot open"."""


class IngestError(KbError):
    """One file failed to load. ``path`` is the file, ``reason`` the short cause."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ModelError(KbError):
    exit_code = 3


class EmptyStoreError(KbError):
    exit_code = 4


class ContextOverflowError(KbError):
    exit_code = 5


class QuestionTooLongError(ContextOverflowError):
    """A question, query or golden question longer than :data:`kb.limits.MAX_QUESTION_CHARS`:
    refused before any work (exit 5, the code of "the question does not fit")."""


class GoldenError(KbError):
    exit_code = 2


class GateFailedError(KbError):
    exit_code = 1


EXIT_INTERRUPTED = 130


def notice(message: str) -> None:
    """One line on stderr saying what kb did instead, and why (not an error)."""
    import sys

    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()
