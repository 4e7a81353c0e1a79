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
