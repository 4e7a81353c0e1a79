"""One guarded way to read a file the user named (stdlib only).

Every path kb reads *from the user* (a golden set, a configuration file, a chunker
plug-in, an ``eval record`` file, ...) goes through :func:`read_bytes` /
:func:`read_text`; a test walks the source tree and fails on any other ``open()`` of a
user's path. Notes walked by ``kb ingest`` use :mod:`ingest.fileio`, which follows the
same steps with the ingest root as an extra fence.

The steps, and why:

1. ``os.lstat(path)``: a path that is not a regular file is refused before it is
   opened. Opening a FIFO for reading blocks until a writer appears, and reading
   ``/dev/zero`` never ends, so neither may be opened at all.
2. A symlink is followed only after kb resolved it (``realpath``) and ``lstat``-ed the
   target itself, so the refusal can name it: ``a symlink to /dev/zero (a character
   device)``, ``a dangling symlink (to gone.yaml)``, ``a symlink loop``.
3. The (resolved) path is opened with ``O_RDONLY | O_NONBLOCK | O_NOFOLLOW``: a FIFO
   swapped in after the check opens at once instead of blocking, and a final component
   swapped for a symlink fails with ``ELOOP``. The descriptor is ``fstat``-ed: it must
   be a regular file, and the same file (device, inode) that was checked.
4. The size limit of the file's :class:`FileKind` is checked on the ``fstat`` size
   *before* reading (a sparse 3 GB file is never read), and reading stops after
   ``max_bytes + 1`` bytes (a file that grows while it is read is refused too).
5. :func:`read_text` decodes UTF-8 (a leading byte-order mark is dropped); bad bytes
   are one line naming the file and the byte offset.

What a path can be, as :func:`what_is` names it: ``a regular file`` (accepted),
``missing``, ``a FIFO``, ``a socket``, ``a character device``, ``a block device``,
``a folder``, ``a symlink to X (...)``, ``a dangling symlink (to X)``,
``a symlink loop``, ``unreadable (permission denied)``, ``a name holding a NUL
character``. Every refusal is one line, raised as the kind's error class (exit 2 for
all of them: the user named the wrong thing).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from kb.errors import ConfigError, GoldenError, KbError, UsageError
from kb.quoting import quote_name

_BLOCK = 1 << 20
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class FileKind:
    """What a file is for: its name in messages, its size limit and its error class.

    ``max_bytes`` is a bound no real file of the kind comes near (checked before any
    byte is read); ``hint`` is what to do, appended to every refusal."""

    label: str
    max_bytes: int
    error: type[KbError]
    hint: str


#: configuration files (``KB_CONFIG``, ``--config``, ``<KB>/config.toml``): kb's full
#: default file is about 10 kB
CONFIG = FileKind("configuration file", 1_000_000, ConfigError, "name a TOML file")
#: golden sets: the largest one measured here is 240 kB (1,000 queries); PyYAML's
#: loader needs about 10 s per MB, so 5 MB is a bound, not a target
GOLDEN = FileKind("golden set", 5_000_000, GoldenError, "name a .yaml, .yml or .jsonl file")
#: a chunker plug-in file (``--chunker path/file.py#function``)
PLUGIN = FileKind("chunker plug-in", 2_000_000, UsageError, "name a Python file")
#: a stored document's file read again (``kb chunks show``); callers pass the
#: ``[ingest] max_file_mb`` limit
DOCUMENT = FileKind("document", 200_000_000, UsageError, "run `kb ingest` again")
#: files kb reads back that a user may hand it: run exports, reports, recorded golden sets
RUN_FILE = FileKind("run file", 200_000_000, UsageError, "name a regular file")


def describe_mode(mode: int) -> str:
    """``a FIFO``, ``a socket``, ``a character device``, ``a block device``,
    ``a folder``, ``a regular file`` or ``a special file`` for an ``st_mode``."""
    for test, name in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symlink"),
    ):
        if test(mode):
            return name
    return "a special file"


def show(path: Path | str) -> str:
    """``path`` as one safe line: git-style quoted when it holds a control character
    (a newline in a name must not split the error line)."""
    return quote_name(os.fspath(path))


@dataclass(frozen=True)
class _Checked:
    """The outcome of :func:`_inspect`: ``target`` to open, its ``lstat``; or ``what``
    (the path is not a readable regular file, in words)."""

    target: str
    st: os.stat_result | None
    what: str | None


def _error_words(e: OSError) -> str:
    if e.errno in (errno.EACCES, errno.EPERM):
        return "unreadable (permission denied)"
    if e.errno == errno.ENOENT:
        return "missing"
    if e.errno == errno.ELOOP:
        return "a symlink loop"
    if e.errno == errno.ENOTDIR:
        return "missing (a part of the path is not a folder)"
    if e.errno == errno.ENAMETOOLONG:
        return "a name too long for the file system"
    return f"unreadable ({e.strerror or e})"


def _inspect(path: str) -> _Checked:
    if "\x00" in path:
        return _Checked(path, None, "a name holding a NUL character")
    try:
        lst = os.lstat(path)
    except OSError as e:
        return _Checked(path, None, _error_words(e))
    if not stat.S_ISLNK(lst.st_mode):
        if stat.S_ISREG(lst.st_mode):
            return _Checked(path, lst, None)
        return _Checked(path, lst, f"{describe_mode(lst.st_mode)}, not a regular file")
    try:
        link = os.readlink(path)
    except OSError:  # pragma: no cover - replaced between lstat and readlink
        link = "?"
    target = os.path.realpath(path)  # never raises; a loop or a dangling link stays a link
    try:
        st = os.lstat(target)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return _Checked(path, None, "a symlink loop")
        return _Checked(path, None, f"a dangling symlink (to {show(link)})")
    if stat.S_ISLNK(st.st_mode):  # realpath gave up: the chain loops
        return _Checked(path, None, "a symlink loop")
    if not stat.S_ISREG(st.st_mode):
        return _Checked(
            path,
            st,
            f"a symlink to {show(target)} ({describe_mode(st.st_mode)}), not a regular file",
        )
    return _Checked(target, st, None)


def what_is(path: Path | str) -> str:
    """What ``path`` is, in the words of the refusals (``a regular file`` when it, or
    the file a symlink leads to, is one). Never opens anything."""
    c = _inspect(os.fspath(path))
    return c.what or "a regular file"


def size_words(n: int) -> str:
    """``n`` bytes as ``3.1 kB`` / ``250.0 MB`` (kB, MB = powers of 10)."""
    return f"{n / 1e6:.1f} MB" if n >= 1_000_000 else f"{n / 1e3:.1f} kB"


def _refuse(kind: FileKind, path: str, what: str) -> KbError:
    return kind.error(f"{kind.label} {show(path)} is {what}; {kind.hint}")


def _too_large(kind: FileKind, path: str, size: int, limit: int) -> KbError:
    return kind.error(
        f"{kind.label} {show(path)} is {size_words(size)}, over the {size_words(limit)} "
        f"limit for a {kind.label}; {kind.hint} of a sensible size"
    )


def read_bytes(path: Path | str, kind: FileKind, max_bytes: int | None = None) -> bytes:
    """The whole regular file at ``path``, or ``kind.error`` with one line saying what
    the path is instead (see the module docstring). ``max_bytes`` overrides the kind's
    limit. Never blocks on a FIFO and never reads a device."""
    p = os.fspath(path)
    limit = kind.max_bytes if max_bytes is None else max_bytes
    checked = _inspect(p)
    if checked.what is not None:
        raise _refuse(kind, p, checked.what)
    assert checked.st is not None
    if checked.st.st_size > limit:
        raise _too_large(kind, p, checked.st.st_size, limit)
    try:
        fd = os.open(checked.target, _FLAGS)
    except OSError as e:
        words = "a socket, not a regular file" if e.errno == errno.ENXIO else _error_words(e)
        raise _refuse(kind, p, words) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(kind, p, f"{describe_mode(st.st_mode)}, not a regular file")
        if (st.st_dev, st.st_ino) != (checked.st.st_dev, checked.st.st_ino):
            raise _refuse(kind, p, "a file that was replaced while kb opened it")
        if st.st_size > limit:
            raise _too_large(kind, p, st.st_size, limit)
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                block = os.read(fd, min(_BLOCK, limit + 1 - total))
            except OSError as e:
                raise _refuse(kind, p, _error_words(e)) from None
            if not block:
                break
            parts.append(block)
            total += len(block)
            if total > limit:
                raise _too_large(kind, p, total, limit)
    finally:
        os.close(fd)
    return b"".join(parts)


def decode(data: bytes, path: Path | str, kind: FileKind) -> str:
    """``data`` as UTF-8 (a leading byte-order mark dropped), or one line naming the
    file and the offset of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise kind.error(
            f"{kind.label} {show(path)} is not UTF-8 text (byte 0x{data[e.start]:02x} at "
            f"offset {e.start}); save it as UTF-8"
        ) from None


