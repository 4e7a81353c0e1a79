"""Text embedders.

An :class:`Embedder` maps texts to L2-normalised float32 vectors, so the dot
product of two vectors is their cosine similarity. ``model_id`` names the model
for the store's "what built these vectors" record: two embedders with the same
``model_id`` must produce interchangeable vectors.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from kb.config import EmbeddingSettings
from kb.errors import ConfigError, ModelError
from kb.errors import notice as stderr_notice
from kb.progress import step


class Embedder(ABC):
    model_id: str
    dim: int
    #: the model cache entry (``kind/key``, :mod:`kb.backends.model_cache`) the vectors
    #: come from, recorded in the KB; ``None`` for a model read where it is
    cache_entry: str | None = None

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
    from kb.backends.llama_import import import_torch

    torch = import_torch()

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def embedding_model_id(settings: EmbeddingSettings) -> str:
    """Stable id recorded in the store: ``bundled:all-MiniLM-L6-v2`` or ``local:<path>``,
    with ``+int8`` under ``[embedding] quantize = "int8"`` (its vectors differ: a model
    of its own, :mod:`kb.backends.onnx_quantize`)."""
    from kb.backends.onnx_quantize import QUANTIZE_MODES, SUFFIX

    if settings.quantize not in QUANTIZE_MODES:
        raise ConfigError(
            f"[embedding] quantize = {settings.quantize!r}: use one of {', '.join(QUANTIZE_MODES)}"
        )
    return base_model_id(settings) + SUFFIX[settings.quantize]


def base_model_id(settings: EmbeddingSettings) -> str:
    """The float model's id, whatever ``quantize`` says."""
    if settings.model == "bundled":
        return "bundled:all-MiniLM-L6-v2"
    return f"local:{Path(settings.model).expanduser().resolve()}"


def model_folder(settings: EmbeddingSettings) -> Path:
    """The local sentence-transformers folder named by ``[embedding] model``."""
    if settings.model == "bundled":
        from kb.backends.bundled import embedding_model_dir

        return embedding_model_dir()
    folder = Path(settings.model).expanduser()
    if not folder.is_dir():
        raise ModelError(
            f"{folder}: embedding model folder not found; set [embedding] model to a "
            'local sentence-transformers folder or "bundled"'
        )
    return folder


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
        folder = model_folder(settings)
        self.model_id = base_model_id(settings)
        self.batch_size = batch_size
        device = resolve_device(settings.device)
        try:
            from kb.backends.llama_import import import_torch

            import_torch()  # before llama_cpp can load beside it (kb.backends.llama_import)
            from sentence_transformers import SentenceTransformer

            with step("loading the embedding model"):
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
RUNTIMES = ("auto", "onnx", "sentence-transformers")


def make_embedder(
    settings: EmbeddingSettings,
    batch_size: int = 64,
    *,
    home: Path | None = None,
    purpose: str = "query",
    notice: Callable[[str], None] | None = None,
) -> Embedder:
    """The embedder for ``settings``: ONNX Runtime where it applies, else sentence-transformers.

    ``home`` is the KB folder the embedder works for (its old model copies are moved
    into the machine's model cache, :mod:`kb.backends.model_cache`, which holds the
    export); without it the result is always sentence-transformers. ``purpose`` is
    ``query`` (search, ask, eval: always on the CPU, where one query takes
    milliseconds) or ``ingest``.

    ``[embedding] runtime``:

    - ``sentence-transformers``: always it (the reference);
    - ``onnx``: ONNX Runtime on the CPU, exporting first if needed;
    - ``auto`` (default): as ``onnx`` for queries, and for ingest when the device is
      ``cpu`` or ``auto`` resolves to the CPU; sentence-transformers on cuda or mps.

    An ONNX runtime with no export yet loads sentence-transformers, exports
    (:mod:`kb.backends.onnx_export`) and then uses the export. A model that cannot be
    exported or run that way falls back to sentence-transformers with a one-line
    ``notice`` (default: stderr). The model id is the same on both runtimes.
    """
    if settings.runtime not in RUNTIMES:
        raise ConfigError(
            f"[embedding] runtime = {settings.runtime!r}: use one of {', '.join(RUNTIMES)}"
        )
    embedding_model_id(settings)  # checks [embedding] quantize
    if settings.quantize != "none":
        return _quantized(settings, batch_size, home, purpose, notice or stderr_notice)
    if home is None or settings.runtime == "sentence-transformers":
        return SentenceTransformerEmbedder(settings, batch_size=batch_size)
    if settings.runtime == "auto" and purpose == "ingest" and not _on_cpu(settings):
        return SentenceTransformerEmbedder(settings, batch_size=batch_size)
    say = notice or stderr_notice
    from kb.backends import model_cache, onnx_export

    model_cache.note_kb(home)
    folder = model_folder(settings)
    model_id = base_model_id(settings)
    entry = onnx_export.entry_for(folder, model_id)
    target = _cached_export(entry, onnx_export.legacy_dir(home, folder, model_id), say)
    if target is None:
        why = onnx_export.known_failure(entry.path)
        st = SentenceTransformerEmbedder(settings, batch_size=batch_size)
        try:
            if why is not None:  # tried before with these very files: do not retry
                raise onnx_export.NotExportable(why)
            onnx_export.check_exportable(folder)
            model_cache.check_writable(Path(entry.path).parent)
            say(
                "note: exporting the embedding model to ONNX, once for this machine "
                f"(about a minute; every KB uses it): {entry.path}"
            )
            target = model_cache.prepare(
                entry,
                lambda tmp: onnx_export.write(st._model, folder, tmp, model_id),
                "exporting the embedding model to ONNX",
            )
        except onnx_export.NotExportable as e:
            onnx_export.remember_failure(entry.path, str(e))
            say(f"note: embedding with sentence-transformers: no ONNX export of {model_id} ({e})")
            return st
        except OSError as e:
            msg = model_cache.unwritable_message(entry.base, e)
            say(f"note: embedding with sentence-transformers: {msg}")
            return st
        except ImportError as e:
            say(f"note: embedding with sentence-transformers: no ONNX export of {model_id} ({e})")
            return st
    try:
        from kb.backends.onnx_embedder import OnnxEmbedder

        with step("loading the embedding model"):
            emb = OnnxEmbedder(
                target,
                threads=settings.threads,
                batch_size=batch_size,
                quick_start=purpose == "query",
            )
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own types
        say(f"note: embedding with sentence-transformers: cannot run the ONNX export ({e})")
        return SentenceTransformerEmbedder(settings, batch_size=batch_size)
    emb.cache_entry = entry.name if target == entry.path else None
    return emb


