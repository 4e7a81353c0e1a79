"""Server-sent events for an answer stream.

Each :mod:`kb.rag.record` event becomes one SSE message whose ``event:`` is the
event's name (``sources``, ``token``, ``citation``, ``verdict``, ``done``) and whose ``data:`` is
the same JSON object ``kb ask --json`` prints for it. A failure after the stream
started is sent as ``event: error`` with ``{"error": "..."}``. When the client goes
away the generator is closed (shielded from the cancellation that the disconnect
caused), which cancels generation and frees the model for the next question.

:class:`SourcesFirst` starts the answer in a thread and yields its ``sources`` event the
moment retrieval ends, while the evidence check, the model load and the prompt are
still running; an error they raise becomes the stream's ``error`` event.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from kb.errors import KbError


def message(name: str, data: dict[str, Any]) -> bytes:
    """One SSE message; JSON never holds a raw newline, so one ``data:`` line suffices."""
    payload = json.dumps(data, ensure_ascii=False, default=str)
    return f"event: {name}\ndata: {payload}\n\n".encode()


async def event_stream(stream: Any) -> AsyncIterator[bytes]:
    """Pull events from ``stream`` (an iterator fed by a worker thread) off the event
    loop, one at a time, and frame them."""
    from anyio import CancelScope, to_thread

    it = iter(stream)
    end = object()
    try:
        while True:
            try:
                event = await to_thread.run_sync(next, it, end)
            except Exception as e:  # noqa: BLE001 - reported to the client, stream ends
                yield message("error", {"error": f"{type(e).__name__}: {e}"})
                return
            if event is end:
                return
            data = event.to_dict()  # type: ignore[attr-defined]
            yield message(str(data.get("event", "message")), data)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            with CancelScope(shield=True):  # a disconnect cancelled us; still free the model
                await to_thread.run_sync(close)


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Started:
    def __init__(self, events: Any) -> None:
        self.events = events


class ErrorEvent:
    """A :class:`KbError` raised before the answer's first token, as an SSE event."""

    def __init__(self, error: KbError, status: int) -> None:
        self.error, self.status = error, status

    def to_dict(self) -> dict[str, Any]:
        return {"event": "error", "error": str(self.error), "status": self.status}


class SourcesFirst:
    """``start(on_sources)`` (the runtime's ``ask``) run in a thread: iterating yields the
    sources event as soon as ``on_sources`` receives it, then the events of the answer
    ``start`` returns; a :class:`KbError` it raises is yielded as an :class:`ErrorEvent`
    with ``status_of(error)``. ``close`` closes the answer (or, when ``start`` is still
    running, has the thread close it once it returns): the answer lock is freed either
    way."""

    def __init__(self, start: Callable[..., Any], status_of: Callable[[KbError], int]) -> None:
        self._start = start
        self._status_of = status_of
        self._queue: queue.Queue[Any] = queue.Queue()
        self._lock = threading.Lock()
        self._events: Any = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="kb-serve-ask", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            events = self._start(on_sources=self._queue.put)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._queue.put(_Failed(e))
            return
        with self._lock:
            self._events, closed = events, self._closed
        if closed:
            events.close()
            self._queue.put(None)  # a consumer still waiting ends
        else:
            self._queue.put(_Started(events))

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, _Failed):
                if isinstance(item.error, KbError):
                    yield ErrorEvent(item.error, self._status_of(item.error))
                    return
                raise item.error
            if isinstance(item, _Started):
                yield from item.events
                return
            yield item  # the sources event

    def close(self) -> None:
        with self._lock:
            self._closed, events = True, self._events
        if events is not None:
            events.close()