def read_text(path: Path | str, kind: FileKind, max_bytes: int | None = None) -> str:
    """:func:`read_bytes`, decoded with :func:`decode`."""
    return decode(read_bytes(path, kind, max_bytes), path, kind)


def check(path: Path | str, kind: FileKind) -> Path:
    """Refuse ``path`` (``kind.error``) unless it is, or a symlink leads to, a regular
    file within the kind's size limit; return the file's resolved path. For callers
    that hand the path on (a plug-in file imported by a child process)."""
    p = os.fspath(path)
    checked = _inspect(p)
    if checked.what is not None:
        raise _refuse(kind, p, checked.what)
    assert checked.st is not None
    if checked.st.st_size > kind.max_bytes:
        raise _too_large(kind, p, checked.st.st_size, kind.max_bytes)
    return Path(os.path.realpath(p))


def source_problem(path: Path | str) -> str | None:
    """What ``path`` is when it cannot be a source (``kb ingest PATH``, ``kb sources
    add``), or ``None`` when it is, or a symlink leads to, a folder or a regular file:
    ``missing``, ``a FIFO, not a regular file``, ``a symlink to /dev/zero (a character
    device), not a regular file``, ... Never opens anything."""
    c = _inspect(os.fspath(path))
    if c.what is None or (c.st is not None and stat.S_ISDIR(c.st.st_mode)):
        return None
    return c.what


