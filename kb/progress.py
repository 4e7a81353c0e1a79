"""Steps that report how far they are, to whatever shows progress (stdlib only).

A long step anywhere in kb (a model export, a PDF's pages, an audio file's
transcription, an index build) wraps its work in :func:`step` and calls
:meth:`Step.advance` as it goes::

    with progress.step("reading report.pdf", total=40, unit="pages") as s:
        for page in pages:
            ...
            s.advance()

The step goes to the process's *sink*, installed by the command that shows progress
(``kb ingest``: :class:`kb.cli.progress.PlainProgress` or ``RichProgress``) with
:func:`reporting`; without one a step costs two clock reads and nothing is shown. A
step whose amount of work is unknown (``total=None``: one opaque library call such as
``torch.onnx.export`` or a LanceDB index build) only has a label and its elapsed time;
the sink shows it moving by the clock. Steps may nest (an index build inside an
ingest); the sink is called from the thread that runs the step.

Time left (:meth:`Step.left`) is ``elapsed x (total - done) / done``: ``None`` before
anything is done, with no total, or before any time has passed; ``0`` once
``done >= total``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from kb.types import mmss

#: units shown as ``mm:ss`` instead of a count (audio seconds)
SECONDS = "s"


class Sink(Protocol):
    """What shows steps; every method is called from the step's own thread. A sink may
    have a ``clock`` attribute (a ``time.monotonic`` stand-in) that times its steps."""

    def step_started(self, s: Step) -> None: ...

    def step_advanced(self, s: Step) -> None: ...

    def step_done(self, s: Step) -> None: ...


@dataclass
class Step:
    """One step of work: ``label`` says what it is doing, ``done`` of ``total`` (in
    ``unit``: ``pages``, ``chunks``, :data:`SECONDS`...) how far it is."""

    label: str
    total: float | None = None
    unit: str = ""
    done: float = 0.0
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    sink: Sink | None = None

    def advance(self, n: float = 1) -> None:
        """``n`` more units are done."""
        self.done += n
        if self.sink is not None:
            self.sink.step_advanced(self)

    def reach(self, done: float) -> None:
        """``done`` units are done in all (never goes back)."""
        if done > self.done:
            self.advance(done - self.done)

    def elapsed(self) -> float:
        return self.clock() - self.started

    def left(self) -> float | None:
        """Seconds still to go at the rate so far (module docs), or ``None``."""
        elapsed = self.elapsed()
        if self.total is None or self.done <= 0 or elapsed <= 0:
            return None
        if self.done >= self.total:
            return 0.0
        return elapsed * (self.total - self.done) / self.done

    def counts(self) -> str:
        """``12/40 pages``, ``01:05/03:20 of audio``, or ``""`` with nothing to count."""
        if self.unit == SECONDS:
            shown = f"{mmss(self.done)}/{mmss(self.total)}" if self.total else mmss(self.done)
            return f"{shown} of audio"
        if self.total is None:
            return f"{int(self.done)} {self.unit}".rstrip() if self.done else ""
        return f"{int(self.done)}/{int(self.total)} {self.unit}".rstrip()


_lock = threading.Lock()
_sink: Sink | None = None


@contextlib.contextmanager
def reporting(sink: Sink | None) -> Iterator[None]:
    """Send the steps started while this block runs (in any thread) to ``sink``."""
    global _sink
    with _lock:
        before, _sink = _sink, sink
    try:
        yield
    finally:
        with _lock:
            _sink = before


@contextlib.contextmanager
def step(label: str, total: float | None = None, unit: str = "") -> Iterator[Step]:
    """A :class:`Step` reported to the current sink from start to end (also when the
    block raises), timed by the sink's ``clock`` if it has one (else
    ``time.monotonic``)."""
    sink = _sink
    s = Step(label, total, unit, clock=getattr(sink, "clock", time.monotonic), sink=sink)
    s.started = s.clock()
    if sink is not None:
        sink.step_started(s)
    try:
        yield s
    finally:
        if sink is not None:
            sink.step_done(s)
