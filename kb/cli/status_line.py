"""A transient one-line status on stderr ("searching…", "loading model…"), terminals only.

The line is drawn with a carriage return and erased with ``ESC [2K`` (erase line), so
nothing of it stays on the screen or in a pipe: when stderr is not a terminal (or the
caller disables it, e.g. for ``--json``) every method does nothing.

``during(text)`` shows ``text`` while a block runs and erases it afterwards, also
when the block raises. A :class:`StatusLine` is also a :mod:`kb.progress` sink: while
``during`` runs, the latest open step (the answer model being requantized once for the
machine, the embedder exported or loaded) is added to the line, ``loading model…
(requantizing the answer model to q4_0: 00:12 elapsed)``, once it has run
:data:`SHOW_AFTER_S` seconds, redrawn every :data:`TICK_S` seconds from a thread, so
the line moves while one opaque call holds the main thread.

:class:`StatusRetriever` and :func:`status_factory` wrap the two slow first steps of
``kb ask``; :class:`ClearOnFirstEvent` erases the line when the answer stream yields
its first event (a token, or the refusal).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TypeVar

from kb.cli.progress_steps import describe
from kb.progress import Step

T = TypeVar("T")
_ERASE = "\r\x1b[2K"
#: seconds between two redraws of a line that shows an open step
TICK_S = 0.5
#: a step is added to the line once it has run this long
SHOW_AFTER_S = 1.0


class StatusLine:
    def __init__(self, stream: IO[str] | None = None, enabled: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = enabled and bool(isatty and isatty())
        self._shown = False
        self._step: Step | None = None  # the latest open kb.progress step
        self._lock = threading.Lock()

    def show(self, text: str) -> None:
        if self.enabled:
            with self._lock:
                self.stream.write(f"{_ERASE}{text}")
                self.stream.flush()
                self._shown = True

    def clear(self) -> None:
        with self._lock:
            if self._shown:
                self.stream.write(_ERASE)
                self.stream.flush()
                self._shown = False

    # kb.progress.Sink
    def step_started(self, s: Step) -> None:
        self._step = s

    def step_advanced(self, s: Step) -> None:
        pass  # drawn by the ticker of during()

    def step_done(self, s: Step) -> None:
        if self._step is s:
            self._step = None

    @contextmanager
    def during(self, text: str) -> Iterator[None]:
        self.show(text)
        stop = threading.Event()
        ticker = None
        if self.enabled:

            def tick() -> None:
                stepped = False  # the line shows a step now
                while not stop.wait(TICK_S):
                    s = self._step
                    if s is not None and s.elapsed() < SHOW_AFTER_S:
                        s = None  # a short step (an embedder's usual load) is not news
                    if s is not None:
                        self.show(f"{text} ({describe(s, s.clock())})")
                    elif stepped:  # that step ended: back to the plain text
                        self.show(text)
                    stepped = s is not None

            ticker = threading.Thread(target=tick, name="kb-status", daemon=True)
            ticker.start()
        try:
            yield
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
            self.clear()


class StatusRetriever:
    """A retriever whose ``search`` shows "searching…" (embedder load included)."""

    def __init__(self, inner: Any, status: StatusLine) -> None:
        self.inner = inner
        self.status = status

    def search(self, query: str, opts: Any) -> Any:
        with self.status.during("searching…"):
            return self.inner.search(query, opts)

    def __getattr__(self, name: str) -> Any:
        # everything else (``embedder``, ``store``: the ask pipeline's verifier and evidence
        # check use them) is the wrapped retriever's own
        return getattr(self.inner, name)


def status_factory(factory: Callable[[], T], status: StatusLine, text: str) -> Callable[[], T]:
    """``factory`` that shows ``text`` while it runs."""

    def wrapped() -> T:
        with status.during(text):
            return factory()

    return wrapped


class ClearOnFirstEvent:
    """Iterates ``stream`` showing ``text`` until its first event arrives; every other
    attribute (``result``, ``cancel``) is the stream's own."""

    def __init__(self, stream: Any, status: StatusLine, text: str) -> None:
        self._stream = stream
        self._status = status
        status.show(text)

    def __iter__(self) -> ClearOnFirstEvent:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._stream)
        finally:
            self._status.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