def _cached_export(entry: Any, legacy: Path | None, say: Callable[[str], None]) -> Path | None:
    """The export's folder if the model cache has it, or a KB's old copy (moved into
    the cache, or used where it is when the cache cannot be written); ``None``: make it."""
    from kb.backends import model_cache, onnx_export

    if model_cache.ready(entry):
        return Path(entry.path)
    if legacy is None or not onnx_export.is_complete(legacy):
        return None
    try:
        return model_cache.adopt(entry, legacy, onnx_export.is_complete)
    except OSError as e:
        say(f"note: {model_cache.unwritable_message(entry.base, e)}; using the KB's copy {legacy}")
        return legacy


def _quantized(
    settings: EmbeddingSettings,
    batch_size: int,
    home: Path | None,
    purpose: str,
    say: Callable[[str], None],
) -> Embedder:
    """The int8 embedder (:mod:`kb.backends.onnx_quantize`), for queries and ingest alike
    and on the CPU, made from the float export on first use. Never falls back to the
    float model: its vectors would not match the KB's."""
    from kb.backends import onnx_export, onnx_quantize

    what = f'[embedding] quantize = "{settings.quantize}"'
    if settings.runtime == "sentence-transformers":
        raise ConfigError(f'{what} runs on ONNX Runtime: set runtime = "auto" or "onnx"')
    if home is None:
        raise ModelError(f"{what} needs a KB folder to keep its ONNX export in")
    from kb.backends import model_cache
    from kb.backends.onnx_embedder import OnnxEmbedder

    model_cache.note_kb(home)
    folder, qid = model_folder(settings), embedding_model_id(settings)
    entry = onnx_export.entry_for(folder, qid)
    target = _cached_export(entry, onnx_export.legacy_dir(home, folder, qid), say)
    if target is None:
        # the float export first, as every ONNX embedder gets it (made once, failures kept)
        plain = make_embedder(
            replace(settings, quantize="none", runtime="onnx"),
            batch_size,
            home=home,
            purpose=purpose,
            notice=say,
        )
        if not isinstance(plain, OnnxEmbedder):
            raise ModelError(
                f'{what}: the model has no ONNX export to quantize; set quantize = "none"'
            )
        try:
            model_cache.check_writable(Path(entry.path).parent)
            say(
                f"note: making the int8 copy of the embedding model, once per machine: {entry.path}"
            )
            target = model_cache.prepare(
                entry,
                lambda tmp: onnx_quantize.write(plain.folder, tmp, qid),
                "quantizing the embedding model to int8",
            )
        except onnx_quantize.QuantizeError as e:
            raise ModelError(
                f'{what}: cannot make the int8 model ({e}); set quantize = "none"'
            ) from None
        except OSError as e:
            why = model_cache.unwritable_message(entry.base, e)
            raise ModelError(f"{what}: cannot make the int8 model: {why}") from None
    emb = OnnxEmbedder(
        target, threads=settings.threads, batch_size=batch_size, quick_start=purpose == "query"
    )
    emb.cache_entry = entry.name if target == entry.path else None
    return emb


def _on_cpu(settings: EmbeddingSettings) -> bool:
    """Whether ingest embeds on the CPU; ``auto`` imports torch only where a GPU may exist."""
    if settings.device != "auto":
        return settings.device == "cpu"
    from kb.backends.devices import gpu_present

    if not gpu_present():
        return True
    return resolve_device("auto") == "cpu"
