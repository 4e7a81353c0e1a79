"""int8 weights for the ONNX export: an opt-in for faster embedding on a CPU.

``[embedding] quantize = "int8"`` makes kb embed chunks *and* queries with a copy of the
ONNX export (:mod:`kb.backends.onnx_export`) whose weights (the MatMuls and the token
embedding table) are stored as int8, one scale per output channel, with activations
quantized at run time (ONNX Runtime's ``quantize_dynamic``; no calibration data needed).

**What it costs.** The vectors are not the float model's: on squad-dev chunks their
cosine with the float vectors is about 0.994 on average (min about 0.986). So the
quantized model is a model of its own, with the id ``<model id>+int8``
(:func:`kb.backends.embedder.embedding_model_id`): the embedding cache keeps its vectors
apart, and a KB built with one cannot be searched with the other (``kb reindex``
rebuilds every vector after a switch). Its retrieval cost is measured with
``kb eval compare`` (README).

**Where.** ``<model cache>/onnx/<key of the +int8 id>/`` in the machine's model cache
(:mod:`kb.backends.model_cache`): ``model.onnx`` (weights inside, about a quarter of
the float size), the float export's ``tokenizer.json``, ``export.json`` with the
``+int8`` model id, and the cache's ``manifest.json``. Made once per machine from the
float export (which is made first if missing), in a temporary folder renamed into place.

**Checked before it is kept**: every cosine between the float and the int8 vectors of a
few texts must be at least :data:`MIN_COSINE`, else :class:`QuantizeError` (no
silent fallback: falling back to float vectors would mix two models in one KB).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, replace
from pathlib import Path

from kb.backends.onnx_export import _CHECK_TEXTS, ExportInfo, publish

#: the worst cosine accepted between float and int8 vectors of the check texts
MIN_COSINE = 0.97
#: quantize mode -> what it adds to the model id
SUFFIX = {"none": "", "int8": "+int8"}
QUANTIZE_MODES = tuple(SUFFIX)


class QuantizeError(Exception):
    """The float export could not be quantized, or the result drifted too far."""


def quantize(source: Path, target: Path, model_id: str) -> ExportInfo:
    """Write the int8 copy of the float export ``source`` to ``target`` (see module docs).

    Raises :class:`QuantizeError` (quantizer failure or too large a drift) or
    ``OSError`` (folder not writable)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        info = write(source, tmp, model_id)
        publish(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return info


def write(source: Path, out: Path, model_id: str) -> ExportInfo:
    """Write the checked int8 copy of ``source`` into the empty folder ``out`` (the
    caller renames it into place, :func:`kb.backends.model_cache.prepare`)."""
    info = replace(ExportInfo.read(source / "export.json"), model_id=model_id)
    _quantize_graph(source / "model.onnx", out / "model.onnx")
    shutil.copyfile(source / "tokenizer.json", out / "tokenizer.json")
    (out / "export.json").write_text(json.dumps(asdict(info), indent=1), encoding="utf-8")
    worst = drift(source, out)
    if worst < MIN_COSINE:
        raise QuantizeError(
            f"int8 vectors drift too far from the float model's (cosine {worst:.4f} < "
            f'{MIN_COSINE}); keep [embedding] quantize = "none" for this model'
        )
    return info


def _quantize_graph(source: Path, target: Path) -> None:
    """``quantize_dynamic`` of every weight it supports (MatMul, and the token
    embedding table's Gather), int8 per channel. The float export is
    graph-optimised already, where shape inference cannot type every tensor: untyped
    tensors are float (``DefaultTensorType``)."""
    import logging

    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise QuantizeError(f"cannot quantize: {e}") from None
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a pre-processing hint to the root logger
    try:
        quantize_dynamic(
            str(source),
            str(target),
            per_channel=True,
            weight_type=QuantType.QInt8,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    except Exception as e:  # noqa: BLE001 - the quantizer raises many types
        raise QuantizeError(f"onnxruntime could not quantize the export: {e}") from None
    finally:
        root.setLevel(level)


def drift(float_dir: Path, int8_dir: Path) -> float:
    """The smallest cosine between the two exports' vectors of the check texts."""
    import numpy as np

    from kb.backends.onnx_embedder import OnnxEmbedder

    a = OnnxEmbedder(float_dir, threads=1).embed_batch(list(_CHECK_TEXTS))
    b = OnnxEmbedder(int8_dir, threads=1).embed_batch(list(_CHECK_TEXTS))
    return float(np.min(np.sum(a * b, axis=1)))
