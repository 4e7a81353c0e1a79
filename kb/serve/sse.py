"""Server-sent events for an answer stream.

Each :mod:`kb.rag.record` event becomes one SSE message whose ``event:`` is the
event's name (``token``, ``citation``, ``verdict``, ``done``) and whose ``data:`` is
the same JSON object ``kb ask --json`` prints for it. A failure after the stream
started is sent as ``event: error`` with ``{"error": "..."}``. When the client goes
away the generator is closed (shielded from the cancellation that the disconnect
caused), which cancels generation and frees the model for the next question.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any


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
