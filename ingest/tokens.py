"""Token counting for chunk limits.

Chunk limits are in the embedding model's tokens, so a chunk never exceeds what the
embedder reads. :func:`default_counter` loads the bundled all-MiniLM-L6-v2
``tokenizer.json`` with the ``tokenizers`` library (no torch), with truncation and
padding off, and counts tokens *without* the special tokens (``[CLS]``/``[SEP]``).
:class:`RegexTokenizer` (``\\w+|[^\\w\\s]``) is a dependency-free stand-in for tests.

``offsets(text)`` gives each token's ``(start, end)`` character range in ``text``,
in order, non-overlapping; ``count(text) == len(offsets(text))``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol


class TokenCounter(Protocol):
    """``name`` identifies the tokenisation (it is part of the chunker's params)."""

    name: str

    def count(self, text: str) -> int: ...

    def offsets(self, text: str) -> list[tuple[int, int]]: ...


class RegexTokenizer:
    """Words (``\\w+``) and single punctuation characters are tokens; whitespace is not."""

    name = "regex"
    _pattern = re.compile(r"\w+|[^\w\s]")

    def count(self, text: str) -> int:
        return sum(1 for _ in self._pattern.finditer(text))

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self._pattern.finditer(text)]


class HFTokenizer:
    """A ``tokenizers`` tokenizer from a ``tokenizer.json`` file."""

    def __init__(self, path: Path, name: str) -> None:
        from tokenizers import Tokenizer

        tok: Any = Tokenizer.from_file(str(path))
        tok.no_truncation()
        tok.no_padding()
        self._tok = tok
        self.name = name

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        if not text:
            return []
        enc = self._tok.encode(text, add_special_tokens=False)
        out: list[tuple[int, int]] = []
        last = 0
        for start, end in enc.offsets:
            # continuation pieces of one character may repeat offsets; keep them ordered
            start = max(start, last)
            end = max(end, start)
            out.append((start, end))
            last = end
        return out


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The bundled embedding model's tokenizer (loaded once per process)."""
    from kb.backends.bundled import embedding_model_dir

    return HFTokenizer(embedding_model_dir() / "tokenizer.json", "bundled:all-MiniLM-L6-v2")


def counter_for(embedding_model: str) -> TokenCounter:
    """The tokenizer of the configured embedding model: the bundled one for ``"bundled"``,
    else the folder's ``tokenizer.json`` when it has one, else the bundled one."""
    if embedding_model != "bundled":
        folder = Path(embedding_model).expanduser()
        if (folder / "tokenizer.json").is_file():
            return _local_counter(str(folder.resolve()))
    return default_counter()


@lru_cache(maxsize=4)
def _local_counter(folder: str) -> TokenCounter:
    return HFTokenizer(Path(folder) / "tokenizer.json", f"local:{folder}")
