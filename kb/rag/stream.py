"""AnswerStream: events from a producer thread, through a :class:`queue.Queue`.

The producer (a worker thread running generation) puts events; any one thread
may consume them by iterating. Iteration ends after the :class:`DoneEvent`.
:meth:`AnswerStream.result` drains what is left and returns the record;
:meth:`AnswerStream.cancel` asks the producer to stop after the current token
(the record then has ``interrupted=True`` and the text generated so far).
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable, Iterable, Iterator

from kb.rag.record import AnswerRecord, DoneEvent, Event

Producer = Callable[["AnswerStream"], None]


class AnswerStream:
    """An iterator of :data:`~kb.rag.record.Event`, safe to consume from another thread."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Event] = queue.Queue()
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._record: AnswerRecord | None = None
        self._thread: threading.Thread | None = None

    # -- producer side --------------------------------------------------------------------
    @classmethod
    def finished(cls, record: AnswerRecord, first: Iterable[Event] = ()) -> AnswerStream:
        """A stream that yields ``first``, then ``DoneEvent(record)`` (no model involved)."""
        s = cls()
        for event in first:
            s.put(event)
        s.put(DoneEvent(record))
        return s

    @classmethod
    def start(
        cls, producer: Producer, name: str = "kb-answer", first: Iterable[Event] = ()
    ) -> AnswerStream:
        """Yield ``first`` (events known before the producer runs: the sources), then run
        ``producer(stream)`` in a daemon thread; it must end with a DoneEvent. The thread
        runs in a copy of the caller's context (:mod:`contextvars`), so what the caller
        set for this question (its language: :func:`kb.rag.lexical.question_in`) holds
        for the answer's checks too."""
        s = cls()
        for event in first:
            s.put(event)
        ctx = contextvars.copy_context()
        s._thread = threading.Thread(target=ctx.run, args=(producer, s), name=name, daemon=True)
        s._thread.start()
        return s

    def put(self, event: Event) -> None:
        self._queue.put(event)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    # -- consumer side --------------------------------------------------------------------
    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        with self._lock:
            if self._record is not None:
                raise StopIteration
            event = self._get()
            if isinstance(event, DoneEvent):
                self._record = event.record
            return event

    def _get(self) -> Event:
        # a timeout keeps the consumer responsive to Ctrl-C (KeyboardInterrupt) while waiting
        while True:
            try:
                return self._queue.get(timeout=0.1)
            except queue.Empty:
                continue

    def cancel(self) -> None:
        """Ask generation to stop; events already queued are still delivered."""
        self._cancel.set()

    def result(self) -> AnswerRecord:
        """Consume every remaining event and return the final record."""
        for _ in self:
            pass
        assert self._record is not None
        if self._thread is not None:
            self._thread.join()
        return self._record

    @property
    def record(self) -> AnswerRecord | None:
        """The record once the DoneEvent has been consumed, else ``None``."""
        return self._record
