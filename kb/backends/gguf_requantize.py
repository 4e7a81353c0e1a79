"""A copy of a GGUF model in a weight type llama.cpp reads prompts fast with, made once.

Why: on the CPU, llama.cpp multiplies a whole prompt's tokens at once with its tuned
matrix kernels (llamafile's tinyBLAS and the repacked layouts), which take F16, BF16,
Q8_0 and Q4_0 weights among others, but not Q4_1. The bundled SmolLM2-135M ships as
Q4_1, so its prompt processing (most of ``kb ask``'s time to first token) runs on the
generic path. Measured on these 2-core machines, a 450-token prompt, AVX2 build:

    ============  ==========  =============
    weights       prompt      one more token
    ============  ==========  =============
    Q4_1 (as is)  1.90-2.31 s  18.9 ms
    Q8_0 copy     1.19-1.33 s  16.7 ms
    F16 copy      1.12-1.28 s  29.4 ms
    ============  ==========  =============

Q8_0 from Q4_1 loses almost nothing: a Q4_1 block holds 32 values ``d*q + m``
(q in 0..15); Q8_0 rewrites the block as ``d' * q'`` with ``d' = max|x| / 127`` and
q' in -127..127, so the added rounding error is at most ``d'/2``, about a sixteenth of
a Q4_1 step. F16 keeps the values to about 3 significant digits (nearly exact).

``[llm] requantize``:

- ``auto`` (default): the bundled model is read as its Q8_0 copy; a model of your own
  is read as it is (a copy of a large model costs its size in disk space);
- ``off``: every model as it is;
- ``q8_0`` / ``f16``: a copy of any model in that type.

The copy lives in the model cache (``<KB home>/cache/models/gguf``, or
``KB_MODEL_CACHE``), named after the source file and keyed by its resolved path, size
and modification time, so a changed source makes a new copy. It is written to a
temporary file and renamed, so an interrupted or concurrent conversion never leaves a
truncated model. Making it takes about 0.7 s for the bundled model (like the whisper
model's first join, it is not announced). When no copy can be made (no cache folder, a
read-only or full disk, llama.cpp refuses the file), the source is used as it is, with
a one-line notice.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from kb.errors import ConfigError

REQUANTIZE = ("auto", "off", "q8_0", "f16")
#: what ``auto`` does with the bundled model
BUNDLED_TYPE = "q8_0"
SUBDIR = "gguf"


def target_type(requantize: str, bundled: bool) -> str | None:
    """The weight type to read the model as, or ``None`` for the file as it is."""
    if requantize not in REQUANTIZE:
        raise ConfigError(f"[llm] requantize = {requantize!r}: use one of {', '.join(REQUANTIZE)}")
    if requantize == "auto":
        return BUNDLED_TYPE if bundled else None
    return None if requantize == "off" else requantize


def copy_path(source: Path, cache_dir: Path, kind: str) -> Path:
    """Where the ``kind`` copy of ``source`` lives: ``<cache>/gguf/<stem>.<key>.<kind>.gguf``,
    ``key`` a hash of the source's resolved path, size and modification time."""
    p = Path(source).resolve()
    st = p.stat()
    key = hashlib.sha256(f"{p}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return Path(cache_dir) / SUBDIR / f"{p.stem}.{key}.{kind}.gguf"


def requantized(
    source: Path,
    cache_dir: Path | None,
    kind: str,
    notice: Callable[[str], None] | None = None,
) -> Path:
    """The ``kind`` copy of ``source``, made now if missing; ``source`` itself (with a
    ``notice``, default stderr) when no copy can be made."""
    say = notice or _stderr_notice
    if cache_dir is None:
        say(f"note: answer model read as it is ({source.name}): no model cache for a {kind} copy")
        return source
    target = copy_path(source, cache_dir, kind)
    if target.is_file():
        return target
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _quantize(source, tmp, kind)
        os.replace(tmp, target)
    except (OSError, RuntimeError) as e:
        tmp.unlink(missing_ok=True)
        say(f"note: answer model read as it is ({source.name}): cannot make the {kind} copy ({e})")
        return source
    return target


def _quantize(source: Path, out: Path, kind: str) -> None:
    """llama.cpp's own converter (``llama_model_quantize``), every tensor to ``kind``."""
    import ctypes

    import llama_cpp

    from kb.backends.generator import silence_llama_logs

    silence_llama_logs()
    ftype = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "f16": llama_cpp.LLAMA_FTYPE_MOSTLY_F16}
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype[kind]
    params.allow_requantize = True
    rc = llama_cpp.llama_model_quantize(
        str(source).encode("utf-8"), str(out).encode("utf-8"), ctypes.byref(params)
    )
    if rc != 0 or not out.is_file():
        raise RuntimeError(f"llama.cpp could not convert {source.name} (code {rc})")


def _stderr_notice(message: str) -> None:
    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()
