"""Chunkers: turn a :class:`~kb.types.LoadedDocument` into :class:`~kb.types.ChunkDraft` s.

Pick one by name with :func:`make_chunker` (registry :data:`CHUNKERS`):

- ``structure`` (:mod:`ingest.chunkers.structure`): follows headings, pages and
  transcript segments; every chunk ≤ ``chunkers.structure.max_tokens``.
- ``window`` (:mod:`ingest.chunkers.window`): fixed token windows with overlap.

``info`` (name, version, params) is stored with every chunk; a change of any of them
means the documents must be re-chunked. Token counts use the embedding model's
tokenizer (:func:`ingest.tokens.counter_for`), whose name is one of the params.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ingest.chunkers.structure import StructureChunker
from ingest.chunkers.window import WindowChunker
from ingest.tokens import TokenCounter, counter_for
from kb.config import Settings
from kb.errors import ConfigError, UsageError
from kb.types import ChunkDraft, ChunkerInfo, LoadedDocument


class Chunker(Protocol):
    info: ChunkerInfo

    def chunk(self, doc: LoadedDocument) -> list[ChunkDraft]: ...


def _structure(settings: Settings, counter: TokenCounter) -> Chunker:
    cfg = settings.chunkers.structure
    if cfg.max_tokens < 8:
        raise ConfigError(
            f"chunkers.structure.max_tokens: must be at least 8, got {cfg.max_tokens}"
        )
    if not 0 <= cfg.min_tokens <= cfg.max_tokens:
        raise ConfigError(
            f"chunkers.structure.min_tokens: must be between 0 and max_tokens "
            f"({cfg.max_tokens}), got {cfg.min_tokens}"
        )
    if settings.whisper.segment_seconds <= 0:
        raise ConfigError(
            f"whisper.segment_seconds: must be positive, got {settings.whisper.segment_seconds}"
        )
    return StructureChunker(
        cfg.max_tokens, cfg.min_tokens, settings.whisper.segment_seconds, counter
    )


def _window(settings: Settings, counter: TokenCounter) -> Chunker:
    cfg = settings.chunkers.window
    if cfg.size < 8:
        raise ConfigError(f"chunkers.window.size: must be at least 8, got {cfg.size}")
    if not 0 <= cfg.overlap < cfg.size:
        raise ConfigError(
            f"chunkers.window.overlap: must be between 0 and size - 1 ({cfg.size - 1}), "
            f"got {cfg.overlap}"
        )
    return WindowChunker(cfg.size, cfg.overlap, counter)


CHUNKERS: dict[str, Callable[[Settings, TokenCounter], Chunker]] = {
    "structure": _structure,
    "window": _window,
}


def make_chunker(name: str, settings: Settings, counter: TokenCounter | None = None) -> Chunker:
    """The chunker called ``name``, configured from ``settings``; ``counter`` defaults to
    the embedding model's tokenizer. Unknown names raise :class:`UsageError`."""
    factory = CHUNKERS.get(name)
    if factory is None:
        raise UsageError(f"unknown chunker {name!r}; valid chunkers: {', '.join(sorted(CHUNKERS))}")
    return factory(
        settings, counter if counter is not None else counter_for(settings.embedding.model)
    )


__all__ = ["CHUNKERS", "Chunker", "StructureChunker", "WindowChunker", "make_chunker"]
