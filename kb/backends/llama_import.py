"""Import ``llama_cpp`` only after the other native runtime kb loads beside it.

On a CUDA build of llama-cpp-python 0.3.36 (built by the README's
``CMAKE_ARGS="-DGGML_CUDA=on"``; checked on an H100 machine with CUDA 13.0, torch
2.11+cu130 and onnxruntime 1.30), importing ``onnxruntime`` or ``torch`` *after*
``llama_cpp`` kills the process (``free(): invalid pointer``), also with no GPU
visible, while the other order works: ``import onnxruntime, llama_cpp; import torch``
runs. Each library's shared objects load fine on their own, so the clash is in what
the ``llama_cpp`` import sets up, not in one file.

kb embeds queries with ONNX Runtime, and ``kb ask`` loads the answer model on a thread
while the main thread embeds the question, so without a rule the order was a race.
The rule: every kb import of ``llama_cpp`` goes through :func:`import_llama_cpp`,
which imports ``onnxruntime`` first (kb depends on it; a process that answers embeds
its question with it anyway, so nothing extra loads). A process without onnxruntime
imports ``llama_cpp`` as before.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from types import ModuleType


def import_llama_cpp() -> ModuleType:
    """``llama_cpp``, imported after ``onnxruntime`` when this process has not loaded
    it yet (module docstring). Raises ``ImportError`` as ``import llama_cpp`` does."""
    if "llama_cpp" not in sys.modules:
        with contextlib.suppress(ImportError):
            importlib.import_module("onnxruntime")
    return importlib.import_module("llama_cpp")
