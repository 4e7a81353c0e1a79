"""AskPipeline: question -> retrieval -> prompt -> streamed generation -> cited answer.

``ask`` does the quick, fallible steps in the caller's thread, so their errors
surface as exceptions with their exit codes before any output: empty question
(:class:`UsageError`), KB without chunks (:class:`EmptyStoreError`, from the
retriever), model file (:class:`ModelError`, on first use), question too long
(:class:`ContextOverflowError`). Generation then runs in a worker thread that
feeds an :class:`AnswerStream`.

When no hit passes the threshold the answer is refused *without* loading or
calling the model (``refusal_reason="no_hits"``); the generator factory is not
even called. Errors during generation itself are recorded in ``record.error``
with the text produced so far; the stream still ends with its DoneEvent.

Timings (seconds): ``retrieval_s`` (from the start of ``ask``); ``load_s`` (model
load, 0 when already loaded); ``prompt_s`` (fitting contexts, token counting,
grammar); ``first_token_s`` and ``total_s`` (from the start of ``ask``;
``first_token_s`` is ``None`` without tokens).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from kb.backends.generator import Generator
from kb.config import Settings
from kb.errors import ContextOverflowError, UsageError
from kb.rag.citations import CitationParser
from kb.rag.grammar import citation_grammar
from kb.rag.prompt import BuiltPrompt, build_prompt
from kb.rag.record import (
    AnswerRecord,
    CitationEvent,
    DoneEvent,
    SourceRef,
    TokenEvent,
    is_refusal,
)
from kb.rag.stream import AnswerStream
from kb.search.options import SearchOptions
from kb.types import Hit


class RetrieverLike(Protocol):
    """What the pipeline needs from :class:`kb.search.Retriever`."""

    def search(self, query: str, opts: SearchOptions) -> Any: ...


GeneratorFactory = Callable[[], Generator]


class AskPipeline:
    """One retriever, one (lazily loaded) generator, one settings tree."""

    def __init__(
        self,
        retriever: RetrieverLike,
        generator_or_factory: Generator | GeneratorFactory,
        settings: Settings,
    ) -> None:
        self.retriever = retriever
        self.settings = settings
        self._generator: Generator | None = None
        self._factory: GeneratorFactory | None = None
        if isinstance(generator_or_factory, Generator):
            self._generator = generator_or_factory
        else:
            self._factory = generator_or_factory
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._generator is not None

    def generator(self) -> Generator:
        """The generator, created by the factory on first use (may raise ModelError)."""
        with self._load_lock:
            if self._generator is None:
                assert self._factory is not None
                self._generator = self._factory()
            return self._generator

    def ask(
        self, question: str, opts: SearchOptions, *, grammar: bool | None = None
    ) -> AnswerStream:
        """Answer ``question``; ``grammar=None`` uses ``[llm] grammar``."""
        t0 = time.perf_counter()
        q = question.strip()
        if not q:
            raise UsageError("the question is empty; pass the question as one argument")
        use_grammar = self.settings.llm.grammar if grammar is None else grammar
        result = self.retriever.search(q, opts)
        hits: list[Hit] = list(result.hits)
        retrieval_s = time.perf_counter() - t0
        if not hits:
            return AnswerStream.finished(
                AnswerRecord(
                    question=q,
                    refused=True,
                    refusal_reason="no_hits",
                    timings={
                        "retrieval_s": retrieval_s,
                        "load_s": 0.0,
                        "first_token_s": None,
                        "total_s": time.perf_counter() - t0,
                    },
                    prompt_version=self.settings.prompt.version,
                    grammar=use_grammar,
                )
            )
        t_load = time.perf_counter()
        gen = self.generator()
        load_s = time.perf_counter() - t_load
        t_prompt = time.perf_counter()
        built = build_prompt(gen, self.settings.prompt, q, hits, self.settings.llm.max_tokens)
        if not built.contexts:
            raise ContextOverflowError(
                f"no context passage fits the {gen.n_ctx}-token window next to the question; "
                "raise --ctx or lower --max-tokens"
            )
        gbnf = (
            citation_grammar(len(built.contexts), self.settings.prompt.refusal_phrase)
            if use_grammar
            else None
        )
        timings: dict[str, float | None] = {
            "retrieval_s": retrieval_s,
            "load_s": load_s,
            "prompt_s": time.perf_counter() - t_prompt,
        }

        def produce(stream: AnswerStream) -> None:
            self._produce(stream, gen, q, built, gbnf, t0, timings)

        return AnswerStream.start(produce)

    # -- worker thread --------------------------------------------------------------------
    def _produce(
        self,
        stream: AnswerStream,
        gen: Generator,
        question: str,
        built: BuiltPrompt,
        gbnf: str | None,
        t0: float,
        timings: dict[str, float | None],
    ) -> None:
        contexts = built.contexts
        parser = CitationParser(len(contexts))
        pieces: list[str] = []
        first: float | None = None
        error: str | None = None
        interrupted = False
        record = AnswerRecord(question=question)
        try:
            tokens = gen.stream(
                built.messages, max_tokens=self.settings.llm.max_tokens, grammar=gbnf, stop=()
            )
            try:
                for piece in tokens:
                    if stream.cancelled:
                        interrupted = True
                        break
                    if not piece:
                        continue
                    if first is None:
                        first = time.perf_counter() - t0
                    pieces.append(piece)
                    stream.put(TokenEvent(piece))
                    for c in parser.feed(piece):
                        hit = contexts[c.n - 1] if c.valid else None
                        stream.put(CitationEvent(c.n, c.valid, hit))
            finally:
                close = getattr(tokens, "close", None)
                if close is not None:
                    close()
            parser.finish()
        except Exception as e:  # noqa: BLE001 - recorded, the stream must still end
            error = f"generation failed: {type(e).__name__}: {e}"
        try:
            timings.update(first_token_s=first, total_s=time.perf_counter() - t0)
            record = self._record(question, "".join(pieces), built, parser, gen, gbnf, timings)
            record.interrupted = interrupted
            record.error = error
        except Exception as e:  # noqa: BLE001
            record.error = error or f"answer record failed: {type(e).__name__}: {e}"
        finally:
            stream.put(DoneEvent(record))

    def _record(
        self,
        question: str,
        text: str,
        built: BuiltPrompt,
        parser: CitationParser,
        gen: Generator,
        gbnf: str | None,
        timings: dict[str, float | None],
    ) -> AnswerRecord:
        refused = is_refusal(text, self.settings.prompt.refusal_phrase)
        sources = _sources(parser, built.contexts)
        invalid = list(dict.fromkeys(c.n for c in parser.citations if not c.valid))
        return AnswerRecord(
            question=question,
            text=text,
            contexts=list(built.contexts),
            citations=sources,
            invalid_citations=invalid,
            grounded=bool(sources) and not refused,
            refused=refused,
            refusal_reason="model" if refused else None,
            truncated=built.truncation.to_dict() if built.truncation else None,
            timings=timings,
            model_hash=gen.model_hash,
            model_path=str(gen.model_path),
            prompt_version=built.version,
            grammar=gbnf is not None,
        )


def _sources(parser: CitationParser, contexts: Sequence[Hit]) -> list[SourceRef]:
    """Distinct valid citations in order of first appearance, resolved to their hits."""
    seen: dict[int, SourceRef] = {}
    for c in parser.citations:
        if c.valid and c.n not in seen:
            hit = contexts[c.n - 1]
            seen[c.n] = SourceRef(c.n, hit.chunk_id, hit.path, hit.locator.to_dict())
    return list(seen.values())
