"""Import ``llama_cpp`` and ``torch`` only after ``onnxruntime``, one at a time.

On a CUDA build of llama-cpp-python 0.3.36 (built by the README's
``CMAKE_ARGS="-DGGML_CUDA=on"``; checked on an H100 machine with CUDA 13.0 and that
machine's own torch 2.11+cu130 and onnxruntime 1.30), importing ``onnxruntime`` after
``llama_cpp`` crashes the process (a segmentation fault), and importing ``torch`` after
it aborts it (``free(): invalid pointer``), also with no GPU visible. The other orders
work: ``import onnxruntime, llama_cpp; import torch`` runs, and so does ``import torch,
llama_cpp``. Each library's shared objects load fine on their own, so the clash is in
what the ``llama_cpp`` import sets up, not in one file.

kb embeds queries with ONNX Runtime, and ``kb ask`` loads the answer model on a thread
while the main thread embeds the question (with sentence-transformers, so torch, when
the model has no ONNX export), so without a rule the order was a race. The rule: kb
imports ``llama_cpp`` through :func:`import_llama_cpp` and ``torch`` through
:func:`import_torch`. Both import ``onnxruntime`` first (kb depends on it; a process that
answers embeds its question with it anyway), and both hold one process-wide lock, so the
two never load at the same time. A process without onnxruntime imports them as before.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from types import ModuleType

#: held while onnxruntime, llama_cpp or torch is first imported (module docstring)
_LOCK = threading.RLock()


def _import_after_onnxruntime(name: str) -> ModuleType:
    """``name``, imported under the lock with ``onnxruntime`` before it; a module this
    process already has is returned at once."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with _LOCK:
        with contextlib.suppress(ImportError):
            importlib.import_module("onnxruntime")
        return importlib.import_module(name)


def import_llama_cpp() -> ModuleType:
    """``llama_cpp``, imported after ``onnxruntime`` (module docstring). Raises
    ``ImportError`` as ``import llama_cpp`` does."""
    return _import_after_onnxruntime("llama_cpp")


def import_torch() -> ModuleType:
    """``torch``, imported after ``onnxruntime`` (module docstring); call it before
    anything that imports torch (sentence-transformers). Raises ``ImportError`` as
    ``import torch`` does."""
    return _import_after_onnxruntime("torch")
