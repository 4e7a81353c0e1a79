"""Text embedders.

An :class:`Embedder` maps texts to L2-normalised float32 vectors, so the dot
product of two vectors is their cosine similarity. ``model_id`` names the model
for the store's "what built these vectors" record: two embedders with the same
``model_id`` must produce interchangeable vectors.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kb.config import EmbeddingSettings
from kb.errors import ModelError


class Embedder(ABC):
    model_id: str
    dim: int

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns ``float32[len(texts), dim]``, rows L2-normalised."""

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, ``float32[dim]``."""
        return self.embed_batch([text])[0]

    @property
    def device(self) -> str:
        return "cpu"


def resolve_device(requested: str) -> str:
    """``auto`` picks cuda, then mps, then cpu (importing torch)."""
    if requested != "auto":
        return requested
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def embedding_model_id(settings: EmbeddingSettings) -> str:
    """Stable id recorded in the store: ``bundled:all-MiniLM-L6-v2`` or the folder's name + path."""
    if settings.model == "bundled":
        return "bundled:all-MiniLM-L6-v2"
    return f"local:{Path(settings.model).expanduser().resolve()}"


def quiet_hf_libraries() -> None:
    """Keep transformers/huggingface progress bars and advisories off the user's terminal."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers always comes with s-t
        pass


class SentenceTransformerEmbedder(Embedder):
    """sentence-transformers from a local folder (``HF_HUB_OFFLINE=1``: never downloads)."""

    def __init__(self, settings: EmbeddingSettings, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        quiet_hf_libraries()
        if settings.model == "bundled":
            from kb.backends.bundled import embedding_model_dir

            folder = embedding_model_dir()
        else:
            folder = Path(settings.model).expanduser()
            if not folder.is_dir():
                raise ModelError(
                    f"{folder}: embedding model folder not found; set [embedding] model to a "
                    'local sentence-transformers folder or "bundled"'
                )
        self.model_id = embedding_model_id(settings)
        self.batch_size = batch_size
        device = resolve_device(settings.device)
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(folder), device=device, local_files_only=True)
        except Exception as e:  # noqa: BLE001 - library raises many types
            raise ModelError(f"{folder}: cannot load the embedding model: {e}") from None
        get_dim = getattr(self._model, "get_embedding_dimension", None)
        if get_dim is None:  # sentence-transformers < 5
            get_dim = self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim() or 0)
        self._device = device

    @property
    def device(self) -> str:
        return self._device

    @property
    def tokenizer(self) -> object:
        return self._model.tokenizer

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)


_REGISTRY: dict[str, type[Embedder]] = {"sentence-transformers": SentenceTransformerEmbedder}


def make_embedder(settings: EmbeddingSettings, batch_size: int = 64) -> Embedder:
    return SentenceTransformerEmbedder(settings, batch_size=batch_size)
