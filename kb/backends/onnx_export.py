"""Export a sentence-transformers folder to ONNX once per machine (the model cache).

The export is what lets ``kb search`` and ``kb ask`` embed a query without importing
torch: :mod:`kb.backends.onnx_embedder` runs it with ONNX Runtime and the model's own
``tokenizer.json`` (the ``tokenizers`` library).

**What is exported.** Only the transformer (``token ids -> token embeddings``); the
pooling named by the folder's ``modules.json`` and ``1_Pooling/config.json`` is done in
numpy at run time. A folder whose module list is not exactly ``Transformer``,
``Pooling`` and optionally ``Normalize``, or whose pooling is not a single one of
``mean``, ``cls``, ``max`` or ``mean_sqrt_len``, or that has no ``tokenizer.json``, is
*not exportable* (:class:`NotExportable`); callers then keep sentence-transformers.

**Where.** In the machine's model cache (:mod:`kb.backends.model_cache`), shared by
every KB: ``<model cache>/onnx/<key>/`` with ``model.onnx`` (graph, optimised by ONNX
Runtime at its portable level), ``model.data`` (weights), ``tokenizer.json``,
``export.json`` (pooling, ``max_seq_length``, input names, pad id, lower-casing) and the
cache's ``manifest.json`` (every file's sha256). The key (:func:`entry_for`) hashes the
model folder's *content* with :data:`EXPORT_VERSION` and the model id, so replacing the
model's files gives a new key and a stale export is never used, and the same model
installed twice shares one export. A KB made before the shared cache kept its export in
``<KB>/cache/models/onnx/<stat key>/`` (:func:`legacy_dir`, keyed by the files' sizes
and modification times, :func:`manifest_key`): it is moved into the cache on first use.

**Fused for a BERT model.** A model whose config says ``model_type = "bert"`` (MiniLM,
the bundled default, and most sentence-transformers models) is exported with eager
attention and passed through ONNX Runtime's transformer optimizer, which fuses each
layer's attention into one ``Attention`` op and the residual adds into
``SkipLayerNormalization``: about 10% faster encoding on a CPU (squad-dev chunks and
sentences, 2 cores), same vectors (cosine >= 0.99999). If the fusion fails, or its
graph does not pass the check below, the plain graph is kept.

**Failures are remembered** in ``<key>.not-exportable`` beside the folder (the reason,
one line), so a model that cannot be exported is not retried by every command; new
files make a new key and a new try.

**Checked before it is kept.** The export is written to a temporary folder, run on a
few texts and compared with the loaded sentence-transformers model; it is renamed into
place only if every cosine is at least :data:`MIN_COSINE`. A crash leaves at most a
``*.tmp*`` folder, never a half-written export.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

EXPORT_VERSION = 2  # 2: BERT graphs fused (ORT transformer optimizer)
MIN_COSINE = 0.9999
#: ``config.model_type`` values whose graphs ONNX Runtime's BERT fusions understand
FUSABLE_TYPES = frozenset({"bert"})
POOLING_MODES = ("mean", "cls", "max", "mean_sqrt_len")
_CHECK_TEXTS = (
    "hello",
    "Which NFL team represented the AFC at Super Bowl 50?",
    "A longer passage, with punctuation; numbers like 1,024 and 3.5; and UPPER case words "
    "that make the sequence longer than the others so padding matters. " * 3,
)
_POOLING_KEYS = {
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len",
}
#: ``pooling_mode`` names (sentence-transformers 6's format) -> kb's names
_POOLING_NAMES = {
    "mean": "mean",
    "cls": "cls",
    "max": "max",
    "mean_sqrt_len_tokens": "mean_sqrt_len",
}


class NotExportable(Exception):
    """The folder's modules or files are outside what the ONNX path reproduces."""


@dataclass(frozen=True)
class ExportInfo:
    """``export.json``: everything the runtime needs besides the graph and tokenizer."""

    model_id: str
    pooling: str
    normalize: bool
    max_seq_length: int
    input_names: tuple[str, ...]
    pad_id: int
    lowercase: bool
    dim: int
    version: int = EXPORT_VERSION

    @classmethod
    def read(cls, path: Path) -> ExportInfo:
        d = json.loads(path.read_text(encoding="utf-8"))
        d["input_names"] = tuple(d["input_names"])
        return cls(**d)


