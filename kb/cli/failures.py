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


def dash_hint(e: BaseException, argv: list[str]) -> str | None:
    """For ``kb search -boiler`` / ``kb ask -x``: a one-line usage error showing the
    ``--`` form, or ``None`` when ``e`` is not an unknown option of those commands."""
    if type(e).__name__ != "NoSuchOption" or getattr(e, "possibilities", None):
        return None  # a typo of a real option gets "did you mean" instead
    ctx = getattr(e, "ctx", None)
    command = str(getattr(ctx, "command_path", "") or "").split(" ")[-1]
    if command not in ("search", "ask"):
        return None
    opt = str(getattr(e, "option_name", "") or "")
    word = next((a for a in argv if opt and a.startswith(opt)), opt)
    return (
        f"kb {command}: error: unknown option {opt}; to {command} for text that starts "
        f"with '-', put -- before it: kb {command} -- {word}"
    )


def usage_line(e: BaseException) -> str | None:
    """One line for a usage error of the click that typer runs on (typer >= 0.20 vendors
    it as ``typer._click``, so ``click.UsageError`` does not catch it), else ``None``."""
    if not any(c.__name__ == "UsageError" for c in type(e).__mro__):
        return None
    ctx = getattr(e, "ctx", None)
    command = str(getattr(ctx, "command_path", "") or "kb").split(" ")[-1]
    where = "kb" if command == "kb" else f"kb {command}"
    param = getattr(e, "param", None)
    opts = "/".join(getattr(param, "opts", None) or ())
    what = " ".join(str(getattr(e, "message", e)).split())
    prefix = f"invalid value for {opts}: " if opts and type(e).__name__ == "BadParameter" else ""
    return f"{where}: error: {prefix}{what}"


def translate(e: BaseException, operation: str = "the command") -> KbError | None:
    """The :class:`KbError` to show for ``e``, or ``None`` when it is not a known failure.
    ``operation`` (``kb ingest``) names what ran in an "unexpected" error."""
    from kb.store import health

    if isinstance(e, sqlite3.Error):
        db = health.LAST_OPENED or Path("kb.sqlite")
        return health.classify(e, db.parent, db, operation)
    if health.is_disk_full(e):
        where = getattr(e, "filename", None) or "the KB"
        home = health.LAST_OPENED.parent if health.LAST_OPENED else Path(".")
        return DiskFullError(health.disk_full_message(home, str(where)))
    return None
