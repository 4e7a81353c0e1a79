"""Safe file access for ingest: kb reads only regular files, and never blocks on one.

Every file kb reads, walked or named on the command line, goes through two steps:

1. :func:`check_path` (no open): ``lstat`` the path; a symlink is resolved and its target
   must lie inside the ingest root (the folder that was walked, or the folder of a file
   named directly); the target must be a regular file (``stat.S_ISREG``) of at most
   ``max_bytes``. FIFOs, sockets, block and character devices, and links to them are
   refused with one line such as ``not a regular file (FIFO); skipped``. They are never
   opened: opening a FIFO for reading blocks until a writer appears, and reading
   ``/dev/zero`` never ends.
2. :func:`open_checked`: the race between check and open is closed by opening the
   *resolved* path with ``O_NONBLOCK`` (a FIFO swapped in opens at once instead of
   blocking) and ``O_NOFOLLOW`` (a final component swapped for a symlink fails with
   ``ELOOP``), then checking the open descriptor with ``fstat``. Reads stop after
   ``max_bytes + 1`` bytes, so a file that grows past the limit while it is read is refused.

Problems are :class:`~kb.errors.IngestError` whose ``reason`` is one short line.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from kb.errors import IngestError

_BLOCK = 1 << 20

_KIND = (
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISDIR, "folder"),
)


def file_kind(mode: int) -> str:
    """A short name for a non-regular ``st_mode`` (``FIFO``, ``socket``, ...)."""
    for test, name in _KIND:
        if test(mode):
            return name
    return "special file"


def format_size(n: int) -> str:
    """``n`` bytes as ``"250.0 MB"`` (MB = 10**6 bytes, as the ``max_file_mb`` setting),
    or ``"3.1 kB"`` below one MB."""
    return f"{n / 1e6:.1f} MB" if n >= 1_000_000 else f"{n / 1e3:.1f} kB"


def max_bytes_of(max_file_mb: float) -> int:
    """The ``[ingest] max_file_mb`` setting in bytes (MB = 10**6 bytes)."""
    return int(max_file_mb * 1_000_000)


def too_large(size: int, max_bytes: int) -> str:
    mb = max_bytes / 1e6
    limit = f"{mb:g}"
    return (
        f"file is {format_size(size)}, over the [ingest] max_file_mb limit of {limit}; "
        "skipped (raise the setting to ingest it)"
    )


def check_path(abs_path: Path, root: Path, max_bytes: int | None = None) -> str | None:
    """Why ``abs_path`` must not be read (one line), or ``None`` when it may be opened.

    ``root`` must already be resolved. Never opens the file.
    """
    try:
        lst = abs_path.lstat()
    except FileNotFoundError:
        return "file vanished during ingest"
    except OSError as e:
        return f"cannot read: {e.strerror or e}"
    via = ""
    st = lst
    if stat.S_ISLNK(lst.st_mode):
        try:
            target = abs_path.resolve(strict=True)
            st = target.stat()
        except (OSError, RuntimeError):
            return "broken symlink; fix or remove it"
        if not stat.S_ISREG(st.st_mode):
            return f"not a regular file ({file_kind(st.st_mode)}, via symlink); skipped"
        if not target.is_relative_to(root):
            return f"symlink points outside the ingested root ({target}); not followed"
        via = " (via symlink)"
    if not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({file_kind(st.st_mode)}); skipped"
    if max_bytes is not None and st.st_size > max_bytes:
        return too_large(st.st_size, max_bytes) + via
    return None


@contextmanager
def open_checked(
    abs_path: Path, rel_path: str, max_bytes: int | None = None, root: Path | None = None
) -> Iterator[BinaryIO]:
    """Open ``abs_path`` for binary reading without blocking, or raise :class:`IngestError`.

    The path is resolved first (and must lie inside ``root`` when given), and the resolved
    path opened with
    ``O_RDONLY | O_NONBLOCK | O_NOFOLLOW``; the open descriptor must be a regular file of
    at most ``max_bytes`` (``fstat``). Regular files ignore ``O_NONBLOCK``, so reads behave
    as usual.
    """
    try:
        target = abs_path.resolve(strict=True)
    except FileNotFoundError:
        raise IngestError(rel_path, "file vanished during ingest") from None
    except (OSError, RuntimeError) as e:
        raise IngestError(rel_path, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    if root is not None and not target.is_relative_to(root):
        raise IngestError(
            rel_path, f"symlink points outside the ingested root ({target}); not followed"
        )
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        raise IngestError(rel_path, "file vanished during ingest") from None
    except OSError as e:
        if e.errno == errno.ENXIO:  # a socket (or a FIFO without writer on some systems)
            raise IngestError(rel_path, "not a regular file (socket); skipped") from None
        if e.errno == errno.ELOOP:
            raise IngestError(rel_path, "became a symlink while being read; skipped") from None
        raise IngestError(rel_path, f"cannot read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IngestError(rel_path, f"not a regular file ({file_kind(st.st_mode)}); skipped")
        if max_bytes is not None and st.st_size > max_bytes:
            raise IngestError(rel_path, too_large(st.st_size, max_bytes))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        yield f


def _read_blocks(f: BinaryIO, rel_path: str, max_bytes: int | None) -> Iterator[bytes]:
    total = 0
    for block in iter(lambda: f.read(_BLOCK), b""):
        total += len(block)
        if max_bytes is not None and total > max_bytes:
            raise IngestError(rel_path, too_large(total, max_bytes))
        yield block


def read_bytes(abs_path: Path, rel_path: str, max_bytes: int | None = None) -> bytes:
    """The whole file, read through :func:`open_checked`."""
    with open_checked(abs_path, rel_path, max_bytes) as f:
        return b"".join(_read_blocks(f, rel_path, max_bytes))


def stat_and_hash(
    abs_path: Path, rel_path: str, max_bytes: int | None = None, root: Path | None = None
) -> tuple[os.stat_result, str]:
    """``(fstat, hex SHA-256)`` of the file, read through :func:`open_checked`."""
    with open_checked(abs_path, rel_path, max_bytes, root) as f:
        st = os.fstat(f.fileno())
        h = hashlib.sha256()
        for block in _read_blocks(f, rel_path, max_bytes):
            h.update(block)
    return st, h.hexdigest()