def pooling_of(folder: Path) -> tuple[str, bool]:
    """``(pooling mode, normalize)`` from ``modules.json``; raises :class:`NotExportable`."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise NotExportable(f"no readable modules.json ({e})") from None
    types = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if types not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise NotExportable(f"modules {types} (only Transformer, Pooling[, Normalize])")
    pool_dir = folder / str(modules[1].get("path") or "1_Pooling")
    try:
        cfg = json.loads((pool_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise NotExportable(f"no readable pooling config ({e})") from None
    return _pooling_mode(cfg), len(types) == 3


def _pooling_mode(cfg: dict[str, Any]) -> str:
    """The one pooling mode of a ``1_Pooling/config.json``, in either of
    sentence-transformers' formats: one ``pooling_mode`` (a name, or a list of one; the
    format models saved by sentence-transformers 6 have) or the older ``pooling_mode_*``
    booleans. Raises :class:`NotExportable` for none, several, or another mode."""
    mode = cfg.get("pooling_mode")
    if isinstance(mode, list) and len(mode) == 1:
        mode = mode[0]
    if mode is not None:
        name = _POOLING_NAMES.get(mode) if isinstance(mode, str) else None
        if name is None:
            raise NotExportable(f"pooling {mode!r} (only one of {', '.join(POOLING_MODES)})")
        return name
    on = [k for k, v in cfg.items() if k.startswith("pooling_mode_") and v is True]
    if len(on) != 1 or on[0] not in _POOLING_KEYS:
        raise NotExportable(f"pooling {on} (only one of {', '.join(POOLING_MODES)})")
    return _POOLING_KEYS[on[0]]


def check_exportable(folder: Path) -> tuple[str, bool]:
    """:func:`pooling_of`, and a ``tokenizer.json`` must be there; cheap (no model load)."""
    pooling = pooling_of(folder)
    if not (folder / "tokenizer.json").is_file():
        raise NotExportable("no tokenizer.json (a fast tokenizer is needed)")
    return pooling


def manifest_key(folder: Path, model_id: str) -> str:
    """Cache key: model id + every file's relative path, size and mtime (see module docs)."""
    h = hashlib.sha256(f"{EXPORT_VERSION}\0{model_id}\0".encode())
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            st = p.stat()
            h.update(f"{p.relative_to(folder)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def entry_for(folder: Path, model_id: str, options: dict[str, Any] | None = None) -> Any:
    """The :class:`kb.backends.model_cache.Entry` of the export of ``folder`` as
    ``model_id`` (``options`` adds to the key: the int8 copy's ``quantize``)."""
    from kb.backends import model_cache

    opts = {"export_version": EXPORT_VERSION, "model_id": model_id, **(options or {})}
    return model_cache.entry("onnx", [folder], opts, label=model_id)


def export_dir(home: Path | None, folder: Path, model_id: str) -> Path:
    """Where the export of ``folder`` as ``model_id`` lives in the model cache."""
    return Path(entry_for(folder, model_id).path)


def legacy_dir(home: Path | None, folder: Path, model_id: str) -> Path | None:
    """Where a KB made before the shared cache kept this export (module docs)."""
    from kb.backends.model_cache import legacy_dir as kb_models

    base = kb_models(home)
    return None if base is None else base / "onnx" / manifest_key(folder, model_id)


def _failure_file(target: Path) -> Path:
    return target.with_name(f"{target.name}.not-exportable")


def known_failure(target: Path) -> str | None:
    """Why an earlier export of the same files failed (``None`` if none did)."""
    try:
        return _failure_file(target).read_text(encoding="utf-8").strip() or "failed before"
    except OSError:
        return None


def is_complete(target: Path) -> bool:
    return all((target / n).is_file() for n in ("model.onnx", "tokenizer.json", "export.json"))


def export(st_model: Any, folder: Path, target: Path, model_id: str) -> ExportInfo:
    """Write the export of the loaded SentenceTransformer ``st_model`` to ``target``.

    Raises :class:`NotExportable` (unsupported model, failed check) or ``OSError``
    (folder not writable). Needs torch and onnx (export time only).
    """
    try:
        return _export(st_model, folder, target, model_id)
    except NotExportable as e:
        remember_failure(target, str(e))  # later commands do not retry the same files
        raise


def _export(st_model: Any, folder: Path, target: Path, model_id: str) -> ExportInfo:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        info = write(st_model, folder, tmp, model_id)
        publish(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return info


def write(st_model: Any, folder: Path, out: Path, model_id: str) -> ExportInfo:
    """Write the checked export into the empty folder ``out`` (no rename: the caller
    publishes it, :func:`kb.backends.model_cache.prepare`). Raises
    :class:`NotExportable`; needs torch and onnx."""
    pooling, normalize = check_exportable(folder)
    transformer = st_model[0]
    hf_tok = transformer.tokenizer
    sample = hf_tok(["a b", "c"], padding=True, return_tensors="pt")
    names = tuple(n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample)
    info = ExportInfo(
        model_id=model_id,
        pooling=pooling,
        normalize=normalize,
        max_seq_length=int(st_model.max_seq_length),
        input_names=names,
        pad_id=int(hf_tok.pad_token_id or 0),
        lowercase=bool(getattr(transformer, "do_lower_case", False)),
        dim=int(transformer.auto_model.config.hidden_size),
    )
    config = transformer.auto_model.config
    fuse = getattr(config, "model_type", "") in FUSABLE_TYPES
    shutil.copyfile(folder / "tokenizer.json", out / "tokenizer.json")
    (out / "export.json").write_text(json.dumps(asdict(info), indent=1), encoding="utf-8")
    if fuse:
        try:
            _graph(st_model, names, sample, out, fused=True)
            _check(st_model, out)
        except NotExportable:
            fuse = False  # the plain graph below
    if not fuse:
        _graph(st_model, names, sample, out, fused=False)
        _check(st_model, out)
    return info


def remember_failure(target: Path, reason: str) -> None:
    """Keep why the export of these files failed beside ``target`` (best effort)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _failure_file(target).write_text(reason, encoding="utf-8")
    except OSError:
        pass


def _graph(st_model: Any, names: tuple[str, ...], sample: Any, tmp: Path, *, fused: bool) -> None:
    """Write ``tmp/model.onnx`` (+ ``model.data``): the transformer's token embeddings,
    exported by ``torch.onnx.export`` and optimised; with ``fused``, exported with eager
    attention and fused by ONNX Runtime's transformer optimizer first (module docs).
    Raises :class:`NotExportable` when torch cannot export it, or (``fused``) when the
    optimizer fails."""
    import torch

    transformer = st_model[0]
    model = transformer.auto_model

    class _TokenEmbeddings(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    for stale in ("raw.onnx", "fused.onnx", "model.onnx", "model.data"):
        (tmp / stale).unlink(missing_ok=True)
    attention = getattr(model.config, "_attn_implementation", None)
    try:
        if fused:
            model.set_attn_implementation("eager")  # the pattern the fusions match
        module = _TokenEmbeddings(model).eval().to("cpu")
        axes = {n: {0: "batch", 1: "seq"} for n in (*names, "token_embeddings")}
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer and deprecation chatter
            torch.onnx.export(
                module,
                tuple(sample[n].to("cpu") for n in names),
                str(tmp / "raw.onnx"),
                input_names=list(names),
                output_names=["token_embeddings"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
    except Exception as e:  # noqa: BLE001 - the exporter raises many types
        raise NotExportable(f"torch.onnx.export failed: {str(e).splitlines()[0]}") from None
    finally:
        model.to(st_model.device)
        if fused and attention is not None:
            model.set_attn_implementation(attention)
    if fused:
        _fuse(tmp / "raw.onnx", model.config)
    _optimize(tmp / "raw.onnx", tmp / "model.onnx")


def _fuse(raw: Path, config: Any) -> None:
    """Replace ``raw`` by its graph fused by ``onnxruntime.transformers.optimizer``
    (BERT fusions: ``Attention``, ``SkipLayerNormalization``, ``EmbedLayerNormalization``,
    ``BiasGelu``); :class:`NotExportable` if that fails or fuses no attention."""
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the optimizer logs its progress to the root logger
    try:
        from onnxruntime.transformers import optimizer

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = optimizer.optimize_model(
                str(raw),
                model_type="bert",
                num_heads=int(config.num_attention_heads),
                hidden_size=int(config.hidden_size),
            )
        fused = model.get_fused_operator_statistics().get("Attention", 0)
        if fused < 1:
            raise NotExportable("no attention fused")
        model.save_model_to_file(str(raw.with_name("fused.onnx")))
    except NotExportable:
        raise
    except Exception as e:  # noqa: BLE001 - the optimizer raises many types
        raise NotExportable(f"fusion failed: {str(e).splitlines()[0]}") from None
    finally:
        root.setLevel(level)
    os.replace(raw.with_name("fused.onnx"), raw)


def publish(tmp: Path, target: Path) -> None:
    """Rename the finished folder ``tmp`` to ``target`` (atomic); losing the race to
    another process that published a complete one first is not an error."""
    try:
        os.replace(tmp, target)
    except OSError:
        if not is_complete(target):
            raise


def _optimize(raw: Path, final: Path) -> None:
    """Save ``raw`` graph-optimised (portable ``EXTENDED`` level) with its weights in a
    separate ``model.data``: ONNX Runtime loads that 2-3x faster than one protobuf of
    90 MB, which is most of a cold query's cost. Keeps ``raw`` as is if that fails."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    opts.optimized_model_filepath = str(final)
    opts.log_severity_level = 3
    opts.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", "model.data"
    )
    opts.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
    )
    try:
        ort.InferenceSession(str(raw), opts, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - an unoptimised graph still works
        final.unlink(missing_ok=True)
        (final.parent / "model.data").unlink(missing_ok=True)
        os.replace(raw, final)
        return
    raw.unlink()


def _check(st_model: Any, folder: Path) -> None:
    """Raise :class:`NotExportable` unless the export reproduces ``st_model``."""
    import numpy as np

    from kb.backends.onnx_embedder import OnnxEmbedder

    ref = st_model.encode(list(_CHECK_TEXTS), normalize_embeddings=True, convert_to_numpy=True)
    got = OnnxEmbedder(folder, threads=1, quick_start=False).embed_batch(list(_CHECK_TEXTS))
    cos = np.sum(np.asarray(ref, dtype=np.float32) * got, axis=1)
    if float(cos.min()) < MIN_COSINE:
        raise NotExportable(f"exported model differs (cosine {float(cos.min()):.6f})")
