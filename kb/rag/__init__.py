"""Retrieval-augmented answers: prompt, streamed generation, strict citations.

Public API::

    from kb.rag import AskPipeline, AnswerStream, AnswerRecord
    stream = AskPipeline(retriever, generator_or_factory, settings).ask(question, opts)
    for event in stream: ...          # SourcesEvent, TokenEvent, CitationEvent, DoneEvent
    record = stream.result()
"""

from kb.rag.citations import Citation, CitationParser, parse_citations
from kb.rag.pipeline import AskPipeline
from kb.rag.record import (
    AnswerRecord,
    CitationEvent,
    DoneEvent,
    Event,
    SourceRef,
    SourcesEvent,
    TokenEvent,
    is_refusal,
)
from kb.rag.stream import AnswerStream

__all__ = [
    "AnswerRecord",
    "AnswerStream",
    "AskPipeline",
    "Citation",
    "CitationEvent",
    "CitationParser",
    "DoneEvent",
    "Event",
    "SourceRef",
    "SourcesEvent",
    "TokenEvent",
    "is_refusal",
    "parse_citations",
]
