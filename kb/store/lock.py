"""One writer at a time per KB: an OS file lock on ``<KB>/kb.lock`` (stdlib only).

Commands that change documents, chunks, chunkings or vectors hold it for their whole
run: ``kb ingest`` (``--watch``: per batch of changes, so other writers get turns),
``kb sources add/remove/move``, ``kb docs remove``, ``kb chunkers use/rm``,
``kb reindex``, ``kb doctor --repair/--salvage`` and ``kb eval run --chunker``'s
build. A second writer **waits** for the first, after one line on stderr naming the
KB, the command holding it and its process id; Ctrl-C stops the waiting one, and
nothing of it was written. Without the lock two ingests of one new folder collided on
a source row, and two of different folders each embedded the other's pending chunks.

Readers (``kb search``, ``kb ask``, ``kb serve``, ``kb status``) never take it: SQLite's
WAL mode lets them read while a writer writes.

The lock is ``fcntl.flock`` on an open file: the kernel drops it when the holder's
process ends, however it ends (``kill -9`` included), so a stale lock cannot block.
The file stays in place (deleting a lock file races with the next locker); what it
holds (``pid``, command) is only for the waiting message. Where there is no
``fcntl`` (Windows) or the KB folder cannot be written (a read-only KB: the command
refuses with its own line), no lock is taken. Re-entrant within one thread: a
command that already holds the lock of a KB may call code that takes it again.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "kb.lock"

_HELD: dict[tuple[str, int], int] = {}  # (resolved KB folder, thread) -> nesting depth
_GUARD = threading.Lock()


def _say(line: str) -> None:
    sys.stderr.write(line.rstrip() + "\n")
    sys.stderr.flush()


def holder(home: Path) -> tuple[str, int] | None:
    """``("kb ingest", 1234)``: the command and process id the lock file records of its
    last holder, when readable."""
    try:
        raw = (Path(home) / LOCK_NAME).read_bytes()[:400]
    except OSError:
        return None
    pid, _, command = raw.decode("utf-8", "replace").strip().partition(" ")
    if not pid.isdigit():
        return None
    return command or "kb", int(pid)


def waiting_message(home: Path, who: tuple[str, int] | None) -> str:
    by = f"`{who[0]}` (pid {who[1]})" if who else "another kb process"
    return (
        f"kb: the KB at {home} is being written by {by}; waiting for it to finish "
        "(Ctrl-C stops waiting; this command has written nothing yet)"
    )


@contextmanager
def write_lock(
    home: Path,
    command: str,
    *,
    create: bool = False,
    on_wait: Callable[[str], None] = _say,
) -> Iterator[None]:
    """Hold the KB's writer lock for the block (see the module docstring).

    ``command`` (``"kb ingest"``) is recorded for the message another writer shows
    while it waits. ``create``: make the KB folder when it does not exist yet (the
    first ``kb ingest``); otherwise a missing folder takes no lock (the command then
    says there is no KB). ``on_wait`` gets the one line said before waiting."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks here
        yield
        return
    home = Path(home)
    if not home.is_dir():
        if not create:
            yield
            return
        home.mkdir(parents=True, exist_ok=True)
    key = (str(home.resolve()), threading.get_ident())
    with _GUARD:
        if _HELD.get(key):
            _HELD[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _GUARD:
                _HELD[key] -= 1
        return
    try:
        fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError:  # a read-only KB folder: writing commands refuse on their own
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            on_wait(waiting_message(home, holder(home)))
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {command}\n".encode(), 0)
        except OSError:  # pragma: no cover - the note is a courtesy, the lock holds
            pass
        with _GUARD:
            _HELD[key] = 1
        try:
            yield
        finally:
            with _GUARD:
                _HELD.pop(key, None)
    finally:
        os.close(fd)  # closing the descriptor releases the lock
