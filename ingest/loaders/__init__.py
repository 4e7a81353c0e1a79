"""File loaders: pick one by extension with :func:`loader_for`, then ``load`` a file.

``loader_for`` matches extensions case-insensitively::

    .md .markdown        → MarkdownLoader  (doc_type "md")
    .txt                 → TextLoader      ("txt")
    .pdf                 → PdfLoader       ("pdf")
    .wav .mp3 .m4a .flac .ogg → AudioLoader ("audio")
"""

from __future__ import annotations

from pathlib import Path

from ingest.loaders.audio import AudioLoader
from ingest.loaders.base import LoadContext, Loader
from ingest.loaders.markdown import MarkdownLoader
from ingest.loaders.pdf import PdfLoader
from ingest.loaders.text import TextLoader

_BY_EXTENSION: dict[str, Loader] = {}
for _loader, _exts in (
    (MarkdownLoader(), (".md", ".markdown")),
    (TextLoader(), (".txt",)),
    (PdfLoader(), (".pdf",)),
    (AudioLoader(), (".wav", ".mp3", ".m4a", ".flac", ".ogg")),
):
    for _ext in _exts:
        _BY_EXTENSION[_ext] = _loader

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_BY_EXTENSION)


def loader_for(path: Path | str) -> Loader | None:
    """The loader for ``path``'s extension (case-insensitive), or ``None`` if unsupported."""
    return _BY_EXTENSION.get(Path(path).suffix.lower())


__all__ = [
    "SUPPORTED_EXTENSIONS",
    "AudioLoader",
    "LoadContext",
    "Loader",
    "MarkdownLoader",
    "PdfLoader",
    "TextLoader",
    "loader_for",
]