def source_refusal(path: Path | str) -> str | None:
    """The one-line refusal of ``path`` as a source (``None``: it may be one)."""
    what = source_problem(path)
    if what is None:
        return None
    if what == "missing":
        return f"{show(path)}: no such file or folder"
    return f"{show(path)} is {what}; a source is a folder or a regular file"


def folder_problem(path: Path | str) -> str | None:
    """What ``path`` is when it cannot be a KB folder (``--kb``, ``KB_HOME``), or
    ``None`` when it is a folder, a symlink to one, or missing (a KB is created there
    by ``kb ingest``; reading commands say there is no KB): ``a FIFO, not a folder``,
    ``a regular file, not a folder``, ``a symlink loop``, ``a dangling symlink (to X)``,
    ``a symlink to /dev/zero (a character device), not a folder``. Never opens anything."""
    p = os.fspath(path)
    if "\x00" in p:
        return "a name holding a NUL character"
    try:
        lst = os.lstat(p)
    except OSError as e:
        return None if e.errno == errno.ENOENT else _error_words(e)
    if stat.S_ISDIR(lst.st_mode):
        return None
    if not stat.S_ISLNK(lst.st_mode):
        return f"{describe_mode(lst.st_mode)}, not a folder"
    target = os.path.realpath(p)
    try:
        st = os.lstat(target)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "a symlink loop"
        return f"a dangling symlink (to {show(os.readlink(p))})"
    if stat.S_ISLNK(st.st_mode):
        return "a symlink loop"
    if stat.S_ISDIR(st.st_mode):
        return None
    return f"a symlink to {show(target)} ({describe_mode(st.st_mode)}), not a folder"


def output_problem(path: Path | str) -> str | None:
    """What ``path`` is when kb may not write a report or export to it, or ``None``
    when it is missing (in an existing folder) or a regular file (or a symlink to one),
    which is then overwritten. A FIFO would block the write until a reader appears, a
    device swallows it, a dangling symlink would create a file elsewhere."""
    p = os.fspath(path)
    if "\x00" in p:
        return "a name holding a NUL character"
    if not os.path.lexists(p):
        parent = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(parent):
            return f"in a folder that does not exist ({show(parent)})"
        return None
    c = _inspect(p)
    if c.what is None:
        return None
    if c.what.startswith("unreadable"):
        return None  # permission is the write's own check: it fails with its words
    return c.what


def write_text(path: Path | str, text: str, label: str = "report") -> None:
    """Write ``text`` (UTF-8) to ``path``, a new or a regular file, never blocking:
    :func:`output_problem` first, then ``O_NONBLOCK | O_NOFOLLOW`` on the resolved path
    (a FIFO swapped in opens with ``ENXIO`` instead of waiting for a reader).
    :class:`UsageError` with one line naming the path otherwise."""
    p = os.fspath(path)
    problem = output_problem(p)
    if problem is not None:
        raise UsageError(f"{label} file {show(p)} is {problem}; name a new or a regular file")
    target = os.path.realpath(p)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    data = text.encode("utf-8")
    try:
        fd = os.open(target, flags, 0o644)
    except OSError as e:
        raise UsageError(
            f"{label} file {show(p)}: cannot write it ({e.strerror}); name a writable file"
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{label} file {show(p)} is not a regular file; name another")
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except OSError as e:
                raise UsageError(
                    f"{label} file {show(p)}: cannot write it ({e.strerror}); free space or "
                    "name another file"
                ) from None
            view = view[n:]
    finally:
        os.close(fd)
