"""How the steps of :mod:`kb.progress` are shown: bars on a terminal, lines through a pipe.

**Terminal** (:class:`StepBars`): each open step is one row of the command's rich
progress display (label, bar, counts, elapsed, time left), added when the step starts
and removed when it ends. rich redraws the display :data:`REFRESH_PER_S` times a second
from its own thread, so elapsed time moves even while one opaque call (an ONNX export,
an index build) holds the main thread.

**Pipe** (:class:`StepLines`): a step that is still running :data:`FIRST_LINE_S` seconds
after it started prints ``ingest: reading a.pdf: 12/40 pages (30%), 00:04 elapsed,
about 00:09 left``, then at most one such line every ``interval`` seconds (that of
:class:`kb.cli.progress.LineRate`: 5 s, or ``$KB_PROGRESS_INTERVAL``), and when it ends,
if it printed any, ``ingest: reading a.pdf: done, 40/40 pages in 00:13``. A daemon
thread wakes every ``interval / 4`` seconds (at most 1 s) while a step is open, so a
step that never advances still prints on time; steps shorter than
:data:`FIRST_LINE_S` print nothing. ``quiet`` prints nothing. Lines per step are
therefore at most ``1 + elapsed / interval + 1``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from kb.progress import Step
from kb.types import mmss

#: a step shorter than this prints no line through a pipe
FIRST_LINE_S = 2.0
#: how often rich redraws a terminal's progress display
REFRESH_PER_S = 4


def line_interval() -> float:
    """The least seconds between two plain progress lines: ``$KB_PROGRESS_INTERVAL``
    (a number), else 5."""
    try:
        return float(os.environ.get("KB_PROGRESS_INTERVAL", "5"))
    except ValueError:
        return 5.0


def describe(s: Step, now: float) -> str:
    """``label: 12/40 pages (30%), 00:04 elapsed, about 00:09 left`` (the parts that are
    known: no total, no percentage and no time left)."""
    parts = []
    counts = s.counts()
    if counts:
        pct = f" ({int(100 * s.done / s.total)}%)" if s.total else ""
        parts.append(counts + pct)
    parts.append(f"{mmss(now - s.started)} elapsed")
    left = s.left()
    if left is not None:
        parts.append(f"about {mmss(left)} left")
    return f"{s.label}: " + ", ".join(parts)


class StepLines:
    """The pipe's step lines (module docs). ``clock`` decides when a line is due (it is
    injectable for tests; the wake-up thread runs on real time); ``first`` is the
    :data:`FIRST_LINE_S` of this instance, ``out`` the stream (default stderr)."""

    def __init__(
        self,
        interval: float,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
        out: TextIO | None = None,
        prefix: str = "ingest",
        first: float = FIRST_LINE_S,
    ) -> None:
        self.interval, self.quiet, self.clock, self.prefix = interval, quiet, clock, prefix
        self.first = first
        self.out = out
        self._open: dict[int, tuple[Step, list[float]]] = {}  # id -> (step, [last line])
        self._lock = threading.Lock()
        self._wake: threading.Thread | None = None

    def _write(self, text: str) -> None:
        out = self.out or sys.stderr
        out.write(f"{self.prefix}: {text}\n")
        out.flush()

    def step_started(self, s: Step) -> None:
        if self.quiet:
            return
        with self._lock:
            self._open[id(s)] = (s, [])
            if self._wake is None:  # the thread clears it, under the lock, as it ends
                self._wake = threading.Thread(target=self._ticks, name="kb-progress", daemon=True)
                self._wake.start()

    def step_advanced(self, s: Step) -> None:
        self._maybe(id(s))

    def step_done(self, s: Step) -> None:
        with self._lock:
            entry = self._open.pop(id(s), None)
            if entry is None or not entry[1]:
                return
            counts = s.counts()
            what = f"{counts} " if counts else ""
            self._write(f"{s.label}: done, {what}in {mmss(self.clock() - s.started)}")

    def _maybe(self, key: int) -> None:
        with self._lock:
            entry = self._open.get(key)
            if entry is None:
                return
            s, last = entry
            now = self.clock()
            if now - s.started < self.first or (last and now - last[0] < self.interval):
                return
            last[:] = [now]
            self._write(describe(s, now))

    def _ticks(self) -> None:
        nap = min(1.0, max(0.05, self.interval / 4))
        while True:
            time.sleep(nap)
            with self._lock:
                keys = list(self._open)
                if not keys:
                    self._wake = None
                    return
            for key in keys:
                self._maybe(key)


class StepBars:
    """The terminal's step rows in the rich ``Progress`` display ``bar`` (module docs)."""

    def __init__(self, bar: Any) -> None:
        self.bar = bar
        self._tasks: dict[int, Any] = {}

    def step_started(self, s: Step) -> None:
        from rich.markup import escape

        self._tasks[id(s)] = self.bar.add_task(
            escape(s.label[:40]), total=s.total, detail=s.counts(), completed=s.done
        )

    def step_advanced(self, s: Step) -> None:
        task = self._tasks.get(id(s))
        if task is not None:
            self.bar.update(task, completed=s.done, detail=s.counts())

    def step_done(self, s: Step) -> None:
        task = self._tasks.pop(id(s), None)
        if task is not None:
            self.bar.remove_task(task)


@contextlib.contextmanager
def shown_steps(quiet: bool = False, prefix: str = "kb") -> Iterator[None]:
    """Show the :mod:`kb.progress` steps of a command that has no files to count
    (``kb reindex``, ``kb doctor --repair``): rows on a terminal, lines through a pipe
    (:mod:`kb.cli.progress_steps`), nothing with ``quiet``."""
    from kb.cli.common import stderr_is_tty
    from kb.progress import reporting

    if quiet:
        yield
        return
    if not stderr_is_tty():
        with reporting(StepLines(line_interval(), prefix=prefix)):
            yield
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[detail]}", style="dim"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        refresh_per_second=REFRESH_PER_S,
    )
    with bar, reporting(StepBars(bar)):
        yield
