"""Progress on stderr: rich bars on a terminal, plain lines at a bounded rate otherwise.

Failures are always printed as one line each (``path: reason``), as they happen.
Plain progress lines (pipes, CI logs) come from :class:`LineRate`: at most one every
``interval`` seconds (5 s) and only when the work crossed another 10% step, plus one
line at the end; ``--quiet`` silences them. While chunks are embedded (which can take
minutes for one large file), a line ``ingest: embedding chunks 40/106 (37%), about
01:10 left`` comes after the first run of chunks and then at most every
:data:`EMBED_LINE_S` seconds (10), whatever the step.
Time left is ``elapsed x (total - done) / done`` over the chunks embedded so far,
``elapsed`` counted from the end of the last step (model preparation or loading)
that ended before the first chunks were embedded.
The other long steps (model preparation, a PDF's pages, an audio file's transcription,
index builds) report through :mod:`kb.progress`; both classes here are its sink and
show them as :mod:`kb.cli.progress_steps` says (a row on a terminal, lines at a bounded
rate through a pipe).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from rich.markup import escape

from ingest.report import FileOutcome, IngestProgress
from kb.cli.progress_steps import REFRESH_PER_S, StepBars, StepLines, line_interval
from kb.progress import Step
from kb.quoting import quote_name
from kb.types import mmss


class LineRate:
    """Decides when a plain progress line is due: a new 10% step and ``interval`` seconds
    since the last line (default 5, or ``$KB_PROGRESS_INTERVAL``). ``clock`` is
    injectable for tests."""

    def __init__(
        self, interval: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.interval = line_interval() if interval is None else interval
        self.clock = clock
        self.started = clock()
        self.last = self.started
        self.step = 0

    def due(self, done: int, total: int) -> bool:
        if total <= 0:
            return False
        step = min(10, done * 10 // total)
        if step <= self.step or self.clock() - self.last < self.interval:
            return False
        self.step, self.last = step, self.clock()
        return True

    def elapsed(self) -> str:
        return mmss(self.clock() - self.started)


#: the least seconds between two plain "embedding chunks" lines
EMBED_LINE_S = 10.0


def time_left(elapsed: float, done: int, total: int) -> str:
    """``mm:ss`` still to go at the rate so far (``elapsed x (total - done) / done``);
    ``?`` before anything is done or any time has passed."""
    if done <= 0 or elapsed <= 0:
        return "?"
    if total <= done:
        return mmss(0)
    return mmss(elapsed * (total - done) / done)


class PlainProgress(IngestProgress):
    """For pipes and CI: failures and warnings as lines, and a progress line at most
    every few seconds (:class:`LineRate`); no animation, no colour."""

    def __init__(self, quiet: bool = False, rate: LineRate | None = None) -> None:
        self.quiet = quiet
        self.rate = rate or LineRate()
        self.total = 0
        self.done = 0
        self.chunks = 0
        self.chunks_total = 0
        self._embed_started: float | None = None
        self._embed_line = 0.0
        self.steps: StepBars | StepLines = StepLines(
            self.rate.interval, quiet=quiet, clock=self.rate.clock
        )

    # kb.progress.Sink: the long steps besides files and chunks
    @property
    def clock(self) -> Callable[[], float]:
        return self.rate.clock

    def step_started(self, s: Step) -> None:
        self.steps.step_started(s)

    def step_advanced(self, s: Step) -> None:
        self.steps.step_advanced(s)

    def step_done(self, s: Step) -> None:
        """A step ended; before the first chunks are embedded that restarts the
        embedding clock, so a model's preparation or loading is not taken for slow
        embedding in the time left."""
        self.steps.step_done(s)
        if self.chunks == 0 and self._embed_started is not None:
            self._embed_started = self.rate.clock()

    def files_total(self, n: int) -> None:
        self.total = n

    def embed_total(self, n: int) -> None:
        self.chunks_total += n
        if self._embed_started is None:
            self._embed_started = self.rate.clock()

    def embedded(self, n: int) -> None:
        now = self.rate.clock()
        if self._embed_started is None:
            self._embed_started = now
        first = self.chunks == 0
        self.chunks += n
        if self.quiet or not self.chunks_total:
            return
        if not first and now - self._embed_line < EMBED_LINE_S:
            return
        self._embed_line = now
        done, total = self.chunks, max(self.chunks_total, self.chunks)
        left = time_left(now - self._embed_started, done, total)
        sys.stderr.write(
            f"ingest: embedding chunks {done}/{total} ({100 * done // total}%), about {left} left\n"
        )
        sys.stderr.flush()

    def file_done(self, outcome: FileOutcome) -> None:
        if outcome.outcome == "failed":
            sys.stderr.write(f"kb: failed: {quote_name(outcome.path)}: {outcome.error}\n")
        elif not self.quiet:
            for w in outcome.warnings:
                sys.stderr.write(f"kb: warning: {quote_name(outcome.path)}: {w}\n")
        if outcome.outcome != "removed":
            self.done += 1
            if not self.quiet and self.rate.due(self.done, self.total):
                pct = 100 * self.done // max(1, self.total)
                sys.stderr.write(
                    f"ingest: {self.done}/{self.total} files ({pct}%), {self.chunks} "
                    f"chunks embedded, {self.rate.elapsed()} elapsed\n"
                )
        sys.stderr.flush()


class RichProgress(PlainProgress):
    """Bars for files and chunks embedded, and one row per open step (audio being
    transcribed, a PDF being read, a model being prepared, an index being built)."""

    def __init__(self, console: Any = None) -> None:
        """``console``: where to draw (default: a rich ``Console`` on stderr)."""
        super().__init__()
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = console or Console(stderr=True)
        self.bar = Progress(
            TextColumn("[bold]{task.description:<16}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}", style="dim"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            refresh_per_second=REFRESH_PER_S,
        )
        self.files: Any = self.bar.add_task("files", total=None, detail="")
        self.chunks: Any = self.bar.add_task("chunks embedded", total=0, detail="")
        self.steps = StepBars(self.bar)

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def files_total(self, n: int) -> None:
        self.bar.update(self.files, total=n)

    def file_started(self, path: str) -> None:
        self.bar.update(self.files, detail=quote_name(path)[-40:])

    def file_done(self, outcome: FileOutcome) -> None:
        self.bar.advance(self.files)
        shown = escape(quote_name(outcome.path))  # a name may hold [markup] or control chars
        if outcome.outcome == "failed":
            self.console.print(f"[red]failed[/red] {shown}: {escape(outcome.error or '')}")
        for w in outcome.warnings:
            self.console.print(f"[yellow]warning[/yellow] {shown}: {escape(w)}")

    def embed_total(self, n: int) -> None:
        task = self.bar.tasks[self.chunks]
        self.bar.update(self.chunks, total=(task.total or 0) + n)

    def embedded(self, n: int) -> None:
        self.bar.advance(self.chunks, n)
