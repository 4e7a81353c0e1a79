"""Plug-in chunkers: installed entry points (group ``kb.chunkers``) and local files.

kb loads only what the user names: :func:`installed` reads entry-point *metadata*
(name, distribution, version) without importing anything, and :func:`plugin_chunker`
imports the one plug-in a spec names, in a child process
(:mod:`ingest.chunkers.worker`), never in kb's own.

Identity (:class:`~kb.types.ChunkerInfo`, stored with every chunk): ``name`` is the
spec's name (for a file, its resolved path and ``#function``); ``version`` is the
distribution's version (``"<dist> <version>"``) or, for a file, ``"sha256:"`` and the
first 16 hex digits of the file's content; ``params`` are the spec's params. Editing a
file chunker therefore re-chunks the files it chunked.

:class:`PluginChunker` turns each document into spans through the child, validates
them (:func:`~ingest.chunkers.spans.validate_spans`) and builds the drafts
(:func:`~ingest.chunkers.spans.drafts_from_spans`). Any problem — the plug-in raises,
hangs past ``timeout`` seconds, dies, or returns bad spans — raises
:class:`~kb.errors.IngestError` with one line naming the chunker and the problem, so
the pipeline records the file as failed and stores nothing for it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingest.chunkers.spans import (
    MAX_SPANS,
    SpanError,
    document_text,
    drafts_from_spans,
    validate_spans,
)
from ingest.chunkers.spec import ChunkerSpec
from ingest.chunkers.worker import PluginFailure, PluginProcess, Source
from ingest.tokens import TokenCounter
from kb.errors import IngestError, UsageError
from kb.safe_open import PLUGIN, check, read_bytes, what_is
from kb.types import ChunkDraft, ChunkerInfo, LoadedDocument

GROUP = "kb.chunkers"
DEFAULT_TIMEOUT = 30.0  # seconds per document; KB_CHUNKER_TIMEOUT overrides it


@dataclass(frozen=True)
class Installed:
    """An installed plug-in, from entry-point metadata only (nothing imported)."""

    name: str
    target: str  # "module:function"
    distribution: str
    version: str

    @property
    def identity(self) -> str:
        """The version recorded for its chunkings: ``"<dist> <version>"``."""
        return f"{self.distribution} {self.version}"


def installed() -> list[Installed]:
    """Every entry point in the ``kb.chunkers`` group, sorted by name."""
    from importlib.metadata import entry_points

    out: dict[str, Installed] = {}
    for ep in entry_points(group=GROUP):
        dist = ep.dist
        out.setdefault(
            ep.name,
            Installed(
                ep.name,
                ep.value,
                dist.metadata["Name"] if dist is not None else "?",
                dist.version if dist is not None else "?",
            ),
        )
    return [out[k] for k in sorted(out)]


def default_timeout() -> float:
    """``KB_CHUNKER_TIMEOUT`` (seconds) when set to a positive number, else 30."""
    raw = os.environ.get("KB_CHUNKER_TIMEOUT", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


class PluginChunker:
    """A chunker whose spans come from a plug-in run in a child process."""

    def __init__(
        self,
        info: ChunkerInfo,
        source: Source,
        params: dict[str, Any],
        counter: TokenCounter,
        timeout: float | None = None,
        max_spans: int = MAX_SPANS,
    ) -> None:
        self.info = info
        self.params = params
        self.counter = counter
        self.max_spans = max_spans
        self.process = PluginProcess(
            source, timeout if timeout is not None else default_timeout(), max_spans
        )

    def spans(self, doc: LoadedDocument) -> tuple[str, list[tuple[int, int]]]:
        """The document text and the plug-in's validated spans over it."""
        text = document_text(doc)
        try:
            spans = self.process.call(text, self.params)
            validate_spans(text, spans, self.max_spans)
        except (PluginFailure, SpanError) as e:
            raise IngestError(doc.path, f"chunker {self.info.name}: {e}") from None
        return text, spans

    def chunk(self, doc: LoadedDocument) -> list[ChunkDraft]:
        text, spans = self.spans(doc)
        return drafts_from_spans(doc, text, spans, self.counter)

    def close(self) -> None:
        self.process.close()


def file_version(path: Path) -> str:
    """A file chunker's version: ``"sha256:"`` and the first 16 hex digits of the
    file's content, read through :func:`kb.safe_open.read_bytes` (raises :class:`OSError`
    with the one-line reason when it is not a readable regular file of at most 2 MB)."""
    try:
        data = read_bytes(path, PLUGIN)
    except UsageError as e:
        raise OSError(str(e)) from None
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def plugin_chunker(
    spec: ChunkerSpec, counter: TokenCounter, timeout: float | None = None
) -> PluginChunker:
    """The chunker a file or entry-point ``spec`` names, its child process started and
    the plug-in loaded there. A missing file or entry point, or a plug-in that fails to
    load, raises :class:`UsageError` (before any document is touched)."""
    if spec.file is not None and spec.function is not None:
        path = Path(spec.file).expanduser()
        if what_is(path) == "missing":
            raise UsageError(f"chunker {spec.name}: no such file {spec.file}")
        resolved = check(path, PLUGIN)  # a FIFO or a device: one line, never imported
        name = f"{resolved}#{spec.function}"
        try:
            version = file_version(resolved)
        except OSError as e:
            raise UsageError(str(e)) from None
        info = ChunkerInfo(name, version, dict(spec.params))
        source: Source = ("file", str(resolved), spec.function)
    else:
        found = {p.name: p for p in installed()}.get(spec.name)
        if found is None:
            raise UsageError(_unknown(spec.name))
        info = ChunkerInfo(spec.name, found.identity, dict(spec.params))
        source = ("entry_point", spec.name)
    chunker = PluginChunker(info, source, dict(spec.params), counter, timeout)
    try:
        chunker.process.start()
    except PluginFailure as e:
        raise UsageError(f"chunker {info.name}: {e}") from None
    return chunker


def _unknown(name: str) -> str:
    from ingest.chunkers import CHUNKERS

    names = [*sorted(CHUNKERS), *(p.name for p in installed())]
    return (
        f"unknown chunker {name!r}; valid chunkers: {', '.join(names)} "
        "(or a file: path/to/file.py#function; see `kb chunkers list`)"
    )
