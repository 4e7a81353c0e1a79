"""semchunk as a kb plug-in (``kb[chunkers]``), entry point ``semchunk``.

semchunk splits at the most meaningful boundary available (blank lines, line breaks,
tabs, sentence ends, clause punctuation, words, characters) until every chunk fits
``chunk_size`` tokens of kb's counter (the embedder's tokenizer by default). It is
imported when this module loads (in the plug-in child), so a missing library fails
the plug-in at load time with one line naming ``pip install 'kb-rag[chunkers]'``.

Offsets come from semchunk itself (``offsets=True``, available since semchunk 2.0),
and are checked like every adapter's (:func:`~ingest.chunkers.adapters.exact_spans`).
``overlap`` is semchunk's: a proportion of ``chunk_size`` when below 1, else a number
of tokens (``0`` turns it off).
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

_semchunk: Any = require("semchunk")


def semchunk(
    text: str,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overlap: float = 0,
    tokenizer: str = "bundled",
) -> list[tuple[int, int]]:
    """``semchunk.chunk(text, chunk_size, counter, offsets=True, overlap=...)`` as
    exact spans; every chunk has at most ``chunk_size`` tokens."""
    size = positive_int("chunk_size", chunk_size)
    if isinstance(overlap, bool) or not isinstance(overlap, int | float) or overlap < 0:
        raise AdapterError(f"overlap must be a number >= 0, got {overlap!r}")
    chunks, offsets = _semchunk.chunk(
        text, size, token_counter(tokenizer).count, offsets=True, overlap=overlap or None
    )
    pieces = [(c, s, e) for c, (s, e) in zip(chunks, offsets, strict=True)]
    return exact_spans(text, pieces, overlap=overlap > 0)
