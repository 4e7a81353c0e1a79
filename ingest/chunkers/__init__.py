"""Chunkers: turn a :class:`~kb.types.LoadedDocument` into :class:`~kb.types.ChunkDraft` s.

Pick one by spec with :func:`make_chunker` (spec syntax: :mod:`ingest.chunkers.spec`).
Built-ins (registry :data:`CHUNKERS`):

- ``structure`` (:mod:`ingest.chunkers.structure`): follows headings, pages and
  transcript segments; every chunk ≤ ``chunkers.structure.max_tokens``.
- ``window`` (:mod:`ingest.chunkers.window`): fixed token windows with overlap.

A built-in's spec params override its ``chunkers.<name>`` settings
(``window:size=64``). Any other name is a plug-in (:mod:`ingest.chunkers.plugin`):
an installed ``kb.chunkers`` entry point or a file ``path.py#function``.

``info`` (name, version, params) is stored with every chunk; a change of any of them
means the documents must be re-chunked. Token counts use the embedding model's
tokenizer (:func:`ingest.tokens.counter_for`), whose name is one of the params.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
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


def make_chunker(spec: str, settings: Settings, counter: TokenCounter | None = None) -> Chunker:
    """The chunker ``spec`` names, configured from ``settings`` and the spec's params;
    ``counter`` defaults to the embedding model's tokenizer. Unknown names, unknown
    params of a built-in and plug-ins that fail to load raise :class:`UsageError`."""
    from ingest.chunkers.plugin import plugin_chunker
    from ingest.chunkers.spec import parse_spec

    parsed = parse_spec(spec)
    counter = counter if counter is not None else counter_for(settings.embedding.model)
    factory = CHUNKERS.get(parsed.name)
    if factory is None:
        return plugin_chunker(parsed, counter)
    if parsed.params:
        settings = _with_params(settings, parsed.name, parsed.params)
    return factory(settings, counter)


def installed_version(name: str) -> str | None:
    """The version a chunker stored under ``name`` (a :class:`ChunkerInfo` name) has
    now, read without importing or running it: a built-in's ``VERSION``, an installed
    plug-in's ``"<dist> <version>"``, a file chunker's ``"sha256:"`` and the first 16
    hex digits of its file (``name`` is ``/resolved/path.py#function``). ``None`` when
    it is not there any more (an uninstalled plug-in, a deleted file)."""
    from ingest.chunkers.plugin import file_version, installed
    from ingest.chunkers.structure import VERSION as STRUCTURE_VERSION
    from ingest.chunkers.window import VERSION as WINDOW_VERSION

    builtin = {"structure": STRUCTURE_VERSION, "window": WINDOW_VERSION}
    if name in builtin:
        return builtin[name]
    if "#" in name:
        try:
            return file_version(Path(name.rsplit("#", 1)[0]))
        except OSError:
            return None
    found = {p.name: p for p in installed()}.get(name)
    return None if found is None else found.identity


def spec_label(spec: str, info: ChunkerInfo) -> str:
    """The name a stored chunking is shown by: a built-in's name with every param it
    ran with (the tokenizer aside), e.g. ``window:size=128,overlap=32``; a plug-in's
    spec as given."""
    if info.name not in CHUNKERS:
        return spec
    params = ",".join(f"{k}={v}" for k, v in info.params.items() if k != "tokenizer")
    return f"{info.name}:{params}" if params else info.name


def _with_params(settings: Settings, name: str, params: dict[str, object]) -> Settings:
    """``settings`` with ``chunkers.<name>`` fields replaced by ``params``. Each value
    must have the field's type (an int is accepted for a float); unknown keys and wrong
    types raise :class:`UsageError`."""
    cfg = getattr(settings.chunkers, name)
    fields = {f.name: type(getattr(cfg, f.name)) for f in dataclasses.fields(cfg)}
    values: dict[str, object] = {}
    for key, value in params.items():
        kind = fields.get(key)
        if kind is None:
            raise UsageError(
                f"chunker {name}: unknown param {key!r}; valid: {', '.join(sorted(fields))}"
            )
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
            raise UsageError(f"chunker {name}: {key}={value!r} is not {kind.__name__}")
        values[key] = value
    chunkers = dataclasses.replace(settings.chunkers, **{name: dataclasses.replace(cfg, **values)})
    return dataclasses.replace(settings, chunkers=chunkers)


__all__ = [
    "CHUNKERS",
    "Chunker",
    "StructureChunker",
    "WindowChunker",
    "make_chunker",
    "spec_label",
]
