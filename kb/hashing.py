"""Content hashes (stdlib only): one definition for ingest, transcript caches and model files."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: Path, block_size: int = 1 << 20) -> str:
    """Hex SHA-256 of the file's bytes, read in ``block_size`` blocks (constant memory)."""
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(block_size), b""):
            h.update(block)
    return h.hexdigest()


def embed_text(heading_path: str, text: str) -> str:
    """The text a chunk's vector is computed from: its heading path (``A > B``), a
    newline, then its text; just the text when there is no heading."""
    return f"{heading_path}\n{text}" if heading_path else text


def text_sha256(text: str) -> str:
    """Hex SHA-256 of ``text`` as UTF-8 (a lone surrogate is kept, not an error): the
    key of the embedding cache, together with the model's identity."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
