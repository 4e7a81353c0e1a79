"""The loader contract: :class:`LoadContext` and the :class:`Loader` protocol.

A loader turns one file into a :class:`~kb.types.LoadedDocument` of sections, each
with its exact locator (lines, pages or seconds) and its character offsets into the
document text. A file that cannot be loaded raises :class:`~kb.errors.IngestError`
naming the file (its path relative to the ingested root) and what to do about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kb.config import Settings
from kb.types import LoadedDocument

if TYPE_CHECKING:
    from kb.backends.transcriber import Transcriber


@dataclass
class LoadContext:
    """What a loader may need beyond the file itself.

    ``transcriber`` is a lazy factory: it is called only when an audio file has no
    cached transcript. ``cache_dir`` is ``<KB home>/cache``; transcripts are cached
    under ``cache_dir / "transcripts"`` (no caching when it is ``None``).
    ``on_audio_progress`` receives the seconds of audio newly transcribed (cache hits
    report nothing); the values of one file add up to its duration.
    """

    settings: Settings
    transcriber: Callable[[], Transcriber]
    cache_dir: Path | None = None
    on_audio_progress: Callable[[float], None] | None = None


class Loader(Protocol):
    """Loads one kind of file. ``doc_type`` is one of ``md``, ``txt``, ``pdf``, ``audio``."""

    doc_type: str

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument: ...
