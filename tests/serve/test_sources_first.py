"""kb serve sends the retrieved passages first (issue 55), with fakes: the bag-of-words
KB of the serve tests and scripted models; the real-model order is in
tests/cli/test_sources_first.py."""

from __future__ import annotations

import threading
from typing import Any

from kb.errors import ModelError
from kb.serve.sse import ErrorEvent, SourcesFirst
from tests.serve.test_api import sse

SSE = {"accept": "text/event-stream"}


def test_event_source_gets_sources_then_tokens(client: Any) -> None:
    r = client.get("/api/ask", params={"q": "How long does the loaf proof overnight?"}, headers=SSE)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = sse(r.text)
    names = [n for n, _ in events]
    assert names[:2] == ["sources", "token"] and names.count("sources") == 1
    assert names[-1] == "done"
    sources = events[0][1]["sources"]
    assert [s["n"] for s in sources] == list(range(1, len(sources) + 1))
    cited = events[-1][1]["answer"]["citations"][0]
    assert cited["chunk_id"] == sources[0]["chunk_id"]
    assert all(s["locator"]["display"] for s in sources)


def test_a_model_error_after_the_sources_is_an_error_event(client: Any, runtime: Any) -> None:
    def broken() -> Any:
        raise ModelError("model.gguf: not a GGUF model file")

    runtime.pipeline._generator, runtime.pipeline._factory = None, broken
    r = client.get("/api/ask", params={"q": "How long does the loaf proof?"}, headers=SSE)
    events = sse(r.text)
    assert [n for n, _ in events] == ["sources", "error"]
    assert events[1][1]["status"] == 503 and "not a GGUF" in events[1][1]["error"]
    assert runtime.answer_lock.acquire(blocking=False)  # freed for the next question
    runtime.answer_lock.release()


class _Answer:
    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Any:
        yield "token"

    def close(self) -> None:
        self.closed = True


def test_sources_first_yields_the_sources_while_the_answer_is_still_prepared() -> None:
    go = threading.Event()
    answer = _Answer()

    def start(on_sources: Any) -> _Answer:
        on_sources("sources")
        assert go.wait(10)  # the model still loading
        return answer

    it = iter(SourcesFirst(start, lambda e: 500))
    assert next(it) == "sources"  # before start() returned
    go.set()
    assert list(it) == ["token"]


def test_sources_first_closed_early_still_closes_the_answer() -> None:
    go = threading.Event()
    answer = _Answer()

    def start(on_sources: Any) -> _Answer:
        on_sources("sources")
        assert go.wait(10)
        return answer

    first = SourcesFirst(start, lambda e: 500)
    it = iter(first)
    assert next(it) == "sources"
    first.close()  # the client left while the model was loading
    go.set()
    first._thread.join(10)
    assert answer.closed and list(it) == []


def test_sources_first_turns_a_kb_error_into_an_error_event() -> None:
    def start(on_sources: Any) -> Any:
        raise ModelError("no model")

    (event,) = list(SourcesFirst(start, lambda e: 503))
    assert isinstance(event, ErrorEvent)
    assert event.to_dict() == {"event": "error", "error": "no model", "status": 503}
