"""The server's long-lived state: one store, one retriever, one answer pipeline.

The models stay warm: the embedder loads on the first vector/hybrid search and the
GGUF generator on the first question, and both are kept for the life of the process
(the same :func:`kb.rag.compose.make_retriever` / :func:`make_pipeline` objects the
CLI builds, so ``kb serve`` and ``kb ask`` answer alike).

Concurrency: requests arrive on several threads. Retrieval (the vector matrix, the
scope cache) runs under ``search_lock``; llama.cpp is not re-entrant, so one answer is
generated at a time under ``answer_lock``, held until its stream ends.

The store is opened read-only in spirit (``create=False``): the server never ingests,
and the only files it writes are the KB's own caches inside the KB folder.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb.errors import UsageError

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.rag import AskPipeline
    from kb.rag.record import Event, SourcesEvent
    from kb.search import Retriever, SearchOptions, SearchResult
    from kb.store import Store

#: query parameters a search or ask request may carry (the CLI's flags)
FILTER_KEYS = ("k", "mode", "path", "type", "tag", "min_score")


@dataclass
class Runtime:
    """What every request handler shares. Build it with :meth:`open`."""

    settings: Settings
    store: Store
    retriever: Retriever
    pipeline: AskPipeline

    def __post_init__(self) -> None:
        self.search_lock = threading.RLock()  # also guards every read of the store
        self.answer_lock = threading.Lock()

    @classmethod
    def open(cls, settings: Settings) -> Runtime:
        """Open the KB at ``settings.home`` (EmptyStoreError when it has no database)."""
        from kb.errors import EmptyStoreError
        from kb.rag.compose import make_pipeline, make_retriever
        from kb.store import Store
        from kb.store.sqlite import DB_NAME

        if not (settings.home / DB_NAME).is_file():
            raise EmptyStoreError(f"the KB at {settings.home} is empty; run `kb ingest PATH` first")
        store = Store.open(settings.home, create=False)
        retriever = make_retriever(settings, store)
        return cls(settings, store, retriever, make_pipeline(settings, retriever))

    def close(self) -> None:
        self.store.close()

    # -- operations ------------------------------------------------------------------------
    def options(self, params: Mapping[str, Any]) -> SearchOptions:
        """SearchOptions from request parameters: ``k``, ``mode``, ``min_score`` once,
        ``path``/``type``/``tag`` as lists (a string counts as one). Bad values raise
        :class:`UsageError` naming the parameter."""
        from kb.search.options import SearchOptions

        def one(name: str, conv: Any) -> Any:
            raw = params.get(name)
            if raw is None or raw == "":
                return None
            try:
                return conv(raw)
            except (TypeError, ValueError):
                raise UsageError(f"{name}={raw!r}: not a valid value") from None

        def many(name: str) -> tuple[str, ...]:
            raw = params.get(name)
            items = [raw] if isinstance(raw, str) else list(raw or [])
            return tuple(str(x) for x in items if str(x).strip())

        k = one("k", int)
        if k is not None and not 1 <= k <= 100:
            raise UsageError(f"k={k}: must be between 1 and 100")
        min_score = one("min_score", float)
        if min_score is not None and not -1.0 <= min_score <= 1.0:
            raise UsageError(f"min_score={min_score}: must be between -1 and 1")
        return SearchOptions.from_settings(
            self.settings.search,
            k=k,
            mode=one("mode", str),
            min_score=min_score,
            paths=many("path"),
            types=many("type"),
            tags=many("tag"),
        )

    def search(self, query: str, opts: SearchOptions) -> SearchResult:
        if not query.strip():
            raise UsageError("empty query; pass the words or question to search for")
        with self.search_lock:
            return self.retriever.search(query, opts)

    def ask_would_answer(self, result: SearchResult, opts: SearchOptions) -> bool:
        """``kb ask``'s retrieval rule on ``result``
        (:func:`kb.rag.answerability.ask_would_answer`); it reads the store's document
        frequencies, so under ``search_lock``."""
        from kb.rag.answerability import ask_would_answer
        from kb.rag.docfreq import doc_freq_of

        with self.search_lock:
            return ask_would_answer(result, opts.min_score, doc_freq_of(self.store))

    def ask(
        self,
        question: str,
        opts: SearchOptions,
        on_sources: Callable[[SourcesEvent], None] | None = None,
    ) -> AnswerEvents:
        """The answer's events (sources, token, citation, verdict, done), one answer at a
        time; ``on_sources`` gets the sources event as soon as retrieval ends (it is then
        not in the events; :meth:`kb.rag.AskPipeline.ask`).

        Errors before generation (empty question, empty KB, model file) raise here;
        the caller turns them into one error event or a 4xx."""
        if not question.strip():
            raise UsageError("the question is empty")
        self.answer_lock.acquire()
        try:
            with self.search_lock:
                stream = self.pipeline.ask(question, opts, on_sources=on_sources)
        except BaseException:
            self.answer_lock.release()
            raise
        return AnswerEvents(stream, self.answer_lock)

    def warm(self) -> None:
        """Load the embedder and the generator now instead of on first need."""
        _ = self.retriever.embedder
        self.pipeline.generator()


class AnswerEvents:
    """Iterates an answer stream and releases the answer lock once: at its end, when the
    consumer goes away (``close``: the client disconnected; generation is cancelled), or
    when it is dropped without ever being iterated (``__del__``)."""

    def __init__(self, stream: Any, lock: threading.Lock) -> None:
        self.stream = stream
        self.lock: threading.Lock | None = lock
        self._closing = threading.Lock()

    def __iter__(self) -> Iterator[Event]:
        try:
            yield from self.stream
        finally:
            self.close()

    def close(self) -> None:
        with self._closing:
            lock, self.lock = self.lock, None
        if lock is None:
            return
        try:
            if self.stream.record is None:
                self.stream.cancel()
                self.stream.result()
        finally:
            lock.release()

    def __del__(self) -> None:
        # a response dropped before it was ever iterated (the client left at once)
        self.close()
