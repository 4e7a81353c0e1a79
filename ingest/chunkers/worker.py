"""Run a plug-in chunker in a child process, with a time limit per call.

A plug-in is Python code run as the user. It runs in one child process (a fresh
``python`` started with :mod:`subprocess`, so it shares nothing with kb's state and
never re-imports the caller's ``__main__``) that loads the callable once and then
answers one request per document: ``(text, params)`` → spans, over a socket pair
framed by :class:`multiprocessing.connection.Connection`. The parent waits at most
``timeout`` seconds for each answer; a plug-in that hangs is killed (a thread could not
be) and the next document starts a fresh child. A child that dies (``sys.exit``, a
crash) is reported the same way. Anything the plug-in prints goes to stderr.

The child turns each item the plug-in yields into ``(start, end)``: a pair of ints, or
an object with integer ``start_index`` and ``end_index`` (chonkie's chunks). It stops
reading after ``max_spans + 1`` items, so an endless generator cannot exhaust memory.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

# the child: put the parent's import path in place, then serve on the inherited socket
_BOOT = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "from ingest.chunkers.worker import serve; serve(int(sys.argv[2]), json.loads(sys.argv[3]))"
)

# ("entry_point", name) or ("file", path, function name)
Source = tuple[str, ...]


class PluginFailure(Exception):
    """The plug-in could not answer; ``str(e)`` is the one-line problem."""


def load_callable(source: Source) -> Callable[..., Any]:
    """Import the plug-in named by ``source`` (in the child; never in kb's process)."""
    if source[0] == "entry_point":
        from importlib.metadata import entry_points

        found = [ep for ep in entry_points(group="kb.chunkers") if ep.name == source[1]]
        if not found:
            raise PluginFailure(f"no installed chunker {source[1]!r}")
        obj = found[0].load()
    else:
        path, func = source[1], source[2]
        spec = importlib.util.spec_from_file_location("kb_user_chunker", path)
        if spec is None or spec.loader is None:
            raise PluginFailure(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        obj = getattr(module, func, None)
        if obj is None:
            raise PluginFailure(f"{path} defines no {func!r}")
    if not callable(obj):
        raise PluginFailure(f"{source[-1]!r} is not callable")
    return obj  # type: ignore[no-any-return]


def collect_spans(result: Any, max_spans: int) -> list[tuple[int, int]]:
    """The plug-in's result as ``(start, end)`` pairs (see the module docstring)."""
    if isinstance(result, str | bytes) or not hasattr(result, "__iter__"):
        raise PluginFailure(f"returned {type(result).__name__}, not an iterable of spans")
    out: list[tuple[int, int]] = []
    for k, item in enumerate(result):
        if k > max_spans:
            break
        if hasattr(item, "start_index") and hasattr(item, "end_index"):
            pair: Any = (item.start_index, item.end_index)
        elif isinstance(item, tuple | list) and len(item) == 2:
            pair = item
        else:
            raise PluginFailure(f"item {k} is {type(item).__name__}, not a (start, end) pair")
        s, e = pair
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (s, e)):
            raise PluginFailure(f"item {k} ({s!r}, {e!r}) is not a pair of integers")
        out.append((s, e))
    return out


def serve(fd: int, args: list[Any]) -> None:  # pragma: no cover - runs in the child
    """The child's loop: ``args`` is ``[source, max_spans]``; requests arrive on ``fd``."""
    sys.stdout = sys.stderr  # a plug-in's prints must not mix with kb's output
    conn = Connection(fd)
    source, max_spans = tuple(args[0]), int(args[1])
    try:
        fn = load_callable(source)
    except BaseException as e:  # noqa: BLE001 - reported to the parent as one line
        conn.send(("error", f"cannot load: {_describe(e)}"))
        return
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        text, params = request
        try:
            conn.send(("ok", collect_spans(fn(text, **params), max_spans)))
        except BaseException as e:  # noqa: BLE001
            conn.send(("error", _describe(e)))


def _describe(e: BaseException) -> str:
    if isinstance(e, PluginFailure):
        return str(e)
    msg = str(e).splitlines()[0] if str(e) else ""
    return f"raised {type(e).__name__}" + (f": {msg}" if msg else "")


class PluginProcess:
    """The child running one plug-in; :meth:`call` sends a text and waits ≤ ``timeout``."""

    def __init__(self, source: Source, timeout: float, max_spans: int) -> None:
        self.source = source
        self.timeout = timeout
        self.max_spans = max_spans
        self._proc: Any = None
        self._conn: Connection | None = None
        self._finalizer: weakref.finalize | None = None

    def start(self) -> None:
        """Start the child and wait until the plug-in is loaded (raises on failure)."""
        if self._proc is not None:
            return
        ours, theirs = socket.socketpair()
        args = [json.dumps(sys.path), str(theirs.fileno())]
        args.append(json.dumps([list(self.source), self.max_spans]))
        proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, *args],
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr.fileno() if _has_fileno(sys.stderr) else subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
        )
        theirs.close()
        parent = Connection(ours.detach())
        self._proc, self._conn = proc, parent
        self._finalizer = weakref.finalize(self, _stop, proc, parent)
        status, detail = self._receive("loading it")
        if status != "ready":
            self.close()
            raise PluginFailure(str(detail))

    def call(self, text: str, params: dict[str, Any]) -> list[tuple[int, int]]:
        """The plug-in's spans for ``text``, or :class:`PluginFailure`."""
        self.start()
        assert self._conn is not None
        try:
            self._conn.send((text, params))
        except (BrokenPipeError, OSError):
            self.close()
            raise PluginFailure("its process died") from None
        status, detail = self._receive("chunking")
        if status != "ok":
            raise PluginFailure(str(detail))
        return detail  # type: ignore[no-any-return]

    def _receive(self, doing: str) -> tuple[str, Any]:
        assert self._conn is not None and self._proc is not None
        try:
            if self._conn.poll(self.timeout):
                return self._conn.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            try:
                code = self._proc.wait(2)
            except subprocess.TimeoutExpired:
                code = None
            self.close()
            raise PluginFailure(f"its process died while {doing} (exit code {code})") from None
        self.close()
        raise PluginFailure(f"timed out after {self.timeout:g} s while {doing}; it was stopped")

    def close(self) -> None:
        """Stop the child (killed if it does not exit at once); a later call restarts it."""
        if self._finalizer is not None:
            self._finalizer()
        self._proc, self._conn, self._finalizer = None, None, None


def _stop(proc: Any, conn: Connection) -> None:
    with contextlib.suppress(OSError, ValueError):
        conn.send(None)
    try:
        proc.wait(0.5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    conn.close()


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True
