"""Shared parts of the adapters for third-party chunking libraries (``kb[chunkers]``).

The adapters (:mod:`ingest.chunkers.chonkie_adapter`, :mod:`ingest.chunkers.semchunk_adapter`)
are plug-ins under the span contract (:mod:`ingest.chunkers.spans`): they return
``(start, end)`` character spans into the document text and kb slices the text itself.
They run in the plug-in child process (:mod:`ingest.chunkers.worker`), never in kb's.

**Exact spans.** Libraries are known to report wrong offsets on repeated text (chonkie
issue 201, LangChain issue 21475), so a library's offsets are never trusted blindly.
:func:`exact_spans` takes each piece as ``(piece_text, start, end)`` — ``start``/``end``
the library's offsets, or ``None`` when it gives only strings — and keeps ``(start,
end)`` only when ``text[start:end] == piece_text``. Otherwise the piece is *located*:
``text.find(piece_text, cursor)`` with a cursor that only moves forward, never a search
from 0 that would put a repeated paragraph at its first occurrence. The cursor after a
piece at ``[s, e)`` is ``e`` for chunkers without overlap and ``s + 1`` for chunkers
with overlap (the next piece may begin inside this one, never before or at its start).
A piece that cannot be found at or after the cursor raises :class:`AdapterError` with
one line naming the piece. Pieces that are empty or only whitespace are dropped (kb
rejects whitespace-only chunks; they carry nothing to retrieve).

**Tokens.** Chunk sizes are in the embedder's tokens: :func:`token_counter` gives kb's
own counter (:mod:`ingest.tokens`): the bundled all-MiniLM-L6-v2 ``tokenizer.json`` read
with ``tokenizers`` (no torch, no model hub), or the ``tokenizer.json`` of a local model
folder named by the ``tokenizer`` parameter.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from ingest.chunkers.worker import PluginFailure
from ingest.tokens import HFTokenizer, TokenCounter, default_counter

INSTALL_HINT = "pip install 'kb-rag[chunkers]'"
DEFAULT_CHUNK_SIZE = 200  # embedder tokens: the structure chunker's default max_tokens

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the adapters never reach a model hub


class AdapterError(PluginFailure):
    """An adapter cannot produce exact spans; ``str(e)`` is the one-line problem
    (reported by the plug-in worker as is, without a traceback)."""


def require(module: str) -> ModuleType:
    """Import ``module`` or raise :class:`AdapterError` saying how to install it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and e.name.split(".")[0] == module.split(".")[0]:
            raise AdapterError(f"{module} is not installed: {INSTALL_HINT}") from None
        raise


def token_counter(tokenizer: str = "bundled") -> TokenCounter:
    """kb's token counter: ``"bundled"`` (the bundled embedder's tokenizer) or a path to
    a ``tokenizer.json`` file or to a local model folder holding one."""
    if tokenizer == "bundled":
        return default_counter()
    path = Path(tokenizer).expanduser()
    if path.is_dir():
        path = path / "tokenizer.json"
    if not path.is_file():
        raise AdapterError(
            f"tokenizer={tokenizer}: no tokenizer.json there; "
            "use tokenizer=bundled or a local model folder"
        )
    return HFTokenizer(path, f"local:{path.resolve()}")


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int ``>= minimum``, or :class:`AdapterError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise AdapterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def exact_spans(
    text: str, pieces: Iterable[tuple[str, int | None, int | None]], overlap: bool
) -> list[tuple[int, int]]:
    """Spans that slice exactly each piece's text (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for k, (piece, start, end) in enumerate(pieces):
        if not piece.strip():
            continue
        if start is None or end is None or start < cursor or text[start:end] != piece:
            start = text.find(piece, cursor)
            if start < 0:
                raise AdapterError(
                    f"piece {k} ({_preview(piece)}) is not in the text at or after "
                    f"character {cursor}; the library changed the text"
                )
            end = start + len(piece)
        spans.append((start, end))
        cursor = start + 1 if overlap else end
    return spans


def _preview(piece: str, width: int = 40) -> str:
    flat = " ".join(piece.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")
