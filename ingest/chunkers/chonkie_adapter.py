"""chonkie's recursive and sentence chunkers as kb plug-ins (``kb[chunkers]``).

Entry points ``chonkie-recursive`` and ``chonkie-sentence`` (group ``kb.chunkers``).
chonkie is imported when this module loads (in the plug-in child), so a missing
library fails the plug-in at load time with one line: ``chonkie is not installed:
pip install 'kb-rag[chunkers]'``.

chonkie counts tokens with kb's counter (:func:`~ingest.chunkers.adapters.token_counter`,
the embedder's tokenizer by default) passed as a callable, so ``chunk_size`` is in the
embedder's tokens. Each chonkie ``Chunk`` carries ``start_index``/``end_index``; they
are checked against the chunk's text and the position of the previous chunk, and
relocated with a forward-moving search when wrong
(:func:`~ingest.chunkers.adapters.exact_spans`).

Limits: the recursive chunker keeps every chunk within ``chunk_size`` tokens. The
sentence chunker never splits a sentence, so a single sentence longer than
``chunk_size`` tokens becomes one longer chunk (kb's embedder then reads its first
256 tokens).
"""

from __future__ import annotations

from typing import Any

from ingest.chunkers.adapters import (
    DEFAULT_CHUNK_SIZE,
    AdapterError,
    exact_spans,
    positive_int,
    require,
    token_counter,
)

_chonkie: Any = require("chonkie")


def chonkie_recursive(
    text: str,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    min_characters_per_chunk: int = 24,
    tokenizer: str = "bundled",
) -> list[tuple[int, int]]:
    """``chonkie.RecursiveChunker`` (paragraphs, then lines, sentences, words):
    chunks of at most ``chunk_size`` tokens, none shorter than
    ``min_characters_per_chunk`` characters where it can merge them; no overlap."""
    chunker = _chonkie.RecursiveChunker(
        tokenizer=token_counter(tokenizer).count,
        chunk_size=positive_int("chunk_size", chunk_size),
        min_characters_per_chunk=positive_int("min_characters_per_chunk", min_characters_per_chunk),
    )
    return exact_spans(text, _pieces(chunker.chunk(text)), overlap=False)


def chonkie_sentence(
    text: str,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = 0,
    min_sentences_per_chunk: int = 1,
    tokenizer: str = "bundled",
) -> list[tuple[int, int]]:
    """``chonkie.SentenceChunker``: whole sentences packed up to ``chunk_size`` tokens,
    consecutive chunks sharing about ``chunk_overlap`` tokens of sentences
    (``0 <= chunk_overlap < chunk_size``)."""
    size = positive_int("chunk_size", chunk_size)
    overlap = positive_int("chunk_overlap", chunk_overlap, minimum=0)
    if overlap >= size:
        raise AdapterError(f"chunk_overlap must be less than chunk_size ({size}), got {overlap}")
    chunker = _chonkie.SentenceChunker(
        tokenizer=token_counter(tokenizer).count,
        chunk_size=size,
        chunk_overlap=overlap,
        min_sentences_per_chunk=positive_int("min_sentences_per_chunk", min_sentences_per_chunk),
    )
    return exact_spans(text, _pieces(chunker.chunk(text)), overlap=overlap > 0)


def _pieces(chunks: list[Any]) -> list[tuple[str, int | None, int | None]]:
    return [(c.text, c.start_index, c.end_index) for c in chunks]
