"""One generator of hostile paths, for every entry point that takes a path (issue 54).

:func:`make` builds one case in a fresh folder and returns a :class:`Hostile`: the path
to hand kb, and the words kb's refusal must hold (what the path really is). The CLI
fuzz (``tests/cli/test_path_fuzz.py``), the API's (``tests/serve/test_path_fuzz.py``)
and the MCP server's use the same cases, so a kind of path no entry point refuses shows
up everywhere at once.

The cases, and how each is made:

- ``fifo``: ``mkfifo`` (opening it for reading blocks until a writer appears);
- ``socket``: a bound Unix socket (bound in a short folder, then renamed: a socket's
  path is limited to 108 bytes, pytest's folders are longer);
- ``character device``: ``/dev/null`` itself;
- ``symlink loop``: ``a -> b``, ``b -> a``;
- ``dangling symlink``: a link to a name that does not exist;
- ``symlink to a device``: a link to ``/dev/zero`` (reading it never ends);
- ``directory``: an empty folder;
- ``unreadable``: a file with mode 000. As root (tests here often run as root),
  ``chmod`` stops no read, so the case uses ``/proc/sys/vm/compact_memory`` instead: a
  regular file (mode 0200) that procfs refuses to root too; where even that opens, the
  case is skipped with the reason. For a path kb *writes*, root can write both, so the
  case is skipped there with that reason;
- ``empty``: a 0-byte regular file;
- ``over the limit``: a sparse regular file of :data:`OVER_LIMIT` bytes, over every
  size limit kb has (the largest, a run file or a note, is 200 MB); no byte is on disk;
- ``NUL in the name``: a name holding ``\\x00`` (no such file can exist);
- ``newline in the name``: a FIFO whose name holds a newline, so the refusal must both
  name what it is and stay on one line (the name is quoted).
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

CASES = (
    "fifo",
    "socket",
    "character device",
    "symlink loop",
    "dangling symlink",
    "symlink to a device",
    "directory",
    "unreadable",
    "empty",
    "over the limit",
    "NUL in the name",
    "newline in the name",
)

#: bytes in the sparse ``over the limit`` file: over kb's largest limit (200 MB)
OVER_LIMIT = 250_000_000

#: a regular file procfs refuses to open for reading, root included
ROOT_UNREADABLE = Path("/proc/sys/vm/compact_memory")


@dataclass(frozen=True)
class Hostile:
    """One case: ``path`` to hand kb and ``what`` its refusal names (a lower-case
    phrase, e.g. ``a fifo``; empty where only the exit code and the one line are
    checked, as for an empty file whose refusal depends on what kind of file it is)."""

    case: str
    path: str
    what: str


def _unreadable(where: Path, name: str, writing: bool) -> Hostile:
    if os.geteuid() == 0:
        if writing:
            pytest.skip("runs as root: a mode-000 file is writable by root (no refusal to test)")
        try:
            fd = os.open(ROOT_UNREADABLE, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EPERM):
                return Hostile("unreadable", str(ROOT_UNREADABLE), "permission denied")
            pytest.skip(f"runs as root and {ROOT_UNREADABLE} is not there ({e.strerror})")
        os.close(fd)
        pytest.skip(f"runs as root: chmod stops no read, and {ROOT_UNREADABLE} opens too")
    p = where / name
    p.write_text("x: 1\n", encoding="utf-8")
    p.chmod(0)
    return Hostile("unreadable", str(p), "permission denied")


def make(case: str, where: Path, suffix: str = ".txt", writing: bool = False) -> Hostile:
    """Build ``case`` (one of :data:`CASES`) under the folder ``where`` (created),
    named ``<case>{suffix}``. ``writing``: the path is one kb writes to (changes the
    ``unreadable`` case, see the module docstring)."""
    where.mkdir(parents=True, exist_ok=True)
    stem = case.replace(" ", "-")
    p = where / f"{stem}{suffix}"
    if case == "fifo":
        os.mkfifo(p)
        return Hostile(case, str(p), "a fifo")
    if case == "socket":
        short = Path(tempfile.mkdtemp(prefix="kbs", dir="/tmp"))
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind(str(short / "s"))
        finally:
            sock.close()  # the socket file stays: it is what kb is handed
        os.rename(short / "s", p)
        short.rmdir()
        return Hostile(case, str(p), "a socket")
    if case == "character device":
        return Hostile(case, os.devnull, "a character device")
    if case == "symlink loop":
        other = where / f"{stem}-2{suffix}"
        p.symlink_to(other)
        other.symlink_to(p)
        return Hostile(case, str(p), "a symlink loop")
    if case == "dangling symlink":
        p.symlink_to(where / f"gone{suffix}")
        return Hostile(case, str(p), "a dangling symlink")
    if case == "symlink to a device":
        p.symlink_to("/dev/zero")
        return Hostile(case, str(p), "a symlink to /dev/zero (a character device)")
    if case == "directory":
        p.mkdir()
        return Hostile(case, str(p), "a folder")
    if case == "unreadable":
        return _unreadable(where, p.name, writing)
    if case == "empty":
        p.write_bytes(b"")
        return Hostile(case, str(p), "")
    if case == "over the limit":
        with p.open("wb") as f:
            f.truncate(OVER_LIMIT)
        return Hostile(case, str(p), "over the")
    if case == "NUL in the name":
        return Hostile(case, str(where / f"nul\x00{suffix}"), "nul character")
    if case == "newline in the name":
        n = where / f"new\nline{suffix}"
        os.mkfifo(n)
        return Hostile(case, str(n), "a fifo")
    raise ValueError(f"unknown case {case!r}; one of {', '.join(CASES)}")


def shown(path: str) -> str:
    """``path`` as kb's one-line messages show it (quoted when it holds a control
    character), see :func:`kb.safe_open.show`."""
    from kb.safe_open import show

    return show(path)
